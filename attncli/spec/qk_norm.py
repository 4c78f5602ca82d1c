"""The `qk_norm` section: RMSNorm of the queries and keys after the projections and before RoPE,
over each head's d_k (`head`, Qwen3's q_norm and k_norm) or over the whole projection of every
head at once (`projection`, OLMo 2's)."""

from __future__ import annotations

from typing import Literal

from attncli.spec.arrays import Files, vector_at
from attncli.spec.model import Array, Convention, Head, QKNorm, RMSNorm
from attncli.spec.source import Node
from attncli.spec.values import as_written, check_keys, choice, fail, number, optional

QK_NORM_KEYS = ("over", "q_gain", "k_gain", "eps")
OVER = ("head", "projection")


def qk_norm_spec(node: Node, heads: tuple[Head, ...], convention: Convention,
                 files: Files) -> QKNorm:
    """`head`, `projection`, or {over, q_gain, k_gain, eps}; each gain as long as what it
    normalizes: d_k (head), or the heads' queries and the key/value heads' keys side by side
    (projection)."""
    if not isinstance(node.value, dict):
        return QKNorm("head" if choice(node, OVER) == "head" else "projection")
    keys = check_keys(node, QK_NORM_KEYS)
    if "over" not in keys:
        fail(node, "the key {key} is missing", key="over")
    over: Literal["head", "projection"] = (
        "head" if choice(keys["over"], OVER) == "head" else "projection")
    d_k = {head.d_k(convention) for head in heads}
    if len(d_k) > 1:
        fail(node, "qk_norm needs one d_k for every head; found {found}",
             found=", ".join(str(d) for d in sorted(d_k)))
    width = d_k.pop()
    lengths = {"q_gain": width, "k_gain": width}
    if over == "projection":
        kv_heads = len({head.group for head in heads}) if heads[0].group is not None else \
            len(heads)
        lengths = {"q_gain": width * len(heads), "k_gain": width * kv_heads}
    gains: dict[str, Array | None] = {}
    for key, length in lengths.items():
        gains[key] = None
        if key in keys:
            gains[key] = vector_at(keys[key], files, length,
                                   "d_k" if over == "head" else "heads · d_k")
    eps = optional(keys, "eps", number, RMSNorm.eps)
    if eps <= 0:
        fail(keys["eps"], "expected a positive eps, found {value}",
             value=as_written(keys["eps"], eps))
    return QKNorm(over, gains["q_gain"], gains["k_gain"], eps)
