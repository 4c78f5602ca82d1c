"""Reading and writing files safely: never half a file, never over the input, never a device, a
pipe or (where the tree is someone else's) a symbolic link.

Two policies for a path that is a symbolic link:

- `follow=True` (`attn export -o FILE`, `--heatmap FILE`: paths the user typed): the link is
  written through, deliberately: the file it points to is replaced and the link kept.
- `follow=False` (`attn snippets`: paths a manifest names, which in CI come from a pull request):
  a link is refused, for reading and for writing.

Either way only a regular file is read or replaced: a folder, a device (/dev/null, /dev/sda), a
FIFO or a socket is refused without being opened, so nothing blocks and nothing is replaced.
"""

from __future__ import annotations

import contextlib
import os
import stat
from collections.abc import Iterable
from pathlib import Path
from typing import BinaryIO

from attncli.errors import UsageError
from attncli.i18n import Count, Msg
from attncli.i18n.library_messages import os_problem


def same_file(a: Path, b: Path) -> bool:
    """Whether two paths name one file (a link or a relative path to the same place counts)."""
    try:
        return a.resolve() == b.resolve() or (a.exists() and b.exists() and a.samefile(b))
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


def cannot_write(path: str | Path, reason: str | Msg) -> UsageError:
    return UsageError(Msg.of("cannot write {file}: {reason}", file=str(path), reason=reason))


def output_target(path: str | Path, follow: bool = True) -> Path:
    """The file that writing to `path` replaces: `path`, or with `follow` the file its link
    points to; UsageError for a name ending in `/`, a folder, a device, a FIFO, a socket, and
    without `follow` a symbolic link."""
    text = os.fspath(path)
    if text.endswith(("/", os.sep)) or os.path.basename(text) in ("", ".", ".."):
        raise cannot_write(text, Msg.of("expected a file name, found a folder"))
    target = Path(text)
    try:
        if follow and target.is_symlink():
            if target.exists():  # what it leads to: /dev/stdout is a pipe or a terminal
                check_regular(target, follow=True)
            target = Path(os.path.realpath(target))
        check_regular(target, follow=False)
    except NotRegular as problem:
        raise cannot_write(text, problem.message) from None
    except (OSError, ValueError) as error:
        raise cannot_write(text, os_problem(error) if isinstance(error, OSError)
                           else str(error)) from None
    return target


def temporary_stem(name: str) -> str:
    """The start of `name` that the temporary file beside it is named after: at most 100 bytes,
    so `.{stem}.XXXXXXXX.tmp` fits a file system's 255 where `name` itself does (a snippet
    named in 244 bytes could not be written)."""
    stem = name
    while len(os.fsencode(stem)) > 100:
        stem = stem[:-1]
    return stem


def write_atomic(path: str | Path, text: str | bytes | Iterable[str],
                 protect: Iterable[str | Path] = (), follow: bool = True,
                 plain: bool = False) -> None:
    """Write `text` (UTF-8, as given; bytes as they are; or its pieces, each as it is made, so a
    large document is never held whole) to `path` through a temporary file in the same folder that
    is then renamed over it, so a reader sees the old file or the new one, never a part; if
    anything fails (or the command is interrupted), the old file is left as it was and the
    temporary file removed. Only a regular file is written (see `output_target` and the
    module's two policies for links). Refuses to write over any `protect` path (the input spec)
    with a UsageError (exit 2). A `plain` file (a snippet) is written without an exec, setuid,
    setgid or sticky bit, whatever the file it replaces had."""
    for guarded in protect:
        if same_file(Path(path), Path(guarded)):
            raise UsageError(Msg.of("refusing to write over the input {file}; choose another "
                                    "output file", file=str(path)))
    target = output_target(path, follow)
    folder = target.parent if str(target.parent) else Path(".")
    import tempfile  # only a command that writes a file needs it (7 million instructions)

    try:
        handle, temporary = tempfile.mkstemp(dir=folder, prefix=f".{temporary_stem(target.name)}.",
                                             suffix=".tmp")
    except OSError as error:
        raise cannot_write(path, os_problem(error)) from None
    try:
        if isinstance(text, bytes):
            with os.fdopen(handle, "wb") as binary:
                binary.write(text)
                binary.flush()
                os.fsync(binary.fileno())
        else:
            with os.fdopen(handle, "w", encoding="utf-8", newline="\n") as out:
                for piece in (text,) if isinstance(text, str) else text:
                    out.write(piece)
                out.flush()
                os.fsync(out.fileno())
        if check_regular(target, follow=False):
            # keep the permissions the user gave the file being replaced
            os.chmod(temporary, target.stat().st_mode & (PLAIN if plain else 0o7777))
        else:
            umask = os.umask(0)
            os.umask(umask)
            os.chmod(temporary, PLAIN & ~umask)
        os.replace(temporary, target)
    except (OSError, NotRegular) as error:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        reason = error.message if isinstance(error, NotRegular) else os_problem(error)
        raise cannot_write(path, reason) from None
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        raise


def write_new(path: Path, data: bytes) -> None:
    """Write `data` to `path`, which must not exist: FileExistsError if anything is there by
    then, even a link or one made after the caller looked (O_EXCL refuses it, where a rename
    would replace it); a file left half written by an error is removed."""
    handle = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0),
                     0o666)
    try:
        with os.fdopen(handle, "wb") as out:
            out.write(data)
            out.flush()
            os.fsync(out.fileno())
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(path)
        raise


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
PLAIN = 0o666  # read and write bits only: what a fresh file gets, less the umask
