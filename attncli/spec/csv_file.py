"""A .csv file of numbers: measured in bytes, then read once as bytes and its lines found and
their cells counted at C speed (spec/csv_lines.py), so that its shape is known (and charged)
before a cell is converted. Only the chosen cells are converted, and at most `max_slow_cells` of
them: text costs about 0.2 µs a number to convert, where a .npy file costs nothing. A file read
whole is converted a piece of lines at a time (spec/csv_cells.py), and so are chosen rows that lie
near each other; a chosen row of many bytes is converted alone.

What is held once the lines are counted is one place in every STRIDE kept lines (a row is found
again from the place before it, its bytes read from the file again), the windows of rows found
that span many bytes, and what was read: never the file's bytes, unless it is read whole. A blank
line and a comment (# first) are skipped, and so is a byte order mark (Excel's "CSV UTF-8")."""

from __future__ import annotations

import array
import codecs
import os
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path

import numpy as np

from attncli.i18n import Count, Msg
from attncli.spec.csv_cells import chosen_rows, csv_row, every_row, not_a_number, picked
from attncli.spec.csv_lines import COMMA, PIECE, Piece, Seen, pieces
from attncli.spec.csv_lines import commas as line_commas
from attncli.spec.csv_wide import Wide
from attncli.spec.file_problem import FileProblem, as_float
from attncli.spec.limits import max_bytes, max_slow_cells
from attncli.spec.opened import open_regular
from attncli.spec.source import LIMIT_HINT, byte_count

