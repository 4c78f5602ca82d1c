"""A walkthrough in a notebook, as JupyterLab draws its Markdown output: the math taken out of
the text before the Markdown parser, put back, and typeset by MathJax 3 with JupyterLab's
delimiters (tests/render/jupyter-math.js), in headless Chromium; the page is read back as in
tests/test_markdown_render.py: every formula read as written, every matrix a grid of its
numbers inside its brackets, its labels outside.

VS Code draws the same Markdown with markdown-it and KaTeX's `$`/`$$` rule: the katex flavour's
texmath-dollars pipeline in tests/test_markdown_render.py.
"""

from __future__ import annotations

import os
import shutil
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from attncli import build, load_spec
from attncli.i18n import LANGUAGES
from tests.test_markdown_render import (
    EXAMPLES,
    HOSTILE,
    as_drawn,
    check_bracket_room,
    check_grid,
    check_grids,
    expected_matrices,
    hostile_spec,
    matrix_displays,
    run_pages,
    signs_spec,
    source_math,
)

ALL = ",".join(LANGUAGES)
ROOT = Path(__file__).resolve().parent.parent


def shown(spec: Path, lang: str) -> str:
    """What a notebook shows for the walkthrough of `spec` in `lang`: its text/markdown."""
    markdown = replace(build(load_spec(str(spec))), lang=lang)._repr_markdown_()
    assert isinstance(markdown, str)
    return markdown


def job(spec: Path, name: str, lang: str = ALL) -> dict[str, str]:
    return {"name": name, "markdown": shown(spec, lang), "pipeline": "jupyterlab",
            "flavor": "katex"}


@pytest.fixture(scope="module")
def pages(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    return run_pages([job(spec, spec.stem) for spec in EXAMPLES],
                     tmp_path_factory.mktemp("notebook"))


def test_jupyterlab_reads_every_formula_as_written(pages: dict[str, Any]) -> None:
    for spec in EXAMPLES:
        page = pages[spec.stem]
        assert not page["errors"], (spec.stem, page["errors"][:2])
        expected = source_math(shown(spec, ALL), "katex")
        assert sum(display for _, display in expected) >= 9
        read = sorted((" ".join(m["tex"].split()), m["display"]) for m in page["tex"])
        # JupyterLab gives MathJax the math with &, <, > as entities, which the page reads back
        assert read == sorted((" ".join(tex.split()), d) for tex, d in expected), spec.stem


def test_every_matrix_is_a_grid_in_jupyterlab(pages: dict[str, Any]) -> None:
    checked = 0
    for spec in EXAMPLES:
        expected = [m for lang in LANGUAGES for m in expected_matrices(spec, lang)]
        checked += check_grids(pages[spec.stem], shown(spec, ALL), "katex", expected, spec.stem)
    assert checked > 1000


def test_the_example_notebooks_outputs_render_in_jupyterlab(tmp_path: Path) -> None:
    """The Markdown outputs committed in examples/attention.ipynb (tests/test_notebook.py keeps
    them current) draw without an error; the first is configs/cat_chases_mouse.yaml's
    walkthrough (from arrays, without its title), matrix by matrix."""
    import json

    notebook = json.loads((ROOT / "examples" / "attention.ipynb").read_text(encoding="utf-8"))
    shown = ["".join(output["data"]["text/markdown"]) for cell in notebook["cells"]
             for output in cell.get("outputs", ()) if "text/markdown" in output.get("data", {})]
    assert len(shown) == 2
    jobs = [{"name": f"out{i}", "markdown": text, "pipeline": "jupyterlab", "flavor": "katex"}
            for i, text in enumerate(shown)]
    pages = run_pages(jobs, tmp_path, {"out1": {"path": str(tmp_path / "out1.png")}})
    for name, page in pages.items():
        assert not page["errors"], (name, page["errors"][:2])
        assert len(page["tex"]) == len(source_math(shown[int(name[-1])], "katex"))
    expected = expected_matrices(ROOT / "configs" / "cat_chases_mouse.yaml", "en")
    # X, Q, K, V, S, S′, S′ + M, A, Z
    assert check_grids(pages["out0"], shown[0], "katex", expected, "out0") == 9
    assert (tmp_path / "out1.png").stat().st_size > 10_000
    if os.environ.get("ATTN_SCREENSHOTS"):  # to look at: ATTN_SCREENSHOTS=folder
        shutil.copy(tmp_path / "out1.png", Path(os.environ["ATTN_SCREENSHOTS"]) / "notebook.png")


def test_hostile_token_names_stay_text_in_jupyterlab(tmp_path: Path) -> None:
    spec = hostile_spec(tmp_path)
    page = run_pages([job(spec, "hostile", "en")], tmp_path / "pages")["hostile"]
    assert not page["errors"], page["errors"][:2]
    assert not page["injected"], page["injected"]
    embeddings = matrix_displays(page, shown(spec, "en"), "katex")[0]
    drawn = check_grid(embeddings, *expected_matrices(spec, "en")[0], page["em"])
    assert [as_drawn(d) for d in drawn] == [as_drawn(t) for t in HOSTILE]


def test_the_first_column_stands_as_far_from_its_bracket_as_the_last_in_jupyterlab(
        tmp_path: Path) -> None:
    """As in KaTeX and pandoc's MathJax (tests/test_markdown_render.py), with the labels over
    their columns. Before, JupyterLab set the first column 0.26 em from its bracket, a fifth of
    the 1.25 em between columns."""
    spec = signs_spec(tmp_path)
    page = run_pages([job(spec, "signs", "en")], tmp_path / "pages")["signs"]
    assert not page["errors"], page["errors"][:2]
    display = matrix_displays(page, shown(spec, "en"), "katex")[0]  # X (3 × 3)
    check_grid(display, *expected_matrices(spec, "en")[0], page["em"])
    check_bracket_room(display, "jupyterlab")


def test_the_math_is_taken_out_before_markdown_reads_it(tmp_path: Path) -> None:
    """The harness itself: `$a_1 *b* c_2$` is one formula in JupyterLab (Markdown never sees
    its `_` and `*`), and a `$` in a code span is no delimiter; GitHub's ```math fence is code
    there (why a notebook gets the katex flavour)."""
    jobs = [{"name": name, "markdown": text, "pipeline": "jupyterlab", "flavor": "katex"}
            for name, text in (("t", "x $a_1 *b* c_2$ and `$5` and $y$\n"),
                               ("fence", "```math\nx^2\n```\n"))]
    pages = run_pages(jobs, tmp_path)
    assert sorted(m["tex"] for m in pages["t"]["tex"]) == ["a_1 *b* c_2", "y"]
    assert pages["fence"]["tex"] == []
