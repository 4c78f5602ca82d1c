"""Reading files safely: what a path is, and only a regular file read, never through a link
where links are not followed, never past a limit (the policies for links:
attncli/files/__init__.py)."""

from __future__ import annotations

import os
import stat
from pathlib import Path
from typing import BinaryIO

from attncli.i18n import Count, Msg


def real(path: Path) -> Path:
    """`path` with its links followed (Path.resolve), also a relative one where the current
    folder was deleted (`cd d; rmdir ../d`), which has no path to start from: its parent is
    still reached through `..`, so `../x` is found through the folder the system opens for
    `..` (Linux names it in /proc/self/fd). Where that cannot be, the system's error."""
    try:
        return path.resolve()
    except FileNotFoundError:
        if path.is_absolute():
            raise
        up = 0
        while up < len(path.parts) and path.parts[up] == "..":
            up += 1
        if not up:
            raise
        folder = os.open(os.path.join(*path.parts[:up]), os.O_RDONLY | os.O_DIRECTORY)
        try:
            start = os.readlink(f"/proc/self/fd/{folder}")
        finally:
            os.close(folder)
        if not os.path.isabs(start):
            raise
        return Path(os.path.realpath(Path(start, *path.parts[up:])))


def same_file(a: Path, b: Path) -> bool:
    """Whether two paths name one file (a link or a relative path to the same place counts)."""
    try:
        return real(a) == real(b) or (a.exists() and b.exists() and a.samefile(b))
    except (OSError, ValueError):
        return False


class NotRegular(Exception):
    """The path exists but is no regular file: a folder, a device, a FIFO, a socket or (when
    links are not followed) a symbolic link. Its message says which."""

    def __init__(self, message: Msg) -> None:
        super().__init__(message.msgid)
        self.message = message


def kind_of(mode: int) -> Msg:
    """What a file that is not a regular file is, in words."""
    if stat.S_ISDIR(mode):
        return Msg.of("a folder")
    if stat.S_ISLNK(mode):
        return Msg.of("a symbolic link")
    if stat.S_ISFIFO(mode):
        return Msg.of("a named pipe (FIFO)")
    if stat.S_ISSOCK(mode):
        return Msg.of("a socket")
    if stat.S_ISREG(mode):
        return Msg.of("a regular file")
    return Msg.of("a device")


def not_regular(mode: int) -> NotRegular:
    return NotRegular(Msg.of("this is {kind}, expected a regular file", kind=kind_of(mode)))


def check_regular(path: Path, follow: bool) -> bool:
    """Whether `path` exists (False: it does not); NotRegular if it is anything but a regular
    file (with `follow`, a link to a regular file counts as one)."""
    try:
        info = os.stat(path) if follow else os.lstat(path)
    except FileNotFoundError:
        return False
    if not stat.S_ISREG(info.st_mode):
        raise not_regular(info.st_mode)
    return True


def read_regular(path: Path, limit: int) -> bytes | None:
    """The bytes of the regular file at `path`, or None if there is none; never through a
    symbolic link, never a device or a FIFO (refused unopened), never more than `limit` bytes
    (NotRegular otherwise, or OSError)."""
    if not check_regular(path, follow=False):
        return None
    flags = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0)
    handle = os.open(path, flags)  # replaced by a link or a FIFO since: ELOOP, or no blocking
    with os.fdopen(handle, "rb") as file:
        info = os.fstat(file.fileno())
        if not stat.S_ISREG(info.st_mode):
            raise not_regular(info.st_mode)
        if info.st_size > limit:
            raise NotRegular(Msg.plural_of(
                "the file has {count} byte; the limit is {limit}, which {option} sets",
                "the file has {count} bytes; the limit is {limit}, which {option} sets",
                Count(info.st_size),
                limit=Msg.plural_of("{count} byte", "{count} bytes", Count(limit)),
                option="--max-cells"))
        data = read_at_most(file, limit + 1)
    if len(data) > limit:  # grew while it was read
        raise NotRegular(Msg.plural_of("the file is larger than {count} byte, the limit that "
                                       "{option} sets", "the file is larger than {count} bytes, "
                                       "the limit that {option} sets", Count(limit),
                                       option="--max-cells"))
    return data


def still_holds(path: Path, expected: bytes) -> bool:
    """Whether the regular file at `path` (not through a link) holds `expected` byte for byte:
    False if it is gone, is no regular file now, or holds anything else (an editor saved over a
    document attn read); OSError if it cannot be read. The bytes are compared, not the size and
    time of the last change: a save within the file system's time step (a second or two on some)
    that keeps the size changes neither, and a file saved again unchanged is no change."""
    try:
        return read_regular(path, len(expected)) == expected
    except NotRegular:  # longer than it was, or replaced by a link, a folder, a FIFO
        return False


def read_at_most(stream: BinaryIO, limit: int) -> bytes:
    """Up to `limit` bytes of `stream`, read in pieces: `read(limit)` would set aside `limit`
    bytes first, which a large --max-cells makes more memory than there is."""
    pieces: list[bytes] = []
    size = 0
    while size < limit:
        piece = stream.read(min(PIECE, limit - size))
        if not piece:
            break
        pieces.append(piece)
        size += len(piece)
    return b"".join(pieces)


PIECE = 1 << 20
STANDARD_INPUT = 0  # the descriptor a spec named `-` is read from
