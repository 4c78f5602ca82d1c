"""A .csv file of numbers: measured in bytes, then read once as bytes and split into lines, each
line's cells counted at C speed, so that its shape is known (and charged) before a cell is
converted. Only the chosen cells are converted, and at most `max_slow_cells` of them: text costs
about 0.2 µs a number to convert, where a .npy file costs nothing.

A line ends with `\n`, `\r\n` or `\r` (as Python reads text with newline=""); a blank line and a
line starting with # are skipped, and so is a byte order mark (Excel's "CSV UTF-8")."""

from __future__ import annotations

import array
import codecs
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from attncli.i18n import Count, Msg
from attncli.spec.file_problem import FileProblem, as_float
from attncli.spec.limits import max_bytes, max_slow_cells
from attncli.spec.source import LIMIT_HINT, byte_count

CSV_PIECE = 1 << 16  # characters of a CSV line converted at once
COMMA = ord(",")
# First bytes of a line that can be no blank and no comment: ASCII, not whitespace and not #.
NOT_PLAIN = np.array([not (33 <= b < 127) or b == ord("#") for b in range(256)])  # (256,)


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


def _skipped(line: bytes) -> bool:
    """A blank line or a comment (# first), as str.strip() sees blanks: a line of U+00A0 too."""
    text = line if line.isascii() else line.decode("utf-8")
    stripped = text.lstrip()
    return not stripped or stripped[:1] in (b"#", "#")


class CsvFile:
    """The numbers of a CSV file, its shape known before any is converted. The whole file may
    hold more than --max-cells numbers when a spec takes a slice of it (`load_array` refuses
    it first when the spec takes it whole)."""

    def __init__(self, path: Path, name: str, max_cells: int) -> None:
        self.name, self.max_cells = name, max_cells
        check_csv_size(path, name, max_cells)
        data = path.read_bytes()
        if not data.isascii():
            data.decode("utf-8")  # a byte that is no UTF-8 anywhere in the file is refused
        if data.startswith(codecs.BOM_UTF8):
            data = data[len(codecs.BOM_UTF8):]
        starts, ends = line_spans(data)  # (lines,) each: every line of the file, found at C speed
        commas = line_commas(data, starts, ends)  # (lines,)
        first = np.frombuffer(data, dtype=np.uint8)[np.minimum(starts, max(len(data) - 1, 0))]
        kept = ends != starts  # (lines,) an empty line is skipped
        maybe = kept & NOT_PLAIN[first]  # (lines,) blank, or # first?
        for index in np.flatnonzero(maybe).tolist():  # only lines that do not begin a number
            kept[index] = not _skipped(data[starts[index]:ends[index]])
        held = np.flatnonzero(kept).astype(np.int32)  # (kept lines,) their indices among all
        del first, maybe, kept
        if not len(held):
            raise FileProblem(Msg.of("{name} holds no numbers", name=name))
        width = int(commas[held[0]]) + 1
        other = held[commas[held] != width - 1]  # (lines of another width,)
        if len(other):
            raise FileProblem(Msg.plural_of(
                "{name}: line {line} has {count} number, expected {expected}",
                "{name}: line {line} has {count} numbers, expected {expected}",
                Count(int(commas[other[0]]) + 1), name=name, line=int(other[0]) + 1,
                expected=Count(width)))
        every = len(held) == len(starts)
        self.lines = Lines(data, starts if every else starts[held], ends if every else ends[held])
        self.numbers = held + 1  # (kept lines,) their line numbers in the file (1-based)
        self.shape: tuple[int, ...] = (len(self.lines), width)
        self._edges: dict[int, np.ndarray] = {}

    def read(self, rows: Sequence[int] | None, columns: Sequence[int] | None) -> np.ndarray:
        """The chosen rows and columns (None: all), only they converted."""
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
        values = array.array("d")
        for row in chosen:
            if columns is None:
                values.extend(csv_row(self.lines[row].decode("utf-8"), self.name,
                                      int(self.numbers[row])))
            else:
                values.extend(self._picked(row, columns))
        count = width if columns is None else len(columns)
        found = np.frombuffer(values, dtype=np.float64).reshape(len(chosen), count)  # (rows, cols)
        return as_float(found, self.name)

    def _picked(self, row: int, columns: Sequence[int]) -> list[float]:
        """The chosen cells of one line, found by its commas (their places kept for the next
        slice of the same line: one spec's heads often slice one file)."""
        line = self.lines[row]
        edges = self._edges.get(row)
        if edges is None:
            commas = np.flatnonzero(np.frombuffer(line, dtype=np.uint8) == COMMA)  # (width - 1,)
            kind = np.int32 if len(line) < 2**31 else np.int64
            edges = np.concatenate(([-1], commas, [len(line)])).astype(kind)  # (width + 1,)
            self._edges[row] = edges
        at = np.asarray(columns, dtype=np.intp)
        starts, ends = (edges[at] + 1).tolist(), edges[at + 1].tolist()
        numbers = []
        for column, start, end in zip(columns, starts, ends, strict=True):
            cell = line[start:end]
            try:
                numbers.append(float(cell))
            except ValueError:
                raise not_a_number(cell.decode("utf-8"), self.name, int(self.numbers[row]),
                                   column + 1) from None
        return numbers


