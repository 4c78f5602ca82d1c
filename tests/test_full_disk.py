"""A disk with room for a text once but not twice, in an append-only folder (`chattr +a`): there
a text is made whole in a file with no name beside the target, then copied over the old file in
place, so a full disk stopped the copy part way: `export -o ap/o.md` left the first 8 KB of the
walkthrough over the user's 1,000 bytes, `fill` cut a document mid-formula, and
`--heatmap ap/h.svg` stayed behind a refused `-o ap/o.md` (such a folder keeps every file made in
it). Now the disk is asked for room first (attncli/files/room.py) and a refused command leaves
every file as it was.

The disk is a 64 KiB tmpfs mounted for the test (root's; skipped, saying why, where the system
lets nothing be mounted), filled to leave a known number of blocks."""

from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.conftest import CONFIGS, run

BLOCK = 4096
OLD = "OLD NOTES " * 100  # the user's own 1,000 bytes


@pytest.fixture
def disk(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """A 64 KiB tmpfs at tmp_path/disk holding the spec and an append-only folder `ap`; the test
    runs in it."""
    mount = tmp_path / "disk"
    mount.mkdir()
    made = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=64k", "tmpfs", str(mount)],
                          capture_output=True, text=True, check=False)
    if made.returncode != 0:
        pytest.skip(f"mounting a tmpfs needs root: {made.stderr.strip()}")
    try:
        (mount / "ap").mkdir()
        shutil.copy(CONFIGS / "cat_chases_mouse.yaml", mount / "ap" / "spec.yaml")
        sealed = subprocess.run(["chattr", "+a", str(mount / "ap")], capture_output=True,
                                text=True, check=False)
        if sealed.returncode != 0:
            pytest.skip(f"chattr +a on a tmpfs needs Linux 6.0 and root: {sealed.stderr.strip()}")
        monkeypatch.chdir(mount)
        yield mount
    finally:
        monkeypatch.chdir(tmp_path)
        subprocess.run(["chattr", "-a", str(mount / "ap")], capture_output=True, check=False)
        subprocess.run(["umount", str(mount)], check=True)


def leave_free(blocks: int) -> None:
    """Fill the disk so that `blocks` blocks stay free."""
    free = os.statvfs(".").f_bavail
    assert free > blocks
    Path("filler").write_bytes(bytes((free - blocks) * BLOCK))
    assert os.statvfs(".").f_bavail == blocks


def blocks_of(size: int) -> int:
    return -(-size // BLOCK)


def files(folder: str) -> dict[str, bytes]:
    return {name: (Path(folder) / name).read_bytes() for name in sorted(os.listdir(folder))}


def markdown(tmp_path: Path) -> bytes:
    """The walkthrough as `export --markdown` writes it, into an ordinary folder."""
    result = run("export", str(CONFIGS / "cat_chases_mouse.yaml"), "--markdown", "-o",
                 str(tmp_path / "plain.md"))
    assert result.exit_code == 0
    return (tmp_path / "plain.md").read_bytes()


def test_an_old_file_is_kept_whole_where_the_text_fits_once_but_not_twice(
        disk: Path, tmp_path: Path) -> None:
    text = markdown(tmp_path)
    Path("ap/o.md").write_text(OLD, encoding="utf-8")
    before = files("ap")
    leave_free(blocks_of(len(text)) + 1)  # staged once, with no room for its copy
    result = run("export", "ap/spec.yaml", "--markdown", "-o", "ap/o.md")
    assert (result.exit_code, result.stderr) == (
        2, "attn: cannot write ap/o.md: no space left on the disk\n")
    assert files("ap") == before
    Path("filler").unlink()  # room again: written whole, over the old text
    assert run("export", "ap/spec.yaml", "--markdown", "-o", "ap/o.md").exit_code == 0
    assert files("ap") == {**before, "o.md": text}


def test_a_refused_output_leaves_no_heatmap_behind(disk: Path, tmp_path: Path) -> None:
    text = markdown(tmp_path)
    before = files("ap")
    leave_free(blocks_of(len(text)))  # the picture (a block) and the text do not both fit
    result = run("export", "ap/spec.yaml", "--markdown", "--heatmap", "ap/h.svg", "-o", "ap/o.md")
    assert (result.exit_code, result.stderr) == (
        2, "attn: cannot write ap/h.svg: no space left on the disk\n")
    assert files("ap") == before
    Path("filler").unlink()
    assert run("export", "ap/spec.yaml", "--markdown", "--heatmap", "ap/h.svg", "-o",
               "ap/o.md").exit_code == 0
    assert sorted(files("ap")) == ["h.svg", "o.md", "spec.yaml"] and files("ap")["o.md"] == text


def test_fill_keeps_the_document_whole(disk: Path) -> None:
    post = ("# My notes\n\n" + "".join(f"Paragraph {i} of my own text.\n" for i in range(60))
            + "\n```attn\nspec: spec.yaml\n```\n\nthe end\n")
    Path("ap/post.md").write_text(post, encoding="utf-8")
    leave_free(4)  # the filled document (some 11 KB) is staged, and has no room for its copy
    result = run("fill", "ap/post.md")
    assert result.exit_code == 2
    assert result.stderr.splitlines()[0] == (
        "attn: cannot write ap/post.md: no space left on the disk")
    assert Path("ap/post.md").read_text(encoding="utf-8") == post
    Path("filler").unlink()
    assert run("fill", "ap/post.md").exit_code == 0
    filled = Path("ap/post.md").read_text(encoding="utf-8")
    assert filled.startswith(post.split("```attn")[0]) and filled.endswith("\nthe end\n")
    assert "0.64" in filled  # A[chases, chases] of the walkthrough
