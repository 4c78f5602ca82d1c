"""The `decode` section: generation with a KV cache. The first `prefill` tokens fill the cache
in one pass; every later token is one decode step that reads only the cache."""

from __future__ import annotations

from attncli.spec.model import CausalMask, Decode, Mask, Sequence
from attncli.spec.source import Node
from attncli.spec.values import check_keys, fail, integer

DECODE_KEYS = ("prefill",)


def decode_spec(node: Node, n: int, masks: tuple[Mask, ...], context: Sequence | None,
                biased: bool = False) -> Decode:
    """`{prefill: p}` with 1 <= p < n, for causal self-attention only: a decode step sees the
    cache of the tokens before it, which is what the causal mask lets a query see."""
    keys = check_keys(node, DECODE_KEYS)
    if "prefill" not in keys:
        fail(node, "the key {key} is missing", key="prefill")
    if n < 2:
        fail(keys["prefill"], "decoding needs at least 2 tokens, found {n}", n=n)
    prefill = integer(keys["prefill"], 1, n - 1)
    if context is not None:
        fail(node, "decoding reads its own tokens; it cannot be used with context")
    if masks != (CausalMask(),):
        fail(node, "decoding needs mask: causal (and no other mask)")
    if biased:
        fail(node, "decoding is worked out without a score bias; remove bias or decode")
    return Decode(prefill)
