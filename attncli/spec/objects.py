"""A spec from Python values: NumPy arrays, anything with `__array__` (a PyTorch or JAX tensor),
lists, numbers and texts, laid out as a spec file lays them out.

The values become the same Node tree a YAML file gives, each marked with its key path
(`weights.W_Q[1][0]`), so every check of a spec file, and every error it raises, is the file's
own: a wrong shape or a NaN is a SpecError naming the key path, what was expected and what was
found. Tensors are read without importing their library: detached from autograd and moved to
the CPU through their own methods, then read by `numpy.asarray`.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import fields, is_dataclass, replace
from typing import Any, cast

import numpy as np

from attncli.errors import Location, SpecError
from attncli.i18n import Count, Msg
from attncli.spec.bounds import too_deep, too_many_texts
from attncli.spec.limits import DEFAULT_MAX_CELLS, MAX_DEPTH, max_texts, max_written
from attncli.spec.model import Spec
from attncli.spec.node import Node
from attncli.spec.parse import load
from attncli.spec.values import expect, number, shape_text

SCALARS = (str, bool, int, float, type(None))
_ONE_MASK = re.compile(r"mask\[[0-9]+\]").fullmatch  # a mask of a list of masks


def spec_from(keys: Mapping[str, Any], source: str = "spec_from",
              max_cells: int = DEFAULT_MAX_CELLS) -> Spec:
    """The Spec that `keys` describe, as the top level of a spec file would (`tokens`,
    `embeddings`, `weights`, `mask` ...), arrays in place of written-out matrices; SpecError
    naming the key path at the first problem. `source` names the values in errors."""
    written = Written(max_cells)
    top = {key: tree(value, source, key, max_cells, written=written)
           for key, value in keys.items() if value is not None}
    return load_tree(top, source, written)


class Written:
    """The values given as Python lists, mappings, numbers and texts, counted as they are made
    into nodes against the limits a spec file is held to (limits.max_written, and max_texts for
    texts): a mask written as a list of 1,000 lists of 1,000 took 4.3 s and 414 MB to be made
    into a million nodes before its shape was refused. An array is one value, its numbers
    charged as cells."""

    def __init__(self, max_cells: int) -> None:
        from attncli.spec.arrays import Budget

        self.values_left = max_written(max_cells)
        self.texts_left = max_texts(max_cells)
        self.max_cells = max_cells
        # the numbers of the arrays given, all together, charged before each is copied: a
        # list of 1,000 arrays of 100,000 was copied whole (1.6 GB, 1.9 s) before its matrix
        # was refused for its size
        self.cells = Budget(max_cells)
        # the read-only views of the given arrays the nodes hold (Node.array), copied only
        # once the spec is loaded (`owned`): X of 3 × 3,333,333 was copied before the identity
        # W_Q its width asks for was refused
        self.views: list[np.ndarray[Any, Any]] = []

    def count(self, value: Any, path: str, where: Location) -> None:
        if isinstance(value, str):
            self.texts_left -= 1
            if self.texts_left < 0:
                raise too_many_texts(max_texts(self.max_cells), where)
            return
        self.values_left -= 1
        if self.values_left < 0:
            raise SpecError(Msg.of("{path}: {problem}", path=path, problem=Msg.plural_of(
                "the spec holds more than {count} value, the limit that {option} sets",
                "the spec holds more than {count} values, the limit that {option} sets",
                Count(max_written(self.max_cells)), option="max_cells")), where)


def load_tree(top: dict[str, Node], source: str, written: Written) -> Spec:
    """The Spec of a spec's top-level keys made by `tree` with `written`: every check and charge
    first, then its own copy of each array given (the caller may change theirs after)."""
    spec = load(Node(top, Location(source)), max_cells=written.max_cells)
    return owned(spec, {id(view) for view in written.views})


def owned(value: Any, views: set[int]) -> Any:
    """`value` (a Spec, or a part of it) with a copy of every array that is, or looks into, one
    of the `views` of the caller's arrays; itself when it holds none."""
    if isinstance(value, np.ndarray):
        base: Any = value
        while base is not None:
            if id(base) in views:
                return np.array(value, dtype=np.float64)  # writable, C-ordered
            base = base.base if isinstance(base, np.ndarray) else None  # a tensor's memory
        return value
    if type(value) is tuple:
        parts = tuple(owned(part, views) for part in value)
        return value if all(a is b for a, b in zip(parts, value, strict=True)) else parts
    if isinstance(value, dict):
        entries = {key: owned(part, views) for key, part in value.items()}
        return value if all(entries[key] is part for key, part in value.items()) else entries
    if is_dataclass(value) and not isinstance(value, type):
        changed = {f.name: new for f in fields(value)
                   if (new := owned(getattr(value, f.name), views)) is not getattr(value, f.name)}
        return replace(value, **changed) if changed else value
    return value


