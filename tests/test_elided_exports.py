"""Exports of a large spec elide the middle of a large matrix as the terminal does, unless --full:
the 256-token walkthrough (benchmarks/large_spec.py) compiles with pdflatex and Beamer with no
overfull box, renders in KaTeX and MathJax with every shown matrix a grid, and shows at its
corners the numbers of the JSON export; a worksheet blanks only cells a reader can see.

The shown rows are worked out in the tests from the rule (the first and last four of an axis
longer than nine, when a matrix has more than 150 numbers: tests/test_markdown_render.py
`shown`), not taken from attncli.arithmetic.elision.
"""

from __future__ import annotations

import atexit
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from decimal import ROUND_HALF_UP, Decimal
from functools import cache
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from attncli.cli.app import app
from tests.matrix import turn
from tests.test_export_renderers import need
from tests.test_markdown_render import check_grids, expected_matrices, run_pages, shown

ROOT = Path(__file__).resolve().parent.parent
N = 256
runner = CliRunner()


@cache
def large_spec(n: int = N) -> Path:
    """benchmarks/large_spec.py's spec of n tokens (fixed seed), in a folder of its own."""
    text = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "large_spec.py"), str(n)],
                          capture_output=True, text=True, check=True).stdout
    folder = Path(tempfile.mkdtemp(prefix="attn-elided-"))
    atexit.register(remove, folder, os.getpid())  # cached: used until the run ends
    path = folder / f"large{n}.yaml"
    path.write_text(text, encoding="utf-8")
    return path


def remove(folder: Path, owner: int) -> None:
    """`folder` removed, by the process that made it (never by a process forked from it)."""
    if os.getpid() == owner:
        shutil.rmtree(folder, ignore_errors=True)


def export(*args: str) -> str:
    result = runner.invoke(app, ["export", *args])
    assert result.exit_code == 0, result.output
    return result.stdout


def half_up(x: float) -> str:
    text = str(Decimal(repr(x)).quantize(Decimal("0.01"), rounding=ROUND_HALF_UP))
    return text.replace("-", "−") if text not in ("-0.00",) else "0.00"


def compile_latex(tex: str, folder: Path) -> tuple[str, int]:
    """pdflatex's log and the page count."""
    if shutil.which("pdflatex") is None:
        need("pdflatex", "apt-get install texlive-latex-recommended")
    (folder / "doc.tex").write_text(tex, encoding="utf-8")
    done = subprocess.run(["pdflatex", "-interaction=nonstopmode", "-halt-on-error", "doc.tex"],
                          cwd=folder, capture_output=True, text=True, timeout=300, check=False)
    log = (folder / "doc.log").read_text(encoding="latin-1")
    assert done.returncode == 0, log[-2000:]
    pages = re.search(r"Output written on doc\.pdf \((\d+) pages?", log)
    assert pages is not None, log[-1000:]
    return log, int(pages.group(1))


def test_the_256_token_latex_export_compiles_with_no_overfull_box(tmp_path: Path) -> None:
    tex = export(str(large_spec()), "--latex", "--standalone")
    assert len(tex) < 400_000  # the whole walkthrough was 27 MB
    log, pages = compile_latex(tex, tmp_path)
    assert "Overfull" not in log
    assert pages < 60
    assert tex.count(r"\ddots") >= 4 * 6  # the weights, scores … of every head
    # a document names no command-line switch: the marker says how large the matrix is
    assert "elided in the middle; 256 \\ensuremath{\\times} 256 in all" in tex
    assert "-{}-{}full" not in tex


# both aspects in CI, else 4:3, the narrower (tests/matrix.py)
@pytest.mark.parametrize("aspect", turn("tests/test_elided_exports.py: 256-token decks",
                                        ("169", "43"), 1))
def test_the_256_token_beamer_deck_compiles_with_no_overfull_box(tmp_path: Path,
                                                                 aspect: str) -> None:
    tex = export(str(large_spec()), "--beamer", "--aspect", aspect)
    log, pages = compile_latex(tex, tmp_path)
    assert "Overfull" not in log
    assert pages < 300
    # a block of rows names real rows (rows t252–t255 of 256, a break allowed after the dash),
    # never the mark between them
    spans = re.findall(r"rows (\S+)–\\allowbreak\{\}(\S+) of 256", tex)
    assert (spans or aspect == "43") and all(re.fullmatch(r"t\d+", a) and re.fullmatch(r"t\d+", b)
                         for a, b in spans), spans[:4]


def plain_table(markdown: str, symbol: str) -> tuple[list[str], list[str], list[list[str]]]:
    """(column labels, row labels, cells) of the first plain-flavour table under `**symbol**`."""
    lines = markdown.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith(f"**{symbol}**"))
    table = []
    for line in lines[start + 1:]:
        if line.startswith("|"):
            table.append([cell.strip() for cell in line.strip("|").split("|")])
        elif table:
            break
    head, _rule, *body = table
    return head[1:], [row[0] for row in body], [row[1:] for row in body]


