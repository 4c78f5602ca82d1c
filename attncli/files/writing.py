"""Writing files safely: whole or not at all, never over the input, only over a regular file, with
the old file's owner and permissions kept where they can be (the policies for links:
attncli/files/__init__.py)."""

from __future__ import annotations

import contextlib
import errno
import os
import stat
import sys
from collections.abc import Iterable
from pathlib import Path
from typing import BinaryIO

from attncli.errors import UsageError
from attncli.files.interrupts import raise_pending
from attncli.files.reading import (
    PIECE,
    NotRegular,
    check_regular,
    not_regular,
    same_file,
    still_holds,
)
from attncli.i18n import Msg
from attncli.i18n.library_messages import os_problem


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
        if check_regular(target, follow=False):
            check_not_a_standard_stream(target)
    except NotRegular as problem:
        raise cannot_write(text, problem.message) from None
    except (OSError, ValueError) as error:
        raise cannot_write(text, os_problem(error) if isinstance(error, OSError)
                           else str(error)) from None
    return target


# The standard streams a file written whole must not be: the shell's `>> log` asked for the
# output to be added to the log, and `-o /dev/stdout` (a link to it) would rename a new file
# over it, the log's old lines gone.
STREAMS = ((1, Msg.of("this is the file standard output goes to, expected a file of its own")),
           (2, Msg.of("this is the file standard error goes to, expected a file of its own")))


def check_not_a_standard_stream(target: Path) -> None:
    """NotRegular if the regular file `target` is the one stdout or stderr writes to."""
    info = os.stat(target)
    for descriptor, problem in STREAMS:
        try:
            held = os.fstat(descriptor)
        except OSError:  # closed: no file to keep
            continue
        if stat.S_ISREG(held.st_mode) and (held.st_dev, held.st_ino) == (info.st_dev,
                                                                          info.st_ino):
            raise NotRegular(problem)


def temporary_stem(name: str) -> str:
    """The start of `name` that the temporary file beside it is named after: at most 100 bytes,
    so `.{stem}.XXXXXXXX.tmp` fits a file system's 255 where `name` itself does (a snippet
    named in 244 bytes could not be written)."""
    stem = name
    while len(os.fsencode(stem)) > 100:
        stem = stem[:-1]
    return stem


def written_over(path: Path, guarded: str | Path | int) -> bool:
    """Whether writing to `path` would replace the input `guarded`: a file by its name, or an
    open file by its descriptor (STANDARD_INPUT: `attn export - -o spec.yaml < spec.yaml`), a
    regular file there being the file of that device and inode, whatever name or link leads to
    it (a pipe or a terminal is no file to write over)."""
    if not isinstance(guarded, int):
        return same_file(path, Path(guarded))
    try:
        opened = os.fstat(guarded)
        named = os.stat(path)
    except (OSError, ValueError):
        return False
    return stat.S_ISREG(opened.st_mode) and (opened.st_dev, opened.st_ino) == (
        named.st_dev, named.st_ino)


def check_not_input(path: str | Path, protect: Iterable[str | Path | int]) -> None:
    """UsageError (exit 2) if writing to `path` would replace one of the inputs `protect`."""
    for guarded in protect:
        if written_over(Path(path), guarded):
            raise UsageError(Msg.of("refusing to write over the input {file}; choose another "
                                    "output file", file=str(path)))


class ChangedMeanwhile(Exception):
    """The file to be replaced no longer holds the text it was made from (write_atomic's
    `expected`): nothing was written."""


