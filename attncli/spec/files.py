"""Matrices kept in files next to the spec: .npy, .npz (one array by key) and .csv.

Nothing here knows about spec nodes: a problem is raised as FileProblem with a message, and
parse.py turns it into a SpecError at the `file:` key. Files are read without pickle, so a file
can hold numbers only, never code.
"""

from __future__ import annotations

import errno
import io
import math
import os
import struct
import tokenize
import zipfile
import zlib
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from pathlib import Path
from typing import IO

import numpy as np

from attncli.files.reading import NotRegular, check_regular, real
from attncli.i18n import Count, Msg, quoted, quoted_list
from attncli.i18n.library_messages import numpy_problem, os_problem
from attncli.i18n.visible import visible_label
from attncli.spec.csv_file import CsvFile, check_csv_size, most_cells
from attncli.spec.file_problem import FileProblem as FileProblem  # every reader raises it
from attncli.spec.file_problem import as_float as as_float
from attncli.spec.file_problem import check_dtype, check_some_numbers
from attncli.spec.limits import DEFAULT_MAX_CELLS, MAX_NAME
from attncli.spec.npy_slice import Layout
from attncli.spec.npz_archive import Archives as Archives
from attncli.spec.npz_archive import check_members as check_members
from attncli.spec.npz_archive import open_archive
from attncli.spec.opened import open_regular
from attncli.spec.scope import scoped
from attncli.spec.source import LIMIT_HINT, STDIN_NAME, byte_count
from attncli.spec.values import shape_text

SUFFIXES = (".npy", ".npz", ".csv")
# What NumPy, zipfile and the system raise for a file they cannot read: a deflated .npz member
# whose stream is damaged raises zlib's own error, which is none of the others
UNREADABLE = (ValueError, OSError, EOFError, UnicodeDecodeError, zipfile.BadZipFile, RuntimeError,
              NotImplementedError, zlib.error)
# bytes of a .npy header: NumPy's own bound (max_header_size), which it checks only once it has
# read the header the file's length field promises
MAX_NPY_HEADER = 10_000
# the .npy format versions NumPy reads (numpy.lib.format, _check_version)
NPY_VERSIONS = ((1, 0), (2, 0), (3, 0))


def spec_folder(source: str) -> Path:
    """The folder that relative file names in the spec named `source` start from: for standard
    input or a text, the current folder, even one deleted since (`cd d; rmdir ../d`), which
    has no path: a file it names is then said not to be there, where asking for the path was
    an internal error."""
    if source == STDIN_NAME or source.startswith("<"):
        try:
            return Path.cwd()
        except OSError:
            return Path(".")
    return Path(source).parent


# The files named while a spec is read, when someone asks (see `recording`).
_NAMED: ContextVar[list[Path] | None] = ContextVar("named", default=None)


@contextmanager
def recording() -> Iterator[list[Path]]:
    """Every file `resolve` names while the block runs (resolved): the files a spec reads
    besides itself (.npy, .npz, .csv, tokenizer.json, .safetensors and their index), so that
    `attn snippets` never writes over one of them."""
    with scoped(_NAMED, []) as named:
        yield named


# The folders read as a model's while a spec is read, when someone asks (see `model_folders`).
_MODELS: ContextVar[list[Path] | None] = ContextVar("models", default=None)


@contextmanager
def model_folders() -> Iterator[list[Path]]:
    """Every folder read as a model's while the block runs (resolved): attn reads files in it
    that the spec does not name (config.json, the checkpoint and its shards, tokenizer.json
    for a text), so that `attn snippets` writes nothing inside it."""
    with scoped(_MODELS, []) as models:
        yield models


def read_as_model(folder: Path) -> None:
    """Record `folder` (resolved) as a model folder a spec reads (see `model_folders`)."""
    models = _MODELS.get()
    if models is not None:
        models.append(folder)


def resolve(folder: Path, name: str, allow_outside: bool) -> Path:
    """`name` relative to `folder`; the one place that refuses a file outside the spec's folder
    (after following links), and a name no system can open (a NUL, too long). Every file a spec
    reads is named here (and recorded, see `recording`)."""
    if "\0" in name:
        raise FileProblem(Msg.of("{name}: a file name cannot hold the character NUL",
                                 name=name))
    if len(name) > MAX_NAME:
        raise FileProblem(Msg.of("the file name has {length} characters; the limit is {limit}",
                                 length=Count(len(name)), limit=Count(MAX_NAME)))
    resolved = _RESOLVED.get()
    path = None if resolved is None else resolved.get((folder, name, allow_outside))
    if path is None:
        path = _resolved(folder, name, allow_outside)
        if resolved is not None:
            resolved[(folder, name, allow_outside)] = path
    named = _NAMED.get()
    if named is not None:
        named.append(path)
    return path


