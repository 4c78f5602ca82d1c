"""What a program wrote to a pseudo-terminal, read as a user's terminal reads it."""

from __future__ import annotations

import os


def read_terminal(leader: int) -> bytes:
    """Everything written to the terminal whose leader is `leader`, until every writer has gone
    (Linux then says EIO, others an empty read); the leader is closed."""
    shown = b""
    while True:
        try:
            chunk = os.read(leader, 65536)
        except OSError:  # EIO: every writer of the terminal has gone
            break
        if not chunk:
            break
        shown += chunk
    os.close(leader)
    return shown