def write_atomic(path: str | Path, text: str | bytes | Iterable[str | bytes],
                 protect: Iterable[str | Path | int] = (), follow: bool = True,
                 plain: bool = False, expected: bytes | None = None) -> None:
    """Write `text` (UTF-8, as given; bytes as they are; or its pieces, each as it is made, so a
    large document is never held whole) to `path`, whole or not at all. The text goes first to a
    file of the same folder that has no name yet (see `unnamed_file`; where there is none, a
    temporary file named beside it), which then takes the name, or, over an old file, takes a
    temporary name and is renamed over it: a reader sees the old file or the new one, never a
    part, and a command that fails or is interrupted leaves the old file as it was and no
    temporary file. Where the folder lets a file be made but not renamed or removed (`chattr
    +a`), no temporary name could be taken back, so there the whole text, once made, is written
    over the file in place (see `write_in_place`), as it is where a rename is refused. Only a
    regular file is written (see `output_target` and the module's two policies for links).
    Refuses to write over any `protect` path or open file (the input spec, see `written_over`)
    with a UsageError (exit 2). The new file keeps the old one's owner and group where the
    system allows (see `keep_owner`). A `plain` file (a snippet) is written without an exec,
    setuid, setgid or sticky bit, whatever the file it replaces had. With `expected`, the bytes
    the file was read as (a document being filled), the file is read again once the new text is
    made, just before it takes the name: ChangedMeanwhile, and nothing written, if an editor
    saved it since."""
    check_not_input(path, protect)
    target = output_target(path, follow)
    folder = target.parent if str(target.parent) else Path(".")
    try:
        handle, name = unnamed_file(folder), None
        if handle is None:
            import tempfile  # only a command that writes a file needs it (7 million instructions)

            if appends_only(folder):  # no name could be taken back: the text is made elsewhere
                with tempfile.TemporaryFile() as elsewhere:
                    write_all(elsewhere, text)
                    raise_pending()
                    check_unchanged(target, expected)
                    write_in_place(elsewhere, target, plain)
                return
            handle, temporary = tempfile.mkstemp(
                dir=folder, prefix=f".{temporary_stem(target.name)}.", suffix=".tmp")
            name = Path(temporary)
        with os.fdopen(handle, "w+b") as staged:
            try:
                write_all(staged, text)
                keep_owner(staged.fileno(), target)
                os.fchmod(staged.fileno(), file_mode(target, plain))
                raise_pending()  # a signal whose exception was dropped: no file takes a name
                check_unchanged(target, expected)
                if name is None:
                    if linked_as(staged, target):
                        return
                    if appends_only(folder):
                        write_in_place(staged, target, plain)
                        return
                    name = folder / linked_beside(staged, folder, target.name)
                if not replaced(staged, name, target):
                    write_in_place(staged, target, plain)
            except BaseException:
                if name is not None:
                    taken_back(staged, name)
                raise
    except (OSError, NotRegular) as error:
        reason = error.message if isinstance(error, NotRegular) else os_problem(error)
        raise cannot_write(path, reason) from None


def check_unchanged(target: Path, expected: bytes | None) -> None:
    """ChangedMeanwhile unless `target` still holds `expected` (None: nothing to compare)."""
    if expected is not None and not still_holds(target, expected):
        raise ChangedMeanwhile(target)


def write_all(out: BinaryIO, text: str | bytes | Iterable[str | bytes]) -> None:
    """`text` written to `out` and flushed to the disk: UTF-8, bytes as they are."""
    if isinstance(text, bytes):
        out.write(text)
    else:
        for piece in (text,) if isinstance(text, str) else text:
            out.write(piece if isinstance(piece, bytes) else piece.encode("utf-8"))
    out.flush()
    os.fsync(out.fileno())


def unnamed_file(folder: Path) -> int | None:
    """A file open in `folder` that has no name (Linux's O_TMPFILE): a command killed while it
    writes leaves nothing behind, and the file is named only once it is whole. None where the
    system or the file system makes none, or where /proc, through which it is named, is missing."""
    flag = getattr(os, "O_TMPFILE", 0)
    if not flag or not os.path.isdir(PROC_FDS):
        return None
    try:
        return os.open(folder, flag | os.O_RDWR | CLOEXEC, 0o600)
    except OSError as error:
        if error.errno in (errno.EOPNOTSUPP, errno.EISDIR, errno.EINVAL):
            return None
        raise


def appends_only(folder: Path) -> bool:
    """Whether `folder` is append-only (`chattr +a`): a file can be made in it but not renamed
    or removed."""
    return bool(attributes(folder, os.O_DIRECTORY) & APPEND_FL)


