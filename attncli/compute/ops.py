"""The formulas of attention, pure NumPy, float64, one function each.

Shapes: n queries, m keys, d_model input features, d_k query/key features, d_v value features.
A hidden score is -inf; `visible` is the boolean (n, m) matrix of keys each query may see.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from typing import Literal

import numpy as np
from numpy.typing import NDArray

from attncli.compute.rope_scaling import frequencies
from attncli.spec.model import RopeScaling

Array = NDArray[np.float64]
Bools = NDArray[np.bool_]
Ints = NDArray[np.int64]


def project(x: Array, w: Array, b: Array | None, convention: Literal["row", "column"]) -> Array:
    """Q = X·W (+ b) in the row convention; q_i = W·x_i (+ b), stacked as rows, in the column."""
    if is_identity(w):  # a projection left out: X·I = X, without n·d² multiplications
        out = x + 0.0  # (n, d_model); + 0.0 makes -0.0 0.0, as X·I does
        return out if b is None else out + b  # (n, d) + (d,)
    out = x @ w if convention == "row" else x @ w.T  # (n, d_model) @ (d_model, d) -> (n, d)
    return out if b is None else out + b  # (n, d) + (d,)


def is_identity(w: Array) -> bool:
    n, m = w.shape  # (d, d) when it is one
    return n == m and bool(np.all(w.ravel()[:: n + 1] == 1.0)) and np.count_nonzero(w) == n


# Products over keys are taken ROWS queries at a time, from rows 0, 512, 1024 ...: BLAS sums a row
# in an order that depends on the rows computed with it, so fixed blocks give each row the same
# numbers whether the whole matrix is computed or a block of its rows (attncli/steps/row_blocks.py,
# whose blocks start at multiples of ROWS).
ROWS = 512


def by_rows(a: Array, b: Array) -> Array:
    """a @ b, ROWS rows of a at a time."""
    if a.shape[0] <= ROWS:
        return a @ b  # (n, k) @ (k, m) -> (n, m)
    out = np.empty((a.shape[0], b.shape[1]), dtype=np.result_type(a, b))  # (n, m)
    for first in range(0, a.shape[0], ROWS):
        np.matmul(a[first:first + ROWS], b, out=out[first:first + ROWS])  # (ROWS, m)
    return out


def dot_scores(q: Array, k: Array) -> Array:
    """S = Q·Kᵀ: S[i, j] = q_i·k_j."""
    return by_rows(q, k.T)  # (n, d_k) @ (d_k, m) -> (n, m)


def general_scores(q: Array, w: Array, k: Array) -> Array:
    """S = Q·W·Kᵀ: S[i, j] = q_iᵀ W k_j (the `general` similarity)."""
    return by_rows(by_rows(q, w), k.T)  # (n, d_k) @ (d_k, d_k) @ (d_k, m) -> (n, m)


def scale(scores: Array, divisor: float, out: Array | None = None) -> Array:
    """S / divisor; written into `out` when given (the scores themselves, when no longer needed:
    an n x m array of a real-size model is 32 MB, and a fresh one costs as much as the division)."""
    return np.divide(scores, divisor, out=out)  # (n, m)


def softcap(scores: Array, cap: float, out: Array | None = None) -> Array:
    """cap·tanh(scores / cap) (Gemma 2): about the score while it is small beside the cap, never
    past ±cap; written into `out` when given, as `scale` is."""
    capped = np.divide(scores, cap, out=out)  # (n, m)
    np.tanh(capped, out=capped)  # (n, m)
    return np.multiply(capped, cap, out=capped)  # (n, m)


def causal(n: int, m: int, first: int = 0) -> Bools:
    """Query i sees keys j <= i; the rows of queries first .. first + n - 1."""
    return np.tri(n, m, k=first, dtype=bool)  # (n, m)


def window(n: int, m: int, width: int, causal_only: bool, sink_tokens: int = 0,
           first: int = 0) -> Bools:
    """Query i sees keys with |i - j| <= width and the first `sink_tokens` keys (StreamingLLM's
    attention sinks), of these only j <= i when causal; the rows of queries first .. first + n - 1.
    Built from two triangles of booleans, with no n x m array of offsets."""
    width = min(width, first + n + m)  # wider than every distance: as wide (2⁶³ overflows NumPy)
    last = first if causal_only else first + width  # the furthest key right of query i: i + last
    inside = np.tri(n, m, k=last, dtype=bool)  # (n, m): j <= i + last
    inside &= ~np.tri(n, m, k=first - width - 1, dtype=bool)  # (n, m): and j >= i - width
    sinks = min(sink_tokens, m)
    if sinks:  # the first keys: seen by every query, or by those at or after them when causal
        inside[:, :sinks] = np.tri(n, sinks, k=first, dtype=bool) if causal_only else True
    return inside  # (n, m)


def padding(n: int, keep: Iterable[bool]) -> Bools:
    """Key j is visible to every query where keep[j]: one row, read-only, seen n times."""
    row = np.asarray(tuple(keep), dtype=bool)  # (m,)
    return np.broadcast_to(row, (n, row.shape[0]))  # (n, m), no copy


def apply_mask(scores: Array, visible: Bools, out: Array | None = None) -> Array:
    """S + M, with M = 0 where visible and -inf where hidden; into `out` when given (see scale)."""
    if out is None:
        return np.where(visible, scores, -np.inf)  # (n, m)
    if out is not scores:
        np.copyto(out, scores)
    np.copyto(out, -np.inf, where=~visible)
    return out  # (n, m)


def softmax(logits: Array, out: Array | None = None) -> tuple[Array, NDArray[np.bool_]]:
    """Row-wise softmax, max-subtracted so that scores of ±1e300 neither overflow nor underflow.

    Returns the weights (in `out` when given, see scale) and which rows had no visible key at all
    (their weights are all 0).
    """
    peak = np.max(logits, axis=1, keepdims=True)  # (n, 1)
    if np.isfinite(peak).all():  # every row sees a key, and no score is +inf or NaN
        # The same numbers as below, without two n x m masks: e^-inf is already 0.
        e = out if out is not None else np.empty_like(logits)  # (n, m)
        bands = visible_bands(logits)
        with np.errstate(under="ignore"):
            for rows, runs in bands:
                stop = 0
                for columns in runs:
                    e[rows, stop:columns.start] = 0.0  # e^-inf, the keys hidden before them
                    band = e[rows, columns]  # (BAND, keys from the first seen to the last)
                    np.subtract(logits[rows, columns], peak[rows], out=band)  # every entry <= 0
                    np.exp(band, out=band)
                    stop = columns.stop
                e[rows, stop:] = 0.0  # and after the last
        total = e.sum(axis=1, keepdims=True)  # (n, 1), every row's whole sum, as before
        for rows, runs in bands:  # 0 / total is the 0 already there
            for columns in runs:
                np.divide(e[rows, columns], total[rows], out=e[rows, columns])  # (BAND, keys)
        return e, np.zeros(logits.shape[0], dtype=bool)  # (n, m), (n,)
    finite = np.isfinite(logits)  # (n, m): -inf marks a hidden key
    empty: Bools = ~np.any(finite, axis=1, keepdims=False)  # (n,)
    peak = np.max(logits, axis=1, keepdims=True, initial=-np.inf, where=finite)  # (n, 1)
    peak[empty] = 0.0
    # One n x m array, worked in place: a real-size head has little memory to spare.
    with np.errstate(over="ignore", under="ignore", invalid="ignore"):
        e = np.subtract(logits, peak, out=out)  # (n, m), every visible entry <= 0
        np.exp(e, out=e)  # the largest visible entry of each row is 1
    np.copyto(e, 0.0, where=~finite)  # a hidden key: e^-inf = 0
    total = e.sum(axis=1, keepdims=True)  # (n, 1)
    total[empty] = 1.0
    e /= total  # (n, m)
    return e, empty  # (n, m), (n,)


# Rows of a band whose hidden keys at either end are written as 0 rather than as e^-inf: a causal
# mask hides half of a layer's scores, and e^-inf costs libm three times a finite e^x.
BAND = 64


def visible_bands(logits: Array) -> list[tuple[slice, tuple[slice, ...]]]:
    """Bands of BAND rows, each with the columns from the first key any of its rows sees to the
    last (a score > -inf, of scores without NaN or +inf): softmax takes e^x of those columns
    and writes 0, the number e^-inf gives, for the hidden keys outside them. A band whose last
    column is seen apart from the others (a sink, a key every query sees) has it as a run of
    its own, so the hidden keys between are written 0 too."""
    n, m = logits.shape
    bands: list[tuple[slice, tuple[slice, ...]]] = []
    for first in range(0, n, BAND):
        rows = slice(first, first + BAND)
        seen = np.flatnonzero((logits[rows] != -np.inf).any(axis=0))  # (visible columns,)
        if not len(seen):
            bands.append((rows, (slice(0, m),)))
            continue
        low, high = int(seen[0]), int(seen[-1]) + 1
        if len(seen) > 1 and int(seen[-2]) + 1 < high - 1:  # the last seen key stands apart
            bands.append((rows, (slice(low, int(seen[-2]) + 1), slice(high - 1, high))))
        else:
            bands.append((rows, (slice(low, high),)))
    return bands


# Above e^9.21 = 10^4, e^x stops being a number one reads at a glance (and soon overflows).
READABLE_EXP = math.log(1e4)


def written_shift(logits: Array) -> Array:
    """What a person subtracts from each row before e^x: nothing while the largest visible score
    lies in [-1, ln 10^4], so e^x of it reads between 1/e ≈ 0.37 and 10^4; else that largest
    score, so the largest e^x is exactly 1. Either way the weights are the same."""
    finite = np.isfinite(logits)  # (n, m)
    peak = np.max(logits, axis=1, initial=-np.inf, where=finite)  # (n,)
    keep = ~np.isfinite(peak) | ((peak >= -1.0) & (peak <= READABLE_EXP))  # (n,)
    return np.where(keep, 0.0, peak)  # (n,)


def softmax_parts(logits: Array) -> tuple[Array, Array, Array, Array]:
    """Softmax as it is written out: (shift (n,), e^(x - shift) (n, m), row sums (n,), weights)."""
    shift = written_shift(logits)  # (n,)
    finite = np.isfinite(logits)  # (n, m)
    with np.errstate(over="ignore", under="ignore", invalid="ignore"):
        e = np.where(finite, np.exp(np.where(finite, logits, 0.0) - shift[:, None]), 0.0)  # (n, m)
    total = e.sum(axis=1)  # (n,)
    weights = e / np.where(total > 0.0, total, 1.0)[:, None]  # (n, m)
    return shift, e, total, weights


def attend(weights: Array, v: Array) -> Array:
    """Z = A·V: each output row is the weighted sum of the value rows."""
    return by_rows(weights, v)  # (n, m) @ (m, d_v) -> (n, d_v)


def sinusoidal(n: int, d: int, base: float = 10000.0) -> Array:
    """P[k, 2i] = sin(k / base^(2i/d)), P[k, 2i+1] = cos(k / base^(2i/d)) (Vaswani et al.)."""
    k = np.arange(n, dtype=np.float64)[:, None]  # (n, 1): the positions 0 .. n-1
    pair = np.arange(d) // 2  # (d,): i of column 2i and of column 2i+1
    angle = k / base ** (2 * pair / d)  # (n, 1) / (d,) -> (n, d)
    return np.where(np.arange(d) % 2 == 0, np.sin(angle), np.cos(angle))  # (n, d)


def concat(heads: Iterable[Array]) -> Array:
    """Concat(head_1, ..., head_h): the heads' outputs side by side."""
    return np.concatenate(tuple(heads), axis=1)  # h x (n, d_v) -> (n, h·d_v)


