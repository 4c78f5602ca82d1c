"""Part of a .npy array read from an open file: the rows (first axis) and columns (last axis) a
spec chooses, found by their byte offsets and read alone, never by mapping the file (a mapped
file that another process cuts short ends the reader with SIGBUS, no message). The file is read
forward only, so the same code reads an .npz member that must be decompressed as a stream."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Protocol

import numpy as np

from attncli.records import record

GAP_BYTES = 4096  # two chosen numbers this close are read in one piece (a page apart at most)
SPAN_BYTES = 1 << 20  # one read holds at most this much


@record
class Layout:
    """Where a .npy array's numbers are: its shape, data type and order, and the byte its data
    starts at (just after the header)."""

    shape: tuple[int, ...]
    dtype: np.dtype
    fortran: bool
    start: int

    @property
    def data_bytes(self) -> int:
        return math.prod(self.shape) * self.dtype.itemsize


class Readable(Protocol):
    """A file read by seeking forward: an open file, a zip member, the bytes a member keeps."""

    def seek(self, offset: int, /) -> int: ...

    def read(self, size: int, /) -> bytes: ...


class Short(Exception):
    """The data ended before a chosen number: the file is shorter than its header says."""


class Costly(Exception):
    """Reaching the chosen numbers means reading past `limit` bytes of data (`needed` of them)."""

    def __init__(self, needed: int) -> None:
        super().__init__(needed)
        self.needed = needed


def read_slice(file: Readable, layout: Layout, rows: Sequence[int] | None,
               columns: Sequence[int] | None, limit: int | None = None) -> np.ndarray:
    """The chosen `rows` and `columns` (None: all) of the array `layout` describes, in the data
    type of the file. A Fortran-ordered array is a C-ordered one of the reversed shape, so its
    columns are read as rows and the result is transposed back. `limit` bounds the bytes of
    data before the last chosen number (Costly past it), checked before a byte is read."""
    if layout.fortran and len(layout.shape) > 1:
        reversed_shape = layout.shape[::-1]
        picked = _read_c(file, layout, reversed_shape, columns, rows, limit)  # (columns, .., rows)
        return picked.transpose()  # (rows, ..., columns)
    return _read_c(file, layout, layout.shape, rows, columns, limit)


def _read_c(file: Readable, layout: Layout, shape: tuple[int, ...],
            first: Sequence[int] | None, last: Sequence[int] | None,
            limit: int | None) -> np.ndarray:
    """Row-major reading: the array is lines of `shape[-1]` numbers; the chosen first-axis
    indices choose whole blocks of lines, the chosen last-axis indices the numbers of each."""
    if not shape:  # a single number
        return _lines(file, layout, np.zeros(1, np.intp), np.zeros(1, np.intp), 1, limit)[0, 0]
    width = shape[-1]
    if len(shape) == 1:
        lines = np.zeros(1, dtype=np.intp)  # (1,): the vector is one line
        prefix: tuple[int, ...] = ()
    else:
        inner = math.prod(shape[1:-1])
        firsts = np.arange(shape[0]) if first is None else np.asarray(first, dtype=np.intp)
        lines = (firsts[:, None] * inner + np.arange(inner)).ravel()  # (len(firsts) * inner,)
        prefix = (len(firsts), *shape[1:-1])
    unique_lines, line_of = _sorted(lines, None)  # ascending: the file is read forward
    unique_columns, column_of = _sorted(last, width)
    block = _lines(file, layout, unique_lines, unique_columns, width, limit)  # (lines, columns)
    if line_of is not None:
        block = block[line_of]  # (len(lines), columns)
    if column_of is not None:
        block = block[:, column_of]  # (len(lines), len(last))
    return block.reshape(*prefix, block.shape[1])


def _sorted(chosen: Sequence[int] | np.ndarray | None,
            size: int | None) -> tuple[np.ndarray, np.ndarray | None]:
    """The distinct indices of `chosen` in ascending order (every one of `size` when None) and
    where each chosen index is among them (None: they are the same list)."""
    if chosen is None:
        assert size is not None
        return np.arange(size), None
    given = np.asarray(chosen, dtype=np.intp)
    if len(given) and bool(np.all(given[1:] > given[:-1])):
        return given, None  # already ascending and distinct
    unique, inverse = np.unique(given, return_inverse=True)
    return unique, inverse.reshape(-1)


def _groups(columns: np.ndarray, itemsize: int) -> list[tuple[int, int]]:
    """Index ranges [lo, hi) of the sorted `columns` read in one piece each: neighbours at most
    GAP_BYTES apart, the piece at most SPAN_BYTES long."""
    cuts = np.flatnonzero(np.diff(columns) * itemsize > GAP_BYTES) + 1  # (gaps,)
    groups = []
    for lo, hi in zip([0, *cuts.tolist()], [*cuts.tolist(), len(columns)], strict=True):
        while lo < hi:  # a piece ends before the column SPAN_BYTES past its first
            end = lo + int(np.searchsorted(columns[lo:hi], columns[lo] + SPAN_BYTES // itemsize))
            groups.append((lo, end))
            lo = end
    return groups


def _lines(file: Readable, layout: Layout, lines: np.ndarray, columns: np.ndarray,
           width: int, limit: int | None) -> np.ndarray:
    """The sorted `columns` of each of the sorted `lines` (of `width` numbers each)."""
    size = layout.dtype.itemsize
    if not len(lines) or not len(columns):  # rows of no numbers (a shape (3, 0)): none to read
        return np.empty((len(lines), len(columns)), dtype=layout.dtype)  # (lines, columns)
    groups = _groups(columns, size)
    if limit is not None:
        needed = (int(lines[-1]) * width + int(columns[-1]) + 1) * size
        if needed > limit:
            raise Costly(needed)
    # lines close together (most often a run of rows of a narrow array: 256 heads each taking
    # 4,096 rows of a 4,096 x 2 file read a line at a time made 3 million reads, 5 s) are read
    # at once, when that is at most twice the numbers chosen (or SPAN_BYTES) and within `limit`
    first_line = int(lines[0])
    span = (int(lines[-1]) - first_line + 1) * width * size  # bytes from the first line's start
    if span <= max(SPAN_BYTES, 2 * len(lines) * len(columns) * size) and (
            limit is None or (int(lines[-1]) + 1) * width * size <= limit):
        file.seek(layout.start + first_line * width * size)
        data = file.read(span)
        if len(data) < span:
            raise Short
        held = np.frombuffer(data, dtype=layout.dtype).reshape(-1, width)  # (span lines, width)
        return held[np.ix_(lines - first_line, columns)]  # (lines, columns), one copy
    block = np.empty((len(lines), len(columns)), dtype=layout.dtype)  # (lines, columns)
    for row, line in enumerate(lines.tolist()):
        for lo, hi in groups:
            first, end = int(columns[lo]), int(columns[hi - 1]) + 1
            file.seek(layout.start + (line * width + first) * size)
            data = file.read((end - first) * size)
            if len(data) < (end - first) * size:
                raise Short
            piece = np.frombuffer(data, dtype=layout.dtype)  # (end - first,)
            block[row, lo:hi] = piece if end - first == hi - lo else piece[columns[lo:hi] - first]
    return block
