"""`attn snippets --check --diff` runs in CI on pull requests, where a contributor controls the
tree: it reads and writes only regular files inside the manifest's folder (no link followed, no
FIFO or device opened), never the manifest or a spec, and finds clashes on resolved paths.

Tests that could hang if attn blocked (FIFOs) run the installed script with a timeout. These run
as root on CI; root bypasses file permissions, so nothing here relies on them: links, FIFOs and
character devices are what root cannot read past.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import attn_executable, run

SPEC = "tokens: [cat, mouse]\nembeddings: [[1, 0], [0, 1]]\n"
SECRET = "CI_SECRET=hunter2-do-not-print"


def manifest(root: Path, output: str = "snippets/{name}.{lang}.{ext}",
             specs: str = "*.attn.yaml") -> None:
    (root / "attn.toml").write_text(f'[[snippets]]\nspecs = "{specs}"\nformats = ["text"]\n'
                                    f'output = "{output}"\n', encoding="utf-8")


@pytest.fixture
def tree(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    root = tmp_path / "repo"
    root.mkdir()
    (root / "cat.attn.yaml").write_text(SPEC, encoding="utf-8")
    manifest(root)
    (tmp_path / "secret.txt").write_text(SECRET + "\n", encoding="utf-8")
    monkeypatch.chdir(root)
    return root


def attn(*args: str, cwd: Path, timeout: float = 60) -> subprocess.CompletedProcess[str]:
    return subprocess.run([attn_executable(), *args], cwd=cwd, capture_output=True, text=True,
                          timeout=timeout, env={**os.environ, "CI_SECRET": SECRET})


def files(root: Path) -> dict[str, str]:
    """Every entry under `root`: a regular file's text, else what it is."""
    found = {}
    for path in sorted(root.rglob("*")):
        name = path.relative_to(root).as_posix()
        found[name] = ("link:" + os.readlink(path) if path.is_symlink() else "fifo"
                       if path.is_fifo() else "dir" if path.is_dir() else path.read_text())
    return found


@pytest.mark.parametrize("link", ["../../secret.txt", "/proc/self/environ", "/etc/passwd",
                                  "/dev/zero"])
def test_a_snippet_that_is_a_link_is_never_read(tree: Path, link: str) -> None:
    (tree / "snippets").mkdir()
    (tree / "snippets/cat.en.txt").symlink_to(link)
    before = files(tree)
    result = attn("snippets", "--check", "--diff", cwd=tree)
    assert result.returncode == 2
    assert result.stdout == ""  # no diff of anything read through the link
    assert "hunter2" not in result.stderr and "root:" not in result.stderr
    # a link inside the tree that leads out is refused by its resolved path; one to a place
    # that exists is refused as a link
    assert result.stderr.splitlines()[0] in (
        "attn.toml:4:10: snippets[0].output: the snippet snippets/cat.en.txt: this path leads "
        "outside the manifest's folder; attn snippets reads and writes only files inside it",
        "snippets/cat.en.txt: cannot write the file: this is a symbolic link, expected a "
        "regular file")
    assert attn("snippets", cwd=tree).returncode == 2  # writing refuses too
    assert files(tree) == before


def test_a_link_inside_the_tree_is_refused_not_followed(tree: Path) -> None:
    (tree / "snippets").mkdir()
    (tree / "notes.txt").write_text("private notes\n")
    (tree / "snippets/cat.en.txt").symlink_to("../notes.txt")
    result = attn("snippets", "--check", "--diff", cwd=tree)
    assert (result.returncode, result.stdout) == (2, "")
    assert result.stderr.splitlines() == [
        "snippets/cat.en.txt: cannot write the file: this is a symbolic link, expected a "
        "regular file", "attn: 0 stale, 0 up to date, 1 failed"]
    assert attn("snippets", cwd=tree).returncode == 2
    assert (tree / "notes.txt").read_text() == "private notes\n"
    assert (tree / "snippets/cat.en.txt").is_symlink()


def test_a_fifo_snippet_or_manifest_does_not_hang(tree: Path) -> None:
    (tree / "snippets").mkdir()
    os.mkfifo(tree / "snippets/cat.en.txt")
    result = attn("snippets", "--check", "--diff", cwd=tree, timeout=30)
    assert result.returncode == 2
    assert result.stderr.splitlines()[0] == (
        "snippets/cat.en.txt: cannot write the file: this is a named pipe (FIFO), expected a "
        "regular file")
    os.mkfifo(tree / "fifo.toml")
    result = attn("snippets", "fifo.toml", "--check", cwd=tree, timeout=30)
    assert (result.returncode, result.stderr) == (
        2, "fifo.toml: this is a named pipe (FIFO), expected a regular file\n")


def test_a_fifo_spec_does_not_hang(tmp_path: Path) -> None:
    os.mkfifo(tmp_path / "spec.yaml")
    result = attn("explain", "spec.yaml", cwd=tmp_path, timeout=30)
    assert (result.returncode, result.stderr) == (
        2, "spec.yaml: the spec is empty, expected a mapping of keys\n")