# The names resolved while one spec is read (see `resolving_once`)
_RESOLVED: ContextVar[dict[tuple[Path, str, bool], Path] | None] = ContextVar("resolved",
                                                                             default=None)


@contextmanager
def resolving_once() -> Iterator[None]:
    """While the block runs (one spec read, with its model folder's layers), a file name is
    resolved once: layer 999 of a model folder resolved its checkpoint's name, a system call for
    each part of the path, for each of the 10,000 tensors of the layers before it."""
    if _RESOLVED.get() is not None:
        yield
        return
    with scoped(_RESOLVED, {}):
        yield


def _resolved(folder: Path, name: str, allow_outside: bool) -> Path:
    try:
        path = real(folder / name)
    except (OSError, RuntimeError) as error:  # a name too long for the system, a link loop
        if isinstance(error, RuntimeError) or error.errno == errno.ELOOP:  # pathlib's own
            # words would name the absolute path, in English
            raise FileProblem(Msg.of("{name}: {problem}", name=name, problem=os_problem(
                OSError(errno.ELOOP, "")))) from None
        raise FileProblem(Msg.of("{name}: cannot read the numbers: {reason}", name=name,
                                 reason=os_problem(error))) from None
    if not allow_outside and not path.is_relative_to(real(folder)):
        raise FileProblem(Msg.of("{name} is outside the spec's folder; only files in that folder "
                                 "or below it are read", name=name))
    return path


def identity(path: Path) -> tuple[int, int, int, int] | Path:
    """The file at `path` as the system knows it (its device and inode), so that its other
    names (hard links) are the file they name: 256 hard links to one 30 MB .csv, one a head,
    were read 256 times (16.7 s); with its size and time of change, so that a file changed
    since (between two specs of one `attn fill`) is read again; `path` itself where it cannot
    be asked (read, and refused, as any other)."""
    try:
        info = os.stat(path)
    except OSError:
        return path
    return info.st_dev, info.st_ino, info.st_size, info.st_mtime_ns


def existing_file(path: Path, name: str) -> None:
    """FileProblem unless `path` is a regular file (after links): none there is "no such file";
    a folder, a FIFO or a device says what it is, so a user looks for the right mistake. The
    system's own refusal is said in its words: links in a loop (model.safetensors ->
    model.safetensors), a name too long, a file on the way where a folder is named
    (notes.txt/tokenizer.json); each was exit 3 where a reader did not word it itself."""
    try:
        if check_regular(path, follow=True):
            return
    except NotRegular as problem:
        raise FileProblem(Msg.of("{name}: {problem}", name=name, problem=problem.message)) from None
    except OSError as error:
        raise FileProblem(Msg.of("{name}: {problem}", name=name,
                                 problem=os_problem(error))) from None
    raise FileProblem(Msg.of("{name}: no such file", name=name))


def load_array(path: Path, name: str, key: str | None,
               max_cells: int = DEFAULT_MAX_CELLS,
               charge: Callable[[tuple[int, ...]], None] | None = None,
               archives: Archives | None = None) -> np.ndarray:
    """The numbers in the file at `path`, as float64 (any dimension; the caller checks it).

    A NumPy file's header is read first: an array of objects (pickled data), of other than real
    numbers, or of more than `max_cells` numbers is refused before its data is read, and its
    shape is given to `charge` (the spec's count of cells so far) before its data is read; a .csv
    file is measured in bytes, then its lines and cells counted, before a cell is converted."""
    suffix = path.suffix.lower()
    if suffix not in SUFFIXES:
        raise FileProblem(Msg.of("{name}: expected a .npy, .npz or .csv file", name=name))
    if key is not None and suffix != ".npz":
        raise FileProblem(Msg.of("{name}: key is only for .npz files", name=name))
    try:
        existing_file(path, name)
        if suffix == ".csv":
            check_csv_size(path, name, max_cells)
            if most_cells(path) > max_cells:  # counted a megabyte at a time, before it is held
                raise FileProblem(more_numbers(name, max_cells))
            table = CsvFile(path, name, max_cells, hold=True)
            if charge is not None:
                charge(table.shape)
            array = table.read(None, None)
        elif suffix == ".npz":
            array = _from_npz(path, name, key, max_cells, charge, archives)
        else:
            with open_regular(path) as file:
                layout = _check_header(file, name, max_cells)
                whole(name, layout, os.fstat(file.fileno()).st_size)
            if charge is not None:
                charge(layout.shape)
            with open_regular(path) as file:
                array = np.load(file, allow_pickle=False)
    except FileProblem:
        raise
    except UNREADABLE as exc:  # encrypted, compressed unknown-ly, or damaged
        raise FileProblem(Msg.of("{name}: cannot read the numbers: {reason}",
                                 name=name, reason=reason(exc))) from None
    return as_float(array, name)


