"""An .npz's zip directory: checked from its end record before it is read (check_members), then
read once for a spec, however many of its arrays the spec names (open_archive)."""

from __future__ import annotations

import os
import struct
import zipfile
from pathlib import Path
from typing import NamedTuple

from attncli.i18n import Count, Msg
from attncli.spec.file_problem import FileProblem
from attncli.spec.limits import MAX_MEMBERS
from attncli.spec.opened import open_regular

END_SEARCH = 22 + 65535 + 56 + 20  # a zip's end record, its longest comment, the ZIP64 records
MAX_DIRECTORY = 1 << 20  # bytes of an .npz's zip directory: MAX_MEMBERS entries of long names


class Listing(NamedTuple):
    """An archive's directory as zipfile read it, and the file's size and time of change."""

    stamp: tuple[int, int]
    start_dir: int
    members: list[zipfile.ZipInfo]


# The .npz directories one spec has read, by file (device and inode): an archive of 1,024 arrays
# whose 768 members a spec names read its directory 768 times (3.4 s)
Archives = dict[tuple[int, int], Listing]


class Listed(zipfile.ZipFile):
    """An archive opened with the directory read before (see `open_archive`), not read again."""

    def __init__(self, path: Path, listing: Listing) -> None:
        self.listing = listing
        super().__init__(path)

    def _RealGetContents(self) -> None:  # zipfile's reading of the directory, when opened
        self.start_dir = self.listing.start_dir
        self.filelist = list(self.listing.members)
        self.NameToInfo = {info.filename: info for info in self.listing.members}


def open_archive(path: Path, name: str, archives: Archives | None = None) -> zipfile.ZipFile:
    """The .npz at `path`, opened: its directory read from `archives` while the file keeps its
    size and time of change, else checked (check_members) and read, and kept there."""
    status = os.stat(path)
    stamp, file = (status.st_size, status.st_mtime_ns), (status.st_dev, status.st_ino)
    listing = None if archives is None else archives.get(file)
    if listing is not None and listing.stamp == stamp:
        return Listed(path, listing)
    check_members(path, name)
    with open_regular(path) as raw:
        if raw.read(4) not in (b"PK\x03\x04", b"PK\x05\x06"):
            # NumPy reads a .npy as an array and any other bytes as a pickle it refuses in
            # English: neither is an archive
            raise zipfile.BadZipFile
    archive = zipfile.ZipFile(path)
    if archives is not None:
        archives[file] = Listing(stamp, archive.start_dir, archive.filelist)
    return archive


def check_members(path: Path, name: str) -> None:
    """Refuse an .npz whose zip directory lists more than MAX_MEMBERS arrays or is larger than
    MAX_DIRECTORY bytes, read from its end record before the directory itself is read (reading
    it builds an object per member: a million members took 772 MB)."""
    with open_regular(path) as file:
        file.seek(0, os.SEEK_END)
        size = file.tell()
        file.seek(max(0, size - END_SEARCH))
        tail = file.read()
    # the end record where zipfile takes it: the last 22 bytes when they are one without a
    # comment, else the last signature with a whole record after it (a record's own fields may
    # hold the signature: 0x4B50 arrays in a directory of 0x…0605 bytes were not counted)
    at = len(tail) - 22
    if not (at >= 0 and tail[at:at + 4] == b"PK\x05\x06" and tail[-2:] == b"\0\0"):
        at = tail.rfind(b"PK\x05\x06", 0, max(0, len(tail) - 18))
    if at < 0:
        return  # not a zip: zipfile says so, in one line
    members, directory = struct.unpack("<xxxxxxxxHI", tail[at + 2: at + 16])[0:2]
    zip64 = at - 20 - 56  # ZIP64: the 64-bit record right before its locator, as zipfile reads
    # it (another record's signature, in an entry's comment, is no record)
    if zip64 >= 0 and tail[at - 20:at - 16] == b"PK\x06\x07" \
            and tail[zip64:zip64 + 4] == b"PK\x06\x06":
        members, directory = struct.unpack("<QQ", tail[zip64 + 32: zip64 + 48])
    if members > MAX_MEMBERS:
        raise FileProblem(Msg.plural_of("{name} lists {count} array; the limit is {limit}",
                                        "{name} lists {count} arrays; the limit is {limit}",
                                        Count(members), name=name,
                                        limit=Count(MAX_MEMBERS)))
    if directory > MAX_DIRECTORY:  # a few arrays of long names, or an end record that lies
        raise FileProblem(Msg.plural_of(
            "{name}'s list of arrays takes {count} byte; the limit is {limit}",
            "{name}'s list of arrays takes {count} bytes; the limit is {limit}",
            Count(directory), name=name, limit=Count(MAX_DIRECTORY)))
