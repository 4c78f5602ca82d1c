"""Standard streams that are not UTF-8 (PYTHONIOENCODING=ascii, a latin-1 or ISO 8859-2
locale): a file or a pipe still gets the UTF-8 bytes that `-o FILE` writes; a terminal that
cannot show attn's characters gets one line saying so and what to change, exit 2; the error line
itself is written whatever stderr's encoding (docs/limits.md, "Terminals and encodings")."""

from __future__ import annotations

import os
import pty
import subprocess
from pathlib import Path

import pytest

from tests.conftest import attn_executable
from tests.terminal import read_terminal

ROOT = Path(__file__).resolve().parent.parent
SPEC = "configs/cat_chases_mouse.yaml"


def attn(*args: str, encoding: str | None = None) -> subprocess.CompletedProcess[bytes]:
    env = {**os.environ, "PYTHONIOENCODING": encoding} if encoding else dict(os.environ)
    env.pop("ATTN_LANG", None)
    return subprocess.run([attn_executable(), *args], cwd=ROOT, capture_output=True, env=env,
                          timeout=60)


def on_a_terminal(*args: str, encoding: str) -> tuple[int, bytes]:
    """attn's stdout and stderr on one pseudo-terminal, as a user's shell runs it."""
    leader, follower = pty.openpty()
    env = {**os.environ, "PYTHONIOENCODING": encoding}
    env.pop("ATTN_LANG", None)
    process = subprocess.Popen([attn_executable(), *args], cwd=ROOT, stdin=subprocess.DEVNULL,
                               stdout=follower, stderr=follower, env=env)
    os.close(follower)
    shown = read_terminal(leader)
    return process.wait(timeout=60), shown


@pytest.mark.parametrize("encoding", ["ascii", "latin-1"])
@pytest.mark.parametrize("lang", ["en", "pl", "ru"])
def test_a_file_or_pipe_gets_utf8_whatever_the_encoding_says(encoding: str, lang: str,
                                                             tmp_path: Path) -> None:
    """`attn export --latex > f.tex` is the bytes of `-o f.tex`; the text output holds ─, √, ·
    and, in Polish and Russian, their letters."""
    text = ["explain", SPEC, "--format", "text", "--lang", lang]
    latex = ["export", SPEC, "--latex", "--lang", lang]
    for args in (text, latex):
        expected = attn(*args, encoding="utf-8")
        result = attn(*args, encoding=encoding)
        assert (result.returncode, result.stderr) == (0, b"")
        assert result.stdout == expected.stdout
    assert "√" in attn(*text, encoding=encoding).stdout.decode("utf-8")
    target = tmp_path / "w.tex"
    assert attn("export", SPEC, "--latex", "--lang", lang, "-o", str(target)).returncode == 0
    assert target.read_bytes() == result.stdout


TERMINAL_ASCII = ("attn: cannot write to standard output: the terminal's encoding, ascii, has no "
                  "character U+2500; set PYTHONIOENCODING=utf-8 (or a UTF-8 locale), or send the "
                  "output to a file (> FILE), which attn writes in UTF-8\r\n")


@pytest.mark.parametrize("lang", ["en", "pl", "ru"])
def test_an_ascii_terminal_is_told_what_to_change(lang: str) -> None:
    """The first character it cannot show is the title's rule, U+2500. A Polish or Russian
    line cannot be shown either, so the line is attn's English one, not `\\u017c` escapes."""
    code, shown = on_a_terminal("explain", SPEC, "--lang", lang, encoding="ascii")
    assert (code, shown.decode("ascii")) == (2, TERMINAL_ASCII)


def test_a_latin2_terminal_is_told_in_polish() -> None:
    """ISO 8859-2 has Polish letters but no box-drawing rule: the line in Polish, in the
    terminal's own bytes."""
    code, shown = on_a_terminal("explain", SPEC, "--lang", "pl", encoding="iso8859-2")
    assert code == 2
    assert shown.decode("iso8859-2") == (
        "attn: nie można pisać na standardowe wyjście: w\u00a0kodowaniu terminala, iso8859-2, nie "
        "ma znaku U+2500; ustaw PYTHONIOENCODING=utf-8 (albo wybierz ustawienia regionalne "
        "z\u00a0UTF-8) lub przekieruj wyjście do pliku (> PLIK), który attn zapisuje "
        "w\u00a0UTF-8\r\n")


