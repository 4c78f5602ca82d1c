"""Standard output and signals: what the world outside does to a running command.

A full disk or a closed descriptor on stdout is one line and exit 2; a reader that went away
(`attn explain | head -1`) ends the command quietly with 141; SIGTERM and SIGHUP end it like
Ctrl-C.
"""

from __future__ import annotations

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
from attncli.i18n import Msg
from attncli.i18n.visible import visible

# What a shell reports for a program that SIGPIPE ended (128 + 13, e.g. `yes | head -1` under
# `set -o pipefail`), like the 128 + n of SIGTERM and SIGHUP below. Python's docs suggest exit 1
# after a BrokenPipeError, but 1 is `attn check`'s "a number is wrong".
EXIT_BROKEN_PIPE = 141

def echo_error(text: str) -> None:
    """`text` on stderr as one line: what it quotes from the input (a token, a key, a file name)
    may hold a line break or a terminal escape, which is shown `visible` (`\\n`, `\\x1b`)."""
    typer.echo(visible(text), err=True)


class Terminated(BaseException):
    """SIGTERM or SIGHUP, raised where the program is, so that a file being written is removed
    (files.write_atomic) as for Ctrl-C."""

    def __init__(self, signum: int) -> None:
        super().__init__(signum)
        self.signum = signum


def _terminated(signum: int, frame: object) -> None:
    raise Terminated(signum)


@contextmanager
def terminable() -> Iterator[None]:
    """SIGTERM and SIGHUP end the command like Ctrl-C: temporary files removed, exit 128 + the
    signal's number."""
    kept = {}
    try:
        for signum in (signal.SIGTERM, signal.SIGHUP):
            kept[signum] = signal.signal(signum, _terminated)
    except ValueError:  # not the main thread: leave the signals alone
        pass
    try:
        yield
    except Terminated as stop:
        raise typer.Exit(128 + stop.signum) from None
    finally:
        for signum, handler in kept.items():
            signal.signal(signum, handler)


def write_stdout(text: str | Iterable[str]) -> None:
    """Write `text` (or its pieces, each as it is made) to stdout; a full disk or a closed
    stdout is one line and exit 2; a pipe whose reader has gone is not bad input: no message,
    exit 141."""
    try:
        if sys.stdout is None:
            raise OSError(9, os.strerror(9))
        for piece in (text,) if isinstance(text, str) else text:
            _write(sys.stdout, piece)
        sys.stdout.flush()
    except (OSError, ValueError) as error:
        # nothing more may reach the broken stdout, not even Python's flush on exit
        with suppress(OSError, ValueError, AttributeError):
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, sys.stdout.fileno())
        if isinstance(error, BrokenPipeError):
            raise typer.Exit(EXIT_BROKEN_PIPE) from None
        reason = error.strerror if isinstance(error, OSError) and error.strerror else str(error)
        raise UsageError(Msg.of("cannot write to standard output: {reason}",
                                reason=reason)) from None


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
