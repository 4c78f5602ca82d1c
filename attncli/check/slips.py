"""The catalogue of known slips: each a name, the first step it changes, and how to compute it.

A slip is a spec altered the way the student went wrong (no scaling, W transposed, the causal
mask reversed ...), or the spec's arithmetic with one formula replaced (softmax over columns, the
mask after softmax; see altered.py). Either way the numbers come from the same walkthrough code
as the right answer. A slip that does not apply to a spec (no mask to misplace, no square W to
transpose) gives no variant.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import replace

import numpy as np

from attncli.arithmetic.handcalc import Arithmetic, arithmetic
from attncli.check.altered import AddedMask, ColumnSoftmax, MaskAfterSoftmax
from attncli.compute import ops
from attncli.i18n import Msg
from attncli.model import Array
from attncli.records import record
from attncli.spec.model import CausalMask, Mask, MatrixMask, Scale, Score, Spec, WindowMask
from attncli.steps.masks import visible_keys


@record
class Situation:
    """What a slip needs to know: the spec, the head answered (0-based) and the student's
    precision (the most decimals written)."""

    spec: Spec
    head: int
    decimals: int

    def calc(self) -> Arithmetic:
        """The spec's own arithmetic, which a computational slip alters."""
        return arithmetic(self.spec.display.round_intermediates, self.spec.display.precision)

    def visible(self) -> ops.Bools:
        return visible_keys(self.spec.masks, self.spec.queries.n, self.spec.keys_source.n)


@record
class Variant:
    """One way of going wrong, ready to compute: an altered spec, perhaps altered arithmetic."""

    name: Msg
    spec: Spec
    calc: Arithmetic | None = None


@record
class Slip:
    id: str
    first: str  # the first step whose numbers it changes (steps before it are unaffected)
    variants: Callable[[Situation], tuple[Variant, ...]]


def no_scaling(s: Situation) -> tuple[Variant, ...]:
    if s.spec.scale.kind == "none":
        return ()
    return (Variant(Msg.of("the scores not divided by √d_k (no scaling)"),
                    replace(s.spec, scale=Scale("none"))),)


def sqrt_d_model(s: Situation) -> tuple[Variant, ...]:
    if s.spec.scale.kind != "sqrt_dk":
        return ()
    d_model = s.spec.queries.d_model
    divisor = s.calc().divisor(math.sqrt(d_model))
    return (Variant(Msg.of("the scores divided by √d_model = √{d_model} instead of √d_k",
                           d_model=d_model),
                    replace(s.spec, scale=Scale("number", divisor))),)


def d_k_unrooted(s: Situation) -> tuple[Variant, ...]:
    if s.spec.scale.kind != "sqrt_dk":
        return ()
    d_k = s.spec.heads[s.head].d_k(s.spec.convention)
    return (Variant(Msg.of("the scores divided by d_k = {d_k} instead of √d_k", d_k=d_k),
                    replace(s.spec, scale=Scale("number", float(d_k)))),)


def softmax_columns(s: Situation) -> tuple[Variant, ...]:
    return (Variant(Msg.of("softmax over columns"), s.spec, ColumnSoftmax(s.calc())),)


def mask_added(s: Situation) -> tuple[Variant, ...]:
    if not s.spec.masks:
        return ()
    seen = s.visible().astype(np.float64)  # (n, m): 1 where a key is seen
    unmasked = replace(s.spec, masks=())
    return (Variant(Msg.of("the mask added as 0/1 (1 where a key is seen) instead of 0/−∞"),
                    unmasked, AddedMask(s.calc(), seen)),
            Variant(Msg.of("the mask added as 0/1 (1 where a key is hidden) instead of 0/−∞"),
                    unmasked, AddedMask(s.calc(), 1.0 - seen)))


def mask_after_softmax(s: Situation) -> tuple[Variant, ...]:
    """Softmax over every key, then the hidden weights zeroed. (Zeroing and then summing each row
    back to 1 is softmax over the visible keys, the right answer: no slip.)"""
    if not s.spec.masks:
        return ()
    return (Variant(Msg.of("the mask applied after softmax, without summing the rows back to 1"),
                    replace(s.spec, masks=()), MaskAfterSoftmax(s.calc(), s.visible())),)


def keys_not_transposed(s: Situation) -> tuple[Variant, ...]:
    """K·Qᵀ instead of Q·Kᵀ: every score S[i, j] becomes S[j, i] (self-attention only)."""
    spec = s.spec
    if spec.context is not None:
        return ()
    heads = tuple(replace(h, W_Q=h.W_K, W_K=h.W_Q, b_Q=h.b_K, b_K=h.b_Q) for h in spec.heads)
    score = spec.score if spec.score.W is None else Score("general", spec.score.W.T)
    return (Variant(Msg.of("Kᵀ forgotten: the scores transposed, S[i, j] = k_i·q_j"),
                    replace(spec, heads=heads, score=score)),)


