"""What the environment and the library's callers hand attn at the edge: a $COLUMNS or $LINES of
more digits than int() converts, $_ATTN_COMPLETE left set, a token's byte 0xff named by -x, a
pathlib.Path given to load_spec, and the %%attn magic given options on its line or refused
memory. Each was a crash, a wrong reason or an English line from Click (docs/limits.md)."""

from __future__ import annotations

import contextlib
import math
import os
import pty
import re
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.conftest import CONFIGS, attn_executable
from tests.terminal import read_terminal

ROOT = Path(__file__).resolve().parent.parent
HUGE = "9" * 5000  # more digits than int() converts (4,300)
# (value, more of the environment, the size attn reads it as): past the cap of 1,000 columns
# (attncli/render/__init__.py MAX_WIDTH) it is the cap; leading zeros are no digits of it
SIZES = [(HUGE, {}, "1000"),
         ("0" * 5000 + "80", {}, "80"),
         ("9" * 700, {"PYTHONINTMAXSTRDIGITS": "640"}, "1000")]  # the least limit Python allows


def environ(**more: str) -> dict[str, str]:
    env = {**os.environ, "NO_COLOR": "1", "PYTHONPATH": str(ROOT), **more}
    for name in ("COLUMNS", "LINES", "ATTN_LANG", "_ATTN_COMPLETE"):
        if name not in more:
            env.pop(name, None)
    return env


