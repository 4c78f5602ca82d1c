"""Standard output and signals: what the world outside does to a running command.

A full disk or a closed descriptor on stdout is one line and exit 2; a reader that went away
(`attn explain | head -1`) ends the command quietly with 141; SIGTERM and SIGHUP end it like
Ctrl-C. A file or a pipe is written in UTF-8 whatever the locale or PYTHONIOENCODING say; a
terminal whose encoding cannot show attn's characters is told so (docs/limits.md, "Terminals
and encodings").
"""

from __future__ import annotations

import codecs
import errno
import io
import os
import select
import signal
import sys
from collections.abc import Iterable, Iterator
from contextlib import contextmanager, suppress
from typing import TextIO

import typer

from attncli.errors import UsageError
from attncli.files.interrupts import PENDING, Terminated, raise_pending, terminated
from attncli.i18n import Msg
from attncli.i18n.library_messages import os_problem
from attncli.i18n.visible import visible

# What a shell reports for a program that SIGPIPE ended (128 + 13, e.g. `yes | head -1` under
# `set -o pipefail`), like the 128 + n of SIGTERM and SIGHUP below. Python's docs suggest exit 1
# after a BrokenPipeError, but 1 is `attn check`'s "a number is wrong".
EXIT_BROKEN_PIPE = 141

def echo_error(text: str, english: str | None = None) -> None:
    """`text` on stderr as one line: what it quotes from the input (a token, a key, a file name)
    may hold a line break or a terminal escape, which is shown `visible` (`\\n`, `\\x1b`).

    A terminal whose encoding cannot show `text` (Polish or Russian under PYTHONIOENCODING=ascii)
    gets `english`, the same line in attn's own language, and what it still cannot show as
    `\\uXXXX`; stderr as a file or a pipe is UTF-8 (`utf8_unless_terminal`)."""
    line = visible(text)
    err = sys.stderr
    if err is not None and not _shows(err, line):
        line = visible(english) if english is not None and _shows(err, visible(english)) else line
        _escaping(err, line)
    try:
        typer.echo(line, err=True)
    except (OSError, ValueError):  # stderr full or closed: nobody to tell, the exit code says it
        with suppress(OSError, ValueError, AttributeError):
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, sys.stderr.fileno())  # nor Python's flush on exit


def _shows(stream: TextIO, text: str) -> bool:
    try:
        return _writes(stream.encoding or "utf-8", text + "\n", "strict")
    except LookupError:
        return True


def writes_text(stream: TextIO) -> bool:
    """Whether `stream` writes a line of plain text as it is written: not so under a codec that
    writes no text whole (PYTHONIOENCODING=idna or undefined), in which whatever draws there
    directly (the snippets progress bar) would stop the command (exit 3)."""
    try:
        return _writes(stream.encoding or "utf-8", "attn\n", "strict")
    except LookupError:
        return True


def _writes(encoding: str, text: str, errors: str) -> bool:
    """Whether a stream of `encoding` writes `text` whole as it is written: a codec may refuse
    it (UnicodeEncodeError, or the base class that idna and undefined raise), or hold its end
    until the stream is closed (idna keeps the text after the last dot), which never comes for
    a line on a terminal before the exit."""
    try:
        whole = text.encode(encoding, errors)
        return codecs.getincrementalencoder(encoding)(errors).encode(text) == whole
    except UnicodeError:
        return False


def _escaping(stream: TextIO, text: str) -> None:
    """`stream` set to write what its encoding lacks as backslash escapes (`\\u0105`). A codec
    that writes no text whole (PYTHONIOENCODING=idna or undefined) says nothing of the terminal:
    it is replaced by UTF-8, as Click replaces an ASCII terminal's (the line came out as Python's
    dump of an unraisable error, exit 1)."""
    with suppress(AttributeError, ValueError, OSError, LookupError):
        if _writes(stream.encoding or "utf-8", text + "\n", "backslashreplace"):
            stream.reconfigure(errors="backslashreplace")  # type: ignore[attr-defined]
        else:
            stream.reconfigure(encoding="utf-8", errors="backslashreplace")  # type: ignore[attr-defined]


def _is_terminal(stream: TextIO) -> bool:
    try:
        return stream.isatty()
    except (ValueError, OSError):  # closed
        return False


def utf8_unless_terminal() -> None:
    """Standard output and error in UTF-8 when they are a file or a pipe, whatever the locale or
    PYTHONIOENCODING say: what attn writes there is a document (LaTeX read with inputenc utf8,
    HTML and SVG that declare UTF-8, JSON, Markdown), and `attn export > f.tex` must be the
    bytes of `attn export -o f.tex`, which is always UTF-8. A terminal keeps its encoding: bytes
    it cannot show would print as other letters, so `write_stdout` says what to change."""
    for stream in (sys.stdout, sys.stderr):
        if stream is None or _is_terminal(stream):
            continue
        try:
            if codecs.lookup(stream.encoding).name == "utf-8":
                continue
        except (LookupError, TypeError, AttributeError):
            pass
        with suppress(AttributeError, ValueError, OSError):
            stream.reconfigure(encoding="utf-8", errors=stream.errors)  # type: ignore[union-attr]


@contextmanager
def terminable() -> Iterator[None]:
    """SIGTERM and SIGHUP end the command like Ctrl-C: temporary files removed, exit 128 + the
    signal's number."""
    kept = {}
    PENDING.clear()
    try:
        for signum in (signal.SIGTERM, signal.SIGHUP):
            kept[signum] = signal.signal(signum, terminated)
    except ValueError:  # not the main thread: leave the signals alone
        pass
    try:
        yield
        raise_pending()  # a signal whose exception Python dropped (files/interrupts.py)
    except Terminated as stop:
        raise typer.Exit(128 + stop.signum) from None
    finally:
        for signum, handler in kept.items():
            signal.signal(signum, handler)


