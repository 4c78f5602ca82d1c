"""`{file: model.safetensors, key: NAME, rows: ..., columns: ...}`: one tensor of a checkpoint,
or `{file: W.npy, rows: ..., columns: ...}`: part of a .npy array (or of an .npz's array, by
key, or of a .csv file), with the rows and columns a spec takes from it (`0:64`, a list of
indices, or `tokens`: the rows of the token ids that a tokenizer gave), charged and read as the
slice they are."""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from attncli.errors import SpecError
from attncli.i18n import Count, Msg
from attncli.i18n.quoting import shown
from attncli.spec.file_problem import check_some_numbers, valid_indices
from attncli.spec.file_slices import Kept, opened
from attncli.spec.files import Archives, FileProblem, resolve
from attncli.spec.model import Array
from attncli.spec.source import Node
from attncli.spec.values import expect, fail, integer, items, text

if TYPE_CHECKING:
    from attncli.spec.checkpoint import Headers

SLICE = re.compile(r"\s*(\d*)\s*:\s*(\d*)\s*")
MAX_BOUND_DIGITS = 18  # no file has 10¹⁸ rows
CHECKPOINT_KEYS = ("file", "key", "rows", "columns")
Charge = Callable[[Node, tuple[int, ...]], None]  # Budget.charge: a matrix of this shape here


def is_checkpoint(name: str) -> bool:
    lowered = name.lower()
    return lowered.endswith(".safetensors") or lowered.endswith(".safetensors.index.json")


def sliced_values(keys: dict[str, Node], name: str, folder: Path,
                  token_ids: Sequence[int] | None, max_cells: int,
                  allow_outside: bool, charge: Charge | None = None,
                  kept: Kept | None = None, headers: Headers | None = None,
                  archives: Archives | None = None) -> Array:
    """The selected rows and columns of a checkpoint's tensor `key`, or of the array in the
    .npy, .npz or .csv file `name`; `charge` counts their shape against the spec's cells before
    they are read, and only they are read. `kept` holds the arrays this spec has opened,
    `headers` the checkpoint headers it has parsed, `archives` the .npz directories it has
    read."""
    from attncli.spec.checkpoint import open_tensor  # only a spec that reads a checkpoint

    name_node = keys["file"]
    key = text(keys["key"]) if "key" in keys else None
    for axis in ("rows", "columns"):  # a choice of no form is refused before the file is read
        if axis in keys:
            check_form(keys[axis])
    try:
        path = resolve(folder, name, allow_outside)
        if not is_checkpoint(name):
            with opened(path, name, key, max_cells, kept, archives) as array:
                check_some_numbers(array.shape, array.name)  # before `0:` lists its rows
                rows, columns = chosen(keys, array.name, array.shape, token_ids)
                _charge(name_node, array.shape, rows, columns, charge)
                return array.read(rows, columns)  # (rows, ..., columns)
        tensor = open_tensor(path, name, key, max_cells, allow_outside, headers=headers)
        check_some_numbers(tensor.shape, tensor.name)
        rows, columns = chosen(keys, tensor.name, tensor.shape, token_ids)
        sliced = columns if len(tensor.shape) <= 2 else None  # a slice; deeper: selected after
        _charge(name_node, tensor.shape, rows, columns, charge)
        values = tensor.read(rows, max_cells, sliced)  # (rows, columns) or (length,)
    except FileProblem as problem:
        raise SpecError(Msg.of("{path}: {problem}", path=name_node.where.path,
                               problem=problem.message), name_node.where) from None
    if columns is not None and sliced is None:
        values = values[..., np.asarray(columns, dtype=np.intp)]  # (rows, ..., columns)
    return values


def _charge(at: Node, shape: tuple[int, ...], rows: Sequence[int] | None,
            columns: Sequence[int] | None, charge: Charge | None) -> None:
    """Count the slice against the spec's cells, before a byte of it is read."""
    if charge is not None:
        selected = list(shape)
        if rows is not None:
            selected[0] = len(rows)
        if columns is not None:
            selected[-1] = len(columns)
        charge(at, tuple(selected))


def chosen(keys: dict[str, Node], name: str, shape: tuple[int, ...],
           token_ids: Sequence[int] | None) -> tuple[Sequence[int] | None, Sequence[int] | None]:
    """The rows and the columns that `rows:` and `columns:` choose (None: every one)."""
    rows = None
    if "rows" in keys:
        if len(shape) < 2:
            fail(keys["rows"], "{name} is a vector; select its entries with columns", name=name)
        rows = indices(keys["rows"], name, shape[0], "rows", token_ids)
    columns = None
    if "columns" in keys:
        columns = indices(keys["columns"], name, shape[-1] if shape else 0, "columns", token_ids)
    return rows, columns


def check_form(node: Node) -> None:
    """Refuse `rows:` or `columns:` that is no `start:stop`, list or `tokens`, before the file
    is opened: `rows: '-3:'` was refused only once a 40 MB .csv's lines were counted (0.9 s)."""
    value = None if node.whole else node.value
    if node.whole or value == "tokens" or isinstance(value, list) or (
            isinstance(value, str) and SLICE.fullmatch(value)):
        return
    expect(node, Msg.of("start:stop, a list of indices or tokens"))


def indices(node: Node, name: str, size: int, axis: str,
            token_ids: Sequence[int] | None) -> Sequence[int]:
    """`start:stop`, a list of indices, or `tokens`, each checked against `size`, the number of
    rows or columns (`axis`) of the tensor `name`."""
    # a list of numbers written whole (`rows: [4, 0, 4]`, 200,000 of them) is read from its
    # numbers, without a Node for each (node.py); any other is read item by item
    plain = node.numbers if node.whole else None
    value = None if plain is not None else node.value
    if value == "tokens":
        if token_ids is None:
            fail(node, "rows: tokens needs tokens: {{tokenizer: ..., text: ...}}")
        chosen = list(token_ids)
    elif isinstance(value, str) and SLICE.fullmatch(value):
        match = SLICE.fullmatch(value)
        assert match is not None
        if any(len(bound.lstrip("0")) > MAX_BOUND_DIGITS for bound in (match[1], match[2])):
            fail(node, "expected start:stop with start < stop <= {size}, found {found}",
                 size=size, found=shown(value))  # past any size, and past what int() reads
        start = int(match[1]) if match[1] else 0
        stop = int(match[2]) if match[2] else size
        if not start < stop <= size:
            fail(node, "expected start:stop with start < stop <= {size}, found {found}",
                 size=size, found=value)
        return range(start, stop)  # (rows,) never a list of millions of ints
    elif plain is not None and all(0 <= n < 2**53 for n in plain):  # floats exact as ints
        chosen = [int(n) for n in plain]
    elif isinstance(node.value, list):
        chosen = [integer(entry, 0) for entry in items(node, Msg.of("a list of indices"))]
    else:
        expect(node, Msg.of("start:stop, a list of indices or tokens"))
    for index in chosen:
        if index >= size and size == 0:  # no index is valid: the file is said to hold none
            fail(node, "{name} holds no numbers", name=name)
        if index >= size:
            has = (Msg.plural_of("{name} has {count} row", "{name} has {count} rows",
                                 Count(size), name=name) if axis == "rows" else
                   Msg.plural_of("{name} has {count} column", "{name} has {count} columns",
                                 Count(size), name=name))
            fail(node, "index {index} is out of range: {has} ({valid})", index=index, has=has,
                 valid=valid_indices(size))
    if not chosen:
        fail(node, "expected at least one index")
    return chosen