def layer_norm(x: Array, gain: Array | None, bias: Array | None, eps: float) -> Array:
    """gain·(x - μ)/√(σ² + eps) + bias over the features of each row (σ² the biased variance)."""
    mu = x.mean(axis=1, keepdims=True)  # (n, 1)
    var = ((x - mu) ** 2).mean(axis=1, keepdims=True)  # (n, 1)
    y = (x - mu) / np.sqrt(var + eps)  # (n, d)
    if gain is not None:
        y = y * gain  # (n, d) * (d,)
    return y if bias is None else y + bias  # (n, d) + (d,)


def relu(x: Array) -> Array:
    return np.maximum(x, 0.0)  # (n, d_ff)


def gelu(x: Array) -> Array:
    """x·Φ(x) with the exact normal CDF, as PyTorch's default GELU."""
    erf = np.vectorize(math.erf, otypes=[np.float64])
    return 0.5 * x * (1.0 + erf(x / math.sqrt(2.0)))  # (n, d_ff)


def gelu_tanh(x: Array) -> Array:
    """GELU's tanh approximation, GPT-2's `gelu_new` and PyTorch's gelu(approximate="tanh"):
    0.5·x·(1 + tanh(√(2/π)·(x + 0.044715·x³)))."""
    inner = math.sqrt(2.0 / math.pi) * (x + 0.044715 * x**3)  # (n, d_ff)
    return 0.5 * x * (1.0 + np.tanh(inner))  # (n, d_ff)


