"""What every step family shares: the build context, the state that flows from family to family,
and the Family entry of the registries in attncli/steps/build.py.

A family is one function `run(build, state) -> (steps, state)`: it reads the labelled matrices the
families before it made, and returns its steps and the state with what it made added. It never
looks at which families ran before it; the walkthrough is the ordered list of the families a
spec turns on.
"""

from __future__ import annotations

from collections.abc import Callable
from copy import copy
from importlib import import_module
from typing import Any, Generic, TypeVar

import numpy as np

from attncli.arithmetic.handcalc import Arithmetic, arithmetic
from attncli.arithmetic.numbers import constant
from attncli.errors import Location, SpecError
from attncli.i18n import Constant, Msg, Symbol
from attncli.model import (
    Array,
    FeatureLabels,
    Formula,
    HeadResult,
    Labels,
    Matrix,
    Step,
    Walkthrough,
)
from attncli.records import record
from attncli.spec.model import Head, Spec
from attncli.steps.labels import token_labels

COMBINING_TILDE = "\u0303"  # X̃: the input after LayerNorm


def feature_labels(d: int) -> FeatureLabels:
    """d1 … d_d, each written when it is read: a view shows a few of them, and d_k = 2,400,000
    labels held as strings took 150 MB, twice what Q holds."""
    return FeatureLabels(d)


def power_base(base: float) -> int | Symbol:
    """The base of a position's power in a sentence (`{base}^(−2i/d_k)`): a whole number is part
    of the sentence's notation, so the power is typeset with it; 10000, not 1e+04."""
    if float(base).is_integer() and abs(base) < 1e15:
        return int(base)
    return Constant(constant(base), constant(base, tex=True))


class Build:
    """The spec being built and the helpers every family labels its results with; one per
    build. It holds no results: those flow through the states."""

    def __init__(self, spec: Spec, kept: tuple[int, ...] | None = None,
                 calc: Arithmetic | None = None, forward: Forward | None = None,
                 unread: frozenset[str] = frozenset(), few_decodes: bool = False) -> None:
        self.spec = spec
        # a summary: of many decode steps, only the first and last few (steps/decode.py)
        self.few_decodes = few_decodes
        self.unread = unread  # the ids of steps no one reads: Family.blank makes them blank
        # the whole forward pass on another spec (steps/build.py lends it): the backward family
        # needs it again for a summary's heads and for the finite-difference check
        self.forward = forward
        self.kept = kept  # the rows of the n x m matrices to keep (a summary), or None: all
        self.first_row = 0  # the first query of a block of rows (attncli/steps/row_blocks.py)
        self.in_blocks = False  # a block of rows: what reads every row is left to Family.joined
        self.row = spec.convention == "row"
        self.query_labels = token_labels(spec.queries.tokens)
        self.key_labels = token_labels(spec.keys_source.tokens)
        # the masks' keys each query sees, (n, m), made by the first head that needs them
        self.visible: dict[tuple[int, int], np.ndarray] = {}
        self.calc: Arithmetic = calc or arithmetic(spec.display.round_intermediates,
                                                   spec.display.precision, spec.dtype)

    def rows(self, first: int, stop: int) -> Build:
        """The same build on the queries first .. stop - 1 only (a block of a summary's rows)."""
        block = copy(self)
        block.first_row = self.first_row + first
        block.in_blocks = True
        block.query_labels = self.query_labels[first:stop]
        block.visible = {}  # a block's own masks, never the whole matrix's
        if self.kept is not None:
            block.kept = tuple(i - first for i in self.kept if first <= i < stop)
        return block

    def matrix(self, symbol: Formula, values: Array, rows: Labels,
               columns: Labels | None = None) -> Matrix:
        if columns is None:
            columns = feature_labels(int(values.shape[1]))
        return Matrix(symbol, values, rows, columns)

    def attention(self, symbol: Formula, values: Array) -> Matrix:
        """An n x m matrix of one head (queries by keys), whole or as a summary of the kept rows.
        A summary copies its rows out, so the whole array is freed as soon as the head is done."""
        labels = (self.query_labels, self.key_labels)
        if self.kept is None:
            return Matrix(symbol, values, *labels)
        return Matrix(symbol, values[list(self.kept)], *labels, kept=self.kept)  # (kept, m)

    def reuse(self, values: Array) -> Array | None:
        """Where the next n x m result may be written: into the last one, whose matrix is a
        summary (a copy of some rows), so nothing else reads it; None for whole matrices."""
        return values if self.kept is not None else None

    def finite(self, values: Array, name: str, rows: Labels, columns: Labels) -> None:
        """Refuse a result that overflowed float64: no silent inf or NaN downstream. In a low
        precision an overflow is a finding, reported by attncli/steps/precision.py."""
        if self.spec.dtype != "float64":
            return
        with np.errstate(over="ignore", invalid="ignore"):
            total = values.sum()  # finite only when no value is inf or NaN: one pass, no mask
        if np.isfinite(total):
            return
        bad = ~np.isfinite(values)
        if bad.any():
            i, j = (int(x) for x in np.argwhere(bad)[0])
            raise SpecError(
                Msg.of("{name}[{row}, {column}] is too large for a 64-bit float; "
                       "scale the inputs down", name=name, row=rows[i], column=columns[j]),
                Location(self.spec.source),
            )


