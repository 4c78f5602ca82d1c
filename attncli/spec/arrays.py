"""Matrices and vectors of a spec: written out, read from a file, or drawn at random, each
counted against the one limit of numbers a spec may make (attncli.spec.limits)."""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import field
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from attncli.errors import SpecError
from attncli.i18n import Count, Msg
from attncli.records import record
from attncli.spec.file_slices import Kept
from attncli.spec.files import Archives, FileProblem, identity, load_array, resolve
from attncli.spec.limits import (
    COMPUTED_PER_CELL,
    DEFAULT_MAX_CELLS,
    PRODUCTS_PER_CELL,
    max_computed,
    max_products,
)
from attncli.spec.model import Array
from attncli.spec.scope import scoped
from attncli.spec.selection import CHECKPOINT_KEYS, is_checkpoint, sliced_values
from attncli.spec.source import LIMIT_HINT, Node
from attncli.spec.values import (
    SHOWN_DIMENSIONS,
    as_written,
    check_keys,
    check_shape,
    choice,
    expect,
    fail,
    fail_at,
    integer,
    items,
    matrix,
    number,
    optional,
    shape_text,
    text,
    vector,
)

if TYPE_CHECKING:  # only a spec that reads a checkpoint imports its reader
    from attncli.spec.checkpoint import Headers

RANDOM_KEYS = ("seed", "distribution", "low", "high", "mean", "std")
FILE_KEYS = ("file", "key")
RANDOM_SHAPE_KEYS = ("random", "shape")
EMBEDDINGS_RANDOM_KEYS = ("dim",)


class Budget:
    """The numbers of every matrix a spec makes, counted before each is made, against the one
    cell limit (see attncli.spec.limits). A model folder's layer and the layers worked out
    before it share one: each earlier layer's matrices and walkthrough are paid for too."""

    def __init__(self, max_cells: int = DEFAULT_MAX_CELLS) -> None:
        self.max_cells = max_cells
        self.used = 0  # the numbers of the matrices made
        self.computed = 0  # the numbers the walkthroughs charged so far compute
        self.products = 0  # and the products their matrix multiplications take

    def charge(self, node: Node, shape: tuple[int, ...], what: Msg | None = None) -> None:
        """Count a matrix of `shape` about to be made at `node`; SpecError past the limit.
        `what` names the matrix when `node` alone does not (default: a matrix of RxC)."""
        cells = math.prod(shape)
        self.used += cells
        what = what or Msg.of("a matrix of {found}", found=shape_text(shape))
        if cells > self.max_cells:
            fail_at(node, Msg.plural_of("{what} is too large; the limit is {count} number, "
                                        "which {option} sets", "{what} is too large; the limit "
                                        "is {count} numbers, which {option} sets",
                                        Count(self.max_cells), what=what, option=LIMIT_HINT))
        if self.used > self.max_cells:
            fail_at(node, Msg.plural_of(
                "{what} brings the spec to {count} number; the limit is {limit}, which "
                "{option} sets", "{what} brings the spec to {count} numbers; the limit is "
                "{limit}, which {option} sets", Count(self.used), what=what,
                limit=Count(self.max_cells),
                option=LIMIT_HINT))

    def charge_walkthrough(self, node: Node, cells: int, products: int) -> None:
        """Count the numbers the walkthrough will compute (scores, weights, outputs), which
        may be COMPUTED_PER_CELL times the cell limit, and the products its matrix
        multiplications take, PRODUCTS_PER_CELL times it."""
        within(node, self.used + self.computed + cells, max_computed(self.max_cells),
               lambda count, limit: Msg.plural_of(
                   "the walkthrough of this spec would compute {count} number; the limit is "
                   "{limit}, {factor} times what {option} sets", "the walkthrough of this spec "
                   "would compute {count} numbers; the limit is {limit}, {factor} times what "
                   "{option} sets", count, limit=limit, factor=COMPUTED_PER_CELL,
                   option=LIMIT_HINT))
        within(node, self.products + products, max_products(self.max_cells),
               lambda count, limit: Msg.plural_of(
                   "the walkthrough of this spec would take {count} multiplication; the limit "
                   "is {limit}, {factor} times what {option} sets", "the walkthrough of this "
                   "spec would take {count} multiplications; the limit is {limit}, {factor} "
                   "times what {option} sets", count, limit=limit,
                   factor=Count(PRODUCTS_PER_CELL), option=LIMIT_HINT))
        self.computed += cells
        self.products += products

    def foresee_walkthrough(self, node: Node, cells: int, products: int) -> None:
        """SpecError at `node` if a walkthrough computing at least `cells` numbers and taking at
        least `products` products would pass the limits of charge_walkthrough: said before the
        input that sets its size is read (a PNG's pixels), charged nothing."""
        within(node, self.used + self.computed + cells, max_computed(self.max_cells),
               lambda count, limit: Msg.plural_of(
                   "the walkthrough of this spec would compute at least {count} number; the "
                   "limit is {limit}, {factor} times what {option} sets", "the walkthrough of "
                   "this spec would compute at least {count} numbers; the limit is {limit}, "
                   "{factor} times what {option} sets", count, limit=limit,
                   factor=COMPUTED_PER_CELL, option=LIMIT_HINT))
        within(node, self.products + products, max_products(self.max_cells),
               lambda count, limit: Msg.plural_of(
                   "the walkthrough of this spec would take at least {count} multiplication; "
                   "the limit is {limit}, {factor} times what {option} sets", "the walkthrough "
                   "of this spec would take at least {count} multiplications; the limit is "
                   "{limit}, {factor} times what {option} sets", count, limit=limit,
                   factor=Count(PRODUCTS_PER_CELL), option=LIMIT_HINT))