def more_numbers(name: str, max_cells: int) -> Msg:
    return Msg.plural_of("{name} holds more than {count} number, the limit that {option} sets",
                         "{name} holds more than {count} numbers, the limit that {option} sets",
                         Count(max_cells), name=name, option=LIMIT_HINT)


def reason(exc: Exception) -> Msg:
    """Why NumPy, zipfile or the system could not read a file, as a catalogue message (never
    with a path)."""
    if isinstance(exc, OSError):
        return os_problem(exc)
    if isinstance(exc, UnicodeDecodeError):
        return Msg.of("expected UTF-8 text, found the byte 0x{byte}",
                      byte=f"{exc.object[exc.start]:02x}")
    if isinstance(exc, EOFError):
        return Msg.of("the file ends before its data does")
    if isinstance(exc, zipfile.BadZipFile):
        return Msg.of("not a .npz archive (a zip file)")
    if isinstance(exc, RuntimeError) and "encrypted" in str(exc):
        return Msg.of("the archive is encrypted")
    if isinstance(exc, NotImplementedError):
        return Msg.of("the archive is compressed in a way attn cannot read")
    if isinstance(exc, zlib.error):
        return Msg.of("the archive's compressed data is damaged")
    return numpy_problem(str(exc).splitlines()[0] if str(exc) else type(exc).__name__)


def _check_header(file: IO[bytes], name: str, max_cells: int) -> Layout:
    """Refuse a .npy array by its header alone: objects, other than real numbers, none, too
    many."""
    layout = header_layout(file, name)
    shape = layout.shape
    check_some_numbers(shape, name)  # NumPy would refuse (0, 2⁶²) in its own words
    cells = math.prod(shape)
    if cells > max_cells:
        raise FileProblem(Msg.plural_of("{name} holds {count} number ({shape}); the limit is "
                                        "{limit}, which {option} sets", "{name} holds {count} "
                                        "numbers ({shape}); the limit is {limit}, which {option} "
                                        "sets", Count(cells), name=name,
                                        shape=shape_text(shape),
                                        limit=Count(max_cells),
                                        option=LIMIT_HINT))
    return layout


def whole(name: str, layout: Layout, size: int) -> None:
    """Refuse a .npy file (or .npz member) of `size` bytes that ends before the data its header
    promises, with the sizes (NumPy's own words would be `cannot reshape array of size …`)."""
    if size - layout.start < layout.data_bytes:
        raise truncated(name, layout, size - layout.start)


def header_layout(file: IO[bytes], name: str) -> Layout:
    """A .npy header's shape, data type and order, and where its data starts, checked: no
    objects, real numbers only."""
    try:
        version = np.lib.format.read_magic(file)
    except ValueError:  # NumPy's words quote the bytes found, untranslated
        raise FileProblem(Msg.of("{name}: expected a .npy array, found other bytes",
                                 name=name)) from None
    if version not in NPY_VERSIONS:  # NumPy refuses it in English only once np.load reads it
        raise FileProblem(Msg.of("{name}: expected a .npy file of format version 1.0, 2.0 or "
                                 "3.0, found version {version}", name=name,
                                 version=f"{version[0]}.{version[1]}"))
    field = "<H" if version == (1, 0) else "<I"
    length = file.read(struct.calcsize(field))
    declared = struct.unpack(field, length)[0] if len(length) == struct.calcsize(field) else 0
    if declared > MAX_NPY_HEADER:  # NumPy reads all the length says before it refuses it: 4 GB
        # of spaces in a deflated member took 547 MB to be refused
        raise FileProblem(Msg.of("{name}: its header says it is {found} long; attn reads .npy "
                                 "headers of up to {limit}", name=name,
                                 found=byte_count(declared), limit=byte_count(MAX_NPY_HEADER)))
    text = file.read(declared)
    if len(length) < struct.calcsize(field) or len(text) < declared:  # NumPy: `EOF: reading …`
        raise FileProblem(Msg.of("{name}: the file ends inside its .npy header", name=name))
    try:  # NumPy reads the header as a Python literal: a tokenizer error for unbalanced brackets,
        # a TypeError for keys NumPy cannot sort (b'descr' beside 'shape')
        header = io.BytesIO(length + text)  # as NumPy reads them
        if version == (1, 0):
            shape, fortran, dtype = np.lib.format.read_array_header_1_0(header)
        else:
            shape, fortran, dtype = np.lib.format.read_array_header_2_0(header)
        if not all(type(size) is int for size in shape):  # (True, True): NumPy lets bools by
            raise ValueError
    except (ValueError, TypeError, SyntaxError, tokenize.TokenError, RecursionError, MemoryError):
        raise FileProblem(Msg.of("{name}: cannot read the numbers: {reason}", name=name,
                                 reason=Msg.of("its header is not the dictionary of a .npy "
                                               "file"))) from None
    if dtype.hasobject:
        raise FileProblem(Msg.of("{name} holds Python objects, which attn never loads (they "
                                 "could run code); save plain numbers", name=name))
    check_dtype(dtype, name)
    if any(size < 0 for size in shape):
        raise FileProblem(Msg.of("{name}: its header gives the shape {shape}; expected sizes of "
                                 "0 or more", name=name, shape=shape_text(tuple(shape))))
    return Layout(tuple(shape), dtype, bool(fortran), file.tell())


