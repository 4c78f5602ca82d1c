"""The `dtype` key: the number format every step is computed in. float64 (the default) is attn's
full precision; float32, float16 and bfloat16 round every input and every result to that format
and report what the rounding did (attncli/steps/precision.py)."""

from __future__ import annotations

from attncli.spec.model import Dtype, Spec
from attncli.spec.source import Node
from attncli.spec.values import choice, fail

DTYPES: tuple[Dtype, ...] = ("float16", "bfloat16", "float32", "float64")


def dtype_spec(node: Node) -> Dtype:
    found = choice(node, DTYPES)
    return next(d for d in DTYPES if d == found)


def check_dtype(spec: Spec, top: dict[str, Node]) -> None:
    """Below float64, refuse what is not worked out in low precision: RoPE (implementations
    round cos, sin and each product differently: no one order to follow) and the backward pass;
    hand calculation works on decimals as written, not in a binary format."""
    if spec.dtype == "float64":
        return
    if spec.backward is not None:
        refuse(top["backward"], "backward", spec.dtype)
    if spec.softcap is not None:  # tanh is rounded differently by each library's kernels
        refuse(top["softcap"], "softcap", spec.dtype)
    if spec.sinks is not None:  # the models add the sink in their own softmax kernels
        refuse(top["sinks"], "sinks", spec.dtype)
    if spec.latent is not None:  # the models keep the latent's RMSNorm in float32
        refuse(top["latent"], "latent", spec.dtype)
    if spec.qk_norm is not None:  # RMSNorm runs in float32 inside a lower format in the models
        refuse(top["qk_norm"], "qk_norm", spec.dtype)
    for sequence, node in ((spec.queries, top.get("positional")),
                           (spec.context, top["context"].get("positional")
                            if spec.context is not None else None)):
        if sequence is not None and node is not None and sequence.positional is not None \
                and sequence.positional.kind == "rope":
            refuse(node, "rope", spec.dtype)
    if spec.display.round_intermediates:
        display = top["display"]
        fail(display.get("round_intermediates") or display, "hand calculation works on "
             "decimals as written; it cannot be combined with dtype: {dtype}", dtype=spec.dtype)


def refuse(node: Node, key: str, dtype: Dtype) -> None:
    fail(node, "expected no {key} with dtype: {dtype} (low precision is worked out without "
         "it), found one; remove it or use dtype: float64", key=key, dtype=dtype)
