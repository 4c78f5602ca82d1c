"""The `block` section: the rest of the layer (residual adds, LayerNorms, the feed-forward)."""

from __future__ import annotations

from attncli.i18n import Msg
from attncli.spec.arrays import Files, vector_at
from attncli.spec.model import Array, Block, Convention, LayerNorm, Norm, RMSNorm
from attncli.spec.model_ffn import ACTIVATIONS, GATED, FeedForward
from attncli.spec.network import Network
from attncli.spec.source import Node
from attncli.spec.values import (
    as_written,
    boolean,
    check_keys,
    choice,
    fail,
    items,
    number,
    optional,
)

BLOCK_KEYS = ("residual", "layer_norm", "rms_norm", "ffn", "norm", "sandwich", "moe")
SANDWICH_KEYS = ("layer_norm", "rms_norm")
FFN_KEYS = ("W_1", "b_1", "W_2", "b_2", "W_3", "b_3", "activation")
LAYER_NORM_KEYS = ("gain", "bias", "eps")
RMS_NORM_KEYS = ("gain", "eps")


def block_spec(node: Node, d_model: int, convention: Convention, files: Files) -> Block:
    """block: {residual, layer_norm, ffn, norm: post|pre}: the rest of the layer."""
    keys = check_keys(node, BLOCK_KEYS)
    residual = optional(keys, "residual", boolean, True)
    if "layer_norm" in keys and "rms_norm" in keys:
        fail(keys["rms_norm"], "expected layer_norm or rms_norm, found both")
    norms: tuple[Norm, Norm] | None = optional(
        keys, "layer_norm", lambda n: layer_norms(n, d_model, files), None)
    if "rms_norm" in keys:
        norms = layer_norms(keys["rms_norm"], d_model, files, rms=True)
    ffn = optional(keys, "ffn", lambda n: feed_forward(n, d_model, convention, files), None)
    norm = optional(keys, "norm", lambda n: choice(n, ("post", "pre")), "post")
    sandwich = optional(keys, "sandwich", lambda n: sandwich_norms(n, d_model, files), None)
    moe = None
    if "moe" in keys:
        if "ffn" in keys:
            fail(keys["moe"], "expected ffn or moe, found both")
        from attncli.spec.moe import moe_spec  # only a block with a mixture of experts

        moe = moe_spec(keys["moe"], d_model, convention, files)
    if not residual and norms is None and ffn is None and moe is None:
        fail(node, "expected at least one of residual: true, layer_norm, rms_norm and ffn")
    return Block(residual, norms, ffn, "pre" if norm == "pre" else "post", sandwich, moe)


def sandwich_norms(node: Node, d_model: int, files: Files) -> tuple[Norm, Norm] | None:
    """sandwich: {rms_norm: ...} or {layer_norm: ...}, each written as the block's own norms
    (true, one for both places, or a list of two): the norm of each sublayer's output before
    its residual add, the first after attention, the second after the feed-forward."""
    keys = check_keys(node, SANDWICH_KEYS)
    if len(keys) == 2:
        fail(keys["rms_norm"], "expected layer_norm or rms_norm, found both")
    if not keys:
        fail(node, "expected layer_norm or rms_norm, found neither")
    (key, value), = keys.items()
    return layer_norms(value, d_model, files, rms=key == "rms_norm")


def layer_norms(node: Node, d_model: int, files: Files,
                rms: bool = False) -> tuple[Norm, Norm] | None:
    """true, one {gain, bias, eps} for both LayerNorms, or a list of two (first, second); with
    `rms`, the same of RMSNorms ({gain, eps})."""
    if isinstance(node.value, bool):
        if not node.value:
            return None
        return (RMSNorm(), RMSNorm()) if rms else (LayerNorm(), LayerNorm())
    if isinstance(node.value, list):
        entries = items(node, Msg.of("a list of two LayerNorms"))
        if len(entries) != 2:
            fail(node, "expected one LayerNorm for both places or a list of two, found {found}",
                 found=len(entries))
        return layer_norm(entries[0], d_model, files, rms), layer_norm(entries[1], d_model,
                                                                       files, rms)
    one = layer_norm(node, d_model, files, rms)
    return one, one


def layer_norm(node: Node, d_model: int, files: Files, rms: bool = False) -> Norm:
    keys = check_keys(node, RMS_NORM_KEYS if rms else LAYER_NORM_KEYS)
    found: dict[str, Array | None] = {}
    for key in ("gain", "bias"):
        found[key] = None
        if key in keys:
            found[key] = vector_at(keys[key], files, d_model, "d_model")
    eps = optional(keys, "eps", number, RMSNorm.eps if rms else LayerNorm.eps)
    if eps <= 0:
        fail(keys["eps"], "expected a positive eps, found {value}",
             value=as_written(keys["eps"], eps))
    if rms:
        return RMSNorm(found["gain"], eps)
    return LayerNorm(found["gain"], found["bias"], eps)


def feed_forward(node: Node, d_model: int, convention: Convention, files: Files) -> FeedForward:
    """ffn: {W_1, b_1, W_2, b_2, activation, and W_3, b_3 for swiglu or geglu}, shapes checked
    against d_model."""
    keys = check_keys(node, FFN_KEYS)
    for key in ("W_1", "W_2"):
        if key not in keys:
            fail(node, "the key {key} is missing", key=key)
    network = Network(keys, d_model, convention == "row", files)
    W_2 = network.down()
    activation = optional(keys, "activation", lambda n: choice(n, ACTIVATIONS), "relu")
    gated = activation in GATED
    W_3 = None
    if gated:
        if "W_3" not in keys:
            fail(node, "the key {key} is missing", key="W_3")
        W_3 = network.up()
    for key in ("W_3", "b_3"):
        if key in keys and not gated:
            fail(keys[key], "{key} is the up projection of SwiGLU and GeGLU; the activation "
                 "is {activation}", key=key, activation=activation)
    biases = network.biases(("b_1", "b_2", "b_3"))
    W_1 = network.W_1
    return FeedForward(W_1, W_2, biases["b_1"], biases["b_2"],
                       next(a for a in ACTIVATIONS if a == activation), W_3, biases["b_3"])
