"""Part of an array kept in a .npy, .npz or .csv file: its shape first (so that the rows and
columns a spec chooses are checked and charged before a number is read), then the chosen
numbers alone. A .npy array and a stored .npz member are read by seeking to each chosen run of
numbers; a deflated .npz member is decompressed as a stream up to its last chosen number, held to
max_slow_cells numbers; a .csv file is counted first and only its chosen cells converted. Each
array is opened once for a spec, however many heads slice it."""

from __future__ import annotations

import os
import struct
import zipfile
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import IO, Protocol

import numpy as np

from attncli.i18n import Count, Msg
from attncli.spec.csv_file import CsvFile, changed
from attncli.spec.files import (
    UNREADABLE,
    Archives,
    FileProblem,
    as_float,
    check_compression,
    existing_file,
    header_layout,
    identity,
    member_of,
    reason,
    truncated,
)
from attncli.spec.limits import max_slow_cells
from attncli.spec.npy_slice import SPAN_BYTES, Costly, Short, read_slice
from attncli.spec.npz_archive import open_archive
from attncli.spec.opened import open_regular
from attncli.spec.source import LIMIT_HINT

Indices = Sequence[int] | None
LOCAL_HEADER = struct.Struct("<4s22xHH")  # a zip member's local header: its names' lengths


class Sliced(Protocol):
    """An array in a file whose `shape` is known before its numbers are read."""

    shape: tuple[int, ...]
    name: str  # as messages name it: the file, and an .npz's key

    def read(self, rows: Indices, columns: Indices) -> np.ndarray: ...


# the arrays one spec has opened, by file (device, inode, size and time of change) and key
Kept = dict[tuple[tuple[int, int, int, int] | Path, str | None], "Sliced"]


@contextmanager
def opened(path: Path, name: str, key: str | None, max_cells: int,
           kept: Kept | None = None, archives: Archives | None = None) -> Iterator[Sliced]:
    """The array at `path` (the .npz member `key`), ready to be sliced; a problem reading it
    (the system's, NumPy's or zipfile's) is one FileProblem. With `kept` (one per spec), an
    array opened once is opened once: 128 heads slicing one file measure it once, and a
    deflated member is decompressed once; with `archives`, an .npz's directory is read once
    for all its members."""
    try:
        file = (identity(path), key)
        array = None if kept is None else kept.get(file)
        if array is None:
            array = _open(path, name, key, max_cells, archives)
            if kept is not None:
                kept[file] = array
        yield array
    except FileProblem:
        raise
    except UNREADABLE as exc:
        raise FileProblem(Msg.of("{name}: cannot read the numbers: {reason}",
                                 name=name, reason=reason(exc))) from None


def _open(path: Path, name: str, key: str | None, max_cells: int,
          archives: Archives | None) -> Sliced:
    existing_file(path, name)
    suffix = path.suffix.lower()
    if key is not None and suffix != ".npz":
        raise FileProblem(Msg.of("{name}: key is only for .npz files", name=name))
    if suffix == ".csv":
        return CsvFile(path, name, max_cells)
    if suffix == ".npz":
        return NpzMember(path, name, key, max_cells, archives)
    return NpyFile(path, name)


class KeptStream:
    """A deflated member read forward and back: bytes come from those its member keeps; past
    them, the member is decompressed on from where they end (opened once for each read, never
    holding a file between reads) and what it gives is kept too. read_slice has checked every
    byte it asks for against the limit (max_slow_cells) before asking."""

    def __init__(self, member: NpzMember) -> None:
        self.member, self.at = member, 0
        self.kept = member.decompressed
        self.archive: zipfile.ZipFile | None = None
        self.file: IO[bytes] | None = None

    def __enter__(self) -> KeptStream:
        return self

    def __exit__(self, *exc: object) -> None:
        if self.file is not None:
            self.file.close()
        if self.archive is not None:
            self.archive.close()

    def seek(self, at: int) -> int:
        self.at = at
        return at

    def tell(self) -> int:
        return self.at

    def read(self, size: int) -> bytes:
        end = self.at + size
        if end > len(self.kept):
            self._extend(end)
        piece = bytes(self.kept[self.at:end])
        self.at += len(piece)
        return piece

    def _extend(self, end: int) -> None:
        if self.file is None:  # on from the bytes kept: decompress them again, unkept
            self.archive = open_archive(self.member.path, self.member.name,
                                        self.member.archives)
            self.file = self.archive.open(self.member.info)
            header = self.file.read(self.member.layout.start)
            if self.kept and header != self.kept[:len(header)]:
                raise changed(self.member.name)
            if not self.kept:
                self.kept += header
            while (skip := len(self.kept) - self.file.tell()) > 0:
                if not self.file.read(min(skip, SPAN_BYTES)):
                    return
        while len(self.kept) < end:
            piece = self.file.read(max(end - len(self.kept), SPAN_BYTES))
            if not piece:
                return
            self.kept += piece


