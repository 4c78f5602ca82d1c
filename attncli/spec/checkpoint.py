"""Tensors of a model checkpoint: `.safetensors` files, and sharded checkpoints through their
`model.safetensors.index.json`, read without PyTorch or the `safetensors` package.

A .safetensors file is an 8-byte little-endian header length, a JSON header naming every tensor
(`dtype`, `shape`, `data_offsets`), then the raw bytes. The length is checked against the file
and the byte limit of the spec, the header is checked entry by entry, and only the selected rows
of a tensor are read, so a checkpoint far larger than the cell limit gives one head's columns
without loading the rest. Like files.py, nothing here knows about spec nodes: a problem is a
FileProblem.
"""

from __future__ import annotations

import json
import math
import os
import struct
from collections.abc import Callable, Sequence
from pathlib import Path

import numpy as np

from attncli.i18n import Count, Msg, quoted
from attncli.i18n.visible import visible_label
from attncli.records import record
from attncli.spec.file_problem import check_some_numbers, row_out_of_range
from attncli.spec.files import FileProblem, as_float, existing_file, resolve, some
from attncli.spec.limits import MAX_HEADER_VALUES, max_bytes
from attncli.spec.npy_slice import SPAN_BYTES
from attncli.spec.opened import open_regular, reading, refused_read
from attncli.spec.source import LIMIT_HINT, byte_count

SUFFIXES = (".safetensors", ".json")
# The most sizes a model folder's tensor may have: a Conv2d's weight (out, in, rows, columns), a
# ViT's patch projection, flattened by attncli/spec/arch_vit.py
MAX_SIZES = 4
# The safetensors format's data types that hold real numbers; BF16 is read as float32's top half.
# The headers (and indices) parsed while one spec is read, by file (its device and inode, so
# that a hard link is the file it names): read and checked once however many tensors of a
# checkpoint the spec or its model folder names (a model's layer 299 names 2,700 tensors of one
# header). Each is kept, less its free-text metadata, with the file's size and time of change,
# and parsed again when the file is another.
Headers = dict[tuple[int, int], tuple[tuple[int, int], dict[str, object], int]]
DTYPES = {"F64": "<f8", "F32": "<f4", "F16": "<f2", "BF16": "<u2", "I64": "<i8", "I32": "<i4",
          "I16": "<i2", "I8": "i1", "U64": "<u8", "U32": "<u4", "U16": "<u2", "U8": "u1"}


