"""Attention computed in a low-precision format: float32, float16 or bfloat16.

Every array stays a float64 array, but every value in it is one the format can hold: each input
and each result is rounded to the format, so a number printed to 4 decimals is the format's
value. The rounding follows PyTorch on a CPU:

- a value reaches the format through float32 (PyTorch converts a double to float16 or bfloat16
  that way: 1 + 2⁻¹¹ + 2⁻⁴⁰ becomes 1, not the nearer 1 + 2⁻¹⁰);
- a matrix product is summed in higher precision and rounded once (PyTorch's half and bfloat16
  matmul on a CPU accumulates in float32). Here the sum is taken in float64, where the products
  of float16 or bfloat16 numbers are exact, then rounded to float32 and to the format: PyTorch's
  float32 partial sums, added in an order its kernel chooses, can land a sum that lies within a
  float32 rounding of a halfway point on the other side of it (1 unit in the last place);
- an elementwise step (x − max, a quotient, a sum) is rounded once, which for +, −, ×, ÷ gives the
  correctly rounded result, as PyTorch's (float32 holds 2p + 2 bits of a p-bit format);
- e^x is taken in float64 and rounded; PyTorch takes it in float32 (to 1 unit of float32) and
  rounds: the two differ only if e^x lies within 2⁻²⁴ of a halfway point of the format.

Softmax is worked in its steps, each rounded: m = max, x − m, e^(x − m), Σ, e / Σ (PyTorch's
fused torch.softmax keeps float32 inside and rounds only the weights).
"""

from __future__ import annotations

from dataclasses import fields, is_dataclass, replace
from typing import Any, Literal

import ml_dtypes
import numpy as np
from numpy.typing import DTypeLike

from attncli.compute import ops
from attncli.i18n import Count, Power
from attncli.model import Array
from attncli.spec.model import Dtype, Spec

FORMATS: dict[str, DTypeLike] = {"float16": np.float16, "bfloat16": ml_dtypes.bfloat16,
                                 "float32": np.float32}


def to_format(a: Array, dtype: Dtype) -> Array:
    """The values of `a` rounded to `dtype` through float32 (±inf beyond its largest number, 0
    below its smallest), held as float64."""
    if dtype == "float64":
        return a
    with np.errstate(over="ignore", under="ignore", invalid="ignore"):
        return np.asarray(a, dtype=np.float64).astype(np.float32).astype(
            FORMATS[dtype]).astype(np.float64)


def finfo(dtype: Dtype) -> ml_dtypes.finfo:
    """The format's bits, gap after 1, largest and smallest numbers."""
    return ml_dtypes.finfo(  # type: ignore[no-untyped-call]
        ml_dtypes.bfloat16 if dtype == "bfloat16" else np.dtype(dtype))


def largest(dtype: Dtype) -> Count | Power:
    """The format's largest number as people write it: float16's 65,504 (65 504 in Polish and
    Russian); 3.4×10³⁸."""
    return Count(65504) if dtype == "float16" else Power(float(finfo(dtype).max))


def rounded_spec(spec: Spec) -> Spec:
    """`spec` with every number it holds (embeddings, weights, biases, a positional matrix, W of
    the general score) rounded to its dtype: the inputs as the format stores them."""
    return _rounded(spec, spec.dtype)


def _rounded(value: Any, dtype: Dtype) -> Any:
    if isinstance(value, np.ndarray) and value.dtype == np.float64:
        return to_format(value, dtype)
    if isinstance(value, tuple):
        return tuple(_rounded(item, dtype) for item in value)
    if is_dataclass(value) and not isinstance(value, type):
        changed = {f.name: _rounded(getattr(value, f.name), dtype) for f in fields(value)
                   if f.init}
        return replace(value, **changed)
    return value


class LowPrecision:
    """The Arithmetic of attncli/arithmetic/handcalc.py, every result rounded to `dtype`."""

    def __init__(self, dtype: Dtype) -> None:
        self.dtype = dtype

    def round(self, a: Array) -> Array:
        return to_format(a, self.dtype)

    def matmul(self, a: Array, b: Array) -> Array:
        # summed in float64, rounded once; ops.ROWS rows at a time, as in float64, so a block of
        # rows (attncli/steps/row_blocks.py) gives the whole product's numbers
        return self.round(ops.by_rows(a, b))  # (n, k) @ (k, m) -> (n, m)

    def project(self, x: Array, w: Array, b: Array | None,
                convention: Literal["row", "column"]) -> Array:
        out = self.round(ops.project(x, w, None, convention))  # (n, d)
        return out if b is None else self.round(out + b)  # (n, d) + (d,)

    def dot_scores(self, q: Array, k: Array) -> Array:
        return self.matmul(q, k.T)  # (n, d_k) @ (d_k, m) -> (n, m)

    def general_scores(self, q: Array, w: Array, k: Array) -> Array:
        return self.matmul(self.matmul(q, w), k.T)  # ((n, d_k) @ (d_k, d_k)) @ (d_k, m)

    def divisor(self, value: float) -> float:
        return float(self.round(np.array([value]))[0])  # √2 in float16 is 1.4140625

    def scale(self, scores: Array, divisor: float, out: Array | None = None) -> Array:
        return self.round(scores / self.divisor(divisor))  # (n, m)

    def softmax(self, logits: Array, out: Array | None = None) -> tuple[Array, ops.Bools]:
        _, _, total, weights = self.softmax_parts(logits)
        return weights, total == 0.0

    def softmax_parts(self, logits: Array) -> tuple[Array, Array, Array, Array]:
        """(m (n,), e^(x − m) (n, m), Σ (n,), weights (n, m)), every one in the format; a row that
        sees no key has m = 0, Σ = 0 and weights 0."""
        visible = ~np.isneginf(logits)  # (n, m): -inf is a hidden key; +inf, an overflow, is seen
        with np.errstate(invalid="ignore"):
            peak = np.max(logits, axis=1, initial=-np.inf, where=visible)  # (n,)
        peak = np.where(np.isneginf(peak), 0.0, peak)  # (n,): a row that sees no key
        with np.errstate(over="ignore", under="ignore", invalid="ignore"):
            shifted = self.round(np.where(visible, logits, 0.0) - peak[:, None])  # (n, m)
            e = np.where(visible, self.round(np.exp(shifted)), 0.0)  # (n, m); inf − inf is NaN
            total = self.round(e.sum(axis=1))  # (n,)
            weights = self.round(e / np.where(total == 0.0, 1.0, total)[:, None])  # (n, m)
        return peak, e, total, weights

    def attend(self, weights: Array, v: Array) -> Array:
        return self.matmul(weights, v)  # (n, m) @ (m, d_v) -> (n, d_v)

    def rounded(self, a: Array) -> Array:
        """A result computed elsewhere (P, E + P), rounded to the format."""
        return self.round(a)
