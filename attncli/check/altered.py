"""Arithmetic that goes wrong in one known way: the computational half of attn check's slips.

Each class is the spec's own arithmetic (full precision or by hand) with one formula replaced,
so a slip is computed by the same walkthrough code as the right answer.
"""

from __future__ import annotations

from typing import Literal

import numpy as np

from attncli.arithmetic.handcalc import Arithmetic
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