@pytest.mark.parametrize(("output", "line"), [
    ("../../x_{name}.txt", "the snippet ../../x_cat.txt: this path leads outside the "
     "manifest's folder; attn snippets reads and writes only files inside it"),
    ("attn.toml", "the snippet attn.toml would be written over the input attn.toml"),
    ("{dir}/{name}.attn.yaml", "the snippet cat.attn.yaml would be written over the input "
     "cat.attn.yaml"),
    ("{name}/../../x.txt", "the snippet cat/../../x.txt: this path leads outside the "
     "manifest's folder; attn snippets reads and writes only files inside it"),
])
def test_no_snippet_is_written_outside_the_tree_or_over_an_input(
        tree: Path, output: str, line: str) -> None:
    manifest(tree, output)
    before = files(tree.parent)
    result = run("snippets")
    assert (result.exit_code, result.stderr) == (2, f"attn.toml:4:10: snippets[0].output: {line}\n")
    assert files(tree.parent) == before


def test_a_spec_named_dots_cannot_climb(tree: Path) -> None:
    (tree / "...attn.yaml").write_text(SPEC)  # its {name} is ".."
    manifest(tree, "{name}/x.txt", specs="...attn.yaml")
    before = files(tree.parent)
    result = run("snippets")
    assert (result.exit_code, result.stderr) == (
        2, "attn.toml:4:10: snippets[0].output: the snippet ../x.txt: this path leads outside the "
        "manifest's folder; attn snippets reads and writes only files inside it\n")
    assert files(tree.parent) == before


def test_two_spellings_of_one_file_clash(tree: Path) -> None:
    (tree / "attn.toml").write_text(
        '[[snippets]]\nspecs = "*.attn.yaml"\nformats = ["text"]\noutput = "out/{name}.txt"\n'
        '[[snippets]]\nspecs = "*.attn.yaml"\nformats = ["text"]\n'
        'output = "out/../out/{name}.txt"\n')
    result = run("snippets")
    assert result.exit_code == 2
    assert result.stderr == (
        "attn.toml:8:10: snippets[1].output: two snippets would be written to out/../out/cat.txt "
        "(cat.attn.yaml [text, en] and cat.attn.yaml [text, en]); use {name}, {dir}, {lang} or "
        "{ext} to tell them apart\n")
    assert not (tree / "out").exists()


def test_a_spec_that_is_a_link_out_of_the_tree_is_never_read(tree: Path) -> None:
    (tree.parent / "outside.attn.yaml").write_text(f"tokens: [a]\nembeddings: [[1]]\n"
                                                   f"{SECRET.split('=')[1]}: 1\n")
    (tree / "evil.attn.yaml").symlink_to("../outside.attn.yaml")
    result = attn("snippets", "--check", "--diff", cwd=tree)
    assert (result.returncode, result.stdout) == (2, "")
    assert "hunter2" not in result.stderr
    assert result.stderr == ("attn.toml:2:9: evil.attn.yaml: this is a symbolic link, expected a "
                             "regular file\n")


def test_a_linked_folder_out_of_the_tree_is_not_searched(tree: Path) -> None:
    elsewhere = tree.parent / "elsewhere"
    elsewhere.mkdir()
    (elsewhere / "x.attn.yaml").write_text("tokens: [a]\nembeddings: [[1]]\nhunter2: 1\n")
    (tree / "posts").symlink_to(elsewhere)
    manifest(tree, specs="posts/*.attn.yaml")
    result = attn("snippets", "--check", "--diff", cwd=tree)
    assert (result.returncode, result.stdout) == (2, "")
    assert result.stderr == ("attn.toml:2:9: posts/x.attn.yaml: this path leads outside the "
                             "manifest's folder; attn snippets reads and writes only files "
                             "inside it\n")


def test_a_well_behaved_tree_still_works(tree: Path) -> None:
    assert run("snippets").exit_code == 0
    written = (tree / "snippets/cat.en.txt").read_text()
    assert "cat" in written and "mouse" in written
    assert run("snippets", "--check").exit_code == 0


def test_a_diff_shows_what_an_old_snippet_holds_inert(tree: Path) -> None:
    (tree / "snippets").mkdir()
    (tree / "snippets/cat.en.txt").write_text("\x1b]52;c;SGVsbG8=\x07\x1b[2J\n")
    result = run("snippets", "--check", "--diff")
    assert result.exit_code == 1
    assert "\x1b" not in result.stdout and "\x07" not in result.stdout
    assert "-\\x1b]52;c;SGVsbG8=\\x07\\x1b[2J\n" in result.stdout