def tree(value: Any, source: str, path: str, max_cells: int = DEFAULT_MAX_CELLS,
         depth: int = 1, written: Written | None = None) -> Node:
    """`value` as a Node marked with `path`: mappings and lists item by item, arrays row by row;
    an array of more than `max_cells` numbers is refused before its rows are copied (a
    broadcast view of 2 × 10⁸ ones, 16 bytes, took 7 s and 3 GB to be refused). Lists and
    mappings nest at most MAX_DEPTH levels, as in a spec file: X=[[[…1.0…]]] 3,000 deep, or a
    mapping that holds itself, was Python's RecursionError."""
    where = Location(source, path)
    if depth > MAX_DEPTH and isinstance(value, (Mapping, list, tuple)):
        raise SpecError(Msg.of("{path}: {problem}", path=path, problem=too_deep()), where)
    if isinstance(value, np.generic):
        value = value.item()
    written = Written(max_cells) if written is None else written
    if isinstance(value, (*SCALARS, Mapping, list, tuple)):
        written.count(value, path, where)
    if isinstance(value, SCALARS):
        return Node(value, where, quoted=isinstance(value, str))
    if isinstance(value, Mapping):
        for key in value:
            if not isinstance(key, str):
                raise SpecError(Msg.of("{path}: expected text keys, found the key {found}",
                                       path=path, found=repr(key)), where)
        return Node({key: tree(child, source, f"{path}.{key}" if path else key, max_cells,
                               depth + 1, written) for key, child in value.items()}, where)
    if isinstance(value, (list, tuple)):
        return Node([tree(item, source, f"{path}[{i}]", max_cells, depth + 1, written)
                     for i, item in enumerate(value)], where)
    array = as_array(value, path, where)
    written.cells.charge(Node(None, where), array.shape)
    if array.dtype.kind == "b":
        array = from_booleans(array, source, path, written)
    return array_node(array, source, path, written)


def from_booleans(array: np.ndarray[Any, Any], source: str, path: str,
                  written: Written) -> np.ndarray[Any, Any]:
    """A boolean array as the spec reads it: a mask matrix (`mask`, or one of a list of masks)
    as its 0/1 numbers, True where a query may see a key, as PyTorch's boolean attn_mask; a
    vector (a padding list) as its booleans, each charged as a value; anywhere else refused at
    its first cell, as a spec file's `true` is, before a node is made of each."""
    if array.ndim == 2 and (path == "mask" or _ONE_MASK(path)):
        return array.astype(np.float64)  # (n, m): 1 visible, 0 hidden
    if array.ndim == 1 and path.endswith(".padding"):
        for _ in range(min(array.size, written.values_left + 1)):
            written.count(True, path, Location(source, path))
        return array
    if not array.size:  # no cell to name: refused as an empty list of numbers is
        return array
    first = f"{path}[0][0]" if array.ndim == 2 else f"{path}[0]" if array.ndim == 1 else path
    expect(Node(bool(array.flat[0]), Location(source, first)), Msg.of("a number"))


