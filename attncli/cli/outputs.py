"""The files one command writes (`attn export`'s -o, --heatmap and --answers): a refused command
writes nothing. Every file is looked at before any is written (`check_writable`), and where one
still fails while it is written (a full disk, `ulimit -f`), the files this command made before
it are removed again (`write_together`). A file that was there before the command is never
removed: it is replaced whole or left as it was, so what could refuse it is looked at first."""

from __future__ import annotations

import contextlib
import errno
import os
import stat
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path
from typing import BinaryIO

from attncli.files.reading import PIECE, NotRegular, check_regular
from attncli.files.writing import (
    APPEND_FL,
    CLOEXEC,
    IMMUTABLE_FL,
    appends_only,
    attributes,
    cannot_write,
    other_names,
    output_target,
    write_atomic,
)
from attncli.i18n.library_messages import os_problem

Text = str | bytes | Iterable[str] | Iterable[bytes]


def check_writable(path: str | Path) -> None:
    """UsageError (`cannot write FILE: reason`, as the write itself would say) unless a file
    can be written at `path` now: its folder is there and takes a new file, and a file there
    can be replaced, or written in place where its folder refuses to replace it (see
    files.write_atomic). Nothing is left behind by looking."""
    target = output_target(path)
    folder = target.parent if str(target.parent) else Path(".")
    try:
        takes_new_file(folder)
        if check_regular(target, follow=False):
            replaceable(target, folder)
    except NotRegular as problem:
        raise cannot_write(path, problem.message) from None
    except OSError as error:
        raise cannot_write(path, os_problem(error)) from None


def takes_new_file(folder: Path) -> None:
    """OSError unless a file can be made in `folder` (missing, no folder, read-only, no inode
    left): a file with no name is made there and closed, which leaves nothing (Linux's
    O_TMPFILE); where the system makes none, the folder's permissions are asked."""
    flag = getattr(os, "O_TMPFILE", 0)
    if flag:
        try:
            os.close(os.open(folder, flag | os.O_WRONLY | CLOEXEC, 0o600))
            return
        except OSError as error:
            if error.errno not in (errno.EOPNOTSUPP, errno.EISDIR, errno.EINVAL):
                raise
    if not stat.S_ISDIR(os.stat(folder).st_mode):
        raise NotADirectoryError(errno.ENOTDIR, os.strerror(errno.ENOTDIR))
    if not os.access(folder, os.W_OK | os.X_OK):
        raise PermissionError(errno.EACCES, os.strerror(errno.EACCES))


def replaceable(target: Path, folder: Path) -> None:
    """OSError or NotRegular unless the file `target` can be replaced: not append-only or
    immutable (`chattr +a`, `+i`: neither renamed over nor written in place), and where the
    folder makes write_atomic write in place (an append-only folder, or a sticky one such as
    /tmp and another's file), open to write and with no other name."""
    if attributes(target) & (APPEND_FL | IMMUTABLE_FL):
        raise PermissionError(errno.EPERM, os.strerror(errno.EPERM))
    info = os.lstat(target)
    if appends_only(folder) or sticky_for_others(folder, info):
        if info.st_nlink > 1:
            raise other_names()
        os.close(os.open(target, os.O_WRONLY | os.O_NONBLOCK | os.O_NOFOLLOW | CLOEXEC))


def sticky_for_others(folder: Path, info: os.stat_result) -> bool:
    """Whether `folder` is sticky and neither it nor the file `info` is this user's: a rename
    over the file is refused there."""
    held = os.stat(folder)
    return bool(held.st_mode & stat.S_ISVTX) and os.geteuid() not in (held.st_uid, info.st_uid)


def write_together(outputs: Sequence[tuple[str, Text, Sequence[str | Path | int]]]) -> None:
    """Write each (path, text, inputs it must not replace) with files.write_atomic, the new
    files first (taken back if a later one fails), then those that replace a file. Where a
    write fails, the files this call made are removed and the error raised. Where a folder
    keeps every file made in it (`chattr +a`), nothing could be removed: there every text is
    made first, elsewhere, and the disks asked for room for all of them (see `made_first`)."""
    if len(outputs) > 1 and any(appends_only(folder_of(output_target(path)))
                                for path, _, _ in outputs):
        try:
            with made_first(outputs) as staged:
                _write_together(staged)
        except OSError as error:  # a text that could not be made, or no room for them all
            raise cannot_write(error.filename or outputs[0][0], os_problem(error)) from None
        return
    _write_together(outputs)


def folder_of(target: Path) -> Path:
    return target.parent if str(target.parent) else Path(".")


@contextlib.contextmanager
def made_first(outputs: Sequence[tuple[str, Text, Sequence[str | Path | int]]]
               ) -> Iterator[list[tuple[str, Text, Sequence[str | Path | int]]]]:
    """The outputs with each text made whole in a temporary file (in TMPDIR), once the disks
    they go to have room for all of them at once (files/room.py): a text that fails while it
    is made, or a disk too full, refuses the command before any file is written. Each text is
    then read back from its file in pieces."""
    import tempfile

    from attncli.files.room import check_room
    from attncli.files.writing import write_all

    with contextlib.ExitStack() as files:
        made: list[tuple[BinaryIO, int]] = []
        for _, text, _ in outputs:
            staged = files.enter_context(tempfile.TemporaryFile())
            write_all(staged, text)
            made.append((staged, staged.tell()))
        targets = [(output_target(path), size)
                   for (path, _, _), (_, size) in zip(outputs, made, strict=True)]
        # each text is staged again beside its file as it is written (a file with no name),
        # one at a time: the largest of those written over an old file in place
        in_place = max(((size, folder_of(target)) for target, size in targets
                        if os.path.lexists(target)), default=None, key=lambda pair: pair[0])
        check_room(targets, [(in_place[1], in_place[0])] if in_place else ())
        yield [(path, pieces(staged), protect)
               for (path, _, protect), (staged, _) in zip(outputs, made, strict=True)]


def pieces(staged: BinaryIO) -> Iterator[bytes]:
    staged.seek(0)
    while piece := staged.read(PIECE):
        yield piece


def _write_together(outputs: Sequence[tuple[str, Text, Sequence[str | Path | int]]]) -> None:
    existed = [os.path.lexists(output_target(path)) for path, _, _ in outputs]
    made: list[tuple[Path, int, int]] = []  # a file made here, by its device and inode
    try:
        for (path, text, protect), there in sorted(zip(outputs, existed, strict=True),
                                                   key=lambda pair: pair[1]):
            write_atomic(path, text, protect=protect)
            if not there:
                target = output_target(path)
                info = os.stat(target)
                made.append((target, info.st_dev, info.st_ino))
    except BaseException:
        for target, device, inode in reversed(made):
            with contextlib.suppress(OSError):
                info = os.lstat(target)
                if (info.st_dev, info.st_ino) == (device, inode):
                    os.unlink(target)
        raise
