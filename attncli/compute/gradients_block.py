"""The backward pass through the rest of the layer (`block`): LayerNorms, the feed-forward
network and the residual adds, from dY at the layer's output back to dO at the attention output.

The forward pass is recomputed from X and O with ops.py (full precision), then read backwards:

    LayerNorm y = g ⊙ x̂ + b, x̂ = (x − μ)/σ:  dx = (dx̂ − mean(dx̂) − x̂ ⊙ mean(dx̂ ⊙ x̂)) / σ,
                                               dx̂ = dy ⊙ g,  dg = Σ rows dy ⊙ x̂,  db = Σ rows dy
    RMSNorm   y = g ⊙ x̂, x̂ = x / RMS:         the same without the mean (nothing was centred)
    F = act(H·W_1 + b_1)·W_2 + b_2:           dW_2 = actᵀ·dF,  dA₁ = dF·W_2ᵀ ⊙ act′,  dW_1 = Hᵀ·dA₁
    gated: F = (act(A₁) ⊙ U)·W_2, U = H·W_3:  dU = dM ⊙ act(A₁),  dA₁ = dM ⊙ U ⊙ act′,  dM = dF·W_2ᵀ
    R = X + O:                                 dX = dO = dR
    sandwich R = X + norm(O), R₂ = Y₁ + norm(F):  dO and dF through that norm as above
"""

from __future__ import annotations

from dataclasses import field

import numpy as np

from attncli.compute import ops
from attncli.compute.gradients_modern import rms_parts, slope
from attncli.model import Array
from attncli.records import record
from attncli.spec.model import LayerNorm, RMSNorm, Spec
from attncli.spec.model_ffn import FeedForward


@record
class Normed:
    """What a LayerNorm's backward needs of its forward: x̂ (n, d), σ (n, 1) and the gain; for
    RMSNorm x̂ = x / RMS, σ = RMS, and nothing centred (no mean, no bias)."""

    x_hat: Array
    sigma: Array
    gain: Array | None
    centred: bool = True


def layer_norm(x: Array, ln: LayerNorm | RMSNorm) -> tuple[Array, Normed]:
    if isinstance(ln, RMSNorm):
        x_hat, rms = rms_parts(x, ln.eps)  # (n, d), (n, 1)
        return ops.rms_norm(x, ln.gain, ln.eps), Normed(x_hat, rms, ln.gain, centred=False)
    mu = x.mean(axis=1, keepdims=True)  # (n, 1)
    sigma = np.sqrt(((x - mu) ** 2).mean(axis=1, keepdims=True) + ln.eps)  # (n, 1)
    return ops.layer_norm(x, ln.gain, ln.bias, ln.eps), Normed((x - mu) / sigma, sigma, ln.gain)


def layer_norm_backward(dy: Array, normed: Normed, name: str,
                        named: dict[str, Array]) -> Array:
    """dL/dx of a LayerNorm from dL/dy; the gain's and bias's gradients into `named`."""
    x_hat = normed.x_hat  # (n, d)
    named[f"dgain_{name}"] = (dy * x_hat).sum(axis=0)  # (d,)
    if normed.centred:  # RMSNorm has no bias
        named[f"dbias_{name}"] = dy.sum(axis=0)  # (d,)
    dx_hat = dy if normed.gain is None else dy * normed.gain  # (n, d)
    centred = dx_hat - dx_hat.mean(axis=1, keepdims=True) if normed.centred else dx_hat  # (n, d)
    return (centred - x_hat * (dx_hat * x_hat).mean(axis=1, keepdims=True)) / normed.sigma


@record
class BlockGradients:
    d_attention: Array  # (n, d_model): dO, what reaches the attention output
    d_x: Array  # (n, d_model): what reaches X through the first residual add
    named: dict[str, Array] = field(default_factory=dict)  # dY, dW_1, db_1, dW_2, db_2, dgain_…
    pre_norm: Normed | None = None  # the LayerNorm the heads read through (pre-norm)


def used(w: Array, spec: Spec) -> Array:
    return w if spec.convention == "row" else w.T


