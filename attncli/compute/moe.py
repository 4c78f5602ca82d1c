"""A mixture of experts as gpt-oss computes it (transformers' GptOssTopKRouter and GptOssExperts):
router logits, each token's top k experts, a softmax over those k alone, and each expert's
clamped SwiGLU."""

from __future__ import annotations

import numpy as np

from attncli.model import Array


def route(logits: Array, top_k: int) -> Array:
    """Each row's weights: softmax over its top_k logits, 0 for every other expert."""
    chosen = np.argsort(-logits, axis=1, kind="stable")[:, :top_k]  # (n, k): largest first
    top = np.take_along_axis(logits, chosen, axis=1)  # (n, k)
    e = np.exp(top - top.max(axis=1, keepdims=True))  # (n, k)
    weights = np.zeros_like(logits)  # (n, experts)
    np.put_along_axis(weights, chosen, e / e.sum(axis=1, keepdims=True), axis=1)
    return weights


def clamped_swiglu(gate: Array, up: Array, alpha: float, limit: float) -> tuple[Array, Array,
                                                                                  Array]:
    """g = min(gate, limit), u = clip(up, −limit, limit), H = (u + 1) ⊙ g·σ(alpha·g): the
    clamped g and u and H, each (n, d_ff)."""
    g = np.minimum(gate, limit)  # (n, d_ff)
    u = np.clip(up, -limit, limit)  # (n, d_ff)
    sigma = 0.5 * (1.0 + np.tanh(0.5 * alpha * g))  # (n, d_ff): σ(x) = (1 + tanh(x/2)) / 2
    return g, u, (u + 1.0) * g * sigma