def attributes(path: Path, kind: int = 0) -> int:
    """The file attributes of `path` (`chattr +a`: APPEND_FL, `+i`: IMMUTABLE_FL), as Linux
    says them through FS_IOC_GETFLAGS, the call `lsattr` makes; 0 where they cannot be asked.
    `kind`: os.O_DIRECTORY for a folder."""
    if not sys.platform.startswith("linux"):
        return 0
    import fcntl

    try:
        handle = os.open(path, os.O_RDONLY | os.O_NONBLOCK | kind | CLOEXEC)
    except OSError:
        return 0
    try:
        flags = fcntl.ioctl(handle, GETFLAGS, bytes(8))  # the kernel writes an int
    except OSError:
        return 0
    finally:
        os.close(handle)
    return int.from_bytes(flags[:4], sys.byteorder)


def file_mode(target: Path, plain: bool) -> int:
    """The permissions the written file gets: those of the file it replaces, less the setuid,
    setgid and sticky bits (new contents never inherit a program's rights) and, for a `plain`
    file, the exec bits too; else a fresh file's."""
    if check_regular(target, follow=False):
        return target.stat().st_mode & (PLAIN if plain else KEPT)
    umask = os.umask(0)
    os.umask(umask)
    return PLAIN & ~umask


def keep_owner(handle: int, target: Path) -> None:
    """The file open at `handle` given the owner and group of `target`, the file it replaces:
    root filling another user's document must leave it theirs to read. Where the system refuses
    (only root gives a file away), the group alone (a group the user is in), else nothing, and
    nothing said: as with the mode, what can be kept is kept."""
    try:
        old = os.lstat(target)
    except OSError:
        return
    new = os.fstat(handle)
    if (new.st_uid, new.st_gid) == (old.st_uid, old.st_gid) or not hasattr(os, "fchown"):
        return
    for owner in (old.st_uid, -1):
        with contextlib.suppress(OSError):
            os.fchown(handle, owner, old.st_gid)
            return


def linked_as(staged: BinaryIO, target: Path) -> bool:
    """Whether the unnamed file `staged` was given the name `target`, which no file had."""
    if check_regular(target, follow=False):
        return False
    with contextlib.suppress(FileExistsError):  # made since: replaced as an old file is
        link(staged, target.parent if str(target.parent) else Path("."), target.name)
        return True
    return False


def linked_beside(staged: BinaryIO, folder: Path, name: str) -> str:
    """A name `.{name}.XXXXXXXX.tmp`, free in `folder`, given to the unnamed file `staged`."""
    for _ in range(100):
        temporary = f".{temporary_stem(name)}.{os.urandom(4).hex()}.tmp"
        with contextlib.suppress(FileExistsError):
            link(staged, folder, temporary)
            return temporary
    raise FileExistsError(errno.EEXIST, os.strerror(errno.EEXIST))


def link(staged: BinaryIO, folder: Path, name: str) -> None:
    """The name `name` in `folder` given to the unnamed file `staged` (never replacing a file:
    FileExistsError). Through /proc, with linkat's AT_SYMLINK_FOLLOW, which os.link asks for
    only when given a folder's handle."""
    at = os.open(folder, os.O_RDONLY | os.O_DIRECTORY | CLOEXEC)
    try:
        os.link(f"{PROC_FDS}/{staged.fileno()}", name, dst_dir_fd=at, follow_symlinks=True)
    finally:
        os.close(at)


def replaced(staged: BinaryIO, name: Path, target: Path) -> bool:
    """Whether the file at `name` was renamed over `target`. False where the folder refuses
    (a sticky folder and another's file, or a security policy) and `name` was taken back."""
    try:
        os.replace(name, target)
    except PermissionError:
        if not taken_back(staged, name):
            raise
        return False
    return True


