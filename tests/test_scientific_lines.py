"""A line of numbers written m × 10^k at 12 decimals: a product or a quotient of two or three of
them is wider than a Beamer line, so it may break between its numbers (each still one group).
It was one group: embeddings of 1e150 and -2e149 with scale 1e140, Beamer 4:3 at -p 12, made
cos θ's line 98.8 pt too wide, a bfloat16 spec of 3e38 69 pt, a LaTeX page at --full 28 pt."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.conftest import run
from tests.test_latex_pages import pdflatex

SPEC = ('{"tokens": ["a", "b"], "embeddings": [[1e150, 1.0], [-2e149, 3e-150]], '
        '"scale": 1e140}')


@pytest.mark.parametrize("args", [["--beamer", "--aspect", "43", "-p", "12"],
                                  ["--latex", "--standalone", "--full", "-p", "12",
                                   "--decimal-comma", "--lang", "pl,en,ru"]])
def test_products_of_large_numbers_break_between_them(tmp_path: Path, args: list[str]) -> None:
    (tmp_path / "s.json").write_text(SPEC, encoding="utf-8")
    result = run("export", str(tmp_path / "s.json"), *args, "-o", str(tmp_path / "o.tex"))
    assert result.exit_code == 0, result.stderr
    tex = (tmp_path / "o.tex").read_text(encoding="utf-8")
    # cos θ[a, b] = (q·k) / (|q| |k|): three numbers, a break allowed after / and after ·
    mark = "{,}" if "--decimal-comma" in args else "."
    assert (rf"{{(-2{mark}000000000000 \times 10^{{299}})}} / \allowbreak "
            rf"{{({{1{mark}000000000000 \times 10^{{150}}}} \cdot \allowbreak "
            rf"{{2{mark}000000000000 \times 10^{{149}}}})}}") in tex
    assert re.findall(r"Overfull \\[hv]box[^\n]*", pdflatex(tex, tmp_path / "pdf")) == []