@record
class Tensor:
    """Where one tensor's bytes are: `path` from byte `start`, `shape`, and its data type."""

    name: str
    path: Path
    start: int
    shape: tuple[int, ...]
    dtype: str
    # the file's device and inode when its header was read: the file kept open for the spec
    identity: tuple[int, int] | None = None

    def read(self, rows: Sequence[int] | None, max_cells: int,
             columns: Sequence[int] | None = None) -> np.ndarray:
        """The tensor (its `rows` and `columns` only, when given) as float64. The cells are
        counted first, as the slice they are; from each chosen row only the bytes from its first
        to its last chosen column are read, and a row chosen twice is read once."""
        check_some_numbers(self.shape, self.name)  # before its rows are listed: [2⁴⁰, 0]
        width = math.prod(self.shape[1:]) if len(self.shape) > 1 else (
            self.shape[0] if self.shape else 1)
        count = (self.shape[0] if self.shape else 1) if rows is None else len(rows)
        if len(self.shape) < 2:  # a vector: its entries are the columns of one row
            rows, count = [0], 1
        chosen = list(range(count)) if rows is None else list(rows)
        asked = np.asarray(chosen, dtype=np.int64)  # (count,)
        past = np.flatnonzero((asked < 0) | (asked >= (self.shape[0] if len(self.shape) > 1
                                                        else 1)))
        if past.size:  # a row past the tensor would read the next tensor's bytes
            raise row_out_of_range(chosen[int(past[0])], self.name, self.shape[0])
        shown = width if columns is None else len(columns)
        if count * shown > max_cells:
            raise FileProblem(Msg.plural_of(
                "{name}: the selection holds {count} number; the limit is {limit}, which {option} "
                "sets",
                "{name}: the selection holds {count} numbers; the limit is {limit}, which {option} "
                "sets", Count(count * shown), name=self.name, limit=Count(max_cells),
                option=LIMIT_HINT))
        item = np.dtype(DTYPES[self.dtype])
        first, last = (0, width - 1) if columns is None else (min(columns), max(columns))
        picked = None if columns is None else np.asarray(columns, dtype=np.intp) - first
        span = (last - first + 1) * item.itemsize  # bytes read from each row
        distinct = sorted(set(chosen))
        # rows close together are read at once (see npy_slice._lines); rows of no numbers (a
        # shape [3, 0]) have no bytes to cut the block into
        if len(distinct) > 1 and width:
            lines = (distinct[-1] - distinct[0] + 1) * width * item.itemsize
            if lines <= max(SPAN_BYTES, 2 * len(distinct) * shown * item.itemsize):
                held = self._block(distinct[0], lines, width, item)[:, first:last + 1]
                held = held if picked is None else held[:, picked]  # (span rows, shown)
                return self._shaped(held[asked - distinct[0]].reshape(-1), count, shown)
        values: dict[int, np.ndarray] = {}
        with refused_read(self.name), reading(self.path, self.identity) as file:
            for row in distinct:
                file.seek(self.start + (row * width + first) * item.itemsize)
                data = file.read(span)
                if len(data) != span:
                    raise FileProblem(Msg.of("{name}: the file ends before the tensor's data",
                                             name=self.name))
                part = np.frombuffer(data, dtype=item)  # (last - first + 1,)
                values[row] = part if picked is None else part[picked]  # (shown,)
        raw = (np.concatenate([values[row] for row in chosen]) if chosen
               else np.zeros(0, dtype=item))  # (count * shown,)
        return self._shaped(raw, count, shown)

    def _block(self, row: int, size: int, width: int, item: np.dtype) -> np.ndarray:
        """The `size` bytes of whole rows from `row` on, read at once: (rows, width)."""
        with refused_read(self.name), reading(self.path, self.identity) as file:
            file.seek(self.start + row * width * item.itemsize)
            data = file.read(size)
        if len(data) != size:
            raise FileProblem(Msg.of("{name}: the file ends before the tensor's data",
                                     name=self.name))
        return np.frombuffer(data, dtype=item).reshape(-1, width)  # (size / width, width)

    def _shaped(self, raw: np.ndarray, count: int, shown: int) -> np.ndarray:
        """The numbers read, `count` rows of `shown`, as float64 in the tensor's shape."""
        if self.dtype == "BF16":  # bfloat16 is the upper 16 bits of a float32
            raw = (raw.astype(np.uint32) << 16).view(np.float32)
        if len(self.shape) < 2:
            return as_float(raw.reshape((shown,) if self.shape else ()), self.name)
        return as_float(raw.reshape((count, shown) if len(self.shape) == 2 else
                                     (count, *self.shape[1:])), self.name)


