"""Writing output files safely: never half a file, never over the input."""

from __future__ import annotations

import contextlib
import os
import tempfile
from collections.abc import Iterable
from pathlib import Path

from attncli.errors import UsageError
from attncli.i18n import Msg
from attncli.i18n.library_messages import os_problem


def same_file(a: Path, b: Path) -> bool:
    """Whether two paths name one file (a link or a relative path to the same place counts)."""
    try:
        return a.resolve() == b.resolve() or (a.exists() and b.exists() and a.samefile(b))
    except OSError:
        return False


def write_atomic(path: str | Path, text: str, protect: Iterable[str | Path] = ()) -> None:
    """Write `text` (UTF-8, as given) to `path` through a temporary file in the same folder that
    is then renamed over it, so a reader sees the old file or the new one, never a part; if
    anything fails, the old file is left as it was. Refuses to write over any `protect` path
    (the input spec) with a UsageError (exit 2)."""
    target = Path(path)
    for guarded in protect:
        if same_file(target, Path(guarded)):
            raise UsageError(Msg.of("refusing to write over the input {file}; choose another "
                                    "output file", file=str(path)))
    folder = target.parent if str(target.parent) else Path(".")
    try:
        handle, temporary = tempfile.mkstemp(dir=folder, prefix=f".{target.name}.", suffix=".tmp")
    except OSError as error:
        raise UsageError(Msg.of("cannot write {file}: {reason}", file=str(path),
                                reason=os_problem(error))) from None
    try:
        with os.fdopen(handle, "w", encoding="utf-8", newline="\n") as out:
            out.write(text)
            out.flush()
            os.fsync(out.fileno())
        if target.exists():
            # keep the permissions the user gave the file being replaced
            os.chmod(temporary, target.stat().st_mode & 0o7777)
        else:
            umask = os.umask(0)
            os.umask(umask)
            os.chmod(temporary, 0o666 & ~umask)
        os.replace(temporary, target)
    except OSError as error:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        raise UsageError(Msg.of("cannot write {file}: {reason}", file=str(path),
                                reason=os_problem(error))) from None
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        raise