STRIDE = 64  # kept lines between two places held (a row is found from the place before it)
WINDOWS_KEPT = 16  # windows of STRIDE rows held found, for rows read again or near
LONG_WINDOW = 1 << 12  # bytes of a window that is kept once found (see CsvFile._window)
CHUNK = 1 << 16  # bytes of a row past which its commas are counted per BLOCK (see Wide)
SPLIT = 1 << 12  # bytes of a row split at its commas when cells are picked (longer: placed)
NEAR = 1 << 16  # bytes of the rows after a row that are read with it (see _read_ahead)
RUN = 1 << 18  # bytes of the rows chosen (and those between them) read and converted at once


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
    with open_regular(path) as raw:
        for chunk in iter(lambda: raw.read(1 << 20), b""):
            joined = last[-1:] + chunk[:1]  # a \r\n split between two chunks is one break
            cr = chunk.count(b"\r")  # most files have none: their \r\n are not looked for
            breaks += (chunk.count(b"\n") + cr - (chunk.count(b"\r\n") if cr else 0)
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
    it first when the spec takes it whole).

    Its bytes are held only while its lines are counted (and by a reading of it whole, `hold`):
    a slice is read from the file again, the bytes of the rows chosen alone, so that the .csv
    files a spec slices cost it what it reads of them and the places of its rows, not their
    size (9 files of 38 MB held 362 MB)."""

    def __init__(self, path: Path, name: str, max_cells: int, hold: bool = False) -> None:
        self.name, self.max_cells, self.path = name, max_cells, path
        check_csv_size(path, name, max_cells)
        with open_regular(path) as file:
            info = os.fstat(file.fileno())
            data = file.read()
        self.stamp = (len(data), info.st_mtime_ns)
        check_utf8(data)
        self.at = len(codecs.BOM_UTF8) if data.startswith(codecs.BOM_UTF8) else 0
        places, numbers, count, width = [], [], 0, 0
        first_rows: list[np.ndarray] = []  # the first windows' rows, as found
        seen: list[Seen] = []  # the pieces that hold rows, for a reading of the whole file
        self.stop = len(data)  # where the last kept line ends
        for piece in pieces(data, self.at, len(data)):
            held = np.flatnonzero(piece.kept)  # (kept lines of the piece,)
            if len(held):
                self.stop = piece.at + int(piece.ends[held[-1]])
                if hold:
                    seen.append(Seen.of(piece))
            if count < WINDOWS_KEPT * STRIDE:
                first_rows.append(rows_of(piece, held[:WINDOWS_KEPT * STRIDE - count]))
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
        self.data = data if hold else None
        self.seen = seen  # empty unless held
        self.places = np.concatenate(places)  # (count / STRIDE,) where every STRIDEth row starts
        self.firsts = np.concatenate(numbers)  # (count / STRIDE,) its line index in the file
        self.ends = np.append(self.places[1:], self.stop)  # (count / STRIDE,) where each ends
        self.shape: tuple[int, ...] = (count, width)
        # the first WINDOWS_KEPT windows are kept as the lines were found: a file of up to
        # WINDOWS_KEPT * STRIDE rows is never looked at again, however many blank lines it has
        found = np.concatenate(first_rows, axis=1)  # (3, rows found)
        self._windows: dict[int, np.ndarray] = {
            index: found[:, index * STRIDE:(index + 1) * STRIDE]
            for index in range(-(-found.shape[1] // STRIDE))}
        self._long: dict[int, np.ndarray] = {}  # windows of many bytes, kept once found
        self._wide: dict[int, Wide] = {}  # the commas of long rows, counted per BLOCK
        self._blocks: dict[int, bytes] = {}  # blocks of long rows read last, by place
        # the selections read so far (one spec's heads often name the same rows and columns,
        # in any order), by their distinct rows, kept while they hold at most the numbers a
        # .csv may give a spec (max_slow_cells)
        self._read: dict[tuple[bytes | None, tuple[int, ...] | None], np.ndarray] = {}
        self._held = 0
        self._file: int | None = None  # the file, open while one reading of it lasts
        self._ahead: tuple[int, bytes] = (0, b"")  # bytes read ahead in it, from where

    def line(self, row: int) -> tuple[bytes, int]:
        """The bytes of a kept row and its line number in the file (1-based)."""
        with self._reading():
            start, end, number = self._place(row)
            return self._bytes(start, end), number

    @contextmanager
    def _reading(self) -> Iterator[None]:
        """The file opened for one reading (unless its bytes are held), the same file as it
        was counted: its size and time of change unchanged."""
        if self.data is not None or self._file is not None:
            yield
            return
        handle = os.open(self.path, os.O_RDONLY | getattr(os, "O_CLOEXEC", 0))
        try:
            info = os.fstat(handle)
            if (info.st_size, info.st_mtime_ns) != self.stamp:
                raise changed(self.name)
            self._file = handle
            yield
        finally:
            self._file, self._ahead = None, (0, b"")
            os.close(handle)

    def _bytes(self, start: int, end: int) -> bytes:
        """The file's bytes from `start` to `end`: held, read ahead, or read again."""
        if self.data is not None:
            return self.data[start:end]
        at, ahead = self._ahead
        if at <= start and end <= at + len(ahead):
            return ahead[start - at:end - at]
        assert self._file is not None
        found = os.pread(self._file, end - start, start)
        if len(found) != end - start:
            raise changed(self.name)
        return found

    def _read_ahead(self, row: int, start: int, end: int) -> None:
        """Before the row at [start, end) is read: the rows after it in its window read with it
        when they end within NEAR bytes, so rows read in a run cost a read a window, not a row."""
        at, ahead = self._ahead
        if self.data is not None or (at <= start and end <= at + len(ahead)):
            return
        last = int(self._window(row // STRIDE)[1, -1])
        if end < last <= start + NEAR:
            self._ahead = (start, self._bytes(start, last))

    def _place(self, row: int) -> tuple[int, int, int]:
        """Where a kept row starts and ends in the file, and its line number (1-based)."""
        start, end, index = self._window(row // STRIDE)[:, row % STRIDE].tolist()
        return start, end, index + 1

    def _window(self, index: int) -> np.ndarray:
        """The rows from place `index` on (STRIDE of them, or to the end): start, end, line.
        WINDOWS_KEPT windows are kept, the least recently used let go first; a window that
        spans more than LONG_WINDOW bytes (blank lines, comments) is kept once found, so no
        window costs more than LONG_WINDOW bytes to find again, and those kept (24 bytes a
        row) hold at most 3/8 of the file's bytes, however many references name its rows."""
        found = self._long.get(index)
        if found is not None:
            return found
        found = self._windows.pop(index, None)
        if found is not None:
            self._windows[index] = found  # the most recently used is last
            return found
        start = int(self.places[index])
        span = self._bytes(start, int(self.ends[index]))
        found = np.concatenate([rows_of(piece, np.flatnonzero(piece.kept)) for piece in
                                pieces(span, 0, len(span), int(self.firsts[index]))], axis=1)
        found[:2] += start  # (3, rows) places in the file
        self._keep(index, found)
        return found

    def _keep(self, index: int, found: np.ndarray) -> None:
        """Keep the window `index` found: for good if it spans many bytes, else among the last
        WINDOWS_KEPT."""
        if int(self.ends[index]) - int(self.places[index]) > LONG_WINDOW:
            self._long[index] = found
            return
        if len(self._windows) >= WINDOWS_KEPT:
            del self._windows[next(iter(self._windows))]
        self._windows[index] = found

    def read(self, rows: Sequence[int] | None, columns: Sequence[int] | None) -> np.ndarray:
        """The chosen rows and columns (None: all), only they converted. The rows are found in
        the file's order, each window once, however the spec orders them, and a row set read
        before (in any order, any row repeated) is laid out again from what it gave."""
        count = self.shape[0] if rows is None else len(rows)
        width = self.shape[1]
        cells = count * (width if columns is None else len(columns))
        limit = max_slow_cells(self.max_cells)
        if cells > limit:
            raise FileProblem(Msg.plural_of(
                "{name}: the spec reads {count} number from this .csv file; the limit for a "
                ".csv file is {limit}, which {option} sets; save a larger matrix as .npy",
                "{name}: the spec reads {count} numbers from this .csv file; the limit for a "
                ".csv file is {limit}, which {option} sets; save a larger matrix as .npy",
                Count(cells), name=self.name, limit=Count(limit), option=LIMIT_HINT))
        chosen = None if rows is None else as_rows(rows)  # (rows,)
        distinct = None if chosen is None else ascending(chosen)  # (distinct rows,)
        key = (None if distinct is None else distinct.tobytes(),
               None if columns is None else tuple(columns))
        numbers = self._read.get(key)
        if numbers is None:
            with self._reading():
                numbers = self._convert(distinct, columns)
            if self._held + numbers.size <= limit:
                self._read[key], self._held = numbers, self._held + numbers.size
        if distinct is None or chosen is None:
            return numbers.copy()  # a matrix of its own, as a reading gives
        return numbers[np.searchsorted(distinct, chosen)]  # (rows, columns)

    def _convert(self, distinct: np.ndarray | None, columns: Sequence[int] | None) -> np.ndarray:
        """The numbers of each of the rows `distinct` (ascending; None: every row), as read:
        rows near each other (within RUN bytes) converted together, a row of many bytes alone."""
        if distinct is None and columns is None and self.data is not None:
            return as_float(every_row(self.data, self.seen, self.shape[1], self.name), self.name)
        rows = np.arange(self.shape[0]) if distinct is None else distinct  # (rows,)
        starts, ends, lines = self._places(rows)  # (rows,) each
        alone = (ends - starts) > (RUN if columns is None else SPLIT)  # (rows,)
        stretch = (starts - starts[0]) // RUN  # (rows,) the RUN bytes each starts in
        cut = 1 + np.flatnonzero((stretch[1:] != stretch[:-1]) | alone[1:] | alone[:-1])
        values = array.array("d")
        for low, high in zip([0, *cut.tolist()], [*cut.tolist(), len(rows)], strict=True):
            if alone[low]:
                values.extend(self._row(int(rows[low]), columns))
                continue
            first = int(starts[low])
            data = self._bytes(first, int(ends[high - 1]))
            values.extend(chosen_rows(data, starts[low:high] - first, ends[low:high] - first,
                                      lines[low:high], self.shape[1], self.name, columns))
        count = self.shape[1] if columns is None else len(columns)
        found = np.frombuffer(values, dtype=np.float64).reshape(-1, count)  # (rows, columns)
        return as_float(found, self.name)

    def _places(self, rows: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Where each of `rows` (ascending) starts and ends in the file, and its line number
        (1-based): the windows that hold them found a stretch at a time."""
        index = rows // STRIDE  # (rows,) the window of each
        found = np.empty((3, len(rows)), dtype=np.int64)  # (3, rows)
        for first, last in self._stretches(ascending(index).tolist()):
            low, high = np.searchsorted(index, [first, last + 1]).tolist()
            found[:, low:high] = self._stretch(first, last)[:, rows[low:high] - first * STRIDE]
        return found[0], found[1], found[2] + 1

    def _stretches(self, windows: list[int]) -> Iterator[tuple[int, int]]:
        """The first and last of each stretch of `windows` (ascending) found at once: windows
        not held that follow each other within RUN bytes go together, a held one alone."""
        first = last = -1
        for window in windows:
            held = window in self._long or window in self._windows
            if (first >= 0 and not held and window == last + 1
                    and int(self.ends[window]) - int(self.places[first]) <= RUN):
                last = window
                continue
            if first >= 0:
                yield first, last
            first = last = window
            if held:
                yield window, window
                first = -1
        if first >= 0:
            yield first, last

    def _stretch(self, first: int, last: int) -> np.ndarray:
        """The rows of the windows `first` to `last`: start, end, line; found by one look at
        their bytes, and each window kept as `_window` keeps it."""
        if first == last:
            return self._window(first)
        start = int(self.places[first])
        span = self._bytes(start, int(self.ends[last]))
        found = np.concatenate([rows_of(piece, np.flatnonzero(piece.kept)) for piece in
                                pieces(span, 0, len(span), int(self.firsts[first]))], axis=1)
        found[:2] += start  # (3, rows) places in the file
        long = self.ends[first:last + 1] - self.places[first:last + 1] > LONG_WINDOW  # (windows,)
        last_held = max(first, last + 1 - WINDOWS_KEPT)  # the windows before it would be let go
        for index in [*(first + np.flatnonzero(long[:last_held - first])).tolist(),
                      *range(last_held, last + 1)]:
            window = found[:, (index - first) * STRIDE:(index - first + 1) * STRIDE]
            self._keep(index, window.copy())  # not a view that holds the whole stretch
        return found

    def _row(self, row: int, columns: Sequence[int] | None) -> array.array[float]:
        """The numbers of one row: all of them, or those of `columns`."""
        start, end, number = self._place(row)
        self._read_ahead(row, start, end)
        if columns is None:
            return csv_row(self._bytes(start, end).decode("utf-8"), self.name, number)
        return self._picked(row, start, end, number, columns)

    def _picked(self, row: int, start: int, end: int, number: int,
                columns: Sequence[int]) -> array.array[float]:
        """The chosen cells of the row at [start, end), found by its commas; a row longer
        than CHUNK has its commas counted per BLOCK once (see Wide), and only the blocks that
        hold a chosen cell's commas are read; a short row is split."""
        width = self.shape[1]
        if end - start <= SPLIT:
            return picked(self._bytes(start, end), self.name, number, columns)
        wanted = np.array(sorted({k for column in columns for k in (column - 1, column)
                                  if 0 <= k < width - 1}), dtype=np.int64)  # (commas,)
        pick: Callable[[int, int], bytes]
        if end - start > CHUNK:
            wide = self._wide.get(row)
            if wide is None:
                wide = self._wide[row] = Wide(start, end, self._blocks)
            place = wide.commas(wanted, self._bytes)
            pick = lambda low, high: wide.cell(low, high, self._bytes)  # noqa: E731
        else:
            line = self._bytes(start, end)
            found = np.flatnonzero(np.frombuffer(line, dtype=np.uint8) == COMMA)  # (commas,)
            place = found[wanted] + start if len(wanted) else wanted  # (wanted,)
            pick = lambda low, high: line[low - start:high - start]  # noqa: E731
        at = dict(zip(wanted.tolist(), place.tolist(), strict=True))
        numbers = array.array("d")
        for column in columns:
            low = at[column - 1] + 1 if column > 0 else start
            text = pick(low, at[column] if column < width - 1 else end).decode("utf-8")
            try:
                numbers.append(float(text))  # a text, as a row read whole reads it
            except ValueError:
                raise not_a_number(text, self.name, number, column + 1) from None
        return numbers


def as_rows(rows: Sequence[int]) -> np.ndarray:
    """The row indices as an array (a slice made from its bounds, not from millions of ints)."""
    if isinstance(rows, range):
        return np.arange(rows.start, rows.stop, rows.step, dtype=np.int64)  # (rows,)
    return np.asarray(rows, dtype=np.int64)  # (rows,)


def ascending(values: np.ndarray) -> np.ndarray:
    """The distinct `values`, ascending, by a sort when they are not in order already
    (np.unique hashes them first: 3 s for 2,000,000 rows)."""
    ordered = values if (values[1:] >= values[:-1]).all() else np.sort(values)  # (values,)
    return ordered[np.append(True, ordered[1:] != ordered[:-1])]  # (distinct,)


def changed(name: str) -> FileProblem:
    return FileProblem(Msg.of("{name}: the file changed while attn read it", name=name))


def rows_of(piece: Piece, held: np.ndarray) -> np.ndarray:
    """The start, end and line index in the file of the lines `held` of a piece."""
    return np.stack((piece.starts[held].astype(np.int64) + piece.at,
                     piece.ends[held].astype(np.int64) + piece.at,
                     held.astype(np.int64) + piece.first))  # (3, lines)
