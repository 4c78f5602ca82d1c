"""The arithmetic a walkthrough is built with: full precision, or by hand.

`FullPrecision` is ops.py as it is. `HandCalculation` does what a person with a pocket calculator
does: every intermediate (Q, K, V, the scores, √d_k, each e^x, each weight, the output) is written
down rounded to the display precision and carried forward rounded. One calculator entry (a dot
product, a quotient, an e^x) is exact; only its result is rounded.

Rounding is the one rule of render/numbers.py, a person's: half up on the decimal number as it
is written (0.125 -> 0.13, and 2.675 -> 2.68, although the binary float nearest 2.675 lies below
it and numpy's round gives 2.67). The arithmetic is done in decimal, so a tie is a real tie and
never a binary accident.
"""

from __future__ import annotations

from collections.abc import Callable
from decimal import localcontext
from typing import Any, Literal, Protocol

import numpy as np
from numpy.typing import NDArray

from attncli.arithmetic.numbers import CONTEXT, as_decimal, rounded, written_decimal
from attncli.compute import ops
from attncli.model import Array, Drift, Matrix, Walkthrough
from attncli.spec.model import Dtype

Objects = NDArray[np.object_]  # an array of Decimal
written = rounded  # the one rounding rule (render/numbers.py): what a person writes down


class Arithmetic(Protocol):
    """What walkthrough.build computes with; each method is the formula of the same name in ops."""

    def project(self, x: Array, w: Array, b: Array | None,
                convention: Literal["row", "column"]) -> Array: ...
    def dot_scores(self, q: Array, k: Array) -> Array: ...
    def general_scores(self, q: Array, w: Array, k: Array) -> Array: ...
    def divisor(self, value: float) -> float: ...
    # `out`: an array the result may be written into (the input, when no longer needed)
    def scale(self, scores: Array, divisor: float, out: Array | None = None) -> Array: ...
    def softmax(self, logits: Array, out: Array | None = None) -> tuple[Array, ops.Bools]: ...
    def softmax_parts(self, logits: Array) -> tuple[Array, Array, Array, Array]: ...
    def matmul(self, a: Array, b: Array) -> Array: ...
    def attend(self, weights: Array, v: Array) -> Array: ...
    def rounded(self, a: Array) -> Array: ...


class FullPrecision:
    """float64 throughout: ops.py as it is."""

    def project(self, x: Array, w: Array, b: Array | None,
                convention: Literal["row", "column"]) -> Array:
        return ops.project(x, w, b, convention)

    def dot_scores(self, q: Array, k: Array) -> Array:
        return ops.dot_scores(q, k)

    def general_scores(self, q: Array, w: Array, k: Array) -> Array:
        return ops.general_scores(q, w, k)

    def divisor(self, value: float) -> float:
        return value

    def scale(self, scores: Array, divisor: float, out: Array | None = None) -> Array:
        return ops.scale(scores, divisor, out)

    def softmax(self, logits: Array, out: Array | None = None) -> tuple[Array, ops.Bools]:
        return ops.softmax(logits, out)

    def softmax_parts(self, logits: Array) -> tuple[Array, Array, Array, Array]:
        return ops.softmax_parts(logits)

    def matmul(self, a: Array, b: Array) -> Array:
        return a @ b  # (n, k) @ (k, m) -> (n, m)

    def attend(self, weights: Array, v: Array) -> Array:
        return ops.attend(weights, v)

    def rounded(self, a: Array) -> Array:
        """A result computed elsewhere (P, LayerNorm, an activation), carried as it is."""
        return a