@pytest.mark.parametrize(("lang", "line"), [
    ("pl", "nosuch.yaml: nie ma takiego pliku\n"),
    ("ru", "nosuch.yaml: нет такого файла\n"),
])
@pytest.mark.parametrize("encoding", ["ascii", "latin-1"])
def test_the_error_line_is_written_whatever_stderrs_encoding(encoding: str, lang: str,
                                                             line: str) -> None:
    """stderr as a file (a CI log): the line in UTF-8, not `nie ma takiego pliku` with its
    letters as `\\u017c`."""
    result = attn("explain", "nosuch.yaml", "--lang", lang, encoding=encoding)
    assert (result.returncode, result.stdout, result.stderr.decode("utf-8")) == (2, b"", line)


def test_an_error_on_an_ascii_terminal_is_in_attns_english() -> None:
    code, shown = on_a_terminal("explain", "nosuch.yaml", "--lang", "ru", encoding="ascii")
    assert (code, shown) == (2, b"nosuch.yaml: no such file\r\n")


@pytest.mark.parametrize(("encoding", "lang", "code"), [
    ("latin-1", "ru", "U+0418"), ("iso8859-2", "ru", "U+0418"), ("koi8-r", "pl", "U+017C"),
])
def test_help_on_a_terminal_that_cannot_show_it_is_one_line(encoding: str, lang: str,
                                                             code: str) -> None:
    """`attn --lang ru explain --help` on a Latin-1 terminal: Click wrote the help and Python
    raised UnicodeEncodeError, a traceback and exit 1; now the line `explain` gives, exit 2.
    (ASCII is not among them: Click writes UTF-8 to a terminal it takes for misconfigured.)"""
    exit_code, shown = on_a_terminal("--lang", lang, "explain", "--help", encoding=encoding)
    assert exit_code == 2
    line = shown.decode(encoding)
    assert line.count("\n") == 1 and "Traceback" not in line
    assert code in line and line.startswith("attn: ")


def test_a_usage_error_a_terminal_cannot_show_is_in_attns_english() -> None:
    """`--width x` in Russian on a Latin-1 terminal: attn's English line, as for any other
    refusal, not a line of `\\u043e` escapes."""
    code, shown = on_a_terminal("--lang", "ru", "explain", SPEC, "--width", "x",
                                encoding="latin-1")
    assert (code, shown.decode("latin-1")) == (
        2, "attn: --width: expected a whole number, found x (see attn explain --help)\r\n")


NO_TEXT = ("attn: cannot write to standard output: the terminal's encoding, {}, writes no text; "
           "set PYTHONIOENCODING=utf-8 (or a UTF-8 locale), or send the output to a file "
           "(> FILE), which attn writes in UTF-8\r\n")


@pytest.mark.parametrize("encoding", ["idna", "undefined"])
def test_a_terminal_codec_that_writes_no_text_is_told_what_to_change(encoding: str) -> None:
    """PYTHONIOENCODING=idna or undefined: the codec raises UnicodeError itself, not a
    UnicodeEncodeError, and idna holds a line's text after its last dot until the stream is
    closed. The output, the help and the error line came out as Python's dump of an
    unraisable UnicodeError, exit 1 (`attn check`'s "a number is wrong"); now one line, exit 2.
    The error line is written in UTF-8, as Click writes to a terminal it takes for ASCII."""
    for args in (["explain", SPEC, "--format", "text"], ["--help"]):
        code, shown = on_a_terminal(*args, encoding=encoding)
        assert (code, shown.decode("ascii")) == (2, NO_TEXT.format(encoding))
    for lang, line in (("en", "nosuch.yaml: no such file"),
                       ("ru", "nosuch.yaml: нет такого файла")):
        code, shown = on_a_terminal("explain", "nosuch.yaml", "--lang", lang, encoding=encoding)
        assert (code, shown.decode("utf-8")) == (2, line + "\r\n")
    piped = attn("explain", SPEC, "--format", "text", encoding=encoding)
    assert (piped.returncode, piped.stderr) == (0, b"")
    assert piped.stdout == attn("explain", SPEC, "--format", "text", encoding="utf-8").stdout
