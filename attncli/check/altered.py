"""Arithmetic that goes wrong in one known way: the computational half of attn check's slips.

Each class is the spec's own arithmetic (full precision or by hand) with one formula replaced,
so a slip is computed by the same walkthrough code as the right answer.
"""

from __future__ import annotations

from typing import Literal

import numpy as np

from attncli.arithmetic.handcalc import Arithmetic, FullPrecision
from attncli.compute import ops
from attncli.model import Array


class Delegate:
    """`inner`'s arithmetic, unchanged; a subclass replaces one formula."""

    def __init__(self, inner: Arithmetic) -> None:
        self.inner = inner

    def project(self, x: Array, w: Array, b: Array | None,
                convention: Literal["row", "column"]) -> Array:
        return self.inner.project(x, w, b, convention)

    def dot_scores(self, q: Array, k: Array) -> Array:
        return self.inner.dot_scores(q, k)

    def general_scores(self, q: Array, w: Array, k: Array) -> Array:
        return self.inner.general_scores(q, w, k)

    def divisor(self, value: float) -> float:
        return self.inner.divisor(value)

    def scale(self, scores: Array, divisor: float, out: Array | None = None) -> Array:
        return self.inner.scale(scores, divisor)

    def softmax(self, logits: Array, out: Array | None = None) -> tuple[Array, ops.Bools]:
        return self.inner.softmax(logits)

    def softmax_parts(self, logits: Array) -> tuple[Array, Array, Array, Array]:
        return self.inner.softmax_parts(logits)

    def matmul(self, a: Array, b: Array) -> Array:
        return self.inner.matmul(a, b)

    def attend(self, weights: Array, v: Array) -> Array:
        return self.inner.attend(weights, v)

    def rounded(self, a: Array) -> Array:
        return self.inner.rounded(a)


class ColumnSoftmax(Delegate):
    """Softmax down each column (over the queries) instead of along each row."""

    def softmax(self, logits: Array, out: Array | None = None) -> tuple[Array, ops.Bools]:
        weights, _ = self.inner.softmax(np.ascontiguousarray(logits.T))  # (m, n)
        # (n,): a query that sees no key
        empty: ops.Bools = ~np.any(np.isfinite(logits), axis=1, keepdims=False)
        return np.ascontiguousarray(weights.T), empty  # (n, m)


class AddedMask(Delegate):
    """The scores plus a 0/1 matrix (`added`, (n, m)) instead of 0/−∞: hidden keys keep weight."""

    def __init__(self, inner: Arithmetic, added: Array) -> None:
        super().__init__(inner)
        self.added = added  # (n, m)

    def softmax(self, logits: Array, out: Array | None = None) -> tuple[Array, ops.Bools]:
        return self.inner.softmax(self.inner.rounded(logits + self.added))  # (n, m)


class MaskAfterSoftmax(Delegate):
    """Softmax over every key, then the hidden weights set to 0, the rows left summing to less
    than 1."""

    def __init__(self, inner: Arithmetic, visible: ops.Bools) -> None:
        super().__init__(inner)
        self.visible = visible  # (n, m)

    def softmax(self, logits: Array, out: Array | None = None) -> tuple[Array, ops.Bools]:
        weights, _ = self.inner.softmax(logits)  # (n, m)
        empty: ops.Bools = ~np.any(self.visible, axis=1, keepdims=False)  # (n,)
        return np.where(self.visible, weights, 0.0).astype(np.float64), empty  # (n, m)


class OnRows(Delegate):
    """`inner`'s arithmetic on the query rows `rows` only, full precision on the rest: the slip
    finder's bound (attncli/check/compare.py). Only the formulas whose every result row is its
    own query's are narrowed (the scores, their scaling, softmax, A·V); K, V and every other
    result stay `inner`'s whole, so the rows kept are exactly what `inner` gives them."""

    def __init__(self, inner: Arithmetic, rows: tuple[int, ...], n: int) -> None:
        super().__init__(inner)
        self.rows, self.n, self.fast = list(rows), n, FullPrecision()

    def _narrowed(self, a: Array) -> bool:
        return a.ndim == 2 and a.shape[0] == self.n

    def dot_scores(self, q: Array, k: Array) -> Array:
        if not self._narrowed(q):
            return self.inner.dot_scores(q, k)
        out = self.fast.dot_scores(q, k)  # (n, m)
        out[self.rows] = self.inner.dot_scores(q[self.rows], k)  # (rows, m)
        return out

    def general_scores(self, q: Array, w: Array, k: Array) -> Array:
        if not self._narrowed(q):
            return self.inner.general_scores(q, w, k)
        out = self.fast.general_scores(q, w, k)  # (n, m)
        out[self.rows] = self.inner.general_scores(q[self.rows], w, k)  # (rows, m)
        return out

    def scale(self, scores: Array, divisor: float, out: Array | None = None) -> Array:
        if not self._narrowed(scores):
            return self.inner.scale(scores, divisor)
        made = self.fast.scale(scores, divisor)  # (n, m)
        made[self.rows] = self.inner.scale(scores[self.rows], divisor)  # (rows, m)
        return made

    def softmax(self, logits: Array, out: Array | None = None) -> tuple[Array, ops.Bools]:
        if not self._narrowed(logits):
            return self.inner.softmax(logits)
        weights, empty = self.fast.softmax(logits)  # (n, m), (n,)
        weights[self.rows], empty[self.rows] = self.inner.softmax(logits[self.rows])
        return weights, empty

    def attend(self, weights: Array, v: Array) -> Array:
        if not self._narrowed(weights):
            return self.inner.attend(weights, v)
        z = self.fast.attend(weights, v)  # (n, m) @ (m, d_v) -> (n, d_v)
        z[self.rows] = self.inner.attend(weights[self.rows], v)  # (rows, d_v)
        return z