def open_tensor(path: Path, name: str, key: str | None, max_cells: int,
                allow_outside: bool, dims: int = 2, headers: Headers | None = None) -> Tensor:
    """The tensor `key` of the checkpoint at `path` (a .safetensors file, or the index of a
    sharded one), its header read and checked; no tensor data is read yet. A spec's matrix has
    at most two sizes; a model folder's reader takes `dims` MAX_SIZES (gpt-oss keeps its experts
    in one tensor, expert first; a ViT's patch projection is a Conv2d's weight). With `headers`
    (one per spec), each header and index is parsed once."""
    if key is None:
        raise FileProblem(Msg.of("{name}: a checkpoint holds many tensors; say which with key",
                                 name=name))
    existing_file(path, name)
    if path.suffix.lower() == ".json":
        shard = _shard_of(path, name, key, max_cells, headers)
        path = resolve(path.parent, shard, allow_outside)
        name = shard
        if path.suffix.lower() != ".safetensors" or not os.path.lexists(path):
            raise FileProblem(Msg.of("{name}: no such .safetensors file", name=shard))
        existing_file(path, shard)  # there, but a FIFO, a folder, a device: said as what it is
    header, start, status = _header(path, name, max_cells, headers)
    entry = header.get(key)
    if entry is None or key == "__metadata__":
        keys = [k for k in header if k != "__metadata__"]
        if not keys:  # "…; it has " and nothing
            raise FileProblem(Msg.of("{name} has no tensor {key}; it holds no tensor at all",
                                     name=name, key=quoted(visible_label(key))))
        raise FileProblem(Msg.of("{name} has no tensor {key}; it has {keys}", name=name,
                                 key=quoted(visible_label(key)), keys=some(keys)))
    return _tensor(entry, f"{name} ({key})", path, start, dims, status)


def _check_header_size(name: str, size: int, limit: int) -> None:
    """A safetensors header is read only within the byte limit."""
    if size > limit:
        raise FileProblem(Msg.plural_of(
            "{name}: the header has {count} byte; the limit is {limit}, which {option} sets",
            "{name}: the header has {count} bytes; the limit is {limit}, which {option} sets",
            Count(size), name=name, limit=byte_count(limit), option=LIMIT_HINT))


def read_json_object(path: Path, name: str, size: int, limit: int) -> dict[str, object]:
    """The JSON object of the file at `path` (`size` bytes), read only within the byte limit and
    refused before parsing when it holds too many values (an index, a model's config.json). Its
    refusals speak of the file, where a safetensors header's speak of the header."""
    if size > limit:
        raise FileProblem(Msg.plural_of(
            "{name} has {count} byte; the limit is {limit}, which {option} sets",
            "{name} has {count} bytes; the limit is {limit}, which {option} sets",
            Count(size), name=name, limit=byte_count(limit), option=LIMIT_HINT))
    with refused_read(name), open_regular(path) as file:
        data = file.read(size)
    return _parse_object(data, name, whole=True)


def header_values(data: bytes) -> int:
    """An upper bound of the JSON values in `data`, keys aside (an object has a value for each
    key, so Python builds at most twice as many), counted without parsing it: every value but
    the first of a list or an object follows a comma, and every list and object opens with a
    bracket (commas and brackets inside texts, and empty lists and objects, raise the bound)."""
    return data.count(b",") + data.count(b"[") + data.count(b"{") + 1


def _parse_object(data: bytes, name: str, whole: bool = False) -> dict[str, object]:
    """The JSON object in `data` (a safetensors header, or a `whole` JSON file); its values are
    counted first, so one of too many entries is refused before Python builds any of them."""
    count = header_values(data)
    if count > MAX_HEADER_VALUES:
        raise FileProblem(Msg.plural_of(
            "{name}: the file holds up to {count} JSON value; the limit is {limit}",
            "{name}: the file holds up to {count} JSON values; the limit is {limit}",
            Count(count), name=name, limit=Count(MAX_HEADER_VALUES)) if whole else Msg.plural_of(
            "{name}: the header holds up to {count} JSON value; the limit is {limit}",
            "{name}: the header holds up to {count} JSON values; the limit is {limit}",
            Count(count), name=name, limit=Count(MAX_HEADER_VALUES)))
    try:
        found = json.loads(data.decode("utf-8"))
    except (ValueError, UnicodeDecodeError, RecursionError):
        raise FileProblem(Msg.of("{name}: the file is not valid JSON", name=name) if whole else
                          Msg.of("{name}: the header is not valid JSON", name=name)) from None
    if not isinstance(found, dict):
        raise FileProblem(Msg.of("{name}: the file is not a JSON object", name=name) if whole
                          else Msg.of("{name}: the header is not a JSON object", name=name))
    return found


