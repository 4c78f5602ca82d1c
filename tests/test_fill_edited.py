"""`attn fill` and a document saved while it runs: an author's editor saves the post between the
moment attn reads it and the moment attn replaces it (a large spec is worked out for a few
seconds). attn replaced it with the old text and its generated part, and the save was lost; now
the document is compared with what was read, byte for byte, just before it is replaced, and the
run refuses with one line, writing no document.

The save is made to happen at a known moment: inside the in-process run, right after attn has
read and filled a document (attncli.fill.document.fill) or right after it has written one
(write_atomic)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

import attncli.fill.document as document
from attncli.fill.blocks import MARKDOWN
from tests.conftest import run
from tests.test_fill import CHAPTER, INLINE, SPEC, notebook

POST = "# Attention\n\n```attn\n" + INLINE + "```\n\nSome text.\n"
PARAGRAPH = "A paragraph the author saved while attn fill ran.\n"
REFUSED = ("{name}: the document changed while attn was filling it, so no document was "
           "written; run attn fill again\n")


def saved_by_the_author(path: Path) -> None:
    """The author's save: one word written in capitals, so the size stays the same."""
    data = path.read_bytes()
    assert b"Attention" in data
    path.write_bytes(data.replace(b"Attention", b"ATTENTION", 1))


def edit_after_filling(monkeypatch: pytest.MonkeyPatch, edited: str) -> list[str]:
    """Every document attn fills is read and worked out as before; once `edited` has been, the
    author saves it. The names filled, in order."""
    filled: list[str] = []
    real = document.fill

    def fill(path: Path, max_cells: int = document.DEFAULT_MAX_CELLS) -> document.Filled:
        done = real(path, max_cells)
        filled.append(path.name)
        if path.name == edited:
            saved_by_the_author(path)
        return done

    monkeypatch.setattr(document, "fill", fill)
    return filled


def markdown(folder: Path) -> Path:
    path = folder / "post.md"
    path.write_text(POST, "utf-8")
    return path


def chapter(folder: Path) -> Path:
    path = folder / "chapter.tex"
    path.write_text(CHAPTER, "utf-8")
    return path