class NpyFile:
    def __init__(self, path: Path, name: str) -> None:
        self.path, self.name = path, name
        with open_regular(path) as file:
            self.layout = header_layout(file, name)
            found = os.fstat(file.fileno()).st_size - self.layout.start
        if found < self.layout.data_bytes:
            raise truncated(name, self.layout, found)
        self.shape = self.layout.shape

    def read(self, rows: Indices, columns: Indices) -> np.ndarray:
        with open_regular(self.path) as file:
            if header_layout(file, self.name) != self.layout:
                raise changed(self.name)
            try:
                values = read_slice(file, self.layout, rows, columns)
            except Short:
                found = os.fstat(file.fileno()).st_size - self.layout.start
                raise truncated(self.name, self.layout, found) from None
        return as_float(values, self.name)


class NpzMember:
    """One array of an .npz archive: a .npy file inside a zip. A stored member is read in
    place like a .npy file; a deflated one as a stream, up to its last chosen number, and the
    bytes decompressed are kept for the next slice (at most max_slow_cells numbers)."""

    def __init__(self, path: Path, name: str, key: str | None, max_cells: int,
                 archives: Archives | None = None) -> None:
        self.archives = archives
        with open_archive(path, name, archives) as archive:
            key, member = member_of(archive.namelist(), name, key)
            self.info = archive.getinfo(member)
            self.name = f"{name} ({key})"
            check_compression(self.info, self.name)
            with archive.open(self.info) as file:
                self.layout = header_layout(file, self.name)
        self.path, self.max_cells = path, max_cells
        if self.info.file_size - self.layout.start < self.layout.data_bytes:
            raise truncated(self.name, self.layout, self.info.file_size - self.layout.start)
        self.shape = self.layout.shape
        self.decompressed = bytearray()  # the member's first bytes, header and data

    def read(self, rows: Indices, columns: Indices) -> np.ndarray:
        try:
            if self.info.compress_type == zipfile.ZIP_STORED:
                values = self._stored(rows, columns)
            else:
                limit = max_slow_cells(self.max_cells) * self.layout.dtype.itemsize
                with KeptStream(self) as stream:
                    values = read_slice(stream, self.layout, rows, columns, limit)
        except Costly as costly:
            numbers = costly.needed // self.layout.dtype.itemsize
            raise FileProblem(Msg.plural_of(
                "{name} is compressed: reaching the chosen numbers means decompressing {count} "
                "number; the limit is {limit}, which {option} sets; saved with np.savez "
                "(uncompressed), any slice of it is read in place",
                "{name} is compressed: reaching the chosen numbers means decompressing {count} "
                "numbers; the limit is {limit}, which {option} sets; saved with np.savez "
                "(uncompressed), any slice of it is read in place", Count(numbers),
                name=self.name, limit=Count(max_slow_cells(self.max_cells)),
                option=LIMIT_HINT)) from None
        except Short:
            raise truncated(self.name, self.layout, self._found()) from None
        return as_float(values, self.name)

    def _stored(self, rows: Indices, columns: Indices) -> np.ndarray:
        """A stored member read from the archive file itself, at the offset its local header
        gives."""
        with open_regular(self.path) as file:
            file.seek(self.info.header_offset)
            signature, name_length, extra_length = LOCAL_HEADER.unpack(
                file.read(LOCAL_HEADER.size).ljust(LOCAL_HEADER.size, b"\0"))
            if signature != b"PK\x03\x04":
                raise zipfile.BadZipFile
            file.seek(self.info.header_offset + LOCAL_HEADER.size + name_length + extra_length)
            at = header_layout(file, self.name)  # its start: a byte of the archive
            if (at.shape, at.dtype, at.fortran) != (self.layout.shape, self.layout.dtype,
                                                    self.layout.fortran):
                raise changed(self.name)
            return read_slice(file, at, rows, columns)

    def _found(self) -> int:
        """The bytes of data the archive holds after the member's .npy header, at most."""
        return min(self.info.file_size, self.path.stat().st_size) - self.layout.start
