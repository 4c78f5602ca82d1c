"""Matrices kept in files next to the spec: .npy, .npz (one array by key) and .csv.

Nothing here knows about spec nodes: a problem is raised as FileProblem with a message, and
parse.py turns it into a SpecError at the `file:` key. Files are read without pickle, so a file
can hold numbers only, never code.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from attncli.i18n import Msg
from attncli.spec.source import STDIN_NAME

SUFFIXES = (".npy", ".npz", ".csv")


class FileProblem(Exception):
    def __init__(self, message: Msg) -> None:
        super().__init__(message.msgid)
        self.message = message


def spec_folder(source: str) -> Path:
    """The folder that relative file names in the spec named `source` start from."""
    if source == STDIN_NAME or source.startswith("<"):
        return Path.cwd()
    return Path(source).parent


def resolve(folder: Path, name: str, allow_outside: bool) -> Path:
    """`name` relative to `folder`; the one place that refuses a file outside the spec's folder."""
    path = (folder / name).resolve()
    if not allow_outside and not path.is_relative_to(folder.resolve()):
        raise FileProblem(Msg.of("{name} is outside the spec's folder; only files in that folder "
                                 "or below it are read", name=name))
    return path


def load_array(path: Path, name: str, key: str | None) -> np.ndarray:
    """The numbers in the file at `path`, as float64 (any dimension; the caller checks it)."""
    suffix = path.suffix.lower()
    if suffix not in SUFFIXES:
        raise FileProblem(Msg.of("{name}: expected a .npy, .npz or .csv file", name=name))
    if key is not None and suffix != ".npz":
        raise FileProblem(Msg.of("{name}: key is only for .npz files", name=name))
    if not path.is_file():
        raise FileProblem(Msg.of("{name}: no such file", name=name))
    try:
        if suffix == ".csv":
            array = np.loadtxt(path, delimiter=",", dtype=np.float64, ndmin=2, encoding="utf-8")
        elif suffix == ".npz":
            array = _from_npz(path, name, key)
        else:
            array = np.load(path, allow_pickle=False)
    except FileProblem:
        raise
    except (ValueError, OSError, EOFError, UnicodeDecodeError) as exc:
        raise FileProblem(Msg.of("{name}: cannot read the numbers: {reason}",
                                 name=name, reason=str(exc).splitlines()[0] if str(exc) else
                                 type(exc).__name__)) from None
    return _as_float(array, name)


def _from_npz(path: Path, name: str, key: str | None) -> np.ndarray:
    with np.load(path, allow_pickle=False) as archive:
        keys = list(archive.files)
        if key is None:
            if len(keys) != 1:
                raise FileProblem(Msg.of("{name} holds {count} arrays ({keys}); say which with key",
                                         name=name, count=len(keys), keys=", ".join(keys)))
            key = keys[0]
        if key not in keys:
            raise FileProblem(Msg.of("{name} has no array {key}; it has {keys}",
                                     name=name, key=key, keys=", ".join(keys)))
        return np.asarray(archive[key])


def _as_float(array: np.ndarray, name: str) -> np.ndarray:
    if array.dtype.kind not in "biuf":
        raise FileProblem(Msg.of("{name}: expected real numbers, found the data type {dtype}",
                                 name=name, dtype=str(array.dtype)))
    values = array.astype(np.float64)  # (same shape)
    if not np.isfinite(values).all():
        raise FileProblem(Msg.of("{name}: expected finite numbers, found inf or NaN", name=name))
    return values
