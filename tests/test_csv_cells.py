"""A .csv file read whole is converted a piece of lines at a time (attncli/spec/csv_cells.py),
and the rows a spec chooses a run of them at a time: the same numbers as Python's float() gives
for each cell of each line Python keeps, and the same line and column for a cell that is no
number as a row read alone names."""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from attncli import load_spec
from attncli.errors import SpecError
from attncli.spec import csv_file, csv_lines
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


def conversions(monkeypatch: pytest.MonkeyPatch) -> tuple[list[int], list[int]]:
    """The rows converted one at a time from now on, and the rows of each run converted."""
    alone: list[int] = []
    runs: list[int] = []
    row, run = CsvFile._row, csv_file.chosen_rows
    monkeypatch.setattr(CsvFile, "_row", lambda self, *args: alone.append(1) or row(self, *args))
    monkeypatch.setattr(csv_file, "chosen_rows",
                        lambda data, starts, *args: runs.append(len(starts)) or run(
                            data, starts, *args))
    return alone, runs


@pytest.mark.parametrize("seed", range(8))
def test_chosen_rows_are_read_as_python_reads_them(seed: int, tmp_path: Path,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    """Pieces of 7 bytes and runs of 40: rows chosen in any order, repeated, and columns chosen
    (or all) are float() of those cells of the kept lines (as texts: `\u0661` and a number in
    no-break spaces are numbers, as in a row read whole), and a chosen cell that is none is named
    at its line and column; a cell that is no number in a column not chosen is not read."""
    monkeypatch.setattr(csv_lines, "PIECE", 7)
    monkeypatch.setattr(csv_file, "RUN", 40)
    rng = random.Random(seed)
    lines, kept = [], []  # the lines, and which of them are rows
    for _ in range(rng.randrange(100, 300)):
        if rng.random() < 0.4:
            lines.append(rng.choice(SKIPPED) + rng.choice(["\n", "\r\n", "\r"]))
        kept.append(len(lines))
        lines.append(",".join(rng.choice(NUMBERS) for _ in range(3)) + rng.choice(["\n", "\r"]))
    bad_row = rng.randrange(len(kept))
    cells = lines[kept[bad_row]].split(",")
    cells[1] = "x"  # the middle column
    lines[kept[bad_row]] = ",".join(cells)
    data = "".join(lines).encode("utf-8")
    path = tmp_path / "w.csv"
    path.write_bytes(data)
    table = CsvFile(path, "w.csv", 100_000)
    alone, _ = conversions(monkeypatch)
    numbered = python_lines(data)
    rows = [rng.randrange(len(numbered)) for _ in range(rng.randrange(1, 120))]
    columns = rng.choice([None, [0], [2, 0, 2], [1, 0]])
    cells_of = [line.decode("utf-8").split(",") for _, line in numbered]
    refused = problem_of(lambda: table.read(rows, columns))
    if bad_row in rows and (columns is None or 1 in columns):
        assert refused == ("{name}: line {line}, column {column}: expected a number, found "
                           "{found}", {"name": "w.csv", "line": numbered[bad_row][0],
                                       "column": 2, "found": "x"})
        assert problem_of(lambda: table.read(None, None)) == refused  # the file read whole
    else:
        assert refused is None
        assert table.read(rows, columns).tolist() == [
            [float(cells_of[row][k]) for k in (range(3) if columns is None else columns)]
            for row in rows]
    assert len(alone) == 0


def test_a_slice_of_many_short_rows_converts_no_row_alone(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """2,000,000 cells from 200,000 rows of 10 (rows 1,000 to 200,999 of 250,000, with blank
    lines and comments), and a list that takes rows backwards and again: each a run of RUN bytes
    at a time, no row converted alone (each was: 2,000,000 one-number rows took 6 s)."""
    data = b"".join(b",".join(b"%d.5" % (10 * k + c) for c in range(10)) + b"\n"
                    + (b"\n# k\n" if k % 1000 == 0 else b"") for k in range(250_000))
    path = tmp_path / "w.csv"
    path.write_bytes(data)
    table = CsvFile(path, "w.csv", 10_000_000)
    alone, runs = conversions(monkeypatch)
    values = table.read(range(1_000, 201_000), None)  # rows: "1000:201000"
    assert values.shape == (200_000, 10)
    assert (values == np.arange(10_000, 2_010_000).reshape(200_000, 10) + 0.5).all()
    assert sum(runs) == 200_000 and len(runs) == -(-len(data) * 200 // 250 // csv_file.RUN)
    rows = [249_999, 7, 7, 120_000, 3]
    assert table.read(rows, [9, 0]).tolist() == [[10 * k + 9.5, 10 * k + 0.5] for k in rows]
    assert runs[-3:] == [2, 1, 1]  # rows 3 and 7 in one run (7 once), the others one each
    assert len(alone) == 0


def test_embeddings_of_more_rows_than_tokens_are_refused_before_a_row_is_converted(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """`rows: "0:200000"` for 3 tokens: refused by the rows asked for, none converted (each of
    2,000,000 was converted before the count was refused: 6.2 s, 217 MB)."""
    (tmp_path / "x.csv").write_bytes(b"1\n" * 200_000)
    spec = tmp_path / "s.yaml"
    spec.write_text('tokens: [a, b, c]\nembeddings: {file: x.csv, rows: "0:200000"}\n',
                    encoding="utf-8")
    alone, runs = conversions(monkeypatch)
    with pytest.raises(SpecError) as refused:
        load_spec(str(spec))
    assert str(refused.value) == f"{spec}:2:13: embeddings: has 200,000 rows, expected one per " \
        "token (3)"
    assert len(alone) == 0 and len(runs) == 0
