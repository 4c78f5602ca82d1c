"""A .csv file read whole is converted a piece of lines at a time (attncli/spec/csv_cells.py):
the same numbers as Python's float() gives for each cell of each line Python keeps, and the same
line and column for a cell that is no number as a row read alone names."""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from attncli.spec import csv_lines
from attncli.spec.csv_file import CsvFile
from attncli.spec.file_problem import FileProblem
from tests.test_csv_lines import python_lines

SKIPPED = ["", "# note", "\u00a0", " \t", "\u3000# x", "  #,,"]
NUMBERS = ["1", "-0.5", " 2 ", "1e3", "\u00a03\u2003", "1_0", "\u0661", "-0"]
REFUSED = ["inf", "0x1", "", "x", "nan"]


def problem_of(read: Any) -> tuple[str, dict[str, Any]] | None:
    """The message a reading is refused with (its English and its values), or None."""
    try:
        read()
    except FileProblem as problem:
        return problem.message.msgid, dict(problem.message.params)
    return None


@pytest.mark.parametrize("seed", range(8))
def test_a_file_read_whole_is_read_as_its_rows_are(seed: int, tmp_path: Path,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    """Pieces of 7 bytes, so that blank lines, comments and breaks fall across their edges:
    every cell is float() of the kept line's cell, and a cell that is none is named at the line
    and column that reading its rows one at a time names."""
    monkeypatch.setattr(csv_lines, "PIECE", 7)
    rng = random.Random(seed)
    lines = ["\ufeff"] if rng.random() < 0.5 else []
    count = rng.randrange(1, 60)
    bad = rng.randrange(count) if seed % 2 else -1  # the line, of an odd seed, with a bad cell
    for row in range(count):
        if rng.random() < 0.4:
            lines.append(rng.choice(SKIPPED) + rng.choice(["\n", "\r\n", "\r"]))
        cells = [rng.choice(NUMBERS) for _ in range(3)]
        if row == bad:
            cells[rng.randrange(3)] = rng.choice(REFUSED)
        lines.append(",".join(cells) + rng.choice(["\n", "\r\n", "\r"]))
    data = "".join(lines).rstrip("\r\n").encode("utf-8")
    path = tmp_path / "w.csv"
    path.write_bytes(data)
    table = CsvFile(path, "w.csv", 100_000, hold=True)
    alone = CsvFile(path, "w.csv", 100_000)
    rows = list(range(table.shape[0]))
    refused = problem_of(lambda: alone.read(rows, None))
    assert problem_of(lambda: table.read(None, None)) == refused
    assert (refused is None) == (bad < 0)
    if refused is None:
        kept = [line.decode("utf-8").lstrip("\ufeff") for _, line in python_lines(data)]
        expected = [[float(cell) for cell in line.split(",")] for line in kept]
        assert table.read(None, None).tolist() == expected


def test_a_file_read_whole_converts_no_row_alone(tmp_path: Path,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    """200,000 lines of one number, with blank lines and comments among them, read whole:
    no row is found and converted alone (each was: 2,000,000 such lines took 7 s)."""
    data = b"".join(b"%d.25\n" % k + (b"\n# k\n" if k % 1000 == 0 else b"")
                    for k in range(200_000))
    path = tmp_path / "w.csv"
    path.write_bytes(data)
    table = CsvFile(path, "w.csv", 1_000_000, hold=True)
    alone = []
    real = CsvFile._row
    monkeypatch.setattr(CsvFile, "_row", lambda self, *args: alone.append(1) or real(self, *args))
    values = table.read(None, None)
    assert values.shape == (200_000, 1)
    assert (values[:, 0] == np.arange(200_000) + 0.25).all()
    assert len(alone) == 0


def test_a_cell_that_is_no_number_is_named_at_its_line(tmp_path: Path) -> None:
    """Line 1,004 (after 1,000 rows, a blank line and a comment) has `x` as its 2nd cell."""
    data = b"1,2\n" * 1000 + b"\n# rows\n" + b"1,2\n1,x\n" + b"1,2\n" * 1000
    path = tmp_path / "w.csv"
    path.write_bytes(data)
    table = CsvFile(path, "w.csv", 1_000_000, hold=True)
    assert problem_of(lambda: table.read(None, None)) == (
        "{name}: line {line}, column {column}: expected a number, found {found}",
        {"name": "w.csv", "line": 1004, "column": 2, "found": "x"})
