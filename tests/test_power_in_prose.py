"""A spec constant written m × 10^k inside a sentence's formula (`here c = {cap}`): one formula
`$c = 1.00 \\times 10^{6}$` in LaTeX and Beamer, and in Markdown's math, never a formula nested
in another (`$c = $1.00 \\times 10^{6}$$`, which pdflatex refuses) nor the power left outside
(`$c = 1.00$×10⁶`)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from attncli.render.symbols import power_math
from tests.conftest import run
from tests.test_latex_pages import pdflatex


def spec(tmp_path: Path, softcap: float) -> Path:
    path = tmp_path / "s.json"
    path.write_text(json.dumps({"tokens": ["a", "b"], "embeddings": [[1, 0], [0, 1]],
                                "softcap": softcap}), encoding="utf-8")
    return path


def test_a_power_is_one_formula_with_its_exponent_whole() -> None:
    assert power_math("1.00×10⁶") == r"1.00 \times 10^{6}"
    assert power_math("−2,50×10⁻³¹⁰") == r"-2{,}50 \times 10^{-310}"
    assert power_math("1.00") is None


@pytest.mark.parametrize(("softcap", "lang", "tex"), [
    (1e6, "en", r"here $c = 1.00 \times 10^{6}$: a small score"),
    (2.5e7, "pl", r"tu $c = 2.50 \times 10^{7}$: mały wynik"),
    (1e308, "ru", r"здесь $c = 1.00 \times 10^{308}$: небольшая оценка"),
])
@pytest.mark.parametrize("kind", [["--latex", "--standalone"], ["--beamer"]])
def test_a_soft_cap_of_a_million_or_more_compiles(tmp_path: Path, softcap: float, lang: str,
                                                  tex: str, kind: list[str]) -> None:
    out = tmp_path / "o.tex"
    result = run("export", str(spec(tmp_path, softcap)), *kind, "--lang", lang,
                 "-o", str(out))
    assert result.exit_code == 0, result.stderr
    source = out.read_text(encoding="utf-8")
    assert tex in source
    pdflatex(source, tmp_path / "pdf")


@pytest.mark.parametrize(("flavor", "args", "line"), [
    ("github", [], "here $`c = 1.00 \\times 10^{6}`$: a small score"),
    ("katex", ["--decimal-comma", "--lang", "pl"], "tu $c = 1{,}00 \\times 10^{6}$: mały wynik"),
])
def test_markdown_writes_the_power_inside_the_formula(tmp_path: Path, flavor: str,
                                                      args: list[str], line: str) -> None:
    out = tmp_path / "o.md"
    result = run("export", str(spec(tmp_path, 1e6)), "--markdown", "--md-flavor", flavor, *args,
                 "-o", str(out))
    assert result.exit_code == 0, result.stderr
    text = out.read_text(encoding="utf-8")
    assert line in text
    assert "×10⁶" not in text.split("(-c, c)")[1].split("\n")[0]
