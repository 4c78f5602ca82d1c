"""`attn examples NAME --to DIR` writes all of the example or nothing: a folder on the way that
is no folder, a write that fails half way (a full disk) or a file made meanwhile leave DIR as
it was; the command it prints runs in a shell as printed."""

from __future__ import annotations

import errno
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner, Result

import attncli.spec.examples
from attncli.cli.app import app
from attncli.files import writing


def invoke(*args: str) -> Result:
    return CliRunner().invoke(app, list(args))


def tree(folder: Path) -> list[str]:
    return sorted(str(p.relative_to(folder)) for p in folder.rglob("*"))


@pytest.mark.parametrize(("make", "where", "kind"), [
    (lambda d: (d / "data").write_text("mine"), "data", "a regular file"),
    (lambda d: os.mkfifo(d / "data"), "data", "a named pipe (FIFO)"),
    (lambda d: (d / "data").symlink_to("gone"), "data", "a symbolic link"),
    (lambda d: (d / "data").symlink_to("data"), "data", "a symbolic link"),
    (lambda d: ((d / "data").mkdir(), (d / "data" / "vit").write_text("mine")), "data/vit",
     "a regular file"),
])
def test_a_folder_on_the_way_that_is_no_folder_is_said_and_nothing_written(
        tmp_path: Path, make: Callable[[Path], object], where: str, kind: str) -> None:
    make(tmp_path)
    before = tree(tmp_path)
    result = invoke("examples", "vit_digit", "--to", str(tmp_path))
    assert (result.exit_code, result.stdout) == (2, "")
    assert result.stderr == (f"attn: cannot write {tmp_path}/data/vit/digit7.png: "
                             f"{tmp_path}/{where}: this is {kind}, expected a folder\n")
    assert tree(tmp_path) == before  # the spec was written first, and stayed, before


def test_dir_itself_a_file_is_said_as_such(tmp_path: Path) -> None:
    (tmp_path / "d").write_text("mine")
    result = invoke("examples", "two_heads", "--to", str(tmp_path / "d"), "--lang", "pl")
    assert (result.exit_code, result.stdout) == (2, "")
    assert result.stderr == (f"attn: nie można zapisać {tmp_path}/d/two_heads.yaml: "
                             f"{tmp_path}/d: to jest zwykły plik, a\u00a0powinien być katalog\n")
    assert (tmp_path / "d").read_text() == "mine"


