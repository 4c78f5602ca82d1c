"""A signal that ends the command (SIGTERM, SIGHUP), kept as well as raised.

Raised where the program is, the exception can land inside a callback Python runs for itself (an
import's module lock, a weak reference's), where it is printed as "Exception ignored" and dropped,
and the command would go on to write its file and exit 0. Kept, it is raised again before a
written file takes its name (files/writing.py) and when the command ends (cli/streams.py), so the
command ends as the signal asks: no file, exit 128 + the signal's number."""

from __future__ import annotations

PENDING: list[int] = []  # the signals received since the command began, first first


class Terminated(BaseException):
    """SIGTERM or SIGHUP, raised where the program is, so that a file being written is removed
    (files.writing.write_atomic) as for Ctrl-C."""

    def __init__(self, signum: int) -> None:
        super().__init__(signum)
        self.signum = signum


def terminated(signum: int, frame: object) -> None:
    """The handler of SIGTERM and SIGHUP while a command runs."""
    PENDING.append(signum)
    raise Terminated(signum)


def raise_pending() -> None:
    """Terminated again for a signal received whose exception was dropped."""
    if PENDING:
        raise Terminated(PENDING[0])