def rope_angles(positions: int, d_k: int, base: float = 10000.0,
                scaling: RopeScaling | None = None) -> Array:
    """RoPE's rotation angles p·θᵢ, θᵢ = base^(−2i/d_k) (Su et al.), scaled as `scaling` says,
    for p = 0 .. positions-1."""
    theta = frequencies(d_k, base, scaling)  # (d_k/2,)
    p = np.arange(positions, dtype=np.float64)[:, None]  # (p, 1)
    return p * theta  # (p, 1) * (d_k/2,) -> (p, d_k/2)


def rope_pairs(d_k: int, layout: Literal["half", "interleaved"]) -> tuple[Ints, Ints]:
    """Which features RoPE rotates together: (i, i + d_k/2) in the `half` layout (GPT-NeoX,
    Llama), (2i, 2i+1) in the `interleaved` one (GPT-J, RoFormer); pair i turns by p·θᵢ."""
    i = np.arange(d_k // 2)  # (d_k/2,)
    if layout == "half":
        return i, i + d_k // 2
    return 2 * i, 2 * i + 1


def rope(x: Array, angles: Array, layout: Literal["half", "interleaved"],
         factor: float = 1.0) -> Array:
    """Each row p of x with every pair of features (a, b) turned by angles[p]:
    (a, b) -> (a·cos − b·sin, a·sin + b·cos), cos and sin times `factor` (YaRN's)."""
    first, second = rope_pairs(x.shape[1], layout)  # (d_k/2,), (d_k/2,)
    cos, sin = np.cos(angles) * factor, np.sin(angles) * factor  # (n, d_k/2)
    a, b = x[:, first], x[:, second]  # (n, d_k/2)
    out = np.empty_like(x)  # (n, d_k)
    out[:, first] = a * cos - b * sin
    out[:, second] = a * sin + b * cos
    return out


def alibi_slopes(h: int) -> Array:
    """ALiBi's head slopes (Press et al.): 2^(−8i/h) for i = 1 .. h when h is a power of 2; else
    those of the power of 2 below h, then every other slope of twice that, as the paper's code."""
    def powers(count: int) -> list[float]:
        return [2.0 ** (-8.0 * i / count) for i in range(1, count + 1)]

    below = 1 << (h.bit_length() - 1)  # the largest power of 2 <= h
    slopes = powers(below) + powers(2 * below)[0::2][: h - below]
    return np.array(slopes, dtype=np.float64)  # (h,)


def alibi(n: int, m: int, slope: float, first: int = 0) -> Array:
    """B[i, j] = −slope·|i − j|: a key further from the query gets a lower score (for j <= i,
    the paper's −slope·(i − j)); the rows of queries first .. first + n - 1."""
    queries = np.arange(first, first + n, dtype=np.float64)  # (n,)
    bias = np.subtract.outer(queries, np.arange(m, dtype=np.float64))  # (n, m): i - j, exact
    np.abs(bias, out=bias)  # (n, m), in place
    return np.multiply(bias, -slope, out=bias)  # (n, m), in place


def rms_norm(x: Array, gain: Array | None, eps: float) -> Array:
    """gain·x / √(mean(x²) + eps) over the features of each row (Zhang and Sennrich)."""
    rms = np.sqrt((x**2).mean(axis=1, keepdims=True) + eps)  # (n, 1)
    y = x / rms  # (n, d)
    return y if gain is None else y * gain  # (n, d) * (d,)


def silu(x: Array) -> Array:
    """x·σ(x), written so that a large negative x gives 0 without overflow."""
    return x * 0.5 * (1.0 + np.tanh(0.5 * x))  # (n, d_ff): σ(x) = (1 + tanh(x/2)) / 2


# the activation of each feed-forward kind; a gated kind (swiglu, geglu) gates with the same
ACTIVATION = {"relu": relu, "gelu": gelu, "gelu_tanh": gelu_tanh, "silu": silu, "swiglu": silu,
              "geglu": gelu, "geglu_tanh": gelu_tanh}