@record
class Latents:
    """What multi-head latent attention makes once for every head (attncli/steps/latent.py)."""

    c: Array  # (m, d_c): C_KV, after its RMSNorm when the spec has one
    k_rope: Array  # (m, d_R): K_R, turned by RoPE when the spec has it
    q_from: Array  # (n, d_q): what the heads' queries are made from: X, or C_Q
    C: Matrix  # C_KV (or C̃_KV) as shown
    K_R: Matrix
    q_name: Formula  # X, X̃, C_Q or C̃_Q


@record
class State:
    """The layer so far: what the layer families have made."""

    x: Array | None = None  # (n, d_model): X, the layer's input (E, or E + P)
    context: Array | None = None  # (m, d_model): C, where keys and values come from, or None
    x_in: Array | None = None  # (n, d_model): what the heads read, X or LayerNorm(X)
    pre_normed: bool = False  # the heads read LayerNorm(X), written X̃
    heads: tuple[HeadResult, ...] = ()
    attention: Matrix | None = None  # the heads' output, side by side and through W_O
    output: Matrix | None = None  # what the layer gives back
    latent: Latents | None = None  # multi-head latent attention's latent, for every head


@record
class Bend:
    """The score soft-capping moves most: how far, its query (of every row) and key, the
    score before and after, and the symbol of the scores it was given."""

    moved: float
    i: int
    j: int
    before: float
    after: float
    given: Formula


@record
class HeadState:
    """One head so far: its inputs, then what the head families have made. Each n x m array is
    dropped from the state once the next is made: a real-size head holds few at once."""

    index: int | None  # 1-based when the spec has several heads
    head: Head
    x: Array  # (n, d_model): the rows queries are projected from
    xk: Array  # (m, d_model): the rows keys and values are projected from
    pre_normed: bool = False
    latent: Latents | None = None  # multi-head latent attention's latent, shared by the heads
    q: Array | None = None  # (n, d_k)
    k: Array | None = None  # (m, d_k)
    v: Array | None = None  # (m, d_v)
    Q: Matrix | None = None
    K: Matrix | None = None
    V: Matrix | None = None
    logits: Array | None = None  # (n, m): the latest scores, the softmax input in the end
    scores: Matrix | None = None  # their matrix: S, S′, S′ + M ...
    weights: Array | None = None  # (n, m)
    A: Matrix | None = None
    Z: Matrix | None = None
    sunk: Array | None = None  # (n,): the weight each query gave the sink, every row
    # found in a block of rows for what reads every row (Family.joined), joined over the blocks:
    bend: Bend | None = None  # the score soft-capping moves most (attncli/steps/softcap.py)
    same: bool | None = None  # the absorbed scores equal S (attncli/steps/latent_heads.py)



S = TypeVar("S", State, HeadState)
Made = tuple[tuple[Step, ...], S]
# the forward pass of a spec, as steps/build.py computes it: whole, or its n x m matrices
# in the rows given only (a summary; its output is whole either way)
Forward = Callable[[Spec, tuple[int, ...] | None], Walkthrough]


def always(spec: Spec) -> bool:
    return True


@record
class Family(Generic[S]):
    """One entry of a registry: a family of steps, and whether a spec turns it on.

    `where` names the family's function as `module.function` of attncli.steps: its module is
    imported only when a spec turns it on, so a plain example never loads what tiles, the
    backward pass or low precision need."""

    name: str
    where: str
    applies: Callable[[Spec], bool] = always
    # run in blocks of rows (attncli/steps/row_blocks.py): `module.function(build, steps, state)`
    # that completes the joined steps with what reads every row (a note on the whole column)
    joined: str | None = None
    # the ids of the steps the family makes, and `module.function(build, state)` that makes
    # them blank (no matrix, nothing worked): for a family that makes steps alone, the state
    # unchanged and nothing refused. When none of its steps is read (Build.unread), the blank
    # ones stand in their places, so every other step keeps its number.
    ids: tuple[str, ...] = ()
    blank: str | None = None
    def run(self, b: Build, state: S) -> Made[S]:
        unread = self.blank is not None and b.unread.issuperset(self.ids)
        made: Made[S] = function(self.blank if unread and self.blank else self.where)(b, state)
        return made


def function(where: str) -> Callable[..., Any]:
    """The function `module.function` of attncli.steps, its module imported now."""
    module, name = where.rsplit(".", 1)
    found: Callable[..., Any] = getattr(import_module(f"attncli.steps.{module}"), name)
    return found


def weights_shown(b: Build, named: tuple[tuple[str, Array | None], ...]) -> list[Matrix]:
    """A network's given weights as matrices (W_1 as W_{1} in LaTeX), a bias as one row; None
    ones left out."""
    matrices = []
    for name, w in named:
        if w is None:
            continue
        latex = name.replace("_", "_{") + "}"
        if w.ndim == 1:
            matrices.append(b.matrix(Formula(name, latex), w[None, :], ("",)))
        else:
            matrices.append(b.matrix(Formula(name, latex), w, feature_labels(int(w.shape[0]))))
    return matrices
