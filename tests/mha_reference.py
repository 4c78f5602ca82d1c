"""PyTorch's nn.MultiheadAttention and nn.TransformerEncoderLayer, written out in NumPy from
their documentation, for the oracle tests. Shared by tests only; attn's own code is not used.

Conventions are PyTorch's: Linear layers compute x·Wᵀ + b; in_proj_weight is (3E, E), its rows
[W_q; W_k; W_v]; head i uses rows i·E/h .. (i+1)·E/h of each; q is scaled by 1/√head_dim before
the product; a True in attn_mask or key_padding_mask hides that key.
"""

from __future__ import annotations

import math
import os
from collections.abc import Callable
from types import ModuleType

import numpy as np
import pytest

TOLERANCE = 1e-10


def torch_module() -> ModuleType:
    """torch, or a skip outside CI; under CI=true a missing torch fails the test (.ci/run
    installs it)."""
    if os.environ.get("CI") == "true":
        import torch

        return torch
    return pytest.importorskip("torch")


def linear(x: np.ndarray, weight: np.ndarray, bias: np.ndarray | None) -> np.ndarray:
    out = x @ weight.T
    return out if bias is None else out + bias


def multi_head_attention(query: np.ndarray, key: np.ndarray, num_heads: int,
                         in_proj_weight: np.ndarray, in_proj_bias: np.ndarray | None,
                         out_weight: np.ndarray, out_bias: np.ndarray | None,
                         attn_mask: np.ndarray | None = None,
                         key_padding_mask: np.ndarray | None = None,
                         ) -> tuple[np.ndarray, np.ndarray]:
    """(output (L, E), weights (num_heads, L, S)) for one unbatched sequence; value = key."""
    embed = query.shape[1]
    head_dim = embed // num_heads
    w_q, w_k, w_v = np.split(in_proj_weight, 3, axis=0)
    b_q = b_k = b_v = None
    if in_proj_bias is not None:
        b_q, b_k, b_v = np.split(in_proj_bias, 3)
    q, k, v = linear(query, w_q, b_q), linear(key, w_k, b_k), linear(key, w_v, b_v)
    hidden = np.zeros((query.shape[0], key.shape[0]), dtype=bool)
    if attn_mask is not None:
        hidden |= attn_mask
    if key_padding_mask is not None:
        hidden |= key_padding_mask[None, :]
    outputs, weights = [], []
    for i in range(num_heads):
        cols = slice(i * head_dim, (i + 1) * head_dim)
        logits = (q[:, cols] / math.sqrt(head_dim)) @ k[:, cols].T
        logits = np.where(hidden, -np.inf, logits)
        e = np.exp(logits - logits.max(axis=1, keepdims=True))
        a = e / e.sum(axis=1, keepdims=True)
        weights.append(a)
        outputs.append(a @ v[:, cols])
    return linear(np.concatenate(outputs, axis=1), out_weight, out_bias), np.stack(weights)


def layer_norm(x: np.ndarray, gain: np.ndarray, bias: np.ndarray, eps: float) -> np.ndarray:
    mean = x.mean(axis=1, keepdims=True)
    var = x.var(axis=1, keepdims=True)  # the biased variance, as nn.LayerNorm
    return (x - mean) / np.sqrt(var + eps) * gain + bias


def encoder_layer(x: np.ndarray, attend: Callable[[np.ndarray], np.ndarray],
                  linear1: tuple[np.ndarray, np.ndarray], linear2: tuple[np.ndarray, np.ndarray],
                  norm1: tuple[np.ndarray, np.ndarray], norm2: tuple[np.ndarray, np.ndarray],
                  activation: str, norm_first: bool, eps: float) -> np.ndarray:
    """nn.TransformerEncoderLayer with dropout 0; `attend(y)` is its self-attention on y."""
    def act(y: np.ndarray) -> np.ndarray:
        if activation == "relu":
            return np.maximum(y, 0.0)
        return 0.5 * y * (1.0 + np.vectorize(math.erf)(y / math.sqrt(2.0)))

    def ff(y: np.ndarray) -> np.ndarray:
        return linear(act(linear(y, *linear1)), *linear2)

    if norm_first:
        x = x + attend(layer_norm(x, *norm1, eps))
        return x + ff(layer_norm(x, *norm2, eps))
    x = layer_norm(x + attend(x), *norm1, eps)
    return layer_norm(x + ff(x), *norm2, eps)
