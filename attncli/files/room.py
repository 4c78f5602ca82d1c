"""Room on the disk for texts written in place (files/writing.py `write_in_place`): where a
folder lets a file be made but not renamed or removed (`chattr +a`), what is written there cannot
be taken back, so the file system is asked first whether it holds every text whole. A full disk
then refuses the command before a byte of an old file is written over and before a new file is
made, as it refuses it in any other folder."""

from __future__ import annotations

import errno
import os
import resource
from collections.abc import Iterable
from pathlib import Path


class _Disk:
    """One file system: the bytes and inodes it has free for this user, and those asked of it."""

    def __init__(self, folder: Path) -> None:
        disk = os.statvfs(folder)
        root = os.geteuid() == 0  # the blocks the system keeps for root are root's alone
        self.block = disk.f_frsize or disk.f_bsize or 1
        self.free = (disk.f_bfree if root else disk.f_bavail) * self.block
        # no count where the file system makes inodes as it needs them (f_files 0: btrfs)
        self.inodes = (disk.f_ffree if root else disk.f_favail) if disk.f_files else None
        self.used = 0
        self.new_files = 0

    def full(self) -> bool:
        return self.used > self.free or (self.inodes is not None
                                         and self.new_files > self.inodes)


def check_room(files: Iterable[tuple[Path, int]], beside: Iterable[tuple[Path, int]] = ()
               ) -> None:
    """OSError (ENOSPC, or EFBIG past `ulimit -f`) unless every (file, size) can be written
    whole now: each file system with the blocks the new texts take beyond those the old files
    hold, and an inode for each file that is not there yet; and, at the same time, each
    (folder, size) of `beside`: a text staged in a file with no name in that folder."""
    limit, _ = resource.getrlimit(resource.RLIMIT_FSIZE)
    disks: dict[int, _Disk] = {}
    first: dict[int, Path] = {}  # the first file asked of each file system, named in the error
    asked = [(target, size, False) for target, size in files]
    for target, size, staged in [*asked, *((folder, size, True) for folder, size in beside)]:
        if limit != resource.RLIM_INFINITY and size > limit:
            raise OSError(errno.EFBIG, os.strerror(errno.EFBIG), str(target))
        folder = target if staged else target.parent if str(target.parent) else Path(".")
        device = os.stat(folder).st_dev
        disk = disks.get(device) or disks.setdefault(device, _Disk(folder))
        first.setdefault(device, target)
        try:
            if staged:
                raise FileNotFoundError
            held = os.lstat(target).st_blocks * 512  # the old file's blocks, written over
        except FileNotFoundError:
            held = 0
            disk.new_files += 1
        disk.used += max(0, -(-size // disk.block) * disk.block - held)
    for device, disk in disks.items():
        if disk.full():
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC), str(first[device]))