def weights_transposed(s: Situation) -> tuple[Variant, ...]:
    """x·Wᵀ for x·W (or Wᵀ·x for W·x): every square projection used the wrong way round."""
    spec = s.spec

    def flip(w: Array) -> Array:
        return w.T.copy() if w.shape[0] == w.shape[1] else w

    heads = tuple(replace(h, W_Q=flip(h.W_Q), W_K=flip(h.W_K), W_V=flip(h.W_V))
                  for h in spec.heads)
    w_o = None if spec.W_O is None else flip(spec.W_O)
    name = (Msg.of("the weights transposed: W·x instead of x·W") if spec.convention == "row"
            else Msg.of("the weights transposed: x·W instead of W·x"))
    return (Variant(name, replace(spec, heads=heads, W_O=w_o)),)


def causal_reversed(s: Situation) -> tuple[Variant, ...]:
    """Each query sees itself and the keys after it, instead of those before it."""
    spec = s.spec
    n, m = spec.queries.n, spec.keys_source.n
    ahead = ops.causal(m, n).T  # (n, m): query i sees key j when j >= i

    def flip(mask: Mask) -> Mask:
        if isinstance(mask, CausalMask):
            return MatrixMask(ahead)
        if isinstance(mask, WindowMask) and mask.causal:
            return MatrixMask(ops.window(n, m, mask.width, False, mask.sink_tokens) & ahead)
        return mask

    if not any(isinstance(mk, CausalMask) or (isinstance(mk, WindowMask) and mk.causal)
               for mk in spec.masks):
        return ()
    return (Variant(Msg.of("the causal mask the wrong way round: each query sees the keys after "
                           "it"), replace(spec, masks=tuple(flip(mk) for mk in spec.masks))),)


def rounded_early(s: Situation) -> tuple[Variant, ...]:
    """Every intermediate rounded to the student's precision (or, when the spec itself rounds,
    carried at full precision)."""
    display = s.spec.display
    if display.round_intermediates:
        return (Variant(Msg.of("the intermediates carried at full precision instead of rounded"),
                        replace(s.spec, display=replace(display, round_intermediates=False))),)
    name = Msg.plural_of("every intermediate rounded to {count} decimal along the way",
                         "every intermediate rounded to {count} decimals along the way",
                         s.decimals)
    return (Variant(name, replace(s.spec, display=replace(display, round_intermediates=True,
                                                          precision=s.decimals))),)


def wrong_slice(s: Situation) -> tuple[Variant, ...]:
    """A head of a fused W_Q, W_K, W_V (`heads: h`) given another head's columns."""
    spec = s.spec
    mine = spec.heads[s.head]
    if mine.split is None:
        return ()
    found = []
    for j, other in enumerate(spec.heads):
        if j == s.head or other.W_Q.shape != mine.W_Q.shape or other.W_V.shape != mine.W_V.shape:
            continue
        heads = list(spec.heads)
        heads[s.head] = replace(mine, W_Q=other.W_Q, W_K=other.W_K, W_V=other.W_V, b_Q=other.b_Q,
                                b_K=other.b_K, b_V=other.b_V)
        if spec.convention == "row":
            name = Msg.of("head {head} given the columns of head {other} of W_Q, W_K and W_V",
                          head=s.head + 1, other=j + 1)
        else:
            name = Msg.of("head {head} given the rows of head {other} of W_Q, W_K and W_V",
                          head=s.head + 1, other=j + 1)
        found.append(Variant(name, replace(spec, heads=tuple(heads))))
    return tuple(found)


CATALOGUE: tuple[Slip, ...] = (
    Slip("no_scaling", "scaled", no_scaling),
    Slip("sqrt_d_model", "scaled", sqrt_d_model),
    Slip("d_k_unrooted", "scaled", d_k_unrooted),
    Slip("softmax_columns", "weights", softmax_columns),
    Slip("mask_added", "weights", mask_added),
    Slip("mask_after_softmax", "weights", mask_after_softmax),
    Slip("keys_not_transposed", "scores", keys_not_transposed),
    Slip("weights_transposed", "projections", weights_transposed),
    Slip("causal_reversed", "masked", causal_reversed),
    Slip("rounded_early", "projections", rounded_early),
    Slip("wrong_slice", "parameters", wrong_slice),
)
