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
from attncli.limits import DEFAULT_MAX_CELLS, max_bytes
from attncli.spec.source import LIMIT_HINT, STDIN_NAME

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
    except (ValueError, OSError, EOFError, UnicodeDecodeError, zipfile.BadZipFile) as exc:
        raise FileProblem(Msg.of("{name}: cannot read the numbers: {reason}",
                                 name=name, reason=str(exc).splitlines()[0] if str(exc) else
                                 type(exc).__name__)) from None
    return _as_float(array, name)


def _from_csv(path: Path, name: str, max_cells: int) -> np.ndarray:
    size, limit = path.stat().st_size, max_bytes(max_cells)
    if size > limit:
        raise FileProblem(Msg.of("{name} has {size} bytes; the limit is {limit} bytes, which "
                                 "{option} sets", name=name, size=size, limit=limit,
                                 option=LIMIT_HINT))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # an empty file: found empty below, not warned about
        try:
            return np.loadtxt(path, delimiter=",", dtype=np.float64, ndmin=2, encoding="utf-8")
        except ValueError:
            _csv_problem(path, name)  # numpy counts rows from 0 in one message, 1 in another
            raise


def _csv_problem(path: Path, name: str) -> None:
    """The first bad cell or ragged row of a .csv file, its rows and columns counted from 1 as a
    spreadsheet counts them (lines after `#` and blank lines are skipped, as numpy does)."""
    width = None
    with open(path, encoding="utf-8") as file:
        for row, line in enumerate(file, start=1):
            cells = line.split("#", 1)[0].strip()
            if not cells:
                continue
            fields = cells.split(",")
            for column, field in enumerate(fields, start=1):
                try:
                    float(field)
                except ValueError:
                    raise FileProblem(Msg.of(
                        "{name}: row {row}, column {column}: expected a number, found {found}",
                        name=name, row=row, column=column, found=field.strip())) from None
            if width is not None and len(fields) != width:
                raise FileProblem(Msg.plural_of(
                    "{name}: row {row} has {count} number, expected {expected}",
                    "{name}: row {row} has {count} numbers, expected {expected}",
                    len(fields), name=name, row=row, expected=width))
            width = len(fields)


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
        raise FileProblem(Msg.of("{name} holds {count} numbers ({shape}); the limit is "
                                 "{limit}, which {option} sets", name=name, count=cells,
                                 shape="×".join(str(s) for s in shape), limit=max_cells,
                                 option=LIMIT_HINT))


def _from_npz(path: Path, name: str, key: str | None, max_cells: int) -> np.ndarray:
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
