"""Matrices kept in files next to the spec: .npy, .npz (one array by key) and .csv.

Nothing here knows about spec nodes: a problem is raised as FileProblem with a message, and
parse.py turns it into a SpecError at the `file:` key. Files are read without pickle, so a file
can hold numbers only, never code.
"""

from __future__ import annotations

import math
import warnings
import zipfile
from pathlib import Path
from typing import IO

import numpy as np

from attncli.i18n import Msg
from attncli.i18n.library_messages import numpy_problem, os_problem
from attncli.limits import DEFAULT_MAX_CELLS, max_bytes
from attncli.spec.source import LIMIT_HINT, STDIN_NAME, byte_count

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


def load_array(path: Path, name: str, key: str | None,
               max_cells: int = DEFAULT_MAX_CELLS) -> np.ndarray:
    """The numbers in the file at `path`, as float64 (any dimension; the caller checks it).

    A NumPy file's header is read first: an array of objects (pickled data), of other than real
    numbers, or of more than `max_cells` numbers is refused before its data is read; a .csv file
    is measured in bytes before it is read."""
    suffix = path.suffix.lower()
    if suffix not in SUFFIXES:
        raise FileProblem(Msg.of("{name}: expected a .npy, .npz or .csv file", name=name))
    if key is not None and suffix != ".npz":
        raise FileProblem(Msg.of("{name}: key is only for .npz files", name=name))
    if not path.is_file():
        raise FileProblem(Msg.of("{name}: no such file", name=name))
    try:
        if suffix == ".csv":
            array = _from_csv(path, name, max_cells)
        elif suffix == ".npz":
            array = _from_npz(path, name, key, max_cells)
        else:
            with open(path, "rb") as file:
                _check_header(file, name, max_cells)
            array = np.load(path, allow_pickle=False)
    except FileProblem:
        raise
    except (ValueError, OSError, EOFError, zipfile.BadZipFile) as exc:
        raise FileProblem(Msg.of("{name}: cannot read the numbers: {reason}",
                                 name=name, reason=_reason(exc))) from None
    return _as_float(array, name)


def _reason(exc: Exception) -> Msg:
    """Why NumPy or the system could not read a file, as a catalogue message."""
    if isinstance(exc, OSError):
        return os_problem(exc)
    if isinstance(exc, UnicodeDecodeError):
        return Msg.of("expected UTF-8 text, found the byte 0x{byte}",
                      byte=f"{exc.object[exc.start]:02x}")
    if isinstance(exc, EOFError):
        return Msg.of("the file ends before its data does")
    if isinstance(exc, zipfile.BadZipFile):
        return Msg.of("not a .npz archive (a zip file)")
    return numpy_problem(str(exc).splitlines()[0] if str(exc) else type(exc).__name__)


def _from_csv(path: Path, name: str, max_cells: int) -> np.ndarray:
    size, limit = path.stat().st_size, max_bytes(max_cells)
    if size > limit:
        raise FileProblem(Msg.plural_of("{name} has {count} byte; the limit is {limit}, which "
                                        "{option} sets", "{name} has {count} bytes; the limit "
                                        "is {limit}, which {option} sets", size, name=name,
                                        limit=byte_count(limit), option=LIMIT_HINT))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # an empty file: found empty below, not warned about
        return np.loadtxt(path, delimiter=",", dtype=np.float64, ndmin=2, encoding="utf-8")


def _check_header(file: IO[bytes], name: str, max_cells: int) -> None:
    """Refuse a .npy array by its header alone: objects, other than real numbers, too many."""
    version = np.lib.format.read_magic(file)
    if version == (1, 0):
        shape, _, dtype = np.lib.format.read_array_header_1_0(file)
    else:
        shape, _, dtype = np.lib.format.read_array_header_2_0(file)
    if dtype.hasobject:
        raise FileProblem(Msg.of("{name} holds Python objects, which attn never loads (they "
                                 "could run code); save plain numbers", name=name))
    _check_dtype(dtype, name)
    cells = math.prod(shape)
    if cells > max_cells:
        raise FileProblem(Msg.plural_of("{name} holds {count} number ({shape}); the limit is "
                                        "{limit}, which {option} sets", "{name} holds {count} "
                                        "numbers ({shape}); the limit is {limit}, which {option} "
                                        "sets", cells, name=name,
                                        shape="×".join(str(s) for s in shape), limit=max_cells,
                                        option=LIMIT_HINT))


def _from_npz(path: Path, name: str, key: str | None, max_cells: int) -> np.ndarray:
    with np.load(path, allow_pickle=False) as archive:
        keys = list(archive.files)
        if key is None:
            if len(keys) != 1:
                raise FileProblem(Msg.plural_of(
                    "{name} holds {count} array ({keys}); say which with key",
                    "{name} holds {count} arrays ({keys}); say which with key", len(keys),
                    name=name, keys=", ".join(keys)))
            key = keys[0]
        if key not in keys:
            raise FileProblem(Msg.of("{name} has no array {key}; it has {keys}",
                                     name=name, key=key, keys=", ".join(keys)))
        member = key + ".npy" if key + ".npy" in archive.zip.namelist() else key
        with archive.zip.open(member) as file:
            _check_header(file, f"{name} ({key})", max_cells)
        return np.asarray(archive[key])


def _check_dtype(dtype: np.dtype, name: str) -> None:
    if dtype.kind not in "biuf":
        raise FileProblem(Msg.of("{name}: expected real numbers, found the data type {dtype}",
                                 name=name, dtype=str(dtype)))


def _as_float(array: np.ndarray, name: str) -> np.ndarray:
    _check_dtype(array.dtype, name)
    if array.size == 0:
        raise FileProblem(Msg.of("{name} holds no numbers", name=name))
    values = array.astype(np.float64)  # (same shape)
    if not np.isfinite(values).all():
        raise FileProblem(Msg.of("{name}: expected finite numbers, found inf or NaN", name=name))
    return values