class HandCalculation:
    """Decimal arithmetic on the numbers as written, each result rounded half up to `precision`
    (or, past numbers.LARGE, to m × 10^k, as it is written)."""

    def __init__(self, precision: int) -> None:
        self.precision = precision
        self._to_decimal: Callable[[Any], Any] = np.frompyfunc(as_decimal, 1, 1)
        self._round: Callable[[Any], Any] = np.frompyfunc(
            lambda d: float(written_decimal(d, precision)) if d.is_finite() else float(d), 1, 1)

    def decimals(self, a: Array) -> Objects:
        return np.asarray(self._to_decimal(a), dtype=object)

    def carry(self, d: Objects) -> Array:
        """The decimal results as the rounded floats the next step starts from."""
        return np.asarray(self._round(d), dtype=np.float64)

    def rounded(self, a: Array) -> Array:
        """A result computed elsewhere (P, LayerNorm, an activation), written down rounded."""
        return self.carry(self.decimals(a))

    def _dot(self, a: Objects, b: Objects) -> Objects:
        with localcontext(CONTEXT):
            return np.asarray(np.dot(a, b), dtype=object)

    def project(self, x: Array, w: Array, b: Array | None,
                convention: Literal["row", "column"]) -> Array:
        xs, ws = self.decimals(x), self.decimals(w)
        out = self._dot(xs, ws if convention == "row" else ws.T)  # (n, d)
        if b is not None:
            out = out + self.decimals(b)  # (n, d) + (d,)
        return self.carry(out)

    def dot_scores(self, q: Array, k: Array) -> Array:
        return self.carry(self._dot(self.decimals(q), self.decimals(k).T))  # (n, m)

    def general_scores(self, q: Array, w: Array, k: Array) -> Array:
        qw = self._dot(self.decimals(q), self.decimals(w))  # (n, d_k), one entry with the next
        return self.carry(self._dot(qw, self.decimals(k).T))  # (n, m)

    def divisor(self, value: float) -> float:
        return written(value, self.precision)  # √2 is written 1.41 and divided by as such

    def scale(self, scores: Array, divisor: float, out: Array | None = None) -> Array:
        with localcontext(CONTEXT):
            return self.carry(self.decimals(scores) / as_decimal(divisor))

    def softmax(self, logits: Array, out: Array | None = None) -> tuple[Array, ops.Bools]:
        _, _, total, weights = self.softmax_parts(logits)
        return weights, total == 0.0

    def softmax_parts(self, logits: Array) -> tuple[Array, Array, Array, Array]:
        """(shift, e, row sums, weights) of softmax by hand: each e^x and each weight rounded.
        Where the largest e^x would be written 0 (e^-1 = 0.37 with no decimals), the row's
        largest score is subtracted, so that it is 1 and the row keeps a sum to divide by."""
        shift = ops.written_shift(logits)  # (n,): 0 or the row's largest score, already rounded
        finite = np.isfinite(logits)  # (n, m)
        peak = np.max(logits, axis=1, initial=-np.inf, where=finite)  # (n,)
        seen = np.isfinite(peak)  # (n,): the rows that see a key
        with localcontext(CONTEXT):
            largest = self.carry(np.frompyfunc(lambda d: d.exp(), 1, 1)(
                self.decimals(np.where(seen, peak - shift, 0.0))))  # (n,)
            shift = np.where(seen & (largest == 0.0), peak, shift)  # (n,)
            # a hidden key is given the shift itself, e^0, then 0: e^(0 − shift) overflowed the
            # context where the row's scores are all below about −2.3·10⁶
            shifted = self.decimals(np.where(finite, logits, shift[:, None])) - self.decimals(
                shift)[:, None]  # (n, m)
            e = np.where(finite, self.carry(np.frompyfunc(lambda d: d.exp(), 1, 1)(shifted)),
                         0.0)  # (n, m)
            total = self.carry(self.decimals(e).sum(axis=1))  # (n,)
            safe = self.decimals(np.where(total > 0.0, total, 1.0))  # (n,)
            weights = self.carry(self.decimals(e) / safe[:, None])  # (n, m)
        return shift, e, total, weights

    def matmul(self, a: Array, b: Array) -> Array:
        return self.carry(self._dot(self.decimals(a), self.decimals(b)))

    def attend(self, weights: Array, v: Array) -> Array:
        return self.matmul(weights, v)  # (n, m) @ (m, d_v) -> (n, d_v)


def arithmetic(round_intermediates: bool, precision: int, dtype: Dtype = "float64") -> Arithmetic:
    if dtype != "float64":
        from attncli.compute.lowprec import (
            LowPrecision,  # imports ml_dtypes: only when it is needed
        )

        return LowPrecision(dtype)
    return HandCalculation(precision) if round_intermediates else FullPrecision()


def drift(by_hand: Walkthrough, full: Walkthrough) -> tuple[Drift, ...]:
    """Every weight and output number that prints differently by hand than at full precision."""
    found: list[Drift] = []
    for hand_head, full_head in zip(by_hand.heads, full.heads, strict=True):
        head = hand_head.index if len(by_hand.heads) > 1 else None
        for hand, exact in ((hand_head.weights, full_head.weights),
                            (hand_head.context, full_head.context)):
            found += _differences(hand, exact, head, by_hand.precision)
    if by_hand.output is not by_hand.heads[-1].context:
        found += _differences(by_hand.output, full.output, None, by_hand.precision)
    return tuple(found)


def _differences(hand: Matrix, exact: Matrix, head: int | None, precision: int) -> list[Drift]:
    """The cells that print differently; of a summary, those of the rows it holds."""
    found = []
    for i in hand.row_indices():
        by_hand, full = hand.row(i), exact.row(i)  # (columns,)
        found += [Drift(hand.symbol.text, head, hand.rows[i], hand.columns[j],
                        float(by_hand[j]), float(full[j]))
                  for j in range(len(hand.columns))
                  if np.isfinite(by_hand[j])
                  and written(float(by_hand[j]), precision) != written(float(full[j]), precision)]
    return found
