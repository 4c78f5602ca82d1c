"""The cells of a .csv file converted to numbers by float(), as Python reads them: every kept
line of a file read whole, a piece of lines at a time, or one line a piece of it at a time.
A cell that is no number is named by its line and column."""

from __future__ import annotations

import array

import numpy as np

from attncli.i18n import Msg
from attncli.spec.csv_lines import COMMA, Piece, pieces
from attncli.spec.file_problem import FileProblem

CSV_PIECE = 1 << 16  # characters of a CSV line converted at once


def every_row(data: bytes, at: int, width: int, name: str) -> np.ndarray:
    """The numbers of every kept line of data[at:], `width` of them a line, converted a piece of
    lines at a time: its kept lines joined into one text, split at the commas and converted in
    one call (a row at a time, 2,000,000 one-number lines took 7 s). A piece that holds a cell
    that is no number is read again a line at a time, to name it."""
    values = array.array("d")
    raw = np.frombuffer(data, dtype=np.uint8)  # (bytes,)
    for piece in pieces(data, at, len(data)):
        held = np.flatnonzero(piece.kept)  # (kept lines of the piece,)
        if len(held) == 1:  # maybe a line of millions of cells: a piece of it at a time
            values.extend(line_of(data, piece, int(held[0]), name))
            continue
        if not len(held):
            continue
        cells = joined(raw, piece, held).decode("utf-8").split(",")[:-1]  # (lines * width,)
        try:
            values.extend(map(float, cells))
        except ValueError:
            for line in held:
                line_of(data, piece, int(line), name)  # raises at the first cell refused
            raise AssertionError("a piece that float() refused holds a line it refuses") from None
    return np.frombuffer(values, dtype=np.float64).reshape(-1, width)  # (rows, width)


def joined(raw: np.ndarray, piece: Piece, held: np.ndarray) -> bytes:
    """The kept lines `held` of a piece, each followed by a comma: the blank lines, the comments
    and every line break left out."""
    starts, ends = piece.starts[held], piece.ends[held]  # (kept,) each, from the piece's start
    stop = int(ends[-1])
    text = np.empty(stop + 1, dtype=np.uint8)  # (bytes to the last kept line's end, comma)
    text[:stop] = raw[piece.at:piece.at + stop]
    text[ends] = COMMA  # where each kept line's break (or the file's end) is
    opens = np.zeros(stop + 2, dtype=np.int8)  # (bytes + 1,) where a kept line starts
    closes = np.zeros(stop + 2, dtype=np.int8)  # (bytes + 1,) just after its comma: a line's
    opens[starts], closes[ends + 1] = 1, 1  # comma may be where the next line starts
    inside = np.cumsum(opens[:-1], dtype=np.int32) > np.cumsum(closes[:-1], dtype=np.int32)
    return text[inside].tobytes()  # (bytes,)


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