def _shard_of(path: Path, name: str, key: str, max_cells: int,
              headers: Headers | None = None) -> str:
    """The shard file that the index at `path` names for `key`."""
    weight_map = _weight_map(path, name, max_cells, headers)
    shard = weight_map.get(key)
    if not weight_map:  # "…; it has " and nothing
        raise FileProblem(Msg.of("{name} has no tensor {key}; its weight_map is empty",
                                 name=name, key=quoted(visible_label(key))))
    if shard is None:
        raise FileProblem(Msg.of("{name} has no tensor {key}; it has {keys}", name=name,
                                 key=quoted(visible_label(key)),
                                 keys=some([str(k) for k in weight_map])))
    if not isinstance(shard, str):
        raise FileProblem(Msg.of("{name}: expected a file name for {key}", name=name,
                                 key=quoted(visible_label(key))))
    return shard


def _weight_map(path: Path, name: str, max_cells: int,
                headers: Headers | None = None) -> dict[str, object]:
    """The weight_map of the checkpoint index at `path`, read within the byte limit."""
    def parse(size: int) -> tuple[dict[str, object], int]:
        found = read_json_object(path, name, size, max_bytes(max_cells))
        return {key: found[key] for key in ("weight_map",) if key in found}, 0  # kept alone

    index = _kept(path, headers, parse)[0]
    weight_map = index.get("weight_map")
    if not isinstance(weight_map, dict):
        raise FileProblem(Msg.of("{name}: expected a checkpoint index with a weight_map",
                                 name=name))
    return weight_map


def _kept(path: Path, headers: Headers | None,
          parse: Callable[[int], tuple[dict[str, object], int]]
          ) -> tuple[dict[str, object], int, os.stat_result]:
    """What `parse` makes of the file at `path` (given its size), kept in `headers` while the
    file keeps its size and time of change; and the file's status, as read now."""
    status = path.stat()
    stamp, file = (status.st_size, status.st_mtime_ns), (status.st_dev, status.st_ino)
    found = None if headers is None else headers.get(file)  # a file's other names (hard links)
    if found is not None and found[0] == stamp:             # find it too
        return found[1], found[2], status
    parsed, start = parse(status.st_size)
    if headers is not None:
        headers[file] = (stamp, parsed, start)
    return parsed, start, status


def _header(path: Path, name: str, max_cells: int,
            headers: Headers | None = None) -> tuple[dict[str, object], int, os.stat_result]:
    """The JSON header of a .safetensors file, where its data starts, and the file's status; the
    header's length is checked against the file and the byte limit before the header is
    read."""
    return _kept(path, headers, lambda size: _read_header(path, name, size, max_cells))


def _read_header(path: Path, name: str, size: int,
                 max_cells: int) -> tuple[dict[str, object], int]:
    with refused_read(name), open_regular(path) as file:
        first = file.read(8)
    if len(first) < 8:
        raise FileProblem(Msg.of("{name}: the file ends before the tensor's data", name=name))
    length = struct.unpack("<Q", first)[0]
    if length > size - 8:
        raise FileProblem(Msg.plural_of(
            "{name}: the header's length, written at the file's start, is {count} byte, but the "
            "file holds only {found} after it", "{name}: the header's length, written at the "
            "file's start, is {count} bytes, but the file holds only {found} after it",
            Count(length),
            name=name, found=byte_count(max(size - 8, 0))))  # a /proc file says 0 bytes
    limit = max_bytes(max_cells)
    _check_header_size(name, length, limit)
    with refused_read(name), open_regular(path) as file:
        file.seek(8)
        header = _parse_object(file.read(length), name)
    _check_apart(header, name)
    # free text no tensor is read from: not kept with the header, so that headers kept for a
    # spec cost their tensors' entries only (16 files with 30 MB of metadata each took 550 MB)
    header.pop("__metadata__", None)
    return header, 8 + length


