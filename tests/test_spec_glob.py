"""The spec files a manifest's glob names (attncli/snippets/spec_glob.py): what pathlib's
`Path.glob` finds, by a walk that lists each folder once however the pattern is written.

pathlib walked the folders below once for each `**` and once more for each part after one;
`.` and empty parts (`**/./**`, `**//**`) kept a run of `**` from being read as one, so that
each `**` more about doubled a walk (a pattern of ten was stopped after 20 s on 12 nested
folders). The number of listings is counted, never timed.
"""

from __future__ import annotations

import os
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from attncli.snippets.spec_glob import matching, parts_of

SPEC = "tokens: [cat, mouse]\nembeddings: [[1, 0], [0, 1]]\n"
DEEP = "a/b/c/d/e/f/g/h/i/j/k/l"  # 12 nested folders below specs/


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    """specs/s1.yaml, specs/.hidden.yaml, specs/notes.txt and a spec 12 folders down."""
    specs = tmp_path / "specs"
    (specs / DEEP).mkdir(parents=True)
    for name in ("s1.yaml", ".hidden.yaml", "notes.txt", f"{DEEP}/deep.yaml", "a/b/mid.yaml"):
        (specs / name).write_text(SPEC, encoding="utf-8")
    return tmp_path


@pytest.fixture
def listed(monkeypatch: pytest.MonkeyPatch) -> Counter[str]:
    """How many times each folder is listed."""
    counts: Counter[str] = Counter()
    real = os.scandir

    def counting(path: Any) -> Any:
        counts[os.fspath(path)] += 1
        return real(path)

    monkeypatch.setattr(os, "scandir", counting)
    return counts


def found(root: Path, pattern: str) -> list[str]:
    return sorted(path.as_posix() for path in matching(root, pattern))


ALL = ["specs/.hidden.yaml", f"specs/{DEEP}/deep.yaml", "specs/a/b/mid.yaml", "specs/s1.yaml"]


@pytest.mark.parametrize("pattern", [
    "specs/" + "**/./" * 14 + "*.yaml",
    "specs/" + "**//" * 14 + "*.yaml",
    "specs/" + "/".join(["**/"] * 14) + "*.yaml",
    "./specs/./" + "**/**/./" * 7 + "./*.yaml",
])
def test_a_run_of_star_stars_however_written_lists_each_folder_once(
        tree: Path, listed: Counter[str], pattern: str) -> None:
    assert found(tree, pattern) == ALL
    assert len(listed) == 13 and set(listed.values()) == {1}  # specs/ and the 12 below it


def test_fourteen_star_stars_find_the_one_spec_of_that_name(tree: Path,
                                                            listed: Counter[str]) -> None:
    assert found(tree, "specs/" + "**/./" * 14 + "deep.yaml") == [f"specs/{DEEP}/deep.yaml"]
    assert len(listed) == 13 and set(listed.values()) == {1}


@pytest.mark.parametrize(("pattern", "expected"), [
    # a `**` and a `*` in turn, k times: a spec at least k folders below specs/
    ("specs/" + "**/*/" * 3 + "*.yaml", [f"specs/{DEEP}/deep.yaml"]),
    ("specs/" + "**/*/" * 2 + "*.yaml", [f"specs/{DEEP}/deep.yaml", "specs/a/b/mid.yaml"]),
    ("specs/" + "**/?/" * 12 + "*.yaml", [f"specs/{DEEP}/deep.yaml"]),
    ("specs/" + "**/?/" * 13 + "*.yaml", []),
    ("specs/" + "**/*/" * 6 + "**/*.yaml", [f"specs/{DEEP}/deep.yaml"]),
])
def test_star_stars_between_other_parts_list_each_folder_once(
        tree: Path, listed: Counter[str], pattern: str, expected: list[str]) -> None:
    # pathlib listed the folders 974 times for three `**/*/` over these 13, 9,114 for six
    assert found(tree, pattern) == expected
    assert set(listed.values()) <= {1}


def test_parts_are_read_as_pathlib_reads_them() -> None:
    assert parts_of("specs/**/./**//**/a**b/***/*.yaml/") == ("specs", "**", "a*b", "*", "*.yaml")
    assert parts_of("./**/./**") == ("**",)


@pytest.mark.parametrize("pattern", [
    "*", "*/*", "**/*", "**/*.yaml", "specs/*", "specs/**/*.yaml", "**/a/**/*.yaml", "*/a/*/*",
    "specs/a/b/*", "specs/[ab]/*/*.yaml", "specs/?/**/m*", "**/.*", "specs/[!a]*", "**/b/*.yaml",
    "**/*.txt", "specs/*/b/mid.yaml", "s*/**/*/mid.yaml", "**/l/*", "**/l/**/*", "SPECS/*",
])
def test_the_same_files_as_pathlib_finds(tree: Path, pattern: str) -> None:
    # pathlib's own glob, on a tree without links, is the oracle (a pattern that ends in `**`
    # or `/` names folders, which Python 3.13 reads otherwise, so none is asked here)
    expected = sorted(path.relative_to(tree).as_posix() for path in tree.glob(pattern)
                      if not path.is_dir())
    assert found(tree, pattern) == expected


@pytest.mark.parametrize("pattern", ["specs/**", "specs/a/", "specs/**/", "*/"])
def test_a_pattern_of_folders_names_no_spec(tree: Path, pattern: str) -> None:
    assert found(tree, pattern) == []


def test_a_part_dot_dot_never_climbs(tree: Path) -> None:
    # the manifest refuses `..` first (tests/test_tree_safety.py); the walk never follows one
    (tree / "specs/a/x.yaml").write_text(SPEC, encoding="utf-8")
    assert found(tree / "specs", "a/b/../*.yaml") == []
    assert found(tree / "specs", "*/../*.yaml") == []


def test_a_folder_linked_twice_is_listed_once_and_found_through_the_tree(
        tree: Path, listed: Counter[str]) -> None:
    # specs/z leads to specs/a, which the walk lists (the tree first, then the links) with the
    # same parts left: not listed again, and its spec found by its own path only
    (tree / "specs/z").symlink_to("a")
    assert found(tree, "specs/*/*/*.yaml") == ["specs/a/b/mid.yaml"]
    assert not [path for path in listed if "/z" in path]
    assert found(tree, "specs/z/b/*.yaml") == ["specs/z/b/mid.yaml"]  # named: found through it


def test_a_link_is_followed_where_a_part_names_it_not_by_star_stars(tree: Path) -> None:
    # as pathlib: `*` and a name go through a linked folder (so that one leading out of the
    # tree is found and refused, tests/test_tree_safety.py), `**` never enters one
    outside = tree / "outside"
    outside.mkdir()
    (outside / "o.yaml").write_text(SPEC, encoding="utf-8")
    (tree / "specs/out").symlink_to(outside)
    assert found(tree, "specs/*/o.yaml") == ["specs/out/o.yaml"]
    assert found(tree, "specs/out/*.yaml") == ["specs/out/o.yaml"]
    assert found(tree, "specs/**/o.yaml") == []
