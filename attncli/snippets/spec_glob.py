"""The files a manifest's `specs` glob names, found in one walk of the tree.

pathlib's `Path.glob` walks the folders below a `**` once for each `**`, and each `*` that
follows one walks them again: a pattern of ten `**` over 12 nested folders took seconds, each
one more about twice as long, and a pull request can write such a pattern. Here the pattern's
parts are the states of an automaton: each folder is listed once, with the set of parts that
may still match below it, so the cost grows with the tree and the pattern's length, never with
the number of ways the pattern can match a path.

The matching is pathlib's (Python 3.11): a `**` part is any number of folders, never entering a
symbolic link; any other part is one name, through a link too (so that a linked folder that
leads out of the tree is found, and refused by the caller); `*` matches names that begin with a
dot; a part with no `*`, `?` or `[` names a file by exact name, the system's comparison. A name
that `.` and empty parts separate is read as pathlib reads it, without them, so a run of `**`
stays one however it is written.
"""

from __future__ import annotations

import fnmatch
import os
import re
from collections import deque
from collections.abc import Callable
from pathlib import Path, PurePosixPath

STARS = re.compile(r"\*{2,}")  # a run of stars within a part of a pattern
WILDCARDS = frozenset("*?[")
CASE = re.IGNORECASE if os.name == "nt" else 0  # as pathlib compares names on each system
ANY = "**"


def parts_of(pattern: str) -> tuple[str, ...]:
    """The parts of `pattern` as they match: no `.` or empty part (pathlib drops them), each run
    of `**` parts as one (`**/./**//*.yaml` is `**/*.yaml`), and each run of stars within a part
    with more in it (`a**b`, `***`) as one `*`, as it matches."""
    parts = [part if part == ANY else STARS.sub("*", part)
             for part in PurePosixPath(pattern).parts]
    return tuple(part for at, part in enumerate(parts)
                 if not (part == ANY and at > 0 and parts[at - 1] == ANY))


class Glob:
    """A pattern's parts, and what each matches: a compiled name pattern, or None for a `**`
    or a plain name."""

    def __init__(self, parts: tuple[str, ...]) -> None:
        self.parts = parts
        self.end = len(parts)  # the state of a path the whole pattern matched
        self.names: list[Callable[[str], object] | None] = [
            re.compile(fnmatch.translate(part), CASE).match
            if part != ANY and not WILDCARDS.isdisjoint(part) else None for part in parts]

    def closed(self, states: set[int]) -> frozenset[int]:
        """`states` and those a `**` reaches matching no folder."""
        found = set(states)
        for state in states:
            while state < self.end and self.parts[state] == ANY:
                state += 1
                found.add(state)
        return frozenset(found)

    def step(self, folder: Path, states: frozenset[int]) -> dict[str, Child]:
        """Each name below `folder` that a part in `states` matches, and what it leads to."""
        found: dict[str, Child] = {}
        listed = [state for state in states
                  if state < self.end and (self.parts[state] == ANY or self.names[state])]
        for entry in listing(folder) if listed else ():
            for state in listed:
                match = self.names[state]
                if match is None:  # `**`: a folder, never a link
                    if is_dir(entry, follow=False):
                        found.setdefault(entry.name, Child(entry)).states.add(state)
                elif match(entry.name):
                    child = found.setdefault(entry.name, Child(entry))
                    child.states.add(state + 1)
                    child.listed_end |= state + 1 == self.end
        for state in states:  # an exact name; `..` never, so no pattern climbs out of the tree
            if state < self.end and self.parts[state] not in (ANY, "..") and \
                    self.names[state] is None:
                found.setdefault(self.parts[state], Child(None)).states.add(state + 1)
        return found


class Child:
    """A name in a folder: the states it leads to, and its entry if the folder was listed."""

    def __init__(self, entry: os.DirEntry[str] | None) -> None:
        self.entry = entry
        self.states: set[int] = set()
        self.listed_end = False  # matched to the end by a listed name (else by an exact name)


def listing(folder: Path) -> list[os.DirEntry[str]]:
    """The entries of `folder`, sorted by name; none where it cannot be listed (pathlib's
    `glob` passes over such a folder too)."""
    try:
        with os.scandir(folder) as entries:
            return sorted(entries, key=lambda entry: entry.name)
    except OSError:
        return []


def is_dir(entry: os.DirEntry[str], follow: bool) -> bool:
    try:
        return entry.is_dir(follow_symlinks=follow)
    except OSError:
        return False


def matching(root: Path, pattern: str) -> list[Path]:
    """The paths below `root`, relative to it, that `pattern` names and that are no folder (a
    link to one counts as one), in no set order. A folder is listed once for each set of parts
    it is reached with: once, unless symbolic links lead to it again. A pattern that ends in `/`
    names folders only, so no spec."""
    glob = Glob(parts_of(pattern))
    if pattern.endswith("/") or not glob.parts:
        return []
    found: list[Path] = []
    seen: set[tuple[int, int, frozenset[int]]] = set()
    ahead = [(root, Path(), glob.closed({0}))]
    through_links: deque[tuple[Path, Path, frozenset[int]]] = deque()  # after the real tree
    while ahead or through_links:
        folder, relative, states = ahead.pop() if ahead else through_links.popleft()
        try:
            info = os.stat(folder)
        except OSError:
            continue
        if (info.st_dev, info.st_ino, states) in seen:  # a link led here again
            continue
        seen.add((info.st_dev, info.st_ino, states))
        for name, child in glob.step(folder, states).items():
            path = folder / name
            folder_below = is_dir(child.entry, True) if child.entry else os.path.isdir(path)
            if glob.end in child.states and not folder_below and (
                    child.listed_end or os.path.exists(path)):
                found.append(relative / name)
            states_below = glob.closed(child.states)  # `**` as no folder: only below a folder
            if folder_below and min(states_below) < glob.end:
                link = os.path.islink(path)
                (through_links.append if link else ahead.append)(
                    (path, relative / name, states_below))
    return found