@pytest.mark.parametrize("staged", [True, False], ids=["unnamed", "named"])
def test_a_write_that_fails_half_way_leaves_nothing(tmp_path: Path, staged: bool,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    # each piece is written whole to a file with no name, then named (Linux's O_TMPFILE); where
    # the system makes no such file, written under its name
    written, named = writing.write_new, writing.link

    def full_disk(path: Path, data: bytes) -> None:
        if path.name == "model.safetensors":  # the spec went in; the checkpoint does not fit
            raise OSError(errno.ENOSPC, "No space left on device")
        written(path, data)

    def no_room_to_name(staged: Any, folder: Path, name: str) -> None:
        if name == "model.safetensors":  # a folder's entry needs room too
            raise OSError(errno.ENOSPC, "No space left on device")
        named(staged, folder, name)

    monkeypatch.setattr(writing, "write_new", full_disk)
    monkeypatch.setattr(writing, "link", no_room_to_name)
    if not staged:
        monkeypatch.setattr(writing, "unnamed_file", lambda folder: None)
    result = invoke("examples", "gpt2_head", "--to", str(tmp_path / "mine"))
    assert (result.exit_code, result.stdout) == (2, "")
    assert result.stderr.startswith(
        f"attn: cannot write {tmp_path}/mine/data/checkpoints/gpt2/model.safetensors: ")
    assert tree(tmp_path) == []  # not mine/gpt2_head.yaml and its empty folders


def test_a_file_made_after_the_check_is_not_written_over(tmp_path: Path,
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    checked = attncli.spec.examples.check_folders

    def meanwhile(target: Path) -> None:
        checked(target)
        if target.name == "digit7.png":  # another program writes it between look and write
            target.parent.mkdir(parents=True)
            target.write_bytes(b"theirs")

    monkeypatch.setattr(attncli.spec.examples, "check_folders", meanwhile)
    result = invoke("examples", "vit_digit", "--to", str(tmp_path))
    assert (result.exit_code, result.stdout) == (2, "")
    assert result.stderr == (f"attn: {tmp_path}/data/vit/digit7.png exists already; attn "
                             "examples --to writes over no file: choose another folder\n")
    assert (tmp_path / "data" / "vit" / "digit7.png").read_bytes() == b"theirs"
    assert not (tmp_path / "vit_digit.yaml").exists()


@pytest.mark.parametrize(("folder", "shown"), [
    ("my dir", "'my dir/two_heads.yaml'"),
    ("x;rm -rf y", "'x;rm -rf y/two_heads.yaml'"),
    ("-x", "./-x/two_heads.yaml"),
])
def test_the_command_printed_runs_as_printed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                             folder: str, shown: str) -> None:
    monkeypatch.chdir(tmp_path)
    result = invoke("examples", "two_heads", "--to", folder)
    assert (result.exit_code, result.stdout) == (0, "")
    assert result.stderr == f"attn: wrote {folder}/two_heads.yaml; run attn explain {shown}\n"


def test_an_empty_dir_is_refused_not_read_as_here(tmp_path: Path,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    result = invoke("examples", "two_heads", "--to", "", "--lang", "ru")
    assert (result.exit_code, result.stdout) == (2, "")
    assert result.stderr == "attn: --to: ожидается папка, получено: пустой текст\n"
    assert tree(tmp_path) == []


def test_a_folder_named_through_one_not_there_yet_is_made(tmp_path: Path,
                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    # new/../b/copy: new is made first, then new/.. is b's parent, there already; it was
    # refused as 'the file already exists' (mkdir of new/..) and nothing written
    (tmp_path / "b").mkdir()
    monkeypatch.chdir(tmp_path)
    result = invoke("examples", "two_heads", "--to", "new/../b/copy")
    assert (result.exit_code, result.stdout) == (0, "")
    assert result.stderr.startswith("attn: wrote new/../b/copy/two_heads.yaml;")
    assert tree(tmp_path) == ["b", "b/copy", "b/copy/two_heads.yaml", "new"]


def test_to_dash_is_standard_output(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """`--to -` made a folder named `-` (which `attn explain -` can never read back: `-` is
    standard input); `-` is standard output, as for `-o`, `--heatmap` and `--answers`: the spec
    printed as without --to, nothing written."""
    monkeypatch.chdir(tmp_path)
    printed = invoke("examples", "cat_chases_mouse")
    result = invoke("examples", "cat_chases_mouse", "--to", "-")
    assert (result.exit_code, result.stdout, result.stderr) == (0, printed.stdout, "")
    assert list(tmp_path.iterdir()) == []


def test_a_deleted_current_folder_is_said_not_an_internal_error(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """`cd d; rmdir ../d; attn examples NAME --to .`: the folder `.` names has no path left, and
    following its links raised FileNotFoundError, exit 3 ("internal error")."""
    (tmp_path / "d").mkdir()
    monkeypatch.chdir(tmp_path / "d")
    (tmp_path / "d").rmdir()
    result = invoke("examples", "cat_chases_mouse", "--to", ".")
    assert (result.exit_code, result.stdout) == (2, "")
    assert result.stderr == "attn: cannot write cat_chases_mouse.yaml: no such file or folder\n"
    assert list(tmp_path.iterdir()) == []


def test_the_folder_above_a_deleted_current_folder_is_written(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """`cd d; rmdir ../d; attn examples vit_digit --to ../ex`: `..` is still the folder above,
    where the example is written, and the spec run from there reads its image (both said no
    such file: following the links of a relative path asked the current folder's path)."""
    (tmp_path / "d").mkdir()
    monkeypatch.chdir(tmp_path / "d")
    (tmp_path / "d").rmdir()
    result = invoke("examples", "vit_digit", "--to", "../ex")
    assert (result.exit_code, result.stdout) == (0, "")
    assert result.stderr == ("attn: wrote ../ex/vit_digit.yaml and 1 file it reads; run attn "
                             "explain ../ex/vit_digit.yaml\n")
    assert (tmp_path / "ex" / "vit_digit.yaml").is_file()
    shown = invoke("explain", "../ex/vit_digit.yaml", "-f", "text")
    assert (shown.exit_code, shown.stderr) == (0, "")
    assert shown.stdout.splitlines()[3] == "5 tokens, d_model = 4, d_k = 4, d_v = 4"


def counted(monkeypatch: pytest.MonkeyPatch, name: str, calls: list[str]) -> None:
    """os.`name` (os.path.`name` for a dotted one) recording each path it is given."""
    owner = os.path if name.startswith("path.") else os
    real = getattr(owner, name.removeprefix("path."))

    def recording(path: Any, *args: Any, **kwargs: Any) -> Any:
        calls.append(os.fspath(path))
        return real(path, *args, **kwargs)

    monkeypatch.setattr(owner, name.removeprefix("path."), recording)


def test_a_path_longer_than_the_system_takes_is_refused_before_any_folder_is_looked_at(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # 8,000 levels (16,000 bytes): each folder on the way was made a path of its own and looked
    # at, then made, before the system refused the name (1.7 s and 334 MB, quadratic)
    monkeypatch.chdir(tmp_path)
    looked: list[str] = []
    for name in ("mkdir", "path.isdir", "path.lexists", "path.realpath"):
        counted(monkeypatch, name, looked)
    deep = "a/" * 8000
    result = invoke("examples", "cat_chases_mouse", "--to", deep)
    assert (result.exit_code, result.stdout) == (2, "")
    assert result.stderr == ("attn: cannot write a/a/a/a/a/a/a/a/a/a/…mouse.yaml: the name is "
                             "too long\n")
    assert [path for path in looked if path.startswith("a/")] == []
    assert tree(tmp_path) == []


def test_the_longest_path_the_system_takes_is_made_one_name_at_a_time(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # 2,000 levels and the spec's name: 4,021 bytes, under 4,096. Each folder is made by its
    # name in the one before it: 2,000 names of one letter, not 2,000 paths of 1 to 3,999
    monkeypatch.chdir(tmp_path)
    made: list[str] = []
    counted(monkeypatch, "mkdir", made)
    try:
        result = invoke("examples", "cat_chases_mouse", "--to", "a/" * 2000)
        assert (result.exit_code, result.stderr[:22]) == (0, "attn: wrote a/a/a/a/a/")
        assert (len(made), sum(map(len, made))) == (2000, 2000)
        spec = Path("a/" * 2000 + "cat_chases_mouse.yaml")
        assert len(os.fsencode(spec)) == 4021
        assert spec.read_text(encoding="utf-8").startswith("#")
    finally:  # too deep for pytest's own clean-up (shutil.rmtree recurses)
        monkeypatch.undo()
        for depth in range(2000, 0, -1):
            folder = tmp_path / ("a/" * depth)
            for entry in os.listdir(folder) if folder.is_dir() else ():
                if entry != "a":
                    os.unlink(folder / entry)
            if folder.is_dir():
                folder.rmdir()