def within(node: Node, total: int, limit: int, refusal: Callable[[Count, Count], Msg]) -> None:
    """SpecError at `node` if `total` passes `limit`, with `refusal(total, limit)`: the sentence
    that says what the walkthrough would do past the limit."""
    if total > limit:
        fail_at(node, refusal(Count(total), Count(limit)))


@record
class Files:
    """Where the files a spec names are read from, and the budget of numbers they count
    against."""

    folder: Path
    allow_outside: bool = False
    budget: Budget = field(default_factory=Budget)
    token_ids: list[int] = field(default_factory=list)  # from tokens: {tokenizer, text}
    kept: Kept = field(default_factory=dict)  # the arrays sliced so far, opened once each
    # the files read whole so far, by file and key: read once each, however often named
    wholes: dict[tuple[tuple[int, int, int, int] | Path, str | None], np.ndarray] = field(
        default_factory=dict)
    headers: Headers = field(default_factory=dict)  # checkpoint headers, parsed once each
    archives: Archives = field(default_factory=dict)  # .npz directories, read once each


# The files read by the specs of one run of `attn fill` or `attn snippets` (see shared_reads), by
# the cell limit and whether files outside a spec's folder may be read
_SHARED: ContextVar[dict[tuple[int, bool], Files] | None] = ContextVar("shared", default=None)
SHARED_FILES = 8  # files whose reading one spec leaves to the next, at most


@contextmanager
def shared_reads() -> Iterator[None]:
    """While the block runs, the specs read share the files each has read: a file named by 200
    blocks of one document (each a spec of its own) is read once, not 200 times (a 30 MB .csv:
    killed at 20 s). Each spec still charges every reference against its own limits."""
    with scoped(_SHARED, {}):
        yield


def spec_files(folder: Path, allow_outside: bool, max_cells: int) -> Files:
    """The Files of a spec about to be read: its own, or within `shared_reads` the files the
    specs before it have read, with a budget of its own. What is left from earlier specs is
    let go when it is more than SHARED_FILES files or, read whole, more than `max_cells`
    numbers, so what is shared stays within what one spec may read."""
    budget = Budget(max_cells)
    shared = _SHARED.get()
    if shared is None:
        return Files(folder, allow_outside, budget)
    found = shared.get((max_cells, allow_outside))
    held = 0 if found is None else sum(values.size for values in found.wholes.values())
    if found is None or held > max_cells or max(
            len(found.kept), len(found.wholes), len(found.headers),
            len(found.archives)) > SHARED_FILES:
        found = shared[(max_cells, allow_outside)] = Files(folder, allow_outside, budget)
    return Files(folder, allow_outside, budget, kept=found.kept, wholes=found.wholes,
                 headers=found.headers, archives=found.archives)