def attn(*args: str | bytes, cwd: Path = ROOT, **env: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([attn_executable(), *args], cwd=cwd, capture_output=True, text=True,
                          errors="surrogateescape", env=environ(**env), check=False,
                          timeout=120)


@pytest.mark.parametrize("name", ["COLUMNS", "LINES"])
@pytest.mark.parametrize(("value", "more", "read_as"), SIZES)
@pytest.mark.parametrize("view", [["explain", "--format", "rich"], ["export", "--svg"]])
def test_a_size_of_more_digits_than_int_converts_is_read_as_attn_holds_it(
        name: str, value: str, more: dict[str, str], read_as: str, view: list[str]) -> None:
    """Rich's Console called int() on it: 'internal error: ValueError: Exceeds the limit'
    (exit 3) in the SVG, and the rich view into a pipe said 'standard output is closed'."""
    spec = str(CONFIGS / "cat_chases_mouse.yaml")
    asked = attn(view[0], spec, *view[1:], **{name: value, **more})
    held = attn(view[0], spec, *view[1:], **{name: read_as, **more})
    assert (asked.returncode, asked.stderr) == (0, "")
    assert asked.stdout == held.stdout
    if name == "COLUMNS" and view[0] == "explain":  # the title's rule spans the width read
        assert len(asked.stdout.splitlines()[0]) == int(read_as)


@pytest.mark.parametrize("name", ["COLUMNS", "LINES", "JUPYTER_COLUMNS", "JUPYTER_LINES"])
@pytest.mark.parametrize("format", ["rich", "svg"])
def test_the_library_renders_whatever_size_the_environment_holds(
        name: str, format: str, monkeypatch: pytest.MonkeyPatch) -> None:
    import attncli

    walkthrough = attncli.build(attncli.load_spec(str(CONFIGS / "cat_chases_mouse.yaml")))
    monkeypatch.delenv(name, raising=False)
    plain = attncli.render(walkthrough, format)
    for value in (HUGE, "0" * 5000 + "80"):
        monkeypatch.setenv(name, value)
        assert attncli.render(walkthrough, format) == plain  # its width is the render's own
    monkeypatch.setattr(sys, "get_int_max_str_digits", sys.get_int_max_str_digits)
    limit = sys.get_int_max_str_digits()
    sys.set_int_max_str_digits(640)
    try:
        monkeypatch.setenv(name, "9" * 700)
        assert attncli.render(walkthrough, format) == plain
    finally:
        sys.set_int_max_str_digits(limit)


def on_a_terminal_stderr(args: list[str], cwd: Path, **env: str) -> tuple[int, str, str]:
    """attn with stderr on a pseudo-terminal (where the progress bar is drawn), stdout a pipe."""
    leader, follower = pty.openpty()
    process = subprocess.Popen([attn_executable(), *args], cwd=cwd, stdin=subprocess.DEVNULL,
                               stdout=subprocess.PIPE, stderr=follower,
                               env=environ(TERM="xterm-256color", **env))
    os.close(follower)
    shown = read_terminal(leader)
    assert process.stdout is not None
    out = process.stdout.read().decode("utf-8")
    process.stdout.close()
    return process.wait(timeout=120), out, shown.decode("utf-8")


def progress_tree(folder: Path, fmt: str) -> None:
    """A manifest of as many specs as make the snippets progress bar appear, in `fmt`."""
    from attncli.cli.snippets import PROGRESS_MIN

    spec = (CONFIGS / "two_tokens_unscaled.yaml").read_text("utf-8")
    (folder / "posts").mkdir()
    for i in range(PROGRESS_MIN):
        (folder / "posts" / f"p{i:02}.attn.yaml").write_text(spec, "utf-8")
    (folder / "attn.toml").write_text(
        f'[[snippets]]\nspecs = "posts/*.attn.yaml"\nformats = ["{fmt}"]\nlanguages = ["en"]\n'
        'output = "out/{name}.{ext}"\n', "utf-8")


@pytest.mark.parametrize("name", ["COLUMNS", "LINES"])
def test_the_snippets_progress_bar_takes_a_size_of_5000_digits(name: str, tmp_path: Path) -> None:
    from attncli.cli.snippets import PROGRESS_MIN

    progress_tree(tmp_path, "svg")
    code, out, shown = on_a_terminal_stderr(["snippets", "--jobs", "1"], tmp_path,
                                            **{name: HUGE})
    assert (code, out) == (0, "")
    assert shown.endswith(f"attn: {PROGRESS_MIN} written, 0 unchanged, 0 failed\r\n")
    assert "internal error" not in shown
    assert len(list((tmp_path / "out").glob("*.svg"))) == PROGRESS_MIN


@pytest.mark.parametrize("encoding", ["idna", "undefined"])
def test_the_snippets_progress_bar_is_not_drawn_where_the_terminal_writes_no_text(
        encoding: str, tmp_path: Path) -> None:
    """PYTHONIOENCODING=idna or undefined with stderr a terminal: Rich drew the bar through
    that codec, which writes no text: 'internal error: UnicodeError', exit 3, every snippet
    unwritten or written with no word said."""
    from attncli.cli.snippets import PROGRESS_MIN

    progress_tree(tmp_path, "text")
    code, out, shown = on_a_terminal_stderr(["snippets", "--jobs", "1", "--lang", "pl"],
                                            tmp_path, PYTHONIOENCODING=encoding)
    assert (code, out) == (0, "")
    assert shown == f"attn: zapisane: {PROGRESS_MIN}, bez zmian: 0, nieudane: 0\r\n"
    assert len(list((tmp_path / "out").glob("*.txt"))) == PROGRESS_MIN


def test_snippets_run_with_standard_error_closed(tmp_path: Path) -> None:
    """`attn snippets 2>&-` with 20 snippets or more: Python has no sys.stderr then, and asking
    it whether it is a terminal (for the progress bar) was exit 3, nothing written."""
    from attncli.cli.snippets import PROGRESS_MIN

    progress_tree(tmp_path, "text")
    done = subprocess.run([attn_executable(), "snippets", "--jobs", "1"], cwd=tmp_path,
                          stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, env=environ(),
                          preexec_fn=lambda: os.close(2), timeout=120)
    assert (done.returncode, done.stdout) == (0, b"")
    assert len(list((tmp_path / "out").glob("*.txt"))) == PROGRESS_MIN


def test_a_value_error_while_the_output_is_made_is_no_closed_stdout(
        capsys: pytest.CaptureFixture[str]) -> None:
    """write_stdout asks only its writing why it failed: an error of the work reaches `run`,
    which reports it as what it is."""
    from attncli.cli.streams import write_stdout
    from attncli.errors import UsageError

    def pieces() -> Iterator[str]:
        yield "made\n"
        raise ValueError("of the work")

    with pytest.raises(ValueError, match="of the work") as raised:
        write_stdout(pieces())
    assert not isinstance(raised.value, UsageError)
    assert capsys.readouterr().out == "made\n"


@pytest.mark.parametrize("value", ["complete_bash", "source_zsh", "anything"])
def test_ATTN_COMPLETE_left_in_the_environment_asks_nothing(value: str) -> None:
    """Click read it before every command and printed 'Shell bash not supported.' (exit 1)."""
    spec = str(CONFIGS / "cat_chases_mouse.yaml")
    plain = attn("explain", spec, "--format", "text")
    asked = attn("explain", spec, "--format", "text", _ATTN_COMPLETE=value)
    assert (asked.returncode, asked.stdout, asked.stderr) == (0, plain.stdout, "")
    refused = attn("--lang", "pl", "explain", "missing.yaml", _ATTN_COMPLETE=value)
    assert (refused.returncode, refused.stderr) == (2, "missing.yaml: nie ma takiego pliku\n")


def test_a_token_with_the_byte_0xff_is_found_by_expand() -> None:
    """The token and the -x argument come from the same bytes: the row `a\\udcffb` is written
    out, not refused as missing while the refusal lists it. Embeddings (1, 0) and (0, 1) with
    identity weights: a's scores are 1 and 0, scaled by 1/√2."""
    done = attn("explain", "--tokens", b"a\xffb c", "--embeddings", "1 0; 0 1",
                "-x", b"weights:a\xffb", "--format", "text")
    assert (done.returncode, done.stderr) == (0, "")
    e = math.exp(1 / math.sqrt(2))
    row = "a\\udcffb"
    assert f"A[{row}, {row}] = {e:.2f} / {e + 1:.2f} = {e / (e + 1):.2f}" in done.stdout
    assert (f"{e:.2f}", f"{e / (e + 1):.2f}") == ("2.03", "0.67")
    cell = attn("explain", "--tokens", b"a\xffb c", "--embeddings", "1 0; 0 1",
                "-x", b"scores:a\xffb,c", "--format", "text")
    assert f"S[{row}, c] = q_{row}·k_c = 1.00·0.00 + 0.00·1.00 = 0.00" in cell.stdout
    other = attn("explain", "--tokens", b"a\xffb c", "--embeddings", "1 0; 0 1",
                 "-x", b"weights:a\xfeb", "--format", "text")
    assert (other.returncode, other.stderr) == (
        2, f"attn: --expand: weights has no row a\\udcfeb; its rows are {row}, c\n")


def test_load_spec_takes_a_path_object(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import attncli

    source = CONFIGS / "cat_chases_mouse.yaml"
    text = attncli.render(attncli.build(attncli.load_spec(str(source))), "text")
    assert attncli.render(attncli.build(attncli.load_spec(source)), "text") == text
    assert "0.36" in text  # mouse's weight on cat, worked in configs/cat_chases_mouse.yaml
    written = source.read_text("utf-8")
    named = attncli.loads_spec(written, source)
    assert attncli.render(attncli.build(named), "text") == text
    monkeypatch.chdir(tmp_path)
    with pytest.raises(attncli.SpecError) as missing:
        attncli.load_spec(Path("nope.yaml"))
    assert str(missing.value) == "nope.yaml: no such file"
    shutil.copy(source, tmp_path / "-")  # a path object names a file, even one called -
    assert attncli.render(attncli.build(attncli.load_spec(Path("-"))), "text") == text


@pytest.fixture
def shell(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[object]:
    from IPython.core.interactiveshell import InteractiveShell

    shutil.copy(CONFIGS / "cat_chases_mouse.yaml", tmp_path / "cat.attn.yaml")
    monkeypatch.chdir(tmp_path)
    ipython = InteractiveShell.instance()
    try:
        assert ipython.run_cell("%load_ext attncli").success
        yield ipython
    finally:
        InteractiveShell.clear_instance()


NO_MEMORY = {
    "en": "attn: not enough memory: the system refused attn the memory it needs (a limit such "
          "as ulimit -v, or a machine whose memory is used up)",
    "ru": "attn: недостаточно памяти: система не выделила attn нужную память (сработало "
          "ограничение, например ulimit -v, или на машине закончилась свободная память)",
}


@pytest.mark.parametrize("lang", ["en", "ru"])
@pytest.mark.parametrize("refusal", [
    MemoryError(),
    # NumPy's library under a lower limit, as the dynamic loader words it
    ImportError("libscipy_openblas64_.so: failed to map segment from shared object"),
])
def test_the_magic_refused_memory_says_one_line(
        lang: str, refusal: Exception, shell: object, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    """A MemoryError (`ulimit -v 160000`, met first where the cell's spec is read) was
    IPython's traceback; the line is the command line's, in $ATTN_LANG's language."""
    import attncli.fill.block

    def refused(*args: object, **kwargs: object) -> object:
        raise refusal

    monkeypatch.setenv("ATTN_LANG", lang)
    monkeypatch.setattr(attncli.fill.block, "read_block", refused)
    capsys.readouterr()
    cell = shell.run_cell("%%attn\nspec: cat.attn.yaml\n")  # type: ignore[attr-defined]
    assert cell.result is None and cell.error_in_exec is None
    captured = capsys.readouterr()
    assert captured.err == NO_MEMORY[lang] + "\n"
    assert "Traceback" not in captured.out


def test_the_magic_refused_memory_before_its_line_is_made_says_the_fixed_line(
        shell: object, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    """Memory refused as the magic makes its out-of-memory line (the catalogue's first use, a
    notebook already at its limit) was IPython's traceback of a MemoryError; it is the command
    line's fixed line then."""
    import attncli.i18n

    def refused(*args: object, **kwargs: object) -> str:
        raise MemoryError

    monkeypatch.setattr(attncli.i18n, "translate", refused)
    capsys.readouterr()
    cell = shell.run_cell("%%attn\nspec: cat.attn.yaml\n")  # type: ignore[attr-defined]
    assert cell.result is None and cell.error_in_exec is None
    captured = capsys.readouterr()
    assert captured.err == "attn: not enough memory\n"
    assert "Traceback" not in captured.out


LINE = {
    "en": "<cell>:1:8: %%attn takes nothing on its line, found --lang ru -o x.md; the cell holds "
          "the whole block, its choices as keys (lang: ru, precision: 3)",
    # a one-letter word keeps to the next one with a no-break space, as Polish typesetting asks
    "pl": "<cell>:1:8: w\u00a0wierszu %%attn nie podaje się niczego, otrzymano: --lang ru -o "
          "x.md; cały blok, razem z\u00a0opcjami zapisanymi jako klucze (lang: ru, "
          "precision: 3), wpisuje się do komórki",
}


@pytest.mark.parametrize("lang", ["en", "pl"])
def test_the_magic_refuses_options_on_its_line(
        lang: str, shell: object, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    """`%%attn --lang ru -o x.md` showed the English walkthrough and wrote nothing, without a
    word; the choices belong in the cell, as in every attn block."""
    monkeypatch.setenv("ATTN_LANG", lang)
    capsys.readouterr()
    cell = shell.run_cell("%%attn --lang ru -o x.md\nspec: cat.attn.yaml\n")  # type: ignore[attr-defined]
    assert cell.result is None
    assert capsys.readouterr().err == LINE[lang] + "\n"
    assert not (tmp_path / "x.md").exists()
    shifted = shell.run_cell("%%attn   -p 3\nspec: cat.attn.yaml\n")  # type: ignore[attr-defined]
    assert shifted.result is None
    assert re.match(r"<cell>:1:10: ", capsys.readouterr().err)  # `-p` at column 10
    chosen = shell.run_cell("%%attn\nspec: cat.attn.yaml\nlang: ru\n")  # type: ignore[attr-defined]
    assert "Веса внимания" in chosen.result.data


def test_the_magic_shows_what_it_quotes_as_the_command_line_does(
        shell: object, capsys: pytest.CaptureFixture[str]) -> None:
    """An error line of the magic quoted the cell and its line as written: an escape sequence
    (OSC 52 sets a terminal's clipboard, CSI 2J clears its screen), a BEL, a CR reached the
    notebook's stream raw; the command line's error lines show each as `\\x1b`, `\\x07`, `\\r`."""
    capsys.readouterr()
    line = "\x1b]52;c;SGVsbG8=\x07\x1b[2J\r-p 3"
    assert shell.run_cell_magic("attn", line, "spec: cat.attn.yaml\n") is None  # type: ignore[attr-defined]
    assert capsys.readouterr().err == (
        "<cell>:1:8: %%attn takes nothing on its line, found \\x1b]52;c;SGVsbG8=\\x07\\x1b[2J\\r"
        "-p 3; the cell holds the whole block, its choices as keys (lang: ru, precision: 3)\n")
    assert shell.run_cell_magic("attn", "", 'spec: "\\e[2J\\ax.yaml"\n') is None  # type: ignore[attr-defined]
    assert capsys.readouterr().err == "<cell>:2:7: \\x1b[2J\\x07x.yaml: no such file\n"


def test_nothing_to_write_is_no_refusal_of_the_terminal(monkeypatch: pytest.MonkeyPatch) -> None:
    """PYTHONIOENCODING=undefined on a terminal: a command that prints nothing on stdout
    (`export -o o.md`, `snippets`) wrote its file, then said the terminal's encoding writes no
    text and exited 2, since writing "" through that codec is refused too."""
    import io

    from attncli.cli.streams import write_stdout
    from attncli.errors import UsageError

    terminal = io.TextIOWrapper(io.BytesIO(), encoding="undefined")
    monkeypatch.setattr(sys, "stdout", terminal)
    write_stdout("")
    write_stdout(iter(["", ""]))
    with pytest.raises(UsageError, match="writes no text"):
        write_stdout("attn")


@pytest.mark.parametrize("encoding", ["idna", "undefined"])
def test_the_magic_says_its_line_where_the_codec_writes_no_text(
        encoding: str, shell: object, monkeypatch: pytest.MonkeyPatch) -> None:
    """IPython in a terminal under PYTHONIOENCODING=idna or undefined: the magic's error line
    went through that codec, which refuses it (undefined) or holds it to the stream's end
    (idna), and came out as Python's dump of an unraisable UnicodeError; it is written in UTF-8."""
    import io

    written = io.BytesIO()
    monkeypatch.setattr(sys, "stderr", io.TextIOWrapper(written, encoding=encoding,
                                                        errors="strict"))
    monkeypatch.setenv("ATTN_LANG", "ru")
    assert shell.run_cell_magic("attn", "", "spec: nosuch.yaml\n") is None  # type: ignore[attr-defined]
    assert written.getvalue().decode("utf-8") == "<cell>:2:7: nosuch.yaml: нет такого файла\n"


@pytest.mark.parametrize("stream", ["full", "closed"])
def test_the_magic_says_nothing_where_standard_error_is_full_or_closed(
        stream: str, shell: object, monkeypatch: pytest.MonkeyPatch) -> None:
    """IPython with standard error on a full disk (2>/dev/full) or closed: writing the magic's
    error line raised OSError (or ValueError) out of the magic, IPython's 40-line traceback in
    place of one line; as the command line does, nobody is told and nothing is shown."""
    # line-buffered, as Python's standard error is: each line is written as it is printed
    err = open(os.devnull if stream == "closed" else "/dev/full", "w", buffering=1,  # noqa: SIM115
               encoding="utf-8")
    if stream == "closed":
        err.close()
    monkeypatch.setattr(sys, "stderr", err)
    try:
        assert shell.run_cell_magic("attn", "", "tokens: [a]\nembedings: [[1]]\n") is None  # type: ignore[attr-defined]
    finally:
        with contextlib.suppress(OSError):
            err.close()


def test_the_mkdocs_fence_shows_what_it_quotes_as_the_command_line_does(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A bad ```attn fence stops `mkdocs build` with one line, which quoted the fence as
    written: an escape sequence (CSI 2J clears the terminal the build runs in), a BEL, a CR
    reached the terminal raw; the command line's and the magic's lines show them as `\\x1b`."""
    from pymdownx.superfences import SuperFencesException

    from attncli.fill.mkdocs import fence

    monkeypatch.chdir(tmp_path)
    with pytest.raises(SuperFencesException) as stopped:
        fence('spec: "\\e[2J\\a\\rx.yaml"\n', "attn", "attn", {}, None)
    assert str(stopped.value) == "<attn fence>:2:7: \\x1b[2J\\x07\\rx.yaml: no such file"


@pytest.mark.parametrize(("lang", "line"), [
    ("pl", "<attn fence>:2:7: nie.yaml: nie ma takiego pliku"),
    ("ru", "<attn fence>:2:7: nie.yaml: нет такого файла"),
])
def test_the_mkdocs_fence_speaks_the_language_attn_lang_names(
        lang: str, line: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A bad fence under ATTN_LANG=pl or ru stopped mkdocs build with an English line, where the
    magic and the command line speak that language."""
    from pymdownx.superfences import SuperFencesException

    from attncli.fill.mkdocs import fence

    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("ATTN_LANG", lang)
    with pytest.raises(SuperFencesException) as stopped:
        fence("spec: nie.yaml\n", "attn", "attn", {}, None)
    assert str(stopped.value) == line