def taken_back(staged: BinaryIO, name: Path) -> bool:
    """Whether the temporary name `name` of `staged` is gone; where it cannot be removed, the
    file is emptied at least, so that nothing of the text stays behind."""
    try:
        os.unlink(name)
    except FileNotFoundError:
        return True
    except OSError:
        with contextlib.suppress(OSError, ValueError):
            staged.truncate(0)
        return False
    return True


def write_in_place(staged: BinaryIO, target: Path, plain: bool) -> None:
    """The whole text of `staged` written over `target` (made if missing) in place, where the
    folder refuses to replace it, once the disk is known to have room for it (files/room.py):
    only a failing disk, or one filled by another program meanwhile, leaves it part written.
    A file with other names (hard links) is refused, as it would change under those names too,
    which may be anywhere on the disk; renamed over, as in an ordinary folder, they keep it
    (`export -o ap/o.md` over a second name of notes.txt wrote the walkthrough into notes.txt)."""
    from attncli.files.held import signals_held
    from attncli.files.room import check_room

    # before the file is made or a byte of it written over: a full disk stops the copy part
    # way, and neither the new file nor the old text could then be had back
    check_room([(target, os.fstat(staged.fileno()).st_size)])
    flags = os.O_WRONLY | os.O_CREAT | os.O_NOFOLLOW | os.O_NONBLOCK | CLOEXEC
    try:
        handle, made = os.open(target, flags | os.O_EXCL, PLAIN), True
    except FileExistsError:
        handle, made = os.open(target, flags), False
    with os.fdopen(handle, "wb") as out:
        try:
            info = os.fstat(handle)
            if not stat.S_ISREG(info.st_mode):
                raise not_regular(info.st_mode)
            if not made and info.st_nlink > 1:
                raise other_names()
            if not made and mounted_over(target):  # a rename over it says so: EBUSY
                raise OSError(errno.EBUSY, os.strerror(errno.EBUSY))
            kept = PLAIN if plain else KEPT
            if info.st_mode & ~kept & 0o7777:
                os.fchmod(handle, info.st_mode & kept)
            with signals_held():  # a signal mid-copy would leave new text over old
                staged.seek(0)
                while piece := staged.read(PIECE):
                    out.write(piece)
                out.truncate()
                out.flush()
                os.fsync(handle)
        except BaseException:
            if made:  # in an append-only folder it stays, empty
                with contextlib.suppress(OSError):
                    out.truncate(0)
                    os.unlink(target)
            raise


def other_names() -> NotRegular:
    return NotRegular(Msg.of("the folder refuses to replace this file, and writing it in place "
                             "would change its other names (hard links) too"))


def mounted_over(path: Path) -> bool:
    """Whether a file is mounted at `path` (`mount --bind notes.txt ap/o.md`): another file, in
    its own place elsewhere, which a rename refuses as busy. From Linux's table of mounts."""
    import re

    try:
        real = os.path.realpath(path)
        with open(MOUNTINFO, encoding="utf-8", errors="surrogateescape") as table:
            for line in table:
                fields = line.split(" ")
                if len(fields) > 4 and re.sub(r"\\([0-7]{3})", lambda code: chr(int(
                        code.group(1), 8)), fields[4]) == real:
                    return True
    except (OSError, ValueError):
        return False
    return False


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


PLAIN = 0o666  # read and write bits only: what a fresh file gets, less the umask
KEPT = 0o777  # the bits a file written over keeps: never setuid, setgid or sticky
CLOEXEC = getattr(os, "O_CLOEXEC", 0)
PROC_FDS = "/proc/self/fd"
MOUNTINFO = "/proc/self/mountinfo"  # each mount's place in field 5, a space written \040
IMMUTABLE_FL, APPEND_FL = 0x10, 0x20  # FS_IMMUTABLE_FL, FS_APPEND_FL of linux/fs.h
# FS_IOC_GETFLAGS, _IOR('f', 1, long) where _IOR reads as on x86 and ARM (on POWER, MIPS and
# SPARC the system knows no such call, and the rename refused is caught instead)
GETFLAGS = 0x80006601 | (8 if sys.maxsize > 2**32 else 4) << 16