@pytest.mark.parametrize("make", [markdown, chapter, notebook], ids=["md", "tex", "ipynb"])
def test_a_document_saved_while_attn_fills_it_keeps_the_save(
        make: object, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    path = make(tmp_path)  # type: ignore[operator]
    before = path.read_bytes()
    filled = edit_after_filling(monkeypatch, path.name)
    done = run("fill", path.name, env={"ATTN_LANG": ""})
    assert filled == [path.name]  # the save came after attn read the document
    assert (done.exit_code, done.stderr) == (2, REFUSED.format(name=path.name))
    assert path.read_bytes() == before.replace(b"Attention", b"ATTENTION", 1)
    assert sorted(p.name for p in tmp_path.iterdir()) == [path.name]  # no temporary file left


def test_a_run_of_several_documents_writes_none_when_one_was_saved_meanwhile(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """first.md is filled and could be written, but second.md was saved after it was read:
    writing first.md alone would leave the run half done, so neither is written, and the one
    line is the refusal (not the summary, not third.md's own error)."""
    monkeypatch.chdir(tmp_path)
    for name in ("first.md", "second.md"):
        (tmp_path / name).write_text(POST, "utf-8")
    (tmp_path / "third.md").write_text("```attn\nspec: nowhere.yaml\n```\n", "utf-8")
    filled = edit_after_filling(monkeypatch, "second.md")
    done = run("fill", "first.md", "second.md", "third.md", env={"ATTN_LANG": ""})
    assert filled == ["first.md", "second.md"]  # third.md's block is refused: nothing filled
    assert (done.exit_code, done.stderr) == (2, REFUSED.format(name="second.md"))
    assert (tmp_path / "first.md").read_text("utf-8") == POST
    assert (tmp_path / "second.md").read_text("utf-8") == POST.replace("Attention", "ATTENTION")


def test_a_document_saved_while_those_before_it_are_written_is_kept_and_the_count_said(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The last look, just before each rename: second.md is saved after every document was
    compared but while first.md was being written. first.md stays filled (it was renamed
    already), second.md keeps the save, and the line says how many were filled."""
    monkeypatch.chdir(tmp_path)
    for name in ("first.md", "second.md"):
        (tmp_path / name).write_text(POST, "utf-8")
    real = document.write_atomic
    writes: list[str] = []

    def write_atomic(path: Path, *args: object, **options: object) -> None:
        real(path, *args, **options)  # type: ignore[arg-type]
        writes.append(Path(path).name)
        if len(writes) == 1:
            saved_by_the_author(tmp_path / "second.md")

    monkeypatch.setattr(document, "write_atomic", write_atomic)
    done = run("fill", "first.md", "second.md", env={"ATTN_LANG": ""})
    assert writes == ["first.md"]
    assert (done.exit_code, done.stderr) == (
        2, "second.md: the document changed while attn was filling it, so it was not written; "
           "1 document named before it was filled; run attn fill again\n")
    assert (tmp_path / "first.md").read_text("utf-8").count(MARKDOWN.begin) == 1
    assert (tmp_path / "second.md").read_text("utf-8") == POST.replace("Attention", "ATTENTION")


@pytest.mark.parametrize(("lang", "line"), [
    ("pl", "post.md: dokument zmienił się w\u00a0trakcie wypełniania, więc nie zapisano żadnego "
           "dokumentu; uruchom attn fill jeszcze raz\n"),
    ("ru", "post.md: документ изменился во время заполнения, поэтому ни один документ не "
           "записан; запустите attn fill ещё раз\n"),
])
def test_the_refusal_is_said_in_polish_and_russian(
        lang: str, line: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    markdown(tmp_path)
    edit_after_filling(monkeypatch, "post.md")
    done = run("fill", "--lang", lang, "post.md", env={"ATTN_LANG": ""})
    assert (done.exit_code, done.stderr) == (2, line)


def test_a_document_saved_again_with_the_same_bytes_is_filled(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A save that changes nothing but the time (an editor's save of an unchanged buffer) is no
    change to keep: the bytes are compared, not the time of the last change."""
    monkeypatch.chdir(tmp_path)
    path = markdown(tmp_path)
    real = document.fill

    def fill(path: Path, max_cells: int = document.DEFAULT_MAX_CELLS) -> document.Filled:
        done = real(path, max_cells)
        path.write_bytes(path.read_bytes())
        os.utime(path, ns=(path.stat().st_atime_ns, path.stat().st_mtime_ns + 10**9))
        return done

    monkeypatch.setattr(document, "fill", fill)
    done = run("fill", "post.md", env={"ATTN_LANG": ""})
    assert (done.exit_code, done.stderr) == (0, "attn: 1 document filled, 0 up to date, "
                                                "0 failed\n")
    assert path.read_text("utf-8").count(MARKDOWN.begin) == 1


@pytest.mark.parametrize("command", [["fill", "post.md", "--diff"], ["snippets", "--diff"]])
def test_a_diff_to_a_full_standard_output_is_one_line(command: list[str], tmp_path: Path) -> None:
    """`--diff >/dev/full`: the stale and missing lines, the report of a diff that could not be
    given, came before the refusal (three lines for two missing snippets); the diff is now
    written first, and a stdout that takes nothing is the one line."""
    markdown(tmp_path)
    (tmp_path / "spec.yaml").write_text(SPEC, "utf-8")
    (tmp_path / "attn.toml").write_text('[[snippets]]\nspecs = "spec.yaml"\nformats = '
                                        '["markdown", "text"]\noutput = "o/{name}.{ext}"\n',
                                        "utf-8")
    with open("/dev/full", "w") as full:
        done = subprocess.run([sys.executable, "-m", "attncli", *command], cwd=tmp_path,
                              stdout=full, stderr=subprocess.PIPE, text=True,
                              stdin=subprocess.DEVNULL, env={**os.environ, "ATTN_LANG": ""},
                              check=False)
    assert (done.returncode, done.stderr) == (
        2, "attn: cannot write to standard output: no space left on the disk\n")
    assert not (tmp_path / "o").exists()