Dims = tuple[int | None, ...]  # an expected shape; None where the other matrices don't tell


def is_random(node: Node) -> bool:
    return isinstance(node.value, dict) and "random" in node.value


def matrix_at(node: Node, name: str, files: Files, shape: Dims = (None, None)) -> Array:
    """A matrix written out, read from {file: ...}, or drawn with {random: ...} in `shape`."""
    if isinstance(node.value, dict):
        if "file" in node.value:
            return file_values(node, files, 2)
        if "random" in node.value:
            return random_values(node, shape, files.budget)
        expect(node, Msg.of("a matrix, {{file: ...}} or {{random: ...}}"))
    values = matrix(node, name)
    files.budget.charge(node, values.shape)
    return values


def vector_at(node: Node, files: Files, length: int, names: str | Msg,
              head: int | None = None) -> Array:
    """A vector of `length` numbers (`names` says which size that is, for the error line):
    written out, read from {file: ...}, or drawn with {random: ...}."""
    if isinstance(node.value, dict):
        if "file" in node.value:
            values = file_values(node, files, 1)
        elif "random" in node.value:
            values = random_values(node, (length,), files.budget)
        else:
            expect(node, Msg.of("a list of numbers, {{file: ...}} or {{random: ...}}"))
    else:
        values = vector(node)
        files.budget.charge(node, values.shape)
    check_shape(node, values, (length,), names, head)  # (length,)
    return values


def embeddings_at(node: Node, n: int, files: Files) -> Array:
    """E: written out, from a file, or {random: ..., dim: d_model} (one row per token)."""
    if is_random(node):
        dim_node = node.get("dim")
        dim = integer(dim_node, 1) if dim_node is not None else None
        return random_values(node, (n, dim), files.budget, EMBEDDINGS_RANDOM_KEYS)
    if isinstance(node.value, dict) and "file" in node.value:
        return file_values(node, files, 2, per_token=n)
    return matrix_at(node, "embeddings", files, (n, None))


def check_one_per_token(node: Node, rows: int, tokens: int) -> None:
    """Refuse embeddings of `rows` rows for `tokens` tokens."""
    if rows != tokens:
        fail_at(node, Msg.plural_of(
            "has {count} row, expected one per token ({expected})",
            "has {count} rows, expected one per token ({expected})", Count(rows),
            expected=Count(tokens)))


def file_values(node: Node, files: Files, ndim: int, per_token: int | None = None) -> Array:
    """{file: name.npy | name.csv} or {file: name.npz, key: W_Q}, relative to the spec, or
    {file: model.safetensors, key: NAME, rows: ..., columns: ...} or {file: name.npy | name.npz
    | name.csv, rows: ..., columns: ...} (attncli.spec.selection). Embeddings (one row for each
    of `per_token` tokens) of another count of rows are refused before a number is read."""
    name_node = node.get("file")
    name = text(name_node) if name_node is not None else ""
    charged = False

    def charge(at: Node, shape: tuple[int, ...]) -> None:
        nonlocal charged
        check_dimensions(at, name, shape, ndim)  # by the header, before a number is read
        files.budget.charge(at, shape)
        if per_token is not None:
            check_one_per_token(node, shape[0], per_token)
        charged = True

    sliceable = is_checkpoint(name) or name.lower().endswith((".npy", ".npz", ".csv"))
    if sliceable and ("rows" in node.value or "columns" in node.value or is_checkpoint(name)):
        keys = check_keys(node, CHECKPOINT_KEYS)
        values = sliced_values(keys, name, files.folder, files.token_ids or None,
                               files.budget.max_cells, files.allow_outside, charge, files.kept,
                               files.headers, files.archives)
    else:
        keys = check_keys(node, FILE_KEYS)
        key = optional(keys, "key", text, None)
        try:
            path = resolve(files.folder, name, files.allow_outside)
            whole = (identity(path), key)
            found = files.wholes.get(whole)
            if found is not None:  # read for this spec already: charged again, not read again
                charge(keys["file"], found.shape)
                values = found.copy()  # a matrix of its own, as a reading gives
            else:  # kept as read (nothing changes a spec's matrices): no copy of one named once
                values = load_array(path, name, key, files.budget.max_cells,
                                    lambda shape: charge(keys["file"], shape), files.archives)
                files.wholes[whole] = values
        except FileProblem as problem:
            raise SpecError(Msg.of("{path}: {problem}", path=keys["file"].where.path,
                                   problem=problem.message), keys["file"].where) from None
    name_node = keys["file"]  # present: that is how the caller told a file from a matrix
    if not charged:  # a CSV file: counted as it was read, charged now
        files.budget.charge(name_node, values.shape)
    check_dimensions(name_node, name, values.shape, ndim)
    if ndim == 1 and values.ndim == 2:
        values = values[0]  # a CSV file of one line: (1, d) -> (d,)
    return values


