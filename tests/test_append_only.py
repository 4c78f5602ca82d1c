"""A file written into a folder that lets files be made but not renamed or removed (`chattr +a`,
an append-only folder): each writer of attn writes its file whole there and leaves nothing
else. A temporary file named beside the target and renamed over it could be neither renamed nor
removed there, and stayed, holding the whole output, one more each run.

What each command writes is compared with what the same command writes into an ordinary
folder. `chattr +a` needs root (CAP_LINUX_IMMUTABLE) and a file system that keeps the flag:
where pytest's folder is on one that keeps none (a tmpfs, an overlay), the folder is made in
the checkout; where the flag cannot be set at all (no root, or a container without the
capability), these tests are skipped saying why. The last tests stand in for a refusal the
system does not announce, by replacing the calls that are refused, and run everywhere. Each
test runs with the unnamed file Linux makes and with a temporary file named beside the target,
as where there is none.
"""

from __future__ import annotations

import os
import shutil
import stat
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from attncli.files import writing
from attncli.files.writing import write_atomic
from tests.conftest import run

ROOT = Path(__file__).resolve().parent.parent
SPEC = "tokens: [cat, mouse]\nembeddings: [[1, 0], [0, 1]]\n"
SPEC_2 = "tokens: [cat, mouse]\nembeddings: [[2, 0], [0, 1]]\n"