@pytest.mark.parametrize("pattern", ["../*.yaml", "posts/../../*"])
def test_a_spec_pattern_never_searches_outside_the_tree(tree: Path, pattern: str) -> None:
    (tree.parent / "secret-name.yaml").write_text("x: 1\n")
    manifest(tree, specs=pattern)
    result = run("snippets", "--check")
    assert (result.exit_code, result.stderr) == (
        2, "attn.toml:2:9: snippets[0].specs: expected a path inside the manifest's folder, found "
        f"{pattern}\n")


def test_a_run_of_star_stars_walks_the_tree_once(tmp_path: Path,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    # pathlib walks the folders below once for every `**` of a run: ten of them over 11
    # nested folders listed folders 100,000s of times (3 s), each one more about twice that
    from attncli.errors import Location
    from attncli.snippets.manifest import Pattern, expand

    deep = tmp_path.joinpath(*"abcdefghijk")
    deep.mkdir(parents=True)
    (deep / "x.attn.yaml").write_text(SPEC, encoding="utf-8")
    listed = []
    real = os.scandir

    def counting(path: Any) -> Any:
        listed.append(path)
        return real(path)

    monkeypatch.setattr(os, "scandir", counting)
    pattern = Pattern("/".join(["**"] * 10) + "/*.attn.yaml",
                      Location("attn.toml", "snippets[0].specs", 2, 9))
    assert expand(pattern, tmp_path) == [Path("a/b/c/d/e/f/g/h/i/j/k/x.attn.yaml")]
    assert len(listed) <= 3 * 12  # 12 folders: each listed by ** and by the part after it


@pytest.mark.parametrize("specs", ["c**.attn.yaml", "***.attn.yaml", "*" * 500 + ".attn.yaml",
                                   "**/c**t.attn.yaml"])
def test_stars_inside_a_part_of_a_spec_pattern_match_as_one_star(tree: Path, specs: str) -> None:
    # pathlib refused `**` anywhere but a whole part (ValueError: exit 3); a run of stars
    # within a part matches what one star matches, so cat.attn.yaml is found and written
    manifest(tree, specs=specs)
    (tree / "dog.yaml").write_text(SPEC, encoding="utf-8")  # matched by none of them
    result = run("snippets")
    assert (result.exit_code, result.stderr) == (0, "attn: 1 written, 0 unchanged, 0 failed\n")
    assert sorted(path.name for path in (tree / "snippets").iterdir()) == ["cat.en.txt"]


def test_a_manifest_named_from_a_deleted_folder_is_run(tree: Path,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    # `cd d; rmdir ../d; attn snippets /repo/attn.toml` with a spec that reads a file: naming
    # that file from the current folder, which has no path, was exit 3 (FileNotFoundError)
    (tree / "cat.attn.yaml").write_text("tokens: [cat, mouse]\nembeddings: {file: e.csv}\n",
                                        encoding="utf-8")
    (tree / "e.csv").write_text("1,0\n0,1\n", encoding="utf-8")
    (tree / "d").mkdir()
    monkeypatch.chdir(tree / "d")
    (tree / "d").rmdir()
    result = run("snippets", str(tree / "attn.toml"))
    assert (result.exit_code, result.stderr) == (0, "attn: 1 written, 0 unchanged, 0 failed\n")
    assert "cat" in (tree / "snippets/cat.en.txt").read_text(encoding="utf-8")


def test_a_manifest_named_through_the_folder_above_a_deleted_one_is_run(
        tree: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # `cd d; rmdir ../d; attn snippets ../attn.toml`: the relative name was resolved through the
    # current folder, which has no path: exit 3, internal error (FileNotFoundError)
    (tree / "d").mkdir()
    monkeypatch.chdir(tree / "d")
    (tree / "d").rmdir()
    result = run("snippets", "../attn.toml")
    assert (result.exit_code, result.stderr) == (0, "attn: 1 written, 0 unchanged, 0 failed\n")
    assert "cat" in (tree / "snippets/cat.en.txt").read_text(encoding="utf-8")
    result = run("snippets", "../attn.toml", "--check")
    assert (result.exit_code, result.stderr) == (0, "attn: 0 stale, 1 up to date, 0 failed\n")


def test_a_document_named_through_the_folder_above_a_deleted_one_is_filled(
        tree: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # `cd d; rmdir ../d; attn fill ../post.md`: exit 3, internal error (FileNotFoundError), as
    # the block's spec was checked to be inside the document's folder
    (tree / "post.md").write_text("```attn\nspec: cat.attn.yaml\nsteps: [weights]\n```\n",
                                  encoding="utf-8")
    (tree / "d").mkdir()
    monkeypatch.chdir(tree / "d")
    (tree / "d").rmdir()
    result = run("fill", "../post.md")
    assert (result.exit_code, result.stderr) == (0, "attn: 1 document filled, 0 up to date, "
                                                    "0 failed\n")
    # cat and mouse are [1, 0] and [0, 1]: their query and key are at right angles
    assert "are 90.00° apart" in (tree / "post.md").read_text(encoding="utf-8")