def _check_apart(header: dict[str, object], name: str) -> None:
    """FileProblem naming two tensors whose bytes overlap, as the safetensors library refuses
    them: a tensor read through one name would show another's numbers. Gaps are allowed; an
    entry whose data_offsets are not [begin, end] is refused when it is read."""
    spans = sorted((offsets[0], offsets[1], key) for key, entry in header.items()
                   if key != "__metadata__" and isinstance(entry, dict)
                   and isinstance(offsets := entry.get("data_offsets"), list)
                   and len(offsets) == 2 and all(type(o) is int for o in offsets)
                   and 0 <= offsets[0] < offsets[1])  # an empty tensor holds no bytes
    reach: tuple[int, int, str] | None = None  # the span that reaches furthest so far
    for span in spans:
        if reach is not None and span[0] < reach[1]:
            raise FileProblem(Msg.of(
                "{name}: the tensors {first} and {second} overlap: expected data_offsets "
                "apart, found [{a}, {b}] and [{c}, {d}]", name=name, first=reach[2],
                second=span[2], a=str(reach[0]), b=str(reach[1]), c=str(span[0]),
                d=str(span[1])))
        if reach is None or span[1] > reach[1]:
            reach = span


def _tensor(entry: object, name: str, path: Path, start: int, dims: int,
            status: os.stat_result) -> Tensor:
    """One header entry checked: a known data type of real numbers, a shape of sizes, and data
    offsets that hold exactly that many numbers inside the file."""
    if not isinstance(entry, dict):
        raise FileProblem(Msg.of("{name}: the header entry is not a JSON object", name=name))
    dtype, shape, offsets = entry.get("dtype"), entry.get("shape"), entry.get("data_offsets")
    if not isinstance(dtype, str) or dtype not in DTYPES:
        raise FileProblem(Msg.of("{name}: expected real numbers, found the data type {dtype}",
                                 name=name, dtype=str(dtype)[:40]))
    if (not isinstance(shape, list) or len(shape) > dims or not all(
            type(s) is int and s >= 0 for s in shape)):
        if dims == MAX_SIZES:
            raise FileProblem(Msg.of("{name}: expected a shape of at most four sizes, found "
                                     "{found}", name=name, found=str(shape)[:40]))
        raise FileProblem(Msg.of("{name}: expected a shape of at most two sizes, found {found}",
                                 name=name, found=str(shape)[:40]))
    if (not isinstance(offsets, list) or len(offsets) != 2
            or not all(type(o) is int and o >= 0 for o in offsets) or offsets[0] > offsets[1]):
        raise FileProblem(Msg.of("{name}: expected data_offsets [begin, end], found {found}",
                                 name=name, found=str(offsets)[:40]))
    wanted = math.prod(shape) * np.dtype(DTYPES[dtype]).itemsize
    if offsets[1] - offsets[0] != wanted:
        raise FileProblem(Msg.plural_of(
            "{name}: data_offsets hold {count} byte, expected {expected}",
            "{name}: data_offsets hold {count} bytes, expected {expected}",
            Count(offsets[1] - offsets[0]), name=name, expected=byte_count(wanted)))
    if start + offsets[1] > status.st_size:
        raise FileProblem(Msg.of("{name}: the file ends before the tensor's data", name=name))
    return Tensor(name, path, start + offsets[0], tuple(shape), dtype,
                  (status.st_dev, status.st_ino))


def tensor_names(path: Path, name: str, max_cells: int,
                 headers: Headers | None = None) -> frozenset[str]:
    """The names of the tensors in the checkpoint at `path` (a .safetensors file, or the index
    of a sharded one), read from its header or its weight_map within the byte limit."""
    if path.suffix.lower() == ".json":
        return frozenset(str(key) for key in _weight_map(path, name, max_cells, headers))
    header = _header(path, name, max_cells, headers)[0]
    return frozenset(key for key in header if key != "__metadata__")