def block_gradients(spec: Spec, x: Array, o: Array, dy: Array) -> BlockGradients:
    """From dY (n, d_model) at the layer's output back to the attention output O and to X."""
    block = spec.block
    assert block is not None
    post = block.norm == "post" and block.norms is not None
    pre = block.norm == "pre" and block.norms is not None
    named: dict[str, Array] = {"dY": dy}
    o_normed, around = layer_norm(o, block.sandwich[0]) if block.sandwich else (o, None)
    r1 = x + o_normed if block.residual else o_normed  # (n, d_model)
    y1, first = layer_norm(r1, block.norms[0]) if post and block.norms else (r1, None)
    d_y1 = dy
    if block.ffn is not None:
        d_y1 = ffn_backward(spec, block.ffn, y1, dy, named, post, pre)
    d_r1 = layer_norm_backward(d_y1, first, "1", named) if first is not None else d_y1
    pre_normed = layer_norm(x, block.norms[0])[1] if pre and block.norms else None
    d_x = d_r1 if block.residual else np.zeros_like(x)
    d_o = layer_norm_backward(d_r1, around, "s1", named) if around is not None else d_r1
    return BlockGradients(d_o, d_x, named, pre_normed)


def ffn_backward(spec: Spec, ffn: FeedForward, y1: Array, dy: Array, named: dict[str, Array],
                 post: bool, pre: bool) -> Array:
    """dL/dY₁ through the feed-forward sublayer (and its residual add and LayerNorms)."""
    block = spec.block
    assert block is not None
    second = None
    ffn_in = y1
    if pre and block.norms is not None:
        ffn_in, second = layer_norm(y1, block.norms[1])
    w1, w2 = used(ffn.W_1, spec), used(ffn.W_2, spec)  # (d_model, d_ff), (d_ff, d_model)
    a1 = ops.project(ffn_in, ffn.W_1, ffn.b_1, spec.convention)  # (n, d_ff)
    act = ops.ACTIVATION[ffn.activation](a1)  # (n, d_ff)
    up = None if ffn.W_3 is None else ops.project(ffn_in, ffn.W_3, ffn.b_3, spec.convention)
    hidden = act if up is None else act * up  # (n, d_ff): M, what W_2 reads
    f = ops.project(hidden, ffn.W_2, ffn.b_2, spec.convention)  # (n, d_model)
    f_normed, around = layer_norm(f, block.sandwich[1]) if block.sandwich else (f, None)
    d_r2 = dy
    if post and block.norms is not None:
        r2 = y1 + f_normed if block.residual else f_normed  # (n, d_model)
        d_r2 = layer_norm_backward(dy, layer_norm(r2, block.norms[1])[1], "2", named)
    d_f = layer_norm_backward(d_r2, around, "s2", named) if around is not None else d_r2
    named["dW_2"] = used(hidden.T @ d_f, spec)  # (d_ff, n) @ (n, d_model)
    if ffn.b_2 is not None:
        named["db_2"] = d_f.sum(axis=0)  # (d_model,)
    d_hidden = d_f @ w2.T  # (n, d_model) @ (d_model, d_ff) -> (n, d_ff)
    d_act = d_hidden if up is None else d_hidden * up  # (n, d_ff): the gate's share
    d_a1 = d_act * slope(a1, ffn.activation)  # (n, d_ff)
    named["dW_1"] = used(ffn_in.T @ d_a1, spec)  # (d_model, n) @ (n, d_ff)
    if ffn.b_1 is not None:
        named["db_1"] = d_a1.sum(axis=0)  # (d_ff,)
    d_in = d_a1 @ w1.T  # (n, d_ff) @ (d_ff, d_model)
    if up is not None and ffn.W_3 is not None:
        d_up = d_hidden * act  # (n, d_ff)
        named["dW_3"] = used(ffn_in.T @ d_up, spec)  # (d_model, n) @ (n, d_ff)
        if ffn.b_3 is not None:
            named["db_3"] = d_up.sum(axis=0)  # (d_ff,)
        d_in = d_in + d_up @ used(ffn.W_3, spec).T  # (n, d_ff) @ (d_ff, d_model)
    if second is not None:
        d_in = layer_norm_backward(d_in, second, "2", named)
    return d_in + d_r2 if block.residual else d_in
