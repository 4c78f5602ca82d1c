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
from pathlib import Path

from attncli.files import not_regular


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


def read_regular_bytes(path: Path | str) -> bytes:
    """All the bytes of the regular file at `path`, read without waiting."""
    with open_regular(path) as file:
        return file.read()