def truncated(name: str, layout: Layout, found: int) -> FileProblem:
    """A file (or .npz member) whose data, `found` bytes after its header, is shorter than the
    header says."""
    return FileProblem(Msg.of("{name}: the file ends before its data does: its header promises "
                              "{expected} of numbers, the file holds {found}", name=name,
                              expected=byte_count(layout.data_bytes),
                              found=byte_count(max(0, found))))


def _from_npz(path: Path, name: str, key: str | None, max_cells: int,
              charge: Callable[[tuple[int, ...]], None] | None = None,
              archives: Archives | None = None) -> np.ndarray:
    with open_archive(path, name, archives) as archive:
        key, member = member_of(archive.namelist(), name, key)
        info = archive.getinfo(member)
        check_compression(info, f"{name} ({key})")
        with archive.open(info) as file:
            layout = _check_header(file, f"{name} ({key})", max_cells)
        whole(f"{name} ({key})", layout, info.file_size)
        if charge is not None:
            charge(layout.shape)
        with archive.open(info) as file:  # as np.load reads a member: header, then data
            return np.asarray(np.lib.format.read_array(file, allow_pickle=False))


def member_of(members: list[str], name: str, key: str | None) -> tuple[str, str]:
    """The key an .npz's array is known by (its member's name without .npy, as NumPy names it)
    and its member's name: `key`, or the only one there is; one name two members hold is
    refused."""
    keys = [member[:-4] if member.endswith(".npy") else member for member in members]
    if not keys:
        raise FileProblem(Msg.of("{name}: the archive holds no arrays", name=name))
    if key is None:
        if len(keys) != 1:
            raise FileProblem(Msg.plural_of(
                "{name} holds {count} array ({keys}); say which with key",
                "{name} holds {count} arrays ({keys}); say which with key", len(keys),
                name=name, keys=some(keys)))
        key = keys[0]
    if key not in keys:
        raise FileProblem(Msg.of("{name} has no array {key}; it has {keys}",
                                 name=name, key=quoted(visible_label(key)), keys=some(keys)))
    if keys.count(key) > 1:  # zipfile would give the last member of the name, without a word
        raise FileProblem(Msg.plural_of(
            "{name} holds {count} array named {key}; which one is meant cannot be told (save "
            "each under a name of its own)", "{name} holds {count} arrays named {key}; which one "
            "is meant cannot be told (save each under a name of its own)", Count(keys.count(key)),
            name=name, key=quoted(visible_label(key))))
    return key, key + ".npy" if key + ".npy" in members else key


# Compressions a zip may name besides the two NumPy writes, as their makers name them
COMPRESSIONS = {zipfile.ZIP_BZIP2: "bzip2", zipfile.ZIP_LZMA: "LZMA", 9: "Deflate64",
                93: "Zstandard"}


def check_compression(info: zipfile.ZipInfo, name: str) -> None:
    """Refuse an .npz member neither stored (np.savez) nor deflated (np.savez_compressed), before
    a byte of it is decompressed: Python decompresses bzip2 and LZMA without a bound on what one
    read gives (a kilobyte can give gigabytes)."""
    if info.compress_type not in (zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED):
        method = COMPRESSIONS.get(info.compress_type, f"#{info.compress_type}")
        raise FileProblem(Msg.of("{name} is compressed with {method}; attn reads an .npz array "
                                 "stored (np.savez) or deflated (np.savez_compressed)",
                                 name=name, method=method))


def some(keys: list[str], shown: int = 10) -> Msg | str:
    """The first keys of an archive, for a message of one short line, each quoted as a token's
    name is (an array named `a` read as a word of the sentence): a key not in Unicode's
    composed form with its combining marks as escapes (`e\u0301`), told apart from `é`."""
    listed = quoted_list([visible_label(key[:MAX_NAME]) for key in keys[:shown]])
    if len(keys) <= shown:
        return listed
    return Msg.of("{listed}, … (+{more})", listed=listed, more=Count(len(keys) - shown))
