"""write_atomic: the exact bytes, or the old file untouched; never half of either."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from attncli.errors import UsageError
from attncli.files.writing import write_atomic
from attncli.i18n import translate


def test_writes_utf8_with_the_newlines_given(tmp_path: Path) -> None:
    path = tmp_path / "a.txt"
    write_atomic(path, "Σ = −∞\nline two\n")
    assert path.read_bytes() == "Σ = −∞\nline two\n".encode()
    assert b"\r" not in path.read_bytes()
    assert [p.name for p in tmp_path.iterdir()] == ["a.txt"]  # no temporary file left over


def test_a_new_file_is_readable_by_everyone_and_an_old_one_keeps_its_mode(tmp_path: Path) -> None:
    fresh = tmp_path / "fresh.txt"
    write_atomic(fresh, "x\n")
    assert stat.S_IMODE(fresh.stat().st_mode) == 0o644
    private = tmp_path / "private.txt"
    private.write_text("old\n")
    private.chmod(0o600)
    write_atomic(private, "new\n")
    assert (private.read_text(), stat.S_IMODE(private.stat().st_mode)) == ("new\n", 0o600)


@pytest.mark.parametrize("in_place", [False, True])
def test_a_file_written_over_never_keeps_setuid_setgid_or_sticky(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, in_place: bool) -> None:
    """`attn export -o tool` over a setuid program: the new text keeps rwxr-xr-x, not the
    program's rights (the kernel clears them on a write, but not for root, nor on a rename)."""
    from attncli.files import writing

    target = tmp_path / "tool"
    target.write_text("old\n")
    target.chmod(0o6755 | stat.S_ISVTX)
    if in_place:  # as in a folder that refuses a rename (chattr +a)
        monkeypatch.setattr(writing, "appends_only", lambda folder: True)
    write_atomic(target, "new\n")
    assert (target.read_text(), stat.S_IMODE(target.stat().st_mode)) == ("new\n", 0o755)
    fresh = tmp_path / "plain.txt"
    fresh.write_text("old\n")
    fresh.chmod(0o4755)
    write_atomic(fresh, "new\n", plain=True)  # a snippet: no exec bit either
    assert stat.S_IMODE(fresh.stat().st_mode) == 0o644


def test_a_failed_write_leaves_the_old_file_and_no_temporary(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "snippet.txt"
    path.write_text("old content\n")

    def refuse(src: str, dst: str) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "replace", refuse)
    with pytest.raises(UsageError) as caught:
        write_atomic(path, "new content\n")
    # the system's own words never reach the user: errno 28 is a catalogue message
    assert translate(caught.value.message) == f"cannot write {path}: no space left on the disk"
    assert path.read_text() == "old content\n"
    assert [p.name for p in tmp_path.iterdir()] == ["snippet.txt"]


AS_ROOT = pytest.mark.skipif(os.geteuid() != 0 and os.environ.get("CI") != "true",
                             reason="only root gives a file to another user (CI runs as root)")
NOBODY = 65534


@AS_ROOT
@pytest.mark.parametrize("way", ["unnamed", "temporary"])
def test_a_file_root_writes_over_keeps_its_owner_and_group(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, way: str) -> None:
    """Root filling another user's post.md (640) must leave it theirs: renamed over by a file
    root made, it was root's, and its owner could no longer read it. (Written in place, in an
    append-only folder, it is the same file and keeps its owner anyway.)"""
    from attncli.files import writing

    if way == "temporary":  # a system without unnamed files: a temporary file beside it
        monkeypatch.setattr(writing, "unnamed_file", lambda folder: None)
    path = tmp_path / "post.md"
    path.write_text("old\n")
    os.chown(path, NOBODY, NOBODY)
    path.chmod(0o640)
    write_atomic(path, "new\n", plain=True)
    done = path.stat()
    assert (path.read_text(), done.st_uid, done.st_gid, stat.S_IMODE(done.st_mode)) == (
        "new\n", NOBODY, NOBODY, 0o640)


@AS_ROOT
@pytest.mark.parametrize(("refused", "kept"), [(1, (0, NOBODY)), (2, (0, 0))])
def test_where_the_system_refuses_the_owner_the_group_is_kept_and_nothing_said(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, refused: int,
        kept: tuple[int, int]) -> None:
    """As a user who is not root meets it: giving the file to its owner is refused, and the
    group is given where the user is in it (`refused` 1), else nothing (2); the file is written
    either way."""
    calls: list[tuple[int, int]] = []
    fchown = os.fchown

    def as_a_user(handle: int, owner: int, group: int) -> None:
        calls.append((owner, group))
        if len(calls) <= refused:
            raise PermissionError(1, "Operation not permitted")
        fchown(handle, owner, group)

    monkeypatch.setattr(os, "fchown", as_a_user)
    path = tmp_path / "post.md"
    path.write_text("old\n")
    os.chown(path, NOBODY, NOBODY)
    write_atomic(path, "new\n")
    assert calls == [(NOBODY, NOBODY), (-1, NOBODY)]
    done = path.stat()
    assert (path.read_text(), (done.st_uid, done.st_gid)) == ("new\n", kept)
