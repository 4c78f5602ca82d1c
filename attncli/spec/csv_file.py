"""A .csv file of numbers: measured in bytes, then read once as bytes and its lines found and
their cells counted at C speed (spec/csv_lines.py), so that its shape is known (and charged)
before a cell is converted. Only the chosen cells are converted, and at most `max_slow_cells` of
them: text costs about 0.2 µs a number to convert, where a .npy file costs nothing.

What is held besides the file's bytes is one place in every STRIDE kept lines: a row is found
again from the place before it. A blank line and a comment (# first) are skipped, and so is a
byte order mark (Excel's "CSV UTF-8")."""

from __future__ import annotations

import array
import bisect
import codecs
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from attncli.i18n import Count, Msg
from attncli.spec.csv_lines import COMMA, PIECE, Piece, pieces
from attncli.spec.csv_lines import commas as line_commas
from attncli.spec.file_problem import FileProblem, as_float
from attncli.spec.limits import max_bytes, max_slow_cells
from attncli.spec.source import LIMIT_HINT, byte_count

CSV_PIECE = 1 << 16  # characters of a CSV line converted at once
STRIDE = 64  # kept lines between two places held (a row is found from the place before it)
WINDOWS_KEPT = 16  # windows of STRIDE rows held found, for rows read again or near
LONG_WINDOW = 1 << 16  # bytes of a window that is kept once found (see CsvFile._window)
CHUNK = 1 << 16  # bytes of a row whose commas are placed at once when cells are picked


def check_csv_size(path: Path, name: str, max_cells: int) -> None:
    """Refuse a CSV file longer than the bytes `max_cells` allows, before a line is read."""
    size, limit = path.stat().st_size, max_bytes(max_cells)
    if size > limit:
        raise FileProblem(Msg.plural_of("{name} has {count} byte; the limit is {limit}, which "
                                        "{option} sets", "{name} has {count} bytes; the limit "
                                        "is {limit}, which {option} sets", Count(size), name=name,
                                        limit=byte_count(limit), option=LIMIT_HINT))


def most_cells(path: Path) -> int:
    """An upper bound of the cells of a CSV file, counted at C speed a megabyte at a time:
    commas and lines, a line ended by any of `\n`, `\r\n` or `\r` (as Python reads them)."""
    commas = breaks = 0
    last = b""
    with open(path, "rb") as raw:
        for chunk in iter(lambda: raw.read(1 << 20), b""):
            joined = last[-1:] + chunk[:1]  # a \r\n split between two chunks is one break
            breaks += (chunk.count(b"\n") + chunk.count(b"\r") - chunk.count(b"\r\n")
                       - (joined == b"\r\n"))
            commas += chunk.count(b",")
            last = chunk
    return commas + breaks + (0 if last.endswith((b"\n", b"\r")) else 1)


def check_utf8(data: bytes) -> None:
    """Raise UnicodeDecodeError at the first byte that is no UTF-8, decoding a piece at a time
    (the whole file as one Python text would be up to four times its bytes)."""
    if data.isascii():
        return
    decoder = codecs.getincrementaldecoder("utf-8")()
    view = memoryview(data)
    for at in range(0, len(data), PIECE):
        decoder.decode(view[at:at + PIECE], final=at + PIECE >= len(data))


