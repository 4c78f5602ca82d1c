"""Multi-head latent attention (DeepSeek-V2, V3), the formulas alone: the latent and its RMSNorm,
one head's queries, keys and values from it, and the scores with W_UK absorbed into the query."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from attncli.spec.model import Array, RMSNorm


def normed(c: Array, norm: RMSNorm | None,
           written: Callable[[Array], Array] = lambda a: a) -> tuple[Array, Array | None]:
    """C̃ = C / RMS(C) ⊙ g over each row's features, and RMS(C) as a column; C itself without a
    norm. `written`: how a result is written down (rounded, in hand calculation), RMS(C) before
    it divides."""
    if norm is None:
        return c, None
    rms = written(np.sqrt((c**2).mean(axis=1, keepdims=True) + norm.eps))  # (m, 1)
    out = c / rms  # (m, d_c)
    return written(out if norm.gain is None else out * norm.gain), rms  # (m, d_c) * (d_c,)


def head_block(w: Array, index: int, width: int) -> Array:
    """The columns of head `index` (0-based) in a matrix of every head's blocks of `width`."""
    return w[:, index * width:(index + 1) * width]  # (rows, width)


def absorbed_parts(q_latent: Array, q_r: Array, c: Array,
                   k_r: Array) -> tuple[Array, Array]:
    """[Q_C·W_UKᵀ | Q_R] and [C_KV | K_R]: their products are (Q_C·W_UKᵀ)·C_KVᵀ + Q_R·K_Rᵀ, the
    scores without any head's keys K_C, one dot product a score."""
    queries = np.concatenate([q_latent, q_r], axis=1)  # (n, d_c + d_R)
    keys = np.concatenate([c, k_r], axis=1)  # (m, d_c + d_R)
    return queries, keys
