"""An option that changes nothing of what a format writes is refused, named, before anything is
read or written, never dropped without a word: JSON writes every number whole, so --full does
nothing there, and with --matrix neither do --precision and --decimal-comma; --matrix writes
every number of its matrix in any format; JSON holds the header's facts as data, so --no-header
kept them; Typst slides are always a whole document (--standalone)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

from attncli.cli.app import app
from tests.conftest import CONFIGS

FULL = "works only with a format that shortens a large matrix in the middle"
ROUNDED = ("works only with a format that prints the matrix's numbers rounded; --matrix in JSON "
           "writes them whole")
PAGE = ("works only with a format that writes a page (--latex, --beamer, --markdown, --svg, "
        "--html, --typst)")


@pytest.fixture
def folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    shutil.copy(CONFIGS / "two_heads.yaml", tmp_path / "s.yaml")
    monkeypatch.chdir(tmp_path)
    return tmp_path


@pytest.mark.parametrize(("args", "line"), [
    (["export", "s.yaml", "--json", "--full"], f"--full {FULL}; the format chosen is --json"),
    (["explain", "s.yaml", "-f", "json", "--full"],
     f"--full {FULL}; the format chosen is --format json"),
    (["export", "s.yaml", "--json", "--no-header"],
     f"--no-header {PAGE}; the format chosen is --json"),
    (["export", "s.yaml", "--json", "--header"], f"--header {PAGE}; the format chosen is --json"),
    (["export", "s.yaml", "--json", "--matrix", "A:1", "-p", "3"], f"--precision {ROUNDED}"),
    (["explain", "s.yaml", "-f", "json", "--matrix", "A:1", "--decimal-comma"],
     f"--decimal-comma {ROUNDED}"),
    (["explain", "s.yaml", "-f", "json", "--matrix", "A:1", "--decimal-dot"],
     f"--decimal-dot {ROUNDED}"),
    (["explain", "s.yaml", "-f", "text", "--matrix", "A:1", "--full"],
     "--full works only with the whole walkthrough, not with --matrix, which writes one matrix "
     "to paste into a document of your own"),
    (["export", "s.yaml", "--latex", "--matrix", "A:1", "--full"],
     "--full works only with the whole walkthrough, not with --matrix, which writes one matrix "
     "to paste into a document of your own"),
    (["export", "s.yaml", "--typst", "--slides", "--standalone"],
     "--standalone works only with --latex or --typst; the format chosen is --typst --slides"),
    (["export", "s.yaml", "--xlsx", "--no-header"],
     f"--no-header {PAGE}; the format chosen is --xlsx"),
])
def test_an_option_that_changes_nothing_is_refused_and_nothing_is_written(
        folder: Path, args: list[str], line: str) -> None:
    written = [*args, "-o", "out.file"] if args[0] == "export" else args
    result = CliRunner().invoke(app, written)
    assert (result.exit_code, result.stderr) == (2, f"attn: {line}\n")
    assert result.stdout == ""
    assert sorted(p.name for p in folder.iterdir()) == ["s.yaml"]


def test_each_refused_option_does_nothing_there_and_something_elsewhere(folder: Path) -> None:
    """Why each is refused: the bytes are the same without it (before, exit 0), and it does
    change what a format that it shapes writes."""
    from attncli.render import render
    from attncli.spec import load_spec
    from attncli.steps.build import build

    walkthrough = build(load_spec("s.yaml"))
    assert render(walkthrough, "json", "en", full=True) == render(walkthrough, "json", "en")
    assert render(walkthrough, "latex", "en", header=False) != render(walkthrough, "latex", "en")
    plain = CliRunner().invoke(app, ["explain", "s.yaml", "-f", "json", "--matrix", "A:1"])
    assert json.loads(plain.stdout)["values"][0][0] == pytest.approx(0.4011120926797859, abs=0)
    rounded = CliRunner().invoke(app, ["explain", "s.yaml", "-f", "text", "--matrix", "A:1",
                                       "-p", "3"])
    assert rounded.stdout.splitlines()[1].split()[1] == "0.401"


@pytest.mark.parametrize(("lang", "line"), [
    ("pl", "attn: --full działa tylko z\u00a0formatem, który skraca dużą macierz, pomijając jej "
           "środek; wybrany format to --json\n"),
    ("ru", "attn: --full работает только с\u00a0форматом, в\u00a0котором у\u00a0большой матрицы "
           "видны только первые и\u00a0последние строки и\u00a0столбцы, а\u00a0выбран --json\n"),
])
def test_the_refusal_in_polish_and_russian(folder: Path, lang: str, line: str) -> None:
    result = CliRunner().invoke(app, ["export", "s.yaml", "--json", "--full", "--lang", lang])
    assert (result.exit_code, result.stderr) == (2, line)
