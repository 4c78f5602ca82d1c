"""Whole numbers past the 4,300 digits Python converts, and a notebook's version written as text,
given where attn reads a head, a matrix's head, a manifest's number or a notebook's version: each
was an internal error (exit 3: ValueError 'Exceeds the limit', TypeError comparing str and int)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from attncli.cli.app import app

SPEC = """tokens: [cat, chases, mouse]
embeddings: [[1.0, 0.0], [0.2, 1.0], [0.8, 0.0]]
mask: causal
"""
HUGE = "9" * 5000  # more digits than int() converts


@pytest.fixture
def here(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "s.yaml").write_text(SPEC, encoding="utf-8")
    return tmp_path


def run(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(app, list(args))
    return result.exit_code, result.output


@pytest.mark.parametrize("args", [["--head", HUGE], ["--matrix", f"A:{HUGE}"]])
def test_a_head_of_5000_digits_is_no_head_of_this_spec(here: Path, args: list[str]) -> None:
    code, output = run("explain", "s.yaml", *args)
    assert code == 2 and "internal error" not in output
    assert output.count("\n") == 1


def test_a_head_written_with_leading_zeros_is_still_that_head(here: Path) -> None:
    code, output = run("explain", "s.yaml", "--head", "0" * 30 + "1", "-f", "text")
    assert code == 0 and "0.36" in output  # cat chases mouse: weights [0.36, 0.64, 0]


@pytest.mark.parametrize("number", [HUGE, "-" + HUGE, "0x" + "f" * 50000, "_".join(["999"] * 2000)])
def test_a_manifest_number_of_5000_digits_is_located(here: Path, number: str) -> None:
    (here / "attn.toml").write_text(
        f'[[snippets]]\nspecs = "*.yaml"\nformats = ["markdown"]\nprecision = {number}\n'
        'output = "o/{name}.{ext}"\n', encoding="utf-8")
    code, output = run("snippets")
    assert code == 2 and output.startswith("attn.toml:4:13: snippets[0].precision:")
    assert not (here / "o").exists()


@pytest.mark.parametrize("minor", ['"5"', "null", "[4]", "5.0"])
def test_a_notebook_version_written_as_text_is_filled(here: Path, minor: str) -> None:
    notebook = here / "n.ipynb"
    fence = "```attn\\nspec: s.yaml\\n```"
    notebook.write_text('{"cells": [{"cell_type": "markdown", "metadata": {}, "source": ["'
                        + fence + '"]}], "metadata": {}, "nbformat": 4, "nbformat_minor": '
                        + minor + "}", encoding="utf-8")
    code, output = run("fill", "n.ipynb")
    assert code == 0, output
    cells = json.loads(notebook.read_text(encoding="utf-8"))["cells"]
    assert len(cells) == 2 and "id" not in cells[1]  # no 4.5 ids for a version not a number


def test_a_head_after_5000_zeros_is_that_head(here: Path) -> None:
    code, output = run("explain", "s.yaml", "--head", "0" * 5000 + "1", "-f", "text")
    assert code == 0 and "0.36" in output  # cat chases mouse: weights [0.36, 0.64, 0]
    code, output = run("explain", "s.yaml", "--matrix", "A:" + "0" * 5000 + "1", "-f", "text")
    assert code == 0 and "0.36" in output  # A:1 of the one head


@pytest.mark.parametrize("head", ["²", "①", "1²"])
def test_a_head_in_digits_int_cannot_read_is_refused(here: Path, head: str) -> None:
    """² and ① are digits to str.isdigit() but not numbers to int(): 'internal error:
    ValueError: invalid literal for int()', exit 3."""
    for args in (["--head", head], ["--matrix", f"A:{head}"]):
        code, output = run("explain", "s.yaml", *args)
        assert code == 2 and "internal error" not in output and output.count("\n") == 1
    code, output = run("explain", "s.yaml", "--head", "١", "-f", "text")  # Arabic-Indic 1
    assert code == 0 and "0.36" in output


@pytest.mark.parametrize("name", ["COLUMNS", "LINES"])
@pytest.mark.parametrize("value", ["²", "①", "8²"])
@pytest.mark.parametrize("view", [["explain", "--format", "rich"], ["export", "--svg"]])
def test_sizes_in_digits_int_cannot_read_are_no_size(here: Path, name: str, value: str,
                                                     view: list[str]) -> None:
    """COLUMNS=² or LINES=² with the rich view into a pipe, or an SVG, was 'internal error:
    ValueError' (exit 3; Rich takes str.isdigit() for a number); such a size is not asked, as
    COLUMNS=abc is not: 80 columns."""
    def run_with(size: str) -> subprocess.CompletedProcess[str]:
        env = {**os.environ, name: size, "NO_COLOR": "1",
               "PYTHONPATH": str(Path(__file__).resolve().parent.parent)}
        return subprocess.run([sys.executable, "-m", "attncli", view[0], "s.yaml", *view[1:]],
                              capture_output=True, text=True, env=env, check=False)
    asked, plain = run_with(value), run_with("abc")
    assert (asked.returncode, asked.stdout, asked.stderr) == (0, plain.stdout, "")
    assert "0.36" in asked.stdout


def test_a_manifest_number_past_the_least_digit_limit_is_located(here: Path) -> None:
    """PYTHONINTMAXSTRDIGITS=640 (the least Python allows) and a 700-digit precision: exit 3."""
    (here / "attn.toml").write_text(
        f'[[snippets]]\nspecs = "*.yaml"\nformats = ["markdown"]\nprecision = {"9" * 700}\n'
        'output = "o/{name}.{ext}"\n', encoding="utf-8")
    env = {**os.environ, "PYTHONINTMAXSTRDIGITS": "640",
           "PYTHONPATH": str(Path(__file__).resolve().parent.parent)}
    done = subprocess.run([sys.executable, "-m", "attncli", "snippets"], capture_output=True,
                          text=True, env=env, check=False)
    assert done.returncode == 2 and done.stderr.startswith("attn.toml:4:13: snippets[0].precision:")
