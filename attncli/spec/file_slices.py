"""Part of an array kept in a .npy, .npz or .csv file: its shape first (so that the rows and
columns a spec chooses are checked and charged before a number is read), then the chosen
numbers alone. A .npy array and a stored .npz member are read by seeking to each chosen run of
numbers; a deflated .npz member is decompressed as a stream up to its last chosen number, held to
the cells of --max-cells; a .csv file is read line by line and only its chosen cells converted."""

from __future__ import annotations

import os
import struct
import zipfile
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Protocol

import numpy as np

from attncli.i18n import Count, Msg
from attncli.spec.files import (
    FileProblem,
    as_float,
    check_csv_size,
    check_members,
    existing_file,
    header_layout,
    member_of,
    reason,
    truncated,
)
from attncli.spec.npy_slice import Costly, Short, read_slice
from attncli.spec.source import LIMIT_HINT

Indices = Sequence[int] | None
LOCAL_HEADER = struct.Struct("<4s22xHH")  # a zip member's local header: its names' lengths


class Sliced(Protocol):
    """An array in a file whose `shape` is known before its numbers are read."""

    shape: tuple[int, ...]
    name: str  # as messages name it: the file, and an .npz's key

    def read(self, rows: Indices, columns: Indices) -> np.ndarray: ...


@contextmanager
def opened(path: Path, name: str, key: str | None, max_cells: int) -> Iterator[Sliced]:
    """The array at `path` (the .npz member `key`), ready to be sliced; a problem reading it
    (the system's, NumPy's or zipfile's) is one FileProblem."""
    try:
        existing_file(path, name)
        suffix = path.suffix.lower()
        if key is not None and suffix != ".npz":
            raise FileProblem(Msg.of("{name}: key is only for .npz files", name=name))
        if suffix == ".csv":
            yield CsvFile(path, name, max_cells)
        elif suffix == ".npz":
            check_members(path, name)
            with zipfile.ZipFile(path) as archive:
                yield NpzMember(archive, path, name, key, max_cells)
        else:
            yield NpyFile(path, name)
    except FileProblem:
        raise
    except (ValueError, OSError, EOFError, UnicodeDecodeError, zipfile.BadZipFile,
            RuntimeError, NotImplementedError) as exc:
        raise FileProblem(Msg.of("{name}: cannot read the numbers: {reason}",
                                 name=name, reason=reason(exc))) from None


def _changed(name: str) -> FileProblem:
    return FileProblem(Msg.of("{name}: the file changed while attn read it", name=name))


class NpyFile:
    def __init__(self, path: Path, name: str) -> None:
        self.path, self.name = path, name
        with open(path, "rb") as file:
            self.layout = header_layout(file, name)
            found = os.fstat(file.fileno()).st_size - self.layout.start
        if found < self.layout.data_bytes:
            raise truncated(name, self.layout, found)
        self.shape = self.layout.shape

    def read(self, rows: Indices, columns: Indices) -> np.ndarray:
        with open(self.path, "rb") as file:
            if header_layout(file, self.name) != self.layout:
                raise _changed(self.name)
            try:
                values = read_slice(file, self.layout, rows, columns)
            except Short:
                found = os.fstat(file.fileno()).st_size - self.layout.start
                raise truncated(self.name, self.layout, found) from None
        return as_float(values, self.name)