def check_dimensions(at: Node, name: str, shape: tuple[int, ...], ndim: int) -> None:
    """Refuse the array of `shape` in the file `name` unless it is the vector (`ndim` 1; a
    matrix of one row is one) or the matrix (`ndim` 2) the spec wants."""
    if len(shape) == ndim or (ndim == 1 and len(shape) == 2 and shape[0] == 1):
        return
    wanted = Msg.of("a matrix (2 dimensions)") if ndim == 2 else Msg.of("a vector (1 dimension)")
    if len(shape) > SHOWN_DIMENSIONS:
        fail_at(at, Msg.plural_of("{name} holds an array of {count} dimension, expected "
                                  "{expected}", "{name} holds an array of {count} dimensions, "
                                  "expected {expected}", Count(len(shape)), name=name,
                                  expected=wanted))
    fail(at, "{name} holds an array of shape {found}, expected {expected}", name=name,
         found=shape_text(shape), expected=wanted)


def random_values(node: Node, shape: Dims, budget: Budget,
                  extra: tuple[str, ...] = ()) -> Array:
    """{random: {seed, distribution: normal|uniform, low, high, mean, std}, shape: [...]}.

    NumPy's Generator (PCG64) gives the same numbers for the same seed on every machine.
    """
    keys = check_keys(node, (*RANDOM_SHAPE_KEYS, *extra))
    if "shape" in keys:
        written = items(keys["shape"], Msg.of("a list of sizes"))
        given = tuple(integer(size, 1) for size in written)
        if len(given) != len(shape) or any(
                k is not None and k != g for k, g in zip(shape, given, strict=True)):
            expected = shape_text(tuple("?" if k is None else k for k in shape))
            raise SpecError(Msg.of("{path} is {found}, expected {expected}",
                                   path=keys["shape"].where.path, found=shape_text(given),
                                   expected=expected), keys["shape"].where)
        shape = given
    if any(size is None for size in shape):
        fail(node, "cannot tell the shape of this random matrix from the others; add shape: "
             "[rows, columns]")
    size = tuple(int(s) for s in shape if s is not None)
    budget.charge(node, size)
    options = check_keys(keys["random"], RANDOM_KEYS)
    rng = np.random.default_rng(optional(options, "seed", lambda n: integer(n, 0), 0))
    kind = optional(options, "distribution", lambda n: choice(n, ("normal", "uniform")), "normal")
    wrong = ("mean", "std") if kind == "uniform" else ("low", "high")
    for key in wrong:
        if key in options:
            fail(options[key], "{key} does not apply to the {kind} distribution", key=key,
                 kind=kind)
    if kind == "uniform":
        low = optional(options, "low", number, 0.0)
        high = optional(options, "high", number, 1.0)
        if not low < high:
            fail(keys["random"], "expected low < high, found low = {low}, high = {high}",
                 low=low, high=high)
        if not math.isfinite(high - low):  # NumPy draws from low + (high - low)·u
            fail(keys["random"], "expected high - low to be a finite number, found low = {low}, "
                 "high = {high}", low=low, high=high)
        return rng.uniform(low, high, size)  # shape `size`
    std = optional(options, "std", number, 1.0)
    if std <= 0:
        fail(options["std"], "expected a positive standard deviation, found {value}",
             value=as_written(options["std"], std))
    return rng.normal(optional(options, "mean", number, 0.0), std, size)  # shape `size`