class CsvFile:
    """The numbers of a CSV file, its shape known before any is converted. The whole file may
    hold more than --max-cells numbers when a spec takes a slice of it (`load_array` refuses
    it first when the spec takes it whole)."""

    def __init__(self, path: Path, name: str, max_cells: int) -> None:
        self.name, self.max_cells = name, max_cells
        check_csv_size(path, name, max_cells)
        self.data = data = path.read_bytes()
        check_utf8(data)
        self.at = len(codecs.BOM_UTF8) if data.startswith(codecs.BOM_UTF8) else 0
        places, numbers, count, width = [], [], 0, 0
        first_rows: list[tuple[int, int, int]] = []  # the first windows' rows, as found
        self.stop = len(data)  # where the last kept line ends
        for piece in pieces(data, self.at, len(data)):
            held = np.flatnonzero(piece.kept)  # (kept lines of the piece,)
            if len(held):
                self.stop = piece.at + int(piece.ends[held[-1]])
            if count < WINDOWS_KEPT * STRIDE:
                first_rows.extend(rows_of(piece, held[:WINDOWS_KEPT * STRIDE - count]))
            cells = line_commas(data, piece.at, piece.starts[held], piece.ends[held]) + 1
            if count == 0 and len(held):
                width = int(cells[0])
            other = np.flatnonzero(cells != width)  # (lines of another width,)
            if len(other):
                raise FileProblem(Msg.plural_of(
                    "{name}: line {line} has {count} number, expected {expected}",
                    "{name}: line {line} has {count} numbers, expected {expected}",
                    Count(int(cells[other[0]])), name=name,
                    line=piece.first + int(held[other[0]]) + 1, expected=Count(width)))
            marked = held[(count + np.arange(len(held))) % STRIDE == 0]  # (places,)
            places.append(piece.starts[marked].astype(np.int64) + piece.at)
            numbers.append(marked + piece.first)
            count += len(held)
        if not count:
            raise FileProblem(Msg.of("{name} holds no numbers", name=name))
        self.places = np.concatenate(places)  # (count / STRIDE,) where every STRIDEth row starts
        self.firsts = np.concatenate(numbers)  # (count / STRIDE,) its line index in the file
        self.shape: tuple[int, ...] = (count, width)
        # the first WINDOWS_KEPT windows are kept as the lines were found: a file of up to
        # WINDOWS_KEPT * STRIDE rows is never looked at again, however many blank lines it has
        self._windows: dict[int, list[tuple[int, int, int]]] = {
            index: first_rows[index * STRIDE:(index + 1) * STRIDE]
            for index in range(-(-len(first_rows) // STRIDE))}
        self._long: dict[int, list[tuple[int, int, int]]] = {}  # windows of many bytes
        self._marks: dict[int, list[int]] = {}  # commas counted per CHUNK of the rows picked
        # the selections read so far (one spec's heads often name the same rows and columns),
        # kept while they hold at most the numbers a .csv may give a spec (max_slow_cells)
        self._read: dict[tuple[tuple[int, ...] | None, tuple[int, ...] | None], np.ndarray] = {}
        self._held = 0

    def line(self, row: int) -> tuple[bytes, int]:
        """The bytes of a kept row and its line number in the file (1-based)."""
        start, end, number = self._place(row)
        return self.data[start:end], number

    def _place(self, row: int) -> tuple[int, int, int]:
        """Where a kept row starts and ends in the file, and its line number (1-based)."""
        start, end, index = self._window(row // STRIDE)[row % STRIDE]
        return start, end, index + 1

    def _window(self, index: int) -> list[tuple[int, int, int]]:
        """The rows from place `index` on (STRIDE of them, or to the end): start, end, line.
        WINDOWS_KEPT windows are kept, the least recently used let go first; a window that
        spans more than LONG_WINDOW bytes (blank lines, comments) is kept once found, so no
        window costs more than LONG_WINDOW bytes to find again (and those kept number at most
        the file's bytes / LONG_WINDOW)."""
        found = self._long.get(index)
        if found is not None:
            return found
        found = self._windows.pop(index, None)
        if found is not None:
            self._windows[index] = found  # the most recently used is last
            return found
        start = int(self.places[index])
        stop = int(self.places[index + 1]) if index + 1 < len(self.places) else self.stop
        found = []
        for piece in pieces(self.data, start, stop, int(self.firsts[index])):
            found.extend(rows_of(piece, np.flatnonzero(piece.kept)))
        if stop - start > LONG_WINDOW:
            self._long[index] = found
            return found
        if len(self._windows) >= WINDOWS_KEPT:
            del self._windows[next(iter(self._windows))]
        self._windows[index] = found
        return found

    def read(self, rows: Sequence[int] | None, columns: Sequence[int] | None) -> np.ndarray:
        """The chosen rows and columns (None: all), only they converted. The rows are found in
        the file's order, each window once, however the spec orders them."""
        chosen = range(self.shape[0]) if rows is None else rows
        width = self.shape[1]
        cells = len(chosen) * (width if columns is None else len(columns))
        limit = max_slow_cells(self.max_cells)
        if cells > limit:
            raise FileProblem(Msg.plural_of(
                "{name}: the spec reads {count} number from this .csv file; the limit for a "
                ".csv file is {limit}, which {option} sets; save a larger matrix as .npy",
                "{name}: the spec reads {count} numbers from this .csv file; the limit for a "
                ".csv file is {limit}, which {option} sets; save a larger matrix as .npy",
                Count(cells), name=self.name, limit=Count(limit), option=LIMIT_HINT))
        key = (None if rows is None else tuple(rows), None if columns is None else tuple(columns))
        kept = self._read.get(key)
        if kept is not None:  # read for this spec already: a matrix of its own, not read again
            return kept.copy()
        values = array.array("d")
        if rows is None:
            for row in chosen:
                values.extend(self._row(row, columns))
        else:  # each distinct row converted once, in the file's order, then laid out as asked
            read = {row: self._row(row, columns) for row in sorted(set(rows))}
            for row in chosen:
                values.extend(read[row])
        count = width if columns is None else len(columns)
        found = np.frombuffer(values, dtype=np.float64).reshape(len(chosen), count)  # (rows, cols)
        numbers = as_float(found, self.name)
        if self._held + numbers.size <= limit:
            self._read[key], self._held = numbers, self._held + numbers.size
            return numbers.copy()
        return numbers

    def _row(self, row: int, columns: Sequence[int] | None) -> array.array[float]:
        """The numbers of one row: all of them, or those of `columns`."""
        start, end, number = self._place(row)
        if columns is None:
            return csv_row(self.data[start:end].decode("utf-8"), self.name, number)
        return self._picked(row, start, end, number, columns)

    def _picked(self, row: int, start: int, end: int, number: int,
                columns: Sequence[int]) -> array.array[float]:
        """The chosen cells of the row at data[start:end], found by its commas: only those up
        to the last chosen column are looked for, a CHUNK of the row at a time (see _commas),
        and the row is never copied."""
        width = self.shape[1]
        wanted = sorted({k for column in columns for k in (column - 1, column)
                         if 0 <= k < width - 1})
        at = self._commas(row, start, end, wanted)
        numbers = array.array("d")
        for column in columns:
            cell = self.data[at[column - 1] + 1 if column > 0 else start:
                             at[column] if column < width - 1 else end]
            try:
                numbers.append(float(cell))
            except ValueError:
                raise not_a_number(cell.decode("utf-8"), self.name, number,
                                   column + 1) from None
        return numbers

    def _commas(self, row: int, start: int, end: int, wanted: list[int]) -> dict[int, int]:
        """Where in the file the commas `wanted` (counted from 0, in order) of the row at
        data[start:end] are. The commas before each CHUNK of the row are counted (and kept for
        a long row: 16 numbers a megabyte) up to the chunk that holds a wanted one; only such a
        chunk's commas are placed, so what is held is a chunk's commas, never the row's."""
        # the commas before byte CHUNK * i of the row; kept for a row of more than one CHUNK
        marks = self._marks.setdefault(row, [0]) if end - start > CHUNK else [0]
        raw = np.frombuffer(self.data, dtype=np.uint8)  # (bytes,) the file's, not a copy
        found: dict[int, int] = {}
        chunk, places = -1, np.zeros(0, dtype=np.int64)
        for k in wanted:
            while marks[-1] <= k and start + len(marks) * CHUNK < end:
                at = start + (len(marks) - 1) * CHUNK
                marks.append(marks[-1] + self.data.count(b",", at, min(at + CHUNK, end)))
            index = bisect.bisect_right(marks, k) - 1
            if index != chunk:
                chunk, at = index, start + index * CHUNK
                places = np.flatnonzero(raw[at:min(at + CHUNK, end)] == COMMA)  # (commas,)
                places += at
            found[k] = int(places[k - marks[chunk]])
        return found


def rows_of(piece: Piece, held: np.ndarray) -> list[tuple[int, int, int]]:
    """The start, end and line index in the file of the lines `held` of a piece."""
    return list(zip((piece.starts[held].astype(np.int64) + piece.at).tolist(),
                    (piece.ends[held].astype(np.int64) + piece.at).tolist(),
                    (held + piece.first).tolist(), strict=True))


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
