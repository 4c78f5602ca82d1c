"""The backward pass through the variants of attention after 2017 (attncli/compute/gradients.py
calls
these), pure NumPy, row convention:

    RoPE   Q̂ = R·Q row by row, R a rotation:    dQ = Rᵀ·dQ̂ (each pair turned back by −p·θᵢ)
    GQA    heads h₁ … share K = X·W_K:            dK = Σ_h dK_h,  dW_K = Xᵀ·dK   (and V alike)
    bias   S′ + B (ALiBi, a matrix):              dS′ passes through; B is given, no gradient
    RMSNorm y = g ⊙ x̂, x̂ = x / RMS(x):          dx = (dx̂ − x̂ ⊙ mean(dx̂ ⊙ x̂)) / RMS,  dx̂ = dy ⊙ g
    SiLU   silu(a) = a·σ(a):                      silu′(a) = σ(a)·(1 + a·(1 − σ(a)))
    gated  H = act(A₁) ⊙ U:                       dU = dH ⊙ act(A₁),  dA₁ = dH ⊙ U ⊙ act′(A₁)
"""

from __future__ import annotations

import math

import numpy as np

from attncli.compute import ops
from attncli.compute.rope_scaling import attention_factor
from attncli.model import Array, HeadResult
from attncli.records import record
from attncli.spec.model import Spec


def turned_back(spec: Spec, which: str, d_hat: Array) -> Array | None:
    """Rᵀ·dQ̂ (or dK̂) row by row: the gradient before RoPE; None when `which` is not turned."""
    setting = spec.rope(which)
    if setting is None:
        return None
    angles = ops.rope_angles(d_hat.shape[0], d_hat.shape[1], setting.base,  # (n, d_k/2)
                             setting.scaling)
    factor = attention_factor(setting.scaling)  # YaRN's a: Q̂ = a·R·Q, so (a·R)ᵀ = a·R(−p·θ)
    return ops.rope(d_hat, -angles, setting.layout, factor)  # (n, d_k): Rᵀ = R(−p·θ)


@record
class GroupGradients:
    """The gradients of one shared K/V head (grouped- or multi-query attention)."""

    group: int  # 1-based
    sharing: tuple[int, ...]  # the 1-based query heads that read it
    dK: Array  # (m, d_k): Σ of the sharing heads' dK
    dV: Array  # (m, d_v)
    dW: dict[str, Array]  # dW_K, dW_V as the spec writes W; db_K, db_V when biased


def groups_of(spec: Spec) -> list[tuple[int, list[int]]]:
    """Each shared K/V head's group (0-based) and the query heads (0-based) that read it, in
    the order of the groups; for a spec whose heads share K and V (every head has a group)."""
    groups: dict[int, list[int]] = {}
    for i, head in enumerate(spec.heads):
        assert head.group is not None
        groups.setdefault(head.group, []).append(i)
    return sorted(groups.items())


def shared(spec: Spec, forward: tuple[HeadResult, ...], dks: list[Array],
           dvs: list[Array]) -> tuple[GroupGradients, ...]:
    """Each group's dK and dV, the sums over the heads that share them, and its dW_K, dW_V."""
    made = []
    for group, members in groups_of(spec):
        dk = sum((dks[i] for i in members), np.zeros_like(dks[members[0]]))  # (m, d_k)
        dv = sum((dvs[i] for i in members), np.zeros_like(dvs[members[0]]))  # (m, d_v)
        first = forward[members[0]]
        xk = first.key_inputs if first.key_inputs is not None else spec.keys_source.embeddings
        dw: dict[str, Array] = {}
        head = spec.heads[members[0]]
        for letter, grad in (("K", dk), ("V", dv)):
            dw_used = xk.T @ grad  # (d_model, m) @ (m, d) -> (d_model, d)
            dw[f"dW_{letter}"] = dw_used if spec.convention == "row" else dw_used.T
            if getattr(head, f"b_{letter}") is not None:
                dw[f"db_{letter}"] = grad.sum(axis=0)  # (d,)
        made.append(GroupGradients(group + 1, tuple(i + 1 for i in members), dk, dv, dw))
    return tuple(made)


def rms_parts(x: Array, eps: float) -> tuple[Array, Array]:
    """x̂ = x / RMS(x) (n, d) and RMS(x) = √(mean(x²) + eps) (n, 1) of each row."""
    rms = np.sqrt((x**2).mean(axis=1, keepdims=True) + eps)  # (n, 1)
    return x / rms, rms


def silu_slope(a: Array) -> Array:
    """silu′(a) = σ(a)·(1 + a·(1 − σ(a))), σ written with tanh so a large |a| cannot overflow."""
    sigma = 0.5 * (1.0 + np.tanh(0.5 * a))  # (n, d_ff)
    return sigma * (1.0 + a * (1.0 - sigma))  # (n, d_ff)


def gelu_slope(a: Array) -> Array:
    """gelu′(a) = Φ(a) + a·φ(a), with the exact normal CDF Φ and density φ."""
    erf = np.vectorize(math.erf, otypes=[np.float64])
    cdf = 0.5 * (1.0 + erf(a / math.sqrt(2.0)))  # (n, d_ff)
    return cdf + a * np.exp(-0.5 * a * a) / math.sqrt(2.0 * math.pi)  # (n, d_ff)


def gelu_tanh_slope(a: Array) -> Array:
    """The derivative of 0.5·a·(1 + tanh(u)), u = √(2/π)·(a + 0.044715·a³):
    0.5·(1 + tanh u) + 0.5·a·(1 − tanh² u)·√(2/π)·(1 + 3·0.044715·a²)."""
    c = math.sqrt(2.0 / math.pi)
    t = np.tanh(c * (a + 0.044715 * a**3))  # (n, d_ff)
    return 0.5 * (1.0 + t) + 0.5 * a * (1.0 - t * t) * c * (1.0 + 3 * 0.044715 * a * a)


def slope(a: Array, activation: str) -> Array:
    """act′(a) of the activation a feed-forward applies to A₁ (the gate's, when gated)."""
    if activation == "relu":
        return (a > 0.0).astype(np.float64)  # (n, d_ff): 1 where ReLU passes, else 0
    if activation in ("silu", "swiglu"):
        return silu_slope(a)
    if activation in ("gelu_tanh", "geglu_tanh"):
        return gelu_tanh_slope(a)
    return gelu_slope(a)  # gelu, geglu