def line_spans(data: bytes) -> tuple[np.ndarray, np.ndarray]:
    """Where each line of `data` starts and ends (its break left out), as bytes.splitlines()
    cuts them: at `\n`, `\r\n` or `\r`, no line after a final break. No Python object per line:
    a 20 MB file of one number a line was 10 million bytes objects (3.5 s, 600 MB)."""
    raw = np.frombuffer(data, dtype=np.uint8)  # (bytes,)
    starts, ends = [np.zeros(1, np.int32)], []
    for at in range(0, len(raw), 1 << 22):  # 4 MiB at a time: no 8-byte index of the whole
        part = raw[at:at + (1 << 22)]  # (piece,)
        lf, cr = part == 10, part == 13  # (piece,) each
        after = np.append(lf[1:], at + len(part) < len(raw) and raw[at + len(part)] == 10)
        before = np.insert(cr[:-1], 0, at > 0 and raw[at - 1] == 13)  # (piece,)
        breaks = np.flatnonzero(lf | (cr & ~after))  # (breaks in the piece,)
        starts.append((breaks + at + 1).astype(np.int32))  # the next line starts after it
        ends.append((breaks + at - (lf & before)[breaks]).astype(np.int32))  # \r\n: a byte less
        del lf, cr, after, before, breaks
    ends.append(np.full(1, len(data), np.int32))
    start, end = np.concatenate(starts), np.concatenate(ends)  # (breaks + 1,) each
    del starts, ends
    if len(data) == 0 or start[-1] == len(data):
        return start[:-1], end[:-1]  # no line after a final break
    return start, end


def line_commas(data: bytes, starts: np.ndarray, ends: np.ndarray) -> np.ndarray:
    """The commas of each line from `line_spans` (none fall in a break)."""
    commas = np.flatnonzero(np.frombuffer(data, dtype=np.uint8) == COMMA).astype(np.int32)
    counts = np.empty(len(starts), dtype=np.int32)  # (lines,)
    for at in range(0, len(starts), 1 << 20):  # a million lines at a time: no 8-byte index each
        piece = slice(at, at + (1 << 20))
        counts[piece] = (np.searchsorted(commas, ends[piece])
                         - np.searchsorted(commas, starts[piece]))
    return counts


class Lines(Sequence[bytes]):
    """The kept lines of a file, each made as bytes only when asked for."""

    def __init__(self, data: bytes, starts: np.ndarray, ends: np.ndarray) -> None:
        self.data, self.starts, self.ends = data, starts, ends

    def __len__(self) -> int:
        return len(self.starts)

    def __getitem__(self, row: int) -> bytes:  # type: ignore[override]
        return self.data[int(self.starts[row]):int(self.ends[row])]


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
