"""Multi-head latent attention (DeepSeek-V2, V3), the formulas alone: the latent and its RMSNorm,
one head's queries, keys and values from it, and the scores with W_UK absorbed into the query."""

from __future__ import annotations

import numpy as np

from attncli.compute import ops
from attncli.spec.model import Array, RMSNorm


def normed(c: Array, norm: RMSNorm | None) -> tuple[Array, Array | None]:
    """C̃ = C / RMS(C) ⊙ g over each row's features, and RMS(C) as a column; C itself without a
    norm."""
    if norm is None:
        return c, None
    rms = np.sqrt((c**2).mean(axis=1, keepdims=True) + norm.eps)  # (m, 1)
    out = c / rms  # (m, d_c)
    return (out if norm.gain is None else out * norm.gain), rms  # (m, d_c) * (d_c,)


def head_block(w: Array, index: int, width: int) -> Array:
    """The columns of head `index` (0-based) in a matrix of every head's blocks of `width`."""
    return w[:, index * width:(index + 1) * width]  # (rows, width)


def absorbed(q_c: Array, w_uk: Array) -> Array:
    """Q_C·W_UKᵀ: each query taken into the latent's space, so that it meets C_KV itself."""
    return q_c @ w_uk.T  # (n, d_nope) @ (d_nope, d_c) -> (n, d_c)


def absorbed_scores(q_latent: Array, c: Array, q_r: Array, k_r: Array) -> Array:
    """(Q_C·W_UKᵀ)·C_KVᵀ + Q_R·K_Rᵀ: the scores without any head's keys K_C."""
    return ops.dot_scores(q_latent, c) + ops.dot_scores(q_r, k_r)  # (n, m)
