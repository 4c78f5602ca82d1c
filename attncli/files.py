"""Writing files safely: a reader (or a crash) never sees a half-written file."""

from __future__ import annotations

import contextlib
import os
import tempfile
from pathlib import Path

NEW_FILE_MODE = 0o644


def write_atomic(path: Path, text: str) -> None:
    """Write `text` to `path` as UTF-8 with the newlines as given (`\\n` stays `\\n` everywhere).

    The bytes go to a temporary file in the same folder, which then replaces `path` in one
    step (os.replace), so `path` holds either the old content or the new, never a part.
    An existing file keeps its permissions; a new one gets rw-r--r--.
    """
    data = text.encode("utf-8")
    try:
        mode = path.stat().st_mode & 0o7777
    except FileNotFoundError:
        mode = NEW_FILE_MODE
    fd, temporary = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as file:
            file.write(data)
            file.flush()
            os.fsync(file.fileno())
        os.chmod(temporary, mode)
        os.replace(temporary, path)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(temporary)
        raise
