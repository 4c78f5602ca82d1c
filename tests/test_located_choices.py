"""A choice written in a file (a manifest entry's key, an attn block's key, a spec's display) is
refused where it was written, at its line and column, never as an option the user did not type;
the option is named only when it was typed."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner, Result

from attncli.cli.app import app
from tests.conftest import CONFIGS

BLOCK = ("tokens: [a, b]\nembeddings: [[1, 0], [0, 1]]\n"
         "weights: {W_Q: identity, W_K: identity, W_V: identity}\nsteps: weights\n")
# 400 tokens of width 2, one head: a document showing every number prints
# n·d_k + m·(d_k + d_v) + 4·n·m + n·d_v + n·d_v + n·d = 800 + 1,600 + 640,000 + 800 + 800 + 800
BIG = ("tokens: [" + ", ".join(f"t{i}" for i in range(400)) + "]\n"
       "embeddings: {random: {seed: 1}, shape: [400, 2]}\n")
PRINTS = "this document would print about 644,800 numbers; the limit is 500,000, which " \
         "--max-cells sets"
# 20 tokens of width 2, one head: -x all writes up to n·(m + d)² = 20 · 22² terms
SMALL = ("tokens: [" + ", ".join(f"t{i}" for i in range(20)) + "]\n"
         "embeddings: {random: {seed: 1}, shape: [20, 2]}\n")
EVERY_CELL = "writing out every cell of this spec takes up to 9,680 terms; the limit is 5,000, " \
             "which --max-cells sets; choose cells with STEP:ROW"


def invoke(*args: str) -> Result:
    return CliRunner().invoke(app, [*args, "--lang", "en"])


@pytest.fixture
def here(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "p").mkdir()
    (tmp_path / "p/s.attn.yaml").write_text(
        (CONFIGS / "cat_chases_mouse.yaml").read_text("utf-8"), "utf-8")
    return tmp_path


def manifest(folder: Path, lines: str) -> None:
    (folder / "attn.toml").write_text('[[snippets]]\nspecs = "p/*.attn.yaml"\n' + lines, "utf-8")


def test_a_row_an_entry_expands_is_refused_at_the_entry(here: Path) -> None:
    manifest(here, 'formats = ["text"]\noutput = "out/{name}.{ext}"\nexpand = ["weights:9"]\n')
    result = invoke("snippets", "--check")
    assert result.exit_code == 2
    assert result.stderr.splitlines()[0] == (
        "attn.toml:5:10: snippets[0].expand: weights has no row 9; its rows are cat, chases, "
        "mouse")


def test_a_row_a_yaml_entry_expands_is_refused_at_the_entry(here: Path) -> None:
    (here / "snippets.yaml").write_text(
        'snippets:\n  - specs: "p/*.attn.yaml"\n    formats: [text]\n'
        '    output: "out/{name}.{ext}"\n    expand: ["weights:9"]\n', "utf-8")
    result = invoke("snippets", "--check")
    assert result.stderr.splitlines()[0] == (
        "snippets.yaml:5:13: snippets[0].expand: weights has no row 9; its rows are cat, "
        "chases, mouse")


def test_a_row_typed_as_the_option_names_the_option(here: Path) -> None:
    result = invoke("explain", "p/s.attn.yaml", "-x", "weights:9")
    assert result.exit_code == 2
    assert result.stderr == "attn: --expand: weights has no row 9; its rows are cat, chases, " \
                            "mouse\n"


def test_a_row_a_block_expands_is_refused_at_the_block(here: Path) -> None:
    (here / "post.md").write_text(f"# t\n\n```attn\n{BLOCK}expand: [\"weights:9\"]\n```\n",
                                  "utf-8")
    result = invoke("fill", "--check", "post.md")
    assert result.exit_code == 2
    assert result.stderr.splitlines()[0] == "post.md:8:9: expand: weights has no row 9; its " \
                                            "rows are a, b"


def test_a_row_a_notebook_block_expands_is_refused_at_the_block(here: Path) -> None:
    source = f"```attn\n{BLOCK}expand: [\"weights:9\"]\n```\n"
    (here / "n.ipynb").write_text(json.dumps(
        {"cells": [{"cell_type": "markdown", "metadata": {}, "source": source}],
         "metadata": {}, "nbformat": 4, "nbformat_minor": 5}), "utf-8")
    result = invoke("fill", "--check", "n.ipynb")
    assert result.exit_code == 2
    first = result.stderr.splitlines()[0]
    assert first.startswith("n.ipynb:")
    assert first.endswith(": expand: weights has no row 9; its rows are a, b")


def test_a_format_that_prints_every_number_is_refused_at_the_entry_for_each_spec(
        here: Path) -> None:
    (here / "p/big.attn.yaml").write_text(BIG, "utf-8")
    (here / "p/wide.attn.yaml").write_text(BIG, "utf-8")
    (here / "p/s.attn.yaml").unlink()
    manifest(here, 'formats = ["text", "json"]\noutput = "out/{name}.{ext}"\n')
    result = invoke("snippets", "--check")
    assert result.exit_code == 2
    assert result.stderr.splitlines()[:2] == [
        f"attn.toml:3:20: p/big.attn.yaml: snippets[0].formats[1]: {PRINTS}",
        f"attn.toml:3:20: p/wide.attn.yaml: snippets[0].formats[1]: {PRINTS}"]


def test_every_cell_an_entry_asks_for_is_refused_at_the_entry(here: Path) -> None:
    (here / "p/s.attn.yaml").write_text(SMALL, "utf-8")
    manifest(here, 'formats = ["text"]\noutput = "out/{name}.{ext}"\nexpand = "all"\n')
    result = invoke("snippets", "--check", "--max-cells", "100000")
    assert result.stderr.splitlines()[0] == \
        f"attn.toml:5:10: p/s.attn.yaml: snippets[0].expand: {EVERY_CELL}"


def test_every_cell_a_spec_asks_for_is_refused_in_that_spec(here: Path) -> None:
    (here / "a.yaml").write_text(SMALL + "display: {expand: all}\n", "utf-8")
    (here / "b.yaml").write_text(SMALL + "display:\n  expand: all\n", "utf-8")
    result = invoke("validate", "a.yaml", "b.yaml", "--max-cells", "100000")
    assert result.exit_code == 2
    assert result.stderr.splitlines() == [
        f"a.yaml:3:19: display.expand: {EVERY_CELL}", f"b.yaml:4:11: display.expand: {EVERY_CELL}",
        "attn: 2 specs of 2 have errors"]


def test_every_cell_typed_as_the_option_names_the_option(here: Path) -> None:
    (here / "a.yaml").write_text(SMALL, "utf-8")
    result = invoke("explain", "a.yaml", "-x", "all", "--max-cells", "100000")
    assert result.stderr == f"attn: --expand all: {EVERY_CELL}\n"


def test_every_cell_a_block_asks_for_is_refused_at_the_block(here: Path) -> None:
    (here / "s.yaml").write_text(SMALL, "utf-8")
    (here / "post.md").write_text("# t\n\n```attn\nspec: s.yaml\nexpand: all\n```\n", "utf-8")
    result = invoke("fill", "--check", "post.md", "--max-cells", "100000")
    assert result.stderr.splitlines()[0] == f"post.md:5:9: expand: {EVERY_CELL}"


def test_a_whole_matrix_a_block_asks_for_is_refused_at_the_block(here: Path) -> None:
    (here / "s.yaml").write_text(BIG, "utf-8")
    (here / "post.md").write_text("# t\n\n```attn\nspec: s.yaml\nmatrix: A\n```\n", "utf-8")
    result = invoke("fill", "--check", "post.md")
    assert result.stderr.splitlines()[0] == f"post.md:5:9: matrix: {PRINTS}"
