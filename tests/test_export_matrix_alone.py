"""attn export --matrix: one matrix, every number in it, to paste into a formula. An option of a
worksheet or of a whole document does nothing with it, so it is refused before anything is read
or written, never dropped without a word (a student's sheet holding every answer, a key never
written, a `--standalone` fragment pdflatex cannot compile)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

from attncli.cli.app import app
from tests.conftest import CONFIGS

ONE_STEP = "--steps weights --blank weights"
SHEET = ("works only with the whole walkthrough, not with --matrix; for a worksheet of one step, "
         "use --steps, as in " + ONE_STEP)
PAGE = ("works only with the whole walkthrough, not with --matrix, which writes one matrix to "
        "paste into a document of your own")


@pytest.fixture
def folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    shutil.copy(CONFIGS / "cat_chases_mouse.yaml", tmp_path / "s.yaml")
    monkeypatch.chdir(tmp_path)
    return tmp_path


@pytest.mark.parametrize(("args", "line"), [
    (["--latex", "--worksheet", "--blank-cells", "3", "-o", "mw.tex", "--answers", "mk.tex"],
     "attn: --worksheet " + SHEET + "\n"),
    (["--markdown", "--worksheet", "-o", "mw.md", "--answers", "mk.md"],
     "attn: --worksheet " + SHEET + "\n"),
    (["--latex", "--blank", "weights", "-o", "mw.tex"], "attn: --blank " + SHEET + "\n"),
    (["--latex", "--blank-cells", "2", "--seed", "4"], "attn: --blank-cells " + SHEET + "\n"),
    (["--markdown", "-o", "m.md", "--answers", "mk.md"], "attn: --answers " + SHEET + "\n"),
    (["--latex", "--standalone", "-o", "ma.tex"], "attn: --standalone " + PAGE + "\n"),
    (["--markdown", "--front-matter", "-o", "mf.md"], "attn: --front-matter " + PAGE + "\n"),
    (["--latex", "--heatmap", "h.svg", "--standalone"], "attn: --standalone " + PAGE + "\n"),
    (["--latex", "--worksheet", "--answers", "mk.tex", "--lang", "pl"],
     "attn: --worksheet działa tylko z\u00a0całymi obliczeniami, a\u00a0nie z\u00a0opcją "
     "--matrix; aby utworzyć kartę ćwiczeń z\u00a0jednego kroku, użyj opcji --steps, np. "
     + ONE_STEP + "\n"),
    (["--latex", "--standalone", "--lang", "ru"],
     "attn: --standalone работает только с\u00a0полным разбором, а\u00a0не с\u00a0параметром "
     "--matrix, который выводит одну матрицу для вставки в\u00a0ваш документ\n"),
])
def test_an_option_that_does_nothing_with_one_matrix_is_refused(folder: Path, args: list[str],
                                                                line: str) -> None:
    result = CliRunner().invoke(app, ["export", "s.yaml", "--matrix", "A", *args])
    assert (result.exit_code, result.stdout, result.stderr) == (2, "", line)
    assert sorted(p.name for p in folder.iterdir()) == ["s.yaml"]  # nothing written


def test_the_worksheet_the_refusal_points_to_blanks_the_weights_and_keys_them(folder: Path
                                                                              ) -> None:
    """The refused sheet of --matrix A, made as the refusal says (its `--steps ...` in place of
    --matrix): a sheet of the weights whose six visible cells (three are hidden by the causal
    mask) are boxes, and a key that holds them."""
    asked = ["export", "s.yaml", "--latex", "--worksheet", "-o", "mw.tex", "--answers", "mk.tex"]
    refused = CliRunner().invoke(app, [*asked, "--matrix", "A"])
    assert refused.exit_code == 2 and not Path("mw.tex").exists()
    advice = refused.stderr.split("as in ")[1].split()
    assert advice == ["--steps", "weights", "--blank", "weights"]
    result = CliRunner().invoke(app, [*asked, *advice])
    assert (result.exit_code, result.stderr) == (0, "")
    sheet, key = (Path(name).read_text(encoding="utf-8") for name in ("mw.tex", "mk.tex"))
    matrix = sheet.split("A = {}")[1].split(r"\end{bmatrix}")[0]
    assert matrix.count(r"\underline{\hphantom{00.00}}") == 6
    weights = ("1.00", "0.36", "0.64", "0.40", "0.25", "0.35")  # as docs/explain.md shows them
    assert not any(w in matrix for w in weights)
    keyed = key.split("A = {}")[1].split(r"\end{bmatrix}")[0]
    assert all(w in keyed for w in weights) and r"\hphantom{00.00}" not in keyed


@pytest.mark.parametrize("command", [["export", "--latex"], ["export", "--markdown", "-o", "m.md"],
                                     ["explain", "--format", "text"], ["explain"]])
@pytest.mark.parametrize(("args", "option"), [
    (["-x", "A[cat, cat]"], "--expand"), (["--no-header"], "--no-header"),
    (["--header"], "--header"), (["--no-reading"], "--no-reading"), (["--reading"], "--reading"),
])
def test_a_walkthrough_option_with_one_matrix_is_refused(folder: Path, command: list[str],
                                                         args: list[str], option: str) -> None:
    """--matrix writes no written-out cell, no header and no reading: asking for one (or for
    none) with it would do nothing, unsaid."""
    result = CliRunner().invoke(app, [command[0], "s.yaml", *command[1:], "--matrix", "A", *args])
    assert (result.exit_code, result.stdout, result.stderr) == (2, "", f"attn: {option} {PAGE}\n")
    assert sorted(p.name for p in folder.iterdir()) == ["s.yaml"]


def test_one_matrix_alone_is_still_written(folder: Path) -> None:
    """The rows of A as docs/explain.md shows them (cat chases mouse, causal)."""
    result = CliRunner().invoke(app, ["explain", "s.yaml", "--format", "text", "--matrix", "A"])
    assert (result.exit_code, result.stderr) == (0, "")
    assert "0.64" in result.stdout and "0.35" in result.stdout


WITH_RICH_OR_TEXT = "works only with --format rich or --format text; the format chosen is"


@pytest.mark.parametrize(("args", "line"), [
    # JSON is the same bytes with each of these: a layout of the terminal's, or its header
    (["-f", "json", "--width", "40"], f"attn: --width {WITH_RICH_OR_TEXT} --format json\n"),
    (["-f", "json", "--heatmap"], f"attn: --heatmap {WITH_RICH_OR_TEXT} --format json\n"),
    (["-f", "json", "--no-heatmap"], f"attn: --no-heatmap {WITH_RICH_OR_TEXT} --format json\n"),
    (["-f", "json", "-j", "2"], f"attn: --jobs {WITH_RICH_OR_TEXT} --format json\n"),
    (["-f", "json", "--no-header"], f"attn: --no-header {WITH_RICH_OR_TEXT} --format json\n"),
    (["-f", "json", "--matrix", "A", "--width", "40"],
     f"attn: --width {WITH_RICH_OR_TEXT} --format json\n"),
    (["--matrix", "A", "--no-heatmap"], f"attn: --no-heatmap {PAGE}\n"),
    (["-f", "json", "--matrix", "A", "-j", "2"], f"attn: --jobs {PAGE}\n"),
    (["-f", "json", "--width", "40", "--lang", "pl"],
     "attn: --width działa tylko z\u00a0--format rich albo --format text; wybrany format to "
     "--format json\n"),
])
def test_an_explain_option_that_shapes_nothing_written_is_refused(folder: Path, args: list[str],
                                                                  line: str) -> None:
    result = CliRunner().invoke(app, ["explain", "s.yaml", *args])
    assert (result.exit_code, result.stdout, result.stderr) == (2, "", line)


@pytest.mark.parametrize("args", [["-f", "text", "--width", "40", "-j", "1", "--no-heatmap"],
                                  ["-f", "text", "--matrix", "A", "--width", "40"],
                                  ["--no-header", "--heatmap"], ["-f", "json", "--no-reading"]])
def test_the_same_options_are_taken_where_they_shape_the_page(folder: Path,
                                                              args: list[str]) -> None:
    result = CliRunner().invoke(app, ["explain", "s.yaml", *args])
    assert (result.exit_code, result.stderr) == (0, "")