def write_stdout(text: str | Iterable[str]) -> None:
    """Write `text` (or its pieces, each as it is made) to stdout; a full disk or a closed
    stdout is one line and exit 2; a pipe whose reader has gone is not bad input: no message,
    exit 141."""
    # What making a piece raises is its own (a ValueError of the work is no closed stdout):
    # only writing is asked why it failed.
    for piece in (text,) if isinstance(text, str) else text:
        if not piece:  # nothing to say (export -o, snippets): a codec that writes no text
            continue   # (PYTHONIOENCODING=undefined) refused even "", exit 2 after the work
        with _stdout_refusals():
            _write(_stdout(), piece)
    with _stdout_refusals():
        _stdout().flush()


def _stdout() -> TextIO:
    if sys.stdout is None:
        raise OSError(errno.EBADF, os.strerror(errno.EBADF))
    return sys.stdout


@contextmanager
def _stdout_refusals() -> Iterator[None]:
    """Why stdout took no more, as a UsageError (exit 2), or exit 141 for a reader gone."""
    try:
        yield
    except UnicodeEncodeError as error:  # a terminal of another encoding (not a file: see above)
        raise UsageError(unencodable(error)) from None
    except UnicodeError:  # a codec that writes no text at all (PYTHONIOENCODING=idna, undefined)
        raise UsageError(unencodable(None)) from None
    except (OSError, ValueError) as error:
        problem = lost_stdout(error)
        if problem is None:
            raise typer.Exit(EXIT_BROKEN_PIPE) from None
        raise UsageError(problem) from None


class ClosedStream(io.TextIOBase):
    """Standard output closed (`>&-`), which Python leaves as None: a write says so (EBADF),
    where Click's help and version, printed to None, said nothing and exited 0."""

    def write(self, text: str) -> int:
        raise OSError(errno.EBADF, os.strerror(errno.EBADF))

    def fileno(self) -> int:
        raise OSError(errno.EBADF, os.strerror(errno.EBADF))

    def flush(self) -> None:  # nothing held: the interpreter's flush on exit finds nothing
        return None

    def isatty(self) -> bool:
        return False


def closed_stdout_says_so() -> None:
    """A closed stdout as a stream whose every write fails (see ClosedStream)."""
    if sys.stdout is None:
        sys.stdout = ClosedStream()


def check_stdout() -> None:
    """UsageError if stdout is closed (`>&-`), said before attn writes a file beside what goes
    there (`-o x.md --heatmap -`): the file would be written, then the run refused."""
    try:
        if sys.stdout is None:
            raise OSError(errno.EBADF, os.strerror(errno.EBADF))
        try:
            descriptor = sys.stdout.fileno()
        except io.UnsupportedOperation:  # no descriptor (a test runner's buffer): nothing to ask
            return
        os.fstat(descriptor)
    except (OSError, ValueError) as error:
        raise UsageError(Msg.of("cannot write to standard output: {reason}",
                                reason=_stdout_problem(error))) from None


def lost_stdout(error: OSError | ValueError) -> Msg | None:
    """After stdout took no more (attn's output, or the help and version Click print): why, in
    attn's words, or None for a reader that went away (exit 141, no message). Nothing more may
    reach the broken stdout, not even Python's flush on exit."""
    with suppress(OSError, ValueError, AttributeError):
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    if isinstance(error, BrokenPipeError):
        return None
    return Msg.of("cannot write to standard output: {reason}", reason=_stdout_problem(error))


def unencodable(error: UnicodeError | None) -> Msg:
    """What to change when the terminal on stdout cannot show a character attn writes there
    (its output, or the help that Click prints); `error` None or no UnicodeEncodeError: its
    encoding is a codec that encodes no text (idna, undefined)."""
    encoding = getattr(sys.stdout, "encoding", None)
    if not isinstance(error, UnicodeEncodeError):
        return Msg.of(
            "cannot write to standard output: the terminal's encoding, {encoding}, writes no "
            "text; set PYTHONIOENCODING=utf-8 (or a UTF-8 locale), or send the output to a file "
            "(> FILE), which attn writes in UTF-8", encoding=encoding or "?")
    return Msg.of(
        "cannot write to standard output: the terminal's encoding, {encoding}, has no "
        "character {code}; set PYTHONIOENCODING=utf-8 (or a UTF-8 locale), or send the "
        "output to a file (> FILE), which attn writes in UTF-8",
        encoding=encoding or error.encoding,
        code=f"U+{ord(error.object[error.start]):04X}")


def _stdout_problem(error: OSError | ValueError) -> Msg:
    """Why stdout took no more, in attn's words (never the system's untranslated ones)."""
    if isinstance(error, ValueError) or error.errno == errno.EBADF:  # closed (`>&-`)
        return Msg.of("it is closed")
    return os_problem(error)


def _write(out: TextIO, piece: str) -> None:
    """`piece` on `out`, every byte of it. Unbuffered (PYTHONUNBUFFERED, python -u), a text
    stream hands its bytes to the descriptor once and drops what a short write leaves (a reader
    that goes away in the middle): they are written here until the descriptor takes them all
    or says why not."""
    raw = getattr(out, "buffer", None)
    if not isinstance(raw, io.RawIOBase):
        out.write(piece)
        return
    out.flush()
    data = memoryview(piece.encode(out.encoding, out.errors or "strict"))
    while data:
        written = raw.write(data)
        if written is None:  # a descriptor set non-blocking by someone else: wait for room
            select.select([], [raw], [])
            continue
        data = data[written:]
