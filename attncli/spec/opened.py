"""A data file a spec names, opened for reading so that no read waits: a PNG image, a
checkpoint's safetensors and JSON files, a .npy, .npz or .csv file, a tokenizer.json.

Each is checked to be a regular file before it is read (spec/files.py's existing_file), but a
file of /proc can be one and still wait for the kernel on each read: /proc/kmsg behind a link
named model.safetensors or p.png with --allow-outside was waited on for ever. Opened with
O_NONBLOCK, which a file on a disk ignores, such a file reads as empty (and is refused as a file
that ends too soon), as a spec or an answer file does (spec/spec_text.py).
"""

from __future__ import annotations

import errno
import io
import os
import stat
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from pathlib import Path

from attncli.files.reading import not_regular
from attncli.i18n import Msg
from attncli.i18n.library_messages import os_problem
from attncli.spec.file_problem import FileProblem


class _Unblocked(io.FileIO):
    """A file whose read that would wait (EAGAIN) reads nothing, as at its end."""

    def readinto(self, buffer: object) -> int:
        got = super().readinto(buffer)  # type: ignore[arg-type]
        return 0 if got is None else got

    def readall(self) -> bytes:
        got = super().readall()
        return b"" if got is None else got


def open_regular(path: Path | str) -> io.BufferedReader:
    """The regular file at `path` (after links) opened for reading, buffered; NotRegular for a
    folder, a FIFO or a device, OSError as the system says it."""
    if "\0" in str(path):
        raise OSError(errno.EINVAL, "a file name cannot hold the character NUL")
    handle = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    try:
        mode = os.fstat(handle).st_mode
        if not stat.S_ISREG(mode):
            raise not_regular(mode)
        return io.BufferedReader(_Unblocked(handle, "rb", closefd=True))
    except BaseException:
        os.close(handle)
        raise


def read_regular_bytes(path: Path | str, limit: int | None = None) -> bytes:
    """All the bytes of the regular file at `path`, read without waiting; with `limit`, at
    most `limit` + 1 of them, so that a file grown past its checked size since is seen to be
    larger, and not read whole."""
    with open_regular(path) as file:
        return file.read() if limit is None else file.read(limit + 1)


# The checkpoint files kept open while one spec is read (see `kept_open`), by device and inode
_KEPT: ContextVar[dict[tuple[int, int], io.BufferedReader] | None] = ContextVar("kept",
                                                                               default=None)


@contextmanager
def kept_open() -> Iterator[None]:
    """While the block runs (one spec read, with its model folder's layers), a checkpoint's file
    is opened once and kept open for every tensor read from it, then closed: layer 999 of a
    model folder opened, checked and closed its file for each of the 10,000 tensors before it."""
    if _KEPT.get() is not None:
        yield
        return
    kept: dict[tuple[int, int], io.BufferedReader] = {}
    token = _KEPT.set(kept)
    try:
        yield
    finally:
        _KEPT.reset(token)
        for file in kept.values():
            file.close()


@contextmanager
def reading(path: Path, identity: tuple[int, int] | None = None) -> Iterator[io.BufferedReader]:
    """The regular file at `path` opened for reading: within `kept_open`, the file of device
    and inode `identity` kept open (opened now if it is not yet, and kept only if `path` still
    names that file); otherwise opened for the block and closed after it."""
    kept = _KEPT.get()
    file = None if kept is None or identity is None else kept.get(identity)
    if file is None:
        file = open_regular(path)
        status = os.fstat(file.fileno())
        if kept is not None and (status.st_dev, status.st_ino) == identity:
            kept[identity] = file
        else:  # outside a spec's reading, or another file by now: closed after the block
            with file:
                yield file
            return
    yield file


@contextmanager
def refused_read(name: str) -> Iterator[None]:
    """The system's refusal of a read (OSError) while a file is opened and read, as the
    FileProblem that names the file as the spec does: /proc/self/pagemap behind a link named
    p.png (with --allow-outside) refuses a read of other than 8 bytes (EINVAL), and one mounted
    over model.safetensors names a process that is gone (ESRCH); both were exit 3, internal
    error."""
    try:
        yield
    except OSError as error:
        raise FileProblem(Msg.of("{name}: cannot read the numbers: {reason}", name=name,
                                 reason=os_problem(error))) from None