def as_array(value: Any, path: str, where: Location) -> np.ndarray[Any, Any]:
    """`value` read by NumPy: a tensor detached from autograd and on the CPU first (`.detach()`,
    `.cpu()`), and, if NumPy cannot read its dtype (bfloat16), converted with `.double()`."""
    if not isinstance(value, np.ndarray) and not hasattr(value, "__array__"):
        raise unreadable(path, where, value)
    for method in ("detach", "cpu"):
        if callable(getattr(value, method, None)):
            value = getattr(value, method)()
    try:
        array = np.asarray(value)
    except (TypeError, ValueError, RuntimeError):
        try:
            array = np.asarray(value.double())
        except Exception:  # whatever a foreign type raises: it is not an array of numbers
            raise unreadable(path, where, value) from None
    if array.dtype.kind not in "biuf" or array.ndim > 2:
        raise SpecError(Msg.of("{path}: expected a matrix or a vector of real numbers (at most 2 "
                               "dimensions), found an array of shape {shape} and type {dtype}",
                               path=path, shape=shape_text(array.shape) or "()",
                               dtype=str(array.dtype)), where)
    return array


def unreadable(path: str, where: Location, value: Any) -> SpecError:
    return SpecError(Msg.of("{path}: expected an array that NumPy can read, found {found}",
                            path=path, found=type(value).__name__), where)


def array_node(array: np.ndarray[Any, Any], source: str, path: str,
               written: Written | None = None) -> Node:
    """A 0-d array as its number, a vector as a list of numbers, a matrix as a list of rows.
    A row of finite numbers carries them (Node.numbers), like a row of a YAML file; NaN or ±inf
    is refused at its first cell, before a node is made of each number (an additive causal mask
    of 1,000 × 1,000 with −inf in every row took 4.4 s and 433 MB to be refused)."""
    if array.ndim == 0:
        return Node(array.item(), Location(source, path))
    numbers = in_float64(array) if array.dtype.kind != "b" and array.size else None
    if numbers is not None:
        refuse_infinite(numbers, source, path)
    if array.ndim == 1:
        return row_node(array if numbers is None else numbers, source, path)
    # each row a view of the one float64 copy: an int8 array was copied whole and then again a
    # row at a time (10,000,000 cells: 211 MB)
    node = Node([row_node(row, source, f"{path}[{i}]")
                 for i, row in enumerate(array if numbers is None else numbers)],
                Location(source, path))
    if numbers is not None and np.isfinite(numbers).all():
        view = numbers.view()  # (rows, columns), never written
        view.flags.writeable = False
        node.array = view
        if written is not None:
            written.views.append(view)
    return node


def refuse_infinite(numbers: np.ndarray[Any, Any], source: str, path: str) -> None:
    """SpecError at the first NaN or ±inf of `numbers` (a vector or a matrix), as a spec file's
    `.nan` is refused: `X[2][0]: expected a finite number, found nan`."""
    finite = np.isfinite(numbers)  # (rows, columns) or (columns,)
    if finite.all():
        return
    at = tuple(int(k) for k in np.argwhere(~finite)[0])
    number(Node(float(numbers[at]), Location(source, path + "".join(f"[{k}]" for k in at))))


def in_float64(array: np.ndarray[Any, Any]) -> np.ndarray[Any, Any]:
    """`array` as the float64 numbers attn computes with (no copy of a float64 array): a number
    no float64 holds (a longdouble's 1e4000) is inf, without NumPy's warning, and refused where
    it stands as any infinity is."""
    if array.dtype == np.float64:
        return array
    with np.errstate(over="ignore", invalid="ignore"):
        return array.astype(np.float64)


def row_node(row: np.ndarray[Any, Any], source: str, path: str) -> Node:
    where = Location(source, path)
    if row.dtype.kind != "b":
        row = in_float64(row)  # (columns,): 1e4000 in a longdouble is inf here, named below

    def items() -> list[Node]:
        return [Node(x, Location(source, f"{path}[{j}]")) for j, x in enumerate(row.tolist())]

    if row.dtype.kind == "b" or not np.isfinite(row).all():
        return Node(items(), where)
    # the row itself, as float64 (a view of a float64 row, never a copy: the spec's own copy is
    # made once all is charged, see `owned`): sized and indexed like a YAML row's tuple, and
    # read by np.array without a Python float per number
    return Node.number_list(cast("Sequence[float]", row.astype(np.float64, copy=False)), items,
                            where)