class NpzMember:
    """One array of an .npz archive: a .npy file inside a zip. A stored member is read in
    place like a .npy file; a deflated one as a stream, up to its last chosen number."""

    def __init__(self, archive: zipfile.ZipFile, path: Path, name: str, key: str | None,
                 max_cells: int) -> None:
        key, member = member_of(archive.namelist(), name, key)
        self.archive, self.path, self.max_cells = archive, path, max_cells
        self.info = archive.getinfo(member)
        self.name = f"{name} ({key})"
        with archive.open(self.info) as file:
            self.layout = header_layout(file, self.name)
        if self.info.file_size - self.layout.start < self.layout.data_bytes:
            raise truncated(self.name, self.layout, self.info.file_size - self.layout.start)
        self.shape = self.layout.shape

    def read(self, rows: Indices, columns: Indices) -> np.ndarray:
        try:
            if self.info.compress_type == zipfile.ZIP_STORED:
                values = self._stored(rows, columns)
            else:
                with self.archive.open(self.info) as file:
                    if header_layout(file, self.name) != self.layout:
                        raise _changed(self.name)
                    limit = self.max_cells * self.layout.dtype.itemsize
                    values = read_slice(file, self.layout, rows, columns, limit)
        except Costly as costly:
            numbers = costly.needed // self.layout.dtype.itemsize
            raise FileProblem(Msg.plural_of(
                "{name} is compressed: reaching the chosen numbers means decompressing {count} "
                "number; the limit is {limit}, which {option} sets",
                "{name} is compressed: reaching the chosen numbers means decompressing {count} "
                "numbers; the limit is {limit}, which {option} sets", Count(numbers),
                name=self.name, limit=Count(self.max_cells), option=LIMIT_HINT)) from None
        except Short:
            raise truncated(self.name, self.layout, self._found()) from None
        return as_float(values, self.name)

    def _stored(self, rows: Indices, columns: Indices) -> np.ndarray:
        """A stored member read from the archive file itself, at the offset its local header
        gives."""
        with open(self.path, "rb") as file:
            file.seek(self.info.header_offset)
            signature, name_length, extra_length = LOCAL_HEADER.unpack(
                file.read(LOCAL_HEADER.size).ljust(LOCAL_HEADER.size, b"\0"))
            if signature != b"PK\x03\x04":
                raise zipfile.BadZipFile
            file.seek(self.info.header_offset + LOCAL_HEADER.size + name_length + extra_length)
            at = header_layout(file, self.name)  # its start: a byte of the archive
            if (at.shape, at.dtype, at.fortran) != (self.layout.shape, self.layout.dtype,
                                                    self.layout.fortran):
                raise _changed(self.name)
            return read_slice(file, at, rows, columns)

    def _found(self) -> int:
        """The bytes of data the archive holds after the member's .npy header, at most."""
        return min(self.info.file_size, self.path.stat().st_size) - self.layout.start


class CsvFile:
    """A CSV file measured in bytes and lines first (its rows and its width), then read again
    up to its last chosen row, converting only the chosen cells."""

    def __init__(self, path: Path, name: str, max_cells: int) -> None:
        self.path, self.name = path, name
        check_csv_size(path, name, max_cells)
        rows, width = 0, 0
        for number, line in self._lines():
            cells = line.count(",") + 1
            if rows == 0:
                width = cells
            elif cells != width:
                raise FileProblem(Msg.plural_of(
                    "{name}: line {line} has {count} number, expected {expected}",
                    "{name}: line {line} has {count} numbers, expected {expected}",
                    Count(cells), name=name, line=number, expected=Count(width)))
            rows += 1
        if rows == 0:
            raise FileProblem(Msg.of("{name} holds no numbers", name=name))
        self.shape: tuple[int, ...] = (rows, width)

    def _lines(self) -> Iterator[tuple[int, str]]:
        """The lines that hold numbers, with their line numbers (1-based): a blank line and a
        line starting with # are skipped, and so is a byte order mark."""
        with open(self.path, encoding="utf-8-sig", newline="") as file:
            for number, line in enumerate(file, start=1):
                if line.strip() and not line.lstrip().startswith("#"):
                    yield number, line

    def read(self, rows: Indices, columns: Indices) -> np.ndarray:
        chosen = list(range(self.shape[0])) if rows is None else list(rows)
        picked = list(range(self.shape[1])) if columns is None else list(columns)
        wanted = set(chosen)
        found: dict[int, list[float]] = {}
        last = max(wanted)
        for row, (number, line) in enumerate(self._lines()):
            if row in wanted:
                cells = line.split(",")
                if len(cells) != self.shape[1]:
                    raise _changed(self.name)
                found[row] = [self._number(cells, column, number) for column in picked]
            if row == last:
                break
        if len(found) != len(wanted):
            raise _changed(self.name)
        values = np.array([found[row] for row in chosen], dtype=np.float64)  # (rows, columns)
        return as_float(values, self.name)

    def _number(self, cells: list[str], column: int, line: int) -> float:
        try:
            return float(cells[column])
        except ValueError:
            raise FileProblem(Msg.of("{name}: line {line}, column {column}: expected a number, "
                                     "found {found}", name=self.name, line=line,
                                     column=column + 1, found=cells[column].strip()[:40])) from None
