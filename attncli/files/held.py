"""Signals held off while a file is written over in place (files/writing.py `write_in_place`):
there the old text is gone as the new one is written, so Ctrl-C, `kill` or a closed terminal
mid-copy left the new text's first pieces followed by the old file's last ones. Held, a signal
waits until the file is whole, then ends the command as it would have."""

from __future__ import annotations

import signal
import threading
from collections.abc import Iterator
from contextlib import contextmanager

HELD = {signal.SIGINT, signal.SIGTERM, signal.SIGHUP, signal.SIGQUIT}


@contextmanager
def signals_held() -> Iterator[None]:
    """Within: SIGINT, SIGTERM, SIGHUP and SIGQUIT wait (blocked for this thread, the one that
    takes Python's signals); after: each that came is taken as usual. Elsewhere than the main
    thread, or where the system has no signal mask, nothing is held."""
    if (not hasattr(signal, "pthread_sigmask")
            or threading.current_thread() is not threading.main_thread()):
        yield
        return
    before = signal.pthread_sigmask(signal.SIG_BLOCK, HELD)
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, before)