def test_corners_of_the_weights_are_the_json_numbers_rounded_half_up() -> None:
    spec = str(large_spec(40))
    doc = json.loads(export(spec, "--json"))
    weights = next(m for s in doc["steps"] if s["id"] == "weights" for m in s["matrices"])
    values = weights["values"]  # (40, 40), null where a key is hidden
    markdown = export(spec, "--markdown", "--md-flavor", "plain", "--steps", "weights")
    columns, rows, cells = plain_table(markdown, "A")
    where = shown(40, 40 * 40)
    assert rows == [weights["rows"][i] if i is not None else "⋮" for i in where]
    assert columns == [weights["columns"][j] if j is not None else "⋯" for j in where]
    for r, i in enumerate(where):
        for c, j in enumerate(where):
            if i is None or j is None:
                assert cells[r][c] == ("⋱" if i is None and j is None else
                                       "⋮" if i is None else "⋯")
            elif j > i:  # causal: a later key is hidden from this query
                assert cells[r][c] == "—"
            else:
                assert cells[r][c] == half_up(values[i][j]), (i, j)
    # a document says the size, not a command-line switch its reader cannot type on paper
    assert "*elided in the middle; 40 × 40 in all*" in markdown and "--full" not in markdown


def test_full_keeps_every_row_and_column() -> None:
    spec = str(large_spec(40))
    markdown = export(spec, "--markdown", "--md-flavor", "plain", "--steps", "weights",
                      "--full")
    columns, rows, _cells = plain_table(markdown, "A")
    assert rows == [f"t{i}" for i in range(40)] and len(columns) == 40
    assert "⋮" not in markdown and "elided" not in markdown
    tex = export(spec, "--latex", "--steps", "weights", "--full")
    assert r"\vdots" not in tex and all(f"\\text{{t{i}}}" in tex for i in range(40))


def test_a_worksheet_blanks_only_cells_it_shows() -> None:
    spec = str(large_spec(40))
    sheet = export(spec, "--markdown", "--md-flavor", "plain", "--steps", "weights",
                   "--expand", "none", "--worksheet", "--blank-cells", "12", "--seed", "3")
    rows = [line for line in sheet.splitlines() if line.startswith("| t")]  # 4 heads' A
    assert len(rows) == 4 * 8
    assert sum(line.count(r"\_\_\_\_") for line in rows) == 12


# --- rendered in the browser ---------------------------------------------------------------

PIPELINES = {"katex": ("texmath-dollars", "autorender", "pandoc-mathjax"),
             "github": ("texmath-gitlab", "pandoc-mathjax")}


@cache
def markdown_of(flavor: str) -> str:
    return export(str(large_spec()), "--markdown", "--md-flavor", flavor)


@pytest.fixture(scope="module")
def pages(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    jobs = [{"name": f"{flavor}/{pipeline}", "markdown": markdown_of(flavor),
             "pipeline": pipeline, "flavor": flavor}
            for flavor, pipelines in PIPELINES.items() for pipeline in pipelines]
    return run_pages(jobs, tmp_path_factory.mktemp("elided"))


def test_the_256_token_markdown_renders_every_elided_matrix_as_a_grid(
        pages: dict[str, Any]) -> None:
    expected = expected_matrices(large_spec(), "en")
    assert sum("⋱" in row for cells, _, _ in expected for row in cells) > 4 * 6
    checked = 0
    for flavor, pipelines in PIPELINES.items():
        for pipeline in pipelines:
            page = pages[f"{flavor}/{pipeline}"]
            assert not page["errors"], page["errors"][:2]
            checked += check_grids(page, markdown_of(flavor), flavor, expected,
                                   f"{flavor}/{pipeline}")
    assert checked == 5 * len(expected)


def test_a_notebook_names_the_library_keyword_where_the_command_line_names_full() -> None:
    import numpy as np

    import attncli

    X = np.random.default_rng(0).normal(size=(20, 8))  # (n, d_model): 160 numbers, elided
    for lang in ("en", "pl", "ru"):
        w = attncli.walkthrough_of(tokens=[f"t{i}" for i in range(20)], X=X, lang=lang)
        shown = w._repr_markdown_()
        assert "--full" not in shown and "--full" not in attncli.render(w, "text",
                                                                        full_switch="x")
        notes = [line for line in shown.splitlines()
                 if "20 × 8" in line.replace("\u00a0", " ") and line[:1] == "*"]
        assert notes and all('attncli.render(w, "markdown", full=True)' in n for n in notes)
        # a document names no switch at all; the terminal names the command line's own
        assert "--full" not in attncli.render(w, "markdown")
        assert "--full" in attncli.render(w, "text")


@pytest.mark.parametrize("lang", ["en", "pl", "ru"])
def test_a_document_names_no_switch_for_pandoc_to_turn_into_a_dash(lang: str) -> None:
    """pandoc (like Hugo and kramdown) turns `--` in text into an en dash, and a switch means
    nothing on paper: an elided matrix's note in a document gives its size, and pandoc's HTML of
    it has no switch, whole or dashed."""
    if shutil.which("pandoc") is None:
        need("pandoc", "apt-get install pandoc")
    markdown = export(str(large_spec(40)), "--markdown", "--lang", lang, "--steps", "weights")
    notes = [line for line in markdown.splitlines()
             if "40 × 40" in line.replace("\u00a0", " ") and line.startswith("*")]
    assert len(notes) == 4 and not any("full" in line for line in notes)  # one per head
    html = subprocess.run(["pandoc", "-f", "markdown", "-t", "html"], input="\n\n".join(notes),
                          capture_output=True, text=True, check=True).stdout
    assert html.replace("\u00a0", " ").count("40 × 40") == 4
    assert "full" not in html