@pytest.fixture(autouse=True, params=["unnamed", "named"])
def temporary(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> None:
    """Each test twice: with the unnamed file Linux makes (O_TMPFILE), and as on a system or
    a file system that makes none, with a temporary file named beside the target."""
    if request.param == "named":
        monkeypatch.setattr(writing, "unnamed_file", lambda folder: None)


def chattr(flag: str, *paths: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["chattr", flag, *map(str, paths)], capture_output=True, text=True,
                          check=False)


def sealable(folder: Path) -> subprocess.CompletedProcess[str] | None:
    """What `chattr +a` said of a folder made in `folder` (None: there is no chattr)."""
    if not shutil.which("chattr"):
        return None
    probe = folder / "probe"
    probe.mkdir(exist_ok=True)
    made = chattr("+a", probe)
    chattr("-a", probe)
    probe.rmdir()
    return made


@pytest.fixture
def tmp_path(tmp_path: Path) -> Iterator[Path]:
    """pytest's folder, or where its file system keeps no flag (a tmpfs, an overlay), one in
    the checkout, so the flag is tried where it can be kept."""
    made = sealable(tmp_path)
    if made is None or made.returncode == 0:
        yield tmp_path
        return
    folder = ROOT / ".append-only-tests" / tmp_path.name
    folder.mkdir(parents=True, exist_ok=True)
    try:
        yield folder
    finally:
        subprocess.run(["chattr", "-R", "-a", str(folder)], capture_output=True,
                       check=False)  # no flag a failed test left keeps the folder
        shutil.rmtree(folder, ignore_errors=True)
        if not any(folder.parent.iterdir()):
            folder.parent.rmdir()


@pytest.fixture
def append_only(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[list[Path]]:
    """The folders the test makes append-only (it appends to the list), every one made
    ordinary again afterwards so that it can be removed; the test runs in tmp_path."""
    monkeypatch.chdir(tmp_path)
    made = sealable(tmp_path)
    if made is None:  # a tool .ci/run installs: missing under CI is a failure
        if os.environ.get("CI") == "true":
            pytest.fail("chattr is not installed (e2fsprogs); .ci/run installs it")
        pytest.skip("chattr is not installed (e2fsprogs)")
    if made.returncode != 0:  # the machine's, not a tool's: root without CAP_LINUX_IMMUTABLE
        pytest.skip("chattr +a needs root with CAP_LINUX_IMMUTABLE and a file system that "
                    f"keeps the flag: {made.stderr.strip()}")
    folders: list[Path] = []
    yield folders
    assert chattr("-a", *folders).returncode == 0 if folders else True


def seal(folders: list[Path], folder: Path) -> Path:
    """`folder` (made if missing, or a file) made append-only."""
    if not folder.exists():
        folder.mkdir()
    made = chattr("+a", folder)
    assert made.returncode == 0, made.stderr
    folders.append(folder)
    return folder


def entries(folder: Path) -> list[str]:
    return sorted(os.listdir(folder))


@pytest.mark.parametrize(("options", "written"), [
    (("--markdown", "-o", "{}/o.md"), "o.md"),
    (("--markdown", "-o", "o.md", "--heatmap", "{}/h.svg"), "h.svg"),
    (("--latex", "--worksheet", "-o", "w.tex", "--answers", "{}/k.tex"), "k.tex"),
    (("--xlsx", "-o", "{}/o.xlsx"), "o.xlsx"),
], ids=["output", "heatmap", "answers", "xlsx"])
def test_an_export_into_an_append_only_folder_is_written_whole_and_alone(
        append_only: list[Path], tmp_path: Path, options: tuple[str, ...], written: str) -> None:
    Path("s.yaml").write_text(SPEC, encoding="utf-8")
    Path("plain").mkdir()
    assert run("export", "s.yaml", *(o.format("plain") for o in options)).exit_code == 0
    expected = (tmp_path / "plain" / written).read_bytes()
    sealed = seal(append_only, tmp_path / "ap")
    for _ in range(2):  # made, then written again over itself
        result = run("export", "s.yaml", *(o.format("ap") for o in options))
        assert (result.exit_code, result.stderr) == (0, "")
        assert entries(sealed) == [written]  # no `.{written}.XXXXXXXX.tmp` beside it
        assert (sealed / written).read_bytes() == expected


def test_an_old_file_in_an_append_only_folder_is_written_over_with_its_mode(
        append_only: list[Path], tmp_path: Path) -> None:
    Path("s.yaml").write_text(SPEC, encoding="utf-8")
    sealed = tmp_path / "ap"
    sealed.mkdir()
    old = sealed / "o.md"
    old.write_text("an old text, longer than the new one\n" * 1000, encoding="utf-8")
    old.chmod(0o640)
    seal(append_only, sealed)
    printed = run("export", "s.yaml", "--markdown").stdout
    assert run("export", "s.yaml", "--markdown", "-o", "ap/o.md").exit_code == 0
    assert entries(sealed) == ["o.md"]
    assert old.read_text(encoding="utf-8") == printed  # the old tail cut off
    assert stat.S_IMODE(old.stat().st_mode) == 0o640


def test_an_append_only_file_in_an_append_only_folder_is_refused_and_kept(
        append_only: list[Path], tmp_path: Path) -> None:
    Path("s.yaml").write_text(SPEC, encoding="utf-8")
    sealed = tmp_path / "ap"
    sealed.mkdir()
    (sealed / "o.md").write_text("old\n", encoding="utf-8")
    seal(append_only, sealed / "o.md")
    seal(append_only, sealed)
    result = run("export", "s.yaml", "--markdown", "-o", "ap/o.md")
    assert (result.exit_code, result.stderr) == (2, "attn: cannot write ap/o.md: permission "
                                                    "denied\n")
    assert entries(sealed) == ["o.md"]
    assert (sealed / "o.md").read_text(encoding="utf-8") == "old\n"


def test_fill_writes_a_document_in_an_append_only_folder_in_place(
        append_only: list[Path], tmp_path: Path) -> None:
    # the committed post is filled; a number changed by hand is set right again
    filled = (ROOT / "examples/fill/post.en.md").read_text(encoding="utf-8")
    shutil.copy(ROOT / "examples/fill/cat.attn.yaml", tmp_path)
    stale = filled.replace("0.36", "0.99")
    assert stale != filled
    Path("post.en.md").write_text(stale, encoding="utf-8")
    seal(append_only, tmp_path)
    result = run("fill", "post.en.md")
    assert (result.exit_code, result.stderr) == (
        0, "attn: 1 document filled, 0 up to date, 0 failed\n")
    assert Path("post.en.md").read_text(encoding="utf-8") == filled
    assert entries(tmp_path) == ["cat.attn.yaml", "post.en.md"]


def test_snippets_are_written_into_an_append_only_folder(
        append_only: list[Path], tmp_path: Path) -> None:
    Path("attn.toml").write_text('[[snippets]]\nspecs = "*.attn.yaml"\nformats = ["text"]\n'
                                 'output = "out/{name}.{lang}.{ext}"\n', encoding="utf-8")
    Path("a.attn.yaml").write_text(SPEC, encoding="utf-8")
    assert run("snippets").exit_code == 0
    snippet = tmp_path / "out/a.en.txt"
    snippet.chmod(0o755)  # an exec bit, which a snippet never keeps
    sealed = seal(append_only, tmp_path / "out")
    Path("a.attn.yaml").write_text(SPEC_2, encoding="utf-8")  # stale: written over in place
    Path("b.attn.yaml").write_text(SPEC, encoding="utf-8")  # missing: made
    result = run("snippets")
    assert (result.exit_code, result.stderr) == (0, "attn: 2 written, 0 unchanged, 0 failed\n")
    assert entries(sealed) == ["a.en.txt", "b.en.txt"]
    for name in "ab":
        expected = run("explain", f"{name}.attn.yaml", "--format", "text").stdout
        assert (sealed / f"{name}.en.txt").read_text(encoding="utf-8") == expected
    assert stat.S_IMODE(snippet.stat().st_mode) == 0o644
    assert run("snippets", "--check").exit_code == 0


def test_a_snippet_with_another_name_is_not_written_in_place(
        append_only: list[Path], tmp_path: Path) -> None:
    # written in place, the file would change under its other name too, which may be
    # anywhere on the disk; renamed over (as in any other folder), the other name keeps it
    Path("attn.toml").write_text('[[snippets]]\nspecs = "*.attn.yaml"\nformats = ["text"]\n'
                                 'output = "out/{name}.{lang}.{ext}"\n', encoding="utf-8")
    Path("a.attn.yaml").write_text(SPEC, encoding="utf-8")
    Path("out").mkdir()
    Path("elsewhere.txt").write_text("not a snippet\n", encoding="utf-8")
    os.link("elsewhere.txt", "out/a.en.txt")
    sealed = seal(append_only, tmp_path / "out")
    result = run("snippets")
    assert result.exit_code == 2
    assert result.stderr.splitlines() == [
        "attn: cannot write out/a.en.txt: the folder refuses to replace this file, and writing "
        "it in place would change its other names (hard links) too",
        "attn: 0 written, 0 unchanged, 1 failed"]
    assert Path("elsewhere.txt").read_text(encoding="utf-8") == "not a snippet\n"
    assert entries(sealed) == ["a.en.txt"]


def test_a_refused_rename_writes_the_file_in_place_and_leaves_no_temporary(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # a sticky folder (/tmp) refuses to rename over a file of another user that the user may
    # write; the folder is no append-only one, so the temporary name is taken back
    target = tmp_path / "o.txt"
    target.write_text("old, and longer than the new text\n", encoding="utf-8")

    def refuse(src: object, dst: object) -> None:
        raise PermissionError(1, "Operation not permitted")

    monkeypatch.setattr(os, "replace", refuse)
    write_atomic(target, "new\n")
    assert target.read_text(encoding="utf-8") == "new\n"
    assert entries(tmp_path) == ["o.txt"]


def test_a_refusal_the_folder_does_not_announce_leaves_an_empty_file_at_most(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # neither renamed nor removed, and the folder not seen as append-only (a security
    # policy): the temporary name stays, but holds nothing of the output
    target = tmp_path / "o.txt"
    target.write_text("old\n", encoding="utf-8")

    def refuse(*args: object, **kwargs: object) -> None:
        raise PermissionError(1, "Operation not permitted")

    monkeypatch.setattr(os, "replace", refuse)
    monkeypatch.setattr(os, "unlink", refuse)
    with pytest.raises(writing.UsageError):
        write_atomic(target, "the whole output\n" * 100)
    assert target.read_text(encoding="utf-8") == "old\n"
    left = [path for path in tmp_path.iterdir() if path != target]
    assert [path.stat().st_size for path in left] == [0]


@pytest.mark.parametrize(("limit", "refused"), [
    (4096, "data/checkpoints/gpt2/model.safetensors"),  # the spec (3,366 bytes) fits, not this
    (1024, "gpt2_head.yaml"),  # the first piece already: the refusal is said once, not again
])
def test_examples_to_an_append_only_folder_that_refuses_a_write_leaves_nothing(
        append_only: list[Path], tmp_path: Path, limit: int, refused: str) -> None:
    """A write refused while an example is copied (a full disk; here a file-size limit) left
    what was made before it, which such a folder keeps: the spec, a data folder, or half of the
    file being written. Every piece is now written whole before any name is made."""
    import resource
    import sys

    sealed = seal(append_only, tmp_path / "ap")

    def limited() -> None:
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))

    result = subprocess.run([sys.executable, "-m", "attncli", "examples", "gpt2_head", "--to",
                             "ap/new"], cwd=tmp_path, capture_output=True, text=True,
                            preexec_fn=limited, timeout=60,
                            env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert (result.returncode, result.stderr) == (
        2, f"attn: cannot write ap/new/{refused}: the file is too large for the file system\n")
    assert entries(sealed) == []
    assert run("examples", "gpt2_head", "--to", "ap/new").exit_code == 0  # no limit: whole
    copied = sealed / "new/data/checkpoints/gpt2/model.safetensors"
    assert copied.read_bytes() == (ROOT / "configs/data/checkpoints/gpt2/model.safetensors"
                                   ).read_bytes()


@pytest.mark.parametrize(("options", "written"), [
    (("--markdown", "-o", "ap/o.md"), "o.md"),
    (("--markdown", "-o", "o.md", "--heatmap", "ap/h.svg"), "h.svg"),
    (("--latex", "--worksheet", "-o", "w.tex", "--answers", "ap/k.tex"), "k.tex"),
], ids=["output", "heatmap", "answers"])
def test_an_export_over_a_file_with_another_name_is_not_written_in_place(
        append_only: list[Path], tmp_path: Path, options: tuple[str, ...], written: str) -> None:
    # -o names a path as a snippet's output does: written in place, the walkthrough went into
    # the file's other name too (notes.txt), which an ordinary folder's rename leaves alone
    Path("s.yaml").write_text(SPEC, encoding="utf-8")
    Path("notes.txt").write_text("my notes\n", encoding="utf-8")
    Path("ap").mkdir()
    os.link("notes.txt", f"ap/{written}")
    sealed = seal(append_only, tmp_path / "ap")
    result = run("export", "s.yaml", *options)
    assert (result.exit_code, result.stdout) == (2, "")
    assert result.stderr == (
        f"attn: cannot write ap/{written}: the folder refuses to replace this file, and writing "
        "it in place would change its other names (hard links) too\n")
    assert Path("notes.txt").read_text(encoding="utf-8") == "my notes\n"
    assert entries(sealed) == [written]


@pytest.fixture
def bound(tmp_path: Path) -> Iterator[list[Path]]:
    """The files the test mounts a file over (`mount --bind`, root's), unmounted afterwards;
    skipped where the system lets nothing be mounted (no root, a container without the
    capability)."""
    probe, over = tmp_path / "probe.txt", tmp_path / "probe.md"
    probe.touch()
    over.touch()
    made = subprocess.run(["mount", "--bind", str(probe), str(over)], capture_output=True,
                          text=True, check=False)
    if made.returncode != 0:
        pytest.skip(f"mount --bind needs root: {made.stderr.strip()}")
    subprocess.run(["umount", str(over)], check=True)
    mounted: list[Path] = []
    yield mounted
    for path in mounted:
        subprocess.run(["umount", str(path)], check=False)


@pytest.mark.parametrize(("options", "written"), [
    (("--markdown", "-o", "ap/o.md"), "o.md"),
    (("--markdown", "-o", "-", "--heatmap", "ap/h.svg"), "h.svg"),
])
def test_an_export_over_a_file_mounted_there_is_not_written_in_place(
        append_only: list[Path], bound: list[Path], tmp_path: Path, options: tuple[str, ...],
        written: str) -> None:
    # a file mounted over the output (mount --bind notes.txt ap/o.md) is notes.txt, in its own
    # place: written in place, the walkthrough went into notes.txt; an ordinary folder's rename
    # over it is refused as busy, and so is this
    Path("s.yaml").write_text(SPEC, encoding="utf-8")
    Path("notes.txt").write_text("my notes\n", encoding="utf-8")
    Path("ap").mkdir()
    Path(f"ap/{written}").touch()
    subprocess.run(["mount", "--bind", "notes.txt", f"ap/{written}"], check=True)
    bound.append(tmp_path / "ap" / written)
    seal(append_only, tmp_path / "ap")
    result = run("export", "s.yaml", *options)
    assert result.exit_code == 2
    assert result.stderr == f"attn: cannot write ap/{written}: the file is in use\n"
    assert Path("notes.txt").read_text(encoding="utf-8") == "my notes\n"


def test_an_export_over_an_append_only_file_writes_no_heatmap_beside_it(
        append_only: list[Path], tmp_path: Path) -> None:
    # `chattr +a o.md`: neither renamed over nor written in place, refused once the heatmap
    # was written; now looked at before any file is
    Path("s.yaml").write_text(SPEC, encoding="utf-8")
    Path("o.md").write_text("old\n", encoding="utf-8")
    seal(append_only, tmp_path / "o.md")
    result = run("export", "s.yaml", "--markdown", "--heatmap", "h.svg", "-o", "o.md")
    assert (result.exit_code, result.stderr) == (2, "attn: cannot write o.md: permission denied\n")
    assert entries(tmp_path) == ["o.md", "s.yaml"]
    assert Path("o.md").read_text(encoding="utf-8") == "old\n"
