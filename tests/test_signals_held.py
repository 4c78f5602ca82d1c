"""A file written over in place (an append-only folder, files/writing.py `write_in_place`) is
whole when a signal comes mid-copy: Ctrl-C, `kill` or a closed terminal left the new text's first
pieces over the old file's last ones (7 of 9 runs of a 12.6 MB export). The signal waits for the
copy (files/held.py), then ends the command as it would have."""

from __future__ import annotations

import os
import signal
from pathlib import Path

import pytest

from attncli.files.held import signals_held
from attncli.files.reading import PIECE
from attncli.files.writing import write_in_place


def test_a_signal_within_waits_until_the_end() -> None:
    taken: list[str] = []
    with pytest.raises(KeyboardInterrupt), signals_held():
        os.kill(os.getpid(), signal.SIGINT)
        taken.append("after the signal, still within")
    assert taken == ["after the signal, still within"]


class Interrupted:
    """A staged text (a real file, as write_atomic stages one) whose second piece is read as
    the user presses Ctrl-C."""

    def __init__(self, path: Path, data: bytes, sig: int) -> None:
        path.write_bytes(data)
        self.file = path.open("rb")
        self.sig, self.reads = sig, 0

    def fileno(self) -> int:
        return self.file.fileno()

    def seek(self, at: int) -> int:
        return self.file.seek(at)

    def read(self, size: int = -1) -> bytes:
        self.reads += 1
        if self.reads == 2:
            os.kill(os.getpid(), self.sig)
        return self.file.read(size)


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM])
def test_a_file_written_over_in_place_is_whole_after_a_signal(tmp_path: Path, sig: int) -> None:
    target = tmp_path / "o.json"
    target.write_bytes(b"OLD " * PIECE)  # 4 pieces of the user's own bytes
    new = b"NEW!" * (PIECE // 2)  # 2 pieces: the signal comes after the first
    previous = signal.signal(signal.SIGTERM, lambda *_: (_ for _ in ()).throw(SystemExit(143)))
    try:
        with pytest.raises((KeyboardInterrupt, SystemExit)):
            write_in_place(Interrupted(tmp_path / "staged", new, sig),  # type: ignore[arg-type]
                           target, plain=True)
    finally:
        signal.signal(signal.SIGTERM, previous)
    assert target.read_bytes() == new
