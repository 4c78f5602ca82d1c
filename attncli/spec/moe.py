"""`block.moe`: a mixture of experts in place of the feed-forward, as gpt-oss computes it.

    moe:
      router: {W: ..., b: [...]}      # d_model x experts (experts x d_model in the column
                                      # convention), and a bias per expert
      top_k: 2                        # the experts each token goes to
      alpha: 1.702                    # the SwiGLU's σ(alpha·g) (gpt-oss's swiglu_alpha)
      limit: 7.0                      # the clamp of the gate and the up projection
      experts:
        - {W_1: ..., b_1: ..., W_3: ..., b_3: ..., W_2: ..., b_2: ...}
"""

from __future__ import annotations

from attncli.i18n import Msg
from attncli.spec.arrays import Dims, Files, matrix_at, vector_at
from attncli.spec.model import Convention
from attncli.spec.model_ffn import Expert, Mixture
from attncli.spec.network import Network
from attncli.spec.source import Node
from attncli.spec.values import (
    as_written,
    check_keys,
    check_shape,
    fail,
    integer,
    items,
    number,
    optional,
)

MOE_KEYS = ("router", "top_k", "alpha", "limit", "experts")
ROUTER_KEYS = ("W", "b")
EXPERT_KEYS = ("W_1", "b_1", "W_3", "b_3", "W_2", "b_2")


def moe_spec(node: Node, d_model: int, convention: Convention, files: Files) -> Mixture:
    """The router, top_k, alpha, limit and the experts, their shapes checked against d_model and
    against each other."""
    keys = check_keys(node, MOE_KEYS)
    for key in ("router", "experts"):
        if key not in keys:
            fail(node, "the key {key} is missing", key=key)
    row = convention == "row"
    entries = items(keys["experts"], Msg.of("a list of experts"))
    if not entries:
        fail(keys["experts"], "expected at least one expert, found none")
    count = len(entries)
    router = check_keys(keys["router"], ROUTER_KEYS)
    if "W" not in router:
        fail(keys["router"], "the key {key} is missing", key="W")
    shape: Dims = (d_model, count) if row else (count, d_model)
    W_r = matrix_at(router["W"], "W", files, shape)
    check_shape(router["W"], W_r, shape, "d_model × experts" if row else  # type: ignore[arg-type]
                "experts × d_model")
    b_r = None
    if "b" in router:
        b_r = vector_at(router["b"], files, count, "experts")
    top_k = optional(keys, "top_k", lambda n: integer(n, 1, count), 1)
    alpha = optional(keys, "alpha", number, Mixture.alpha)
    limit = optional(keys, "limit", number, Mixture.limit)
    if limit <= 0:
        fail(keys["limit"], "expected a positive limit, found {value}",
             value=as_written(keys["limit"], limit))
    experts = tuple(expert(entry, d_model, row, files) for entry in entries)
    return Mixture(W_r, experts, top_k, b_r, alpha, limit)


def expert(node: Node, d_model: int, row: bool, files: Files) -> Expert:
    """{W_1, W_3, W_2} and their optional biases: a gated network of d_ff from W_1."""
    keys = check_keys(node, EXPERT_KEYS)
    for key in ("W_1", "W_3", "W_2"):
        if key not in keys:
            fail(node, "the key {key} is missing", key=key)

    network = Network(keys, d_model, row, files)
    W_3, W_2 = network.up(), network.down()
    biases = network.biases(("b_1", "b_3", "b_2"))
    return Expert(network.W_1, W_3, W_2, biases["b_1"], biases["b_3"], biases["b_2"])
