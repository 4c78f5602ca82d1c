"""A spec's text: read from a file or standard input, bounded by the byte limit before it is
read, and decoded as UTF-8, with the file name as every later error's prefix."""

from __future__ import annotations

import errno
import fcntl
import os
import stat
from typing import BinaryIO

from attncli.errors import Location, SpecError
from attncli.files.reading import read_at_most
from attncli.i18n import Count, Msg
from attncli.i18n.library_messages import os_problem
from attncli.spec.limits import DEFAULT_MAX_CELLS, max_spec_bytes

STDIN = "-"
STDIN_NAME = "<stdin>"
LIMIT_HINT = "--max-cells"


def read_text(path: str, max_cells: int = DEFAULT_MAX_CELLS,
              limit: int | None = None) -> tuple[str, str]:
    """(display name, text) of a spec file, or of standard input for `-`; a file larger than
    the byte limit of a spec under `max_cells` (or `limit` bytes) is refused before it is
    read."""
    if limit is None:
        limit = max_spec_bytes(max_cells)
    if path == STDIN:
        import sys

        name = STDIN_NAME
        try:  # `<&-` leaves no sys.stdin; `0>FILE` one open only for writing (EBADF)
            if sys.stdin is None:
                raise OSError(errno.EBADF, os.strerror(errno.EBADF))
            data = read_at_most(sys.stdin.buffer, limit + 1)
        except OSError as exc:
            problem = Msg.of("standard input is closed or not open for reading") \
                if exc.errno == errno.EBADF else \
                Msg.of("cannot read the file: {reason}", reason=os_problem(exc))
            raise SpecError(problem, Location(name)) from None
        if len(data) > limit:
            raise too_large(name, None, limit)
        return name, decode(name, data)
    name = path
    try:
        with _open_unblocked(path) as file:
            size = os.fstat(file.fileno()).st_size
            if size > limit:
                raise too_large(name, size, limit)
            data = read_at_most(file, limit + 1)
    except FileNotFoundError:
        raise SpecError(Msg.of("no such file"), Location(name)) from None
    except IsADirectoryError:
        raise SpecError(Msg.of("this is a folder, expected a spec file"), Location(name)) from None
    except OSError as exc:
        raise SpecError(Msg.of("cannot read the file: {reason}", reason=os_problem(exc)),
                        Location(name)) from None
    if len(data) > limit:  # a file that grew, or one whose size the system does not know
        raise too_large(name, None, limit)
    return name, decode(name, data)


def _open_unblocked(path: str) -> BinaryIO:
    """`path` opened for reading without waiting for a writer: a FIFO nobody writes to reads as
    empty instead of hanging (opened with O_NONBLOCK, which is then cleared, so a pipe that has
    a writer, such as bash's <(...), is read to its end). Every other file keeps O_NONBLOCK, which
    a file on a disk ignores: one of /proc whose read waits for the kernel (/proc/kmsg, behind a
    link named spec.yaml or --answer a.yaml), or a device that never has anything to read (the
    new terminal /dev/ptmx makes, the kernel log /dev/kmsg), then reads as empty or as what it
    holds instead of hanging. A terminal is waited on only when it is standard input's own
    (`attn explain /dev/stdin`, typed)."""
    if "\0" in path:
        raise OSError(errno.EINVAL, "a file name cannot hold the character NUL")
    handle = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    try:
        mode = os.fstat(handle).st_mode
        if stat.S_ISDIR(mode):
            raise IsADirectoryError(errno.EISDIR, os.strerror(errno.EISDIR))
        if stat.S_ISFIFO(mode) or stat.S_ISSOCK(mode) or _standard_input(handle, mode):
            flags = fcntl.fcntl(handle, fcntl.F_GETFL)
            fcntl.fcntl(handle, fcntl.F_SETFL, flags & ~os.O_NONBLOCK)
        return os.fdopen(handle, "rb")
    except BaseException:
        os.close(handle)
        raise


def _standard_input(handle: int, mode: int) -> bool:
    """Whether `handle` is a character device that standard input is too (a terminal a user
    types a spec into through /dev/stdin)."""
    if not stat.S_ISCHR(mode):
        return False
    try:
        return os.fstat(0).st_rdev == os.fstat(handle).st_rdev
    except OSError:  # standard input closed
        return False


def too_large(name: str, size: int | None, limit: int) -> SpecError:
    if size is None:
        return SpecError(Msg.plural_of("the spec is larger than {count} byte, the limit that "
                                       "{option} sets", "the spec is larger than {count} bytes, "
                                       "the limit that {option} sets", Count(limit),
                                       option=LIMIT_HINT),
                         Location(name))
    return SpecError(Msg.plural_of("the spec has {count} byte; the limit is {limit}, which "
                                   "{option} sets", "the spec has {count} bytes; the limit is "
                                   "{limit}, which {option} sets", Count(size),
                                   limit=byte_count(limit), option=LIMIT_HINT), Location(name))


def byte_count(count: int) -> Msg:
    return Msg.plural_of("{count} byte", "{count} bytes", Count(count))


def decode(name: str, data: bytes) -> str:
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        column = exc.start - (data.rfind(b"\n", 0, exc.start) + 1) + 1
        raise SpecError(
            Msg.of(
                "expected UTF-8 text, found the byte 0x{byte}",
                byte=f"{data[exc.start]:02x}",
            ),
            Location(name, line=line, column=column),
        ) from None
    if not text.strip():
        raise SpecError(Msg.of("the spec is empty, expected a mapping of keys"), Location(name))
    return text
