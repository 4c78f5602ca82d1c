"""The cells of a .csv file converted to numbers by float(), as Python reads them: every kept
line of a file read whole, a piece of lines at a time, or one line a piece of it at a time.
A cell that is no number is named by its line and column."""

from __future__ import annotations

import array
from collections.abc import Sequence
from operator import itemgetter

import numpy as np

from attncli.i18n import Msg
from attncli.spec.csv_lines import COMMA, Piece, Seen, again
from attncli.spec.file_problem import FileProblem

CSV_PIECE = 1 << 16  # characters of a CSV line converted at once


def every_row(data: bytes, seen: Sequence[Seen], width: int, name: str) -> np.ndarray:
    """The numbers of every kept line of `data`, `width` of them a line, converted a piece of
    lines at a time (those `seen` to hold kept lines as the lines were counted): its kept lines
    joined into one text, split at the commas and converted in one call (a row at a time,
    2,000,000 one-number lines took 7 s). A piece that holds a cell that is no number is read
    again a line at a time, to name it."""
    values = array.array("d")
    raw = np.frombuffer(data, dtype=np.uint8)  # (bytes,)
    for piece in again(data, seen):
        held = np.flatnonzero(piece.kept)  # (kept lines of the piece,)
        if len(held) == 1:  # maybe a line of millions of cells: a piece of it at a time
            values.extend(line_of(data, piece, int(held[0]), name))
            continue
        if not len(held):
            continue
        cells = joined(raw, piece.at, piece.starts[held], piece.ends[held]).decode(
            "utf-8").split(",")[:-1]  # (lines * width,)
        try:
            values.extend(map(float, cells))
        except ValueError:
            for line in held:
                line_of(data, piece, int(line), name)  # raises at the first cell refused
            raise AssertionError("a piece that float() refused holds a line it refuses") from None
    return np.frombuffer(values, dtype=np.float64).reshape(-1, width)  # (rows, width)


def joined(raw: np.ndarray, at: int, starts: np.ndarray, ends: np.ndarray) -> bytes:
    """The lines at [starts, ends) from `at` (ascending, apart), each followed by a comma: the
    blank lines, the comments, every line break and whatever lies between them left out."""
    stop = int(ends[-1])
    text = np.empty(stop + 1, dtype=np.uint8)  # (bytes to the last line's end, comma)
    text[:stop] = raw[at:at + stop]
    text[ends] = COMMA  # where each line's break (or the file's end) is
    opens = np.zeros(stop + 2, dtype=np.int8)  # (bytes + 1,) where a line starts
    closes = np.zeros(stop + 2, dtype=np.int8)  # (bytes + 1,) just after its comma: a line's
    opens[starts], closes[ends + 1] = 1, 1  # comma may be where the next line starts
    inside = np.cumsum(opens[:-1], dtype=np.int32) > np.cumsum(closes[:-1], dtype=np.int32)
    return text[inside].tobytes()  # (bytes,)


def chosen_rows(data: bytes, starts: np.ndarray, ends: np.ndarray, numbers: np.ndarray,
                width: int, name: str, columns: Sequence[int] | None) -> array.array[float]:
    """The numbers of the rows at [starts, ends) of `data` (ascending; `numbers` their lines in
    the file, 1-based), all their cells or those of `columns`, converted in one call: the rows
    joined into one text and split at the commas (a row at a time, 2,000,000 rows of one number
    took 6 s). Rows that hold a chosen cell that is no number are read again one at a time, to
    name it at its line and column."""
    raw = np.frombuffer(data, dtype=np.uint8)  # (bytes,)
    cells = joined(raw, 0, starts, ends).decode("utf-8").split(",")[:-1]  # (rows * width,)
    if columns is not None:  # only the chosen cells converted
        at = (np.arange(len(starts))[:, None] * width + np.asarray(columns)).ravel()  # (cells,)
        cells = [cells[int(at[0])]] if len(at) == 1 else list(itemgetter(*at.tolist())(cells))
    values = array.array("d")
    try:
        values.extend(map(float, cells))
    except ValueError:
        for start, end, number in zip(starts.tolist(), ends.tolist(), numbers.tolist(),
                                      strict=True):
            line = data[start:end]
            if columns is None:
                csv_row(line.decode("utf-8"), name, number)  # raises at the first cell refused
            else:
                picked(line, name, number, columns)
        raise AssertionError("rows that float() refused hold a cell it refuses") from None
    return values


def picked(line: bytes, name: str, number: int, columns: Sequence[int]) -> array.array[float]:
    """The cells `columns` of a short line (line `number` of the file), split at its commas and
    read as texts, as a row read whole reads them (float() of bytes refuses `\u0661`)."""
    cells = line.split(b",")
    numbers = array.array("d")
    for column in columns:
        cell = cells[column].decode("utf-8")
        try:
            numbers.append(float(cell))
        except ValueError:
            raise not_a_number(cell, name, number, column + 1) from None
    return numbers


def line_of(data: bytes, piece: Piece, line: int, name: str) -> array.array[float]:
    """The numbers of the kept line `line` of a piece."""
    start, end = piece.at + int(piece.starts[line]), piece.at + int(piece.ends[line])
    return csv_row(data[start:end].decode("utf-8"), name, piece.first + line + 1)


def csv_row(line: str, name: str, number: int) -> array.array[float]:
    """The numbers of one CSV line, converted a piece at a time: a line of millions of cells
    never holds more than a piece of them as Python texts and floats at once (8 bytes a cell)."""
    row = array.array("d")
    start, end = 0, -1
    while end < len(line):
        end = line.find(",", start + CSV_PIECE)
        end = len(line) if end < 0 else end
        cells, before = line[start:end].split(","), len(row)
        try:
            row.extend(map(float, cells))
        except ValueError:
            raise _first_not_a_number(cells, before, name, number) from None
        start = end + 1
    return row


def _first_not_a_number(cells: list[str], before: int, name: str, number: int) -> FileProblem:
    """The first of `cells` that is no number, located by its line and column."""
    for column, cell in enumerate(cells, start=before + 1):
        try:
            float(cell)
        except ValueError:
            return not_a_number(cell, name, number, column)
    raise AssertionError("a piece that float() refused holds a cell it refuses")


def not_a_number(cell: str, name: str, line: int, column: int) -> FileProblem:
    return FileProblem(Msg.of("{name}: line {line}, column {column}: expected a number, found "
                              "{found}", name=name, line=line, column=column,
                              found=cell.strip()[:40] or Msg.of("an empty cell")))
