"""DeepSeek-V3 (`deepseek_v3`): the keys of one layer of its checkpoint (see
attncli/spec/architectures.py). Its attention is multi-head latent attention
(attncli/spec/latent.py): kv_a_proj_with_mqa makes the latent (its first kv_lora_rank outputs)
and the shared RoPE key (its last qk_rope_head_dim), kv_b_proj each head's keys and values side
by side, q_proj (or q_a_proj, q_a_layernorm and q_b_proj) each head's query, its part without
position first."""

from __future__ import annotations

import math

from attncli.spec.arch_keys import (
    MAX_SIZE,
    Checkpoint,
    Keys,
    activation,
    causal,
    refuse_block,
)
from attncli.spec.arch_rope import rope
from attncli.spec.arch_rotary import GATES
from attncli.spec.values import fail, number

NORM_EPS = 1e-6  # q_a_layernorm and kv_a_layernorm take the default eps, not rms_norm_eps


def deepseek_v3(c: Checkpoint) -> Keys:
    """RMSNorm before attention, multi-head latent attention with RoPE on a part of each query
    and on one shared key, the softmax scale YaRN's mscale gives, and a dense SwiGLU feed-forward
    in the first first_k_dense_replace layers (the later ones' experts are not worked out)."""
    at = f"layers.{c.layer}."
    if c.flag("attention_bias"):
        fail(c.field("attention_bias"), "biases beside the latent are not worked out yet; "
             "expected attention_bias: false")
    heads = c.whole("num_attention_heads")
    each = MAX_SIZE // heads  # a head's sizes, so that heads · (d_nope + d_v) rows stay listable
    d_c, d_rope = c.whole("kv_lora_rank"), c.whole("qk_rope_head_dim", high=each)
    d_nope, d_v = c.whole("qk_nope_head_dim", high=each), c.whole("v_head_dim", high=each)
    d_k = d_nope + d_rope
    self_attn = at + "self_attn."
    latent: Keys = {
        "W_DKV": c.tensor(self_attn + "kv_a_proj_with_mqa.weight", rows=list(range(d_c))),
        "W_KR": c.tensor(self_attn + "kv_a_proj_with_mqa.weight",
                         rows=list(range(d_c, d_c + d_rope))),
        "W_UK": c.tensor(self_attn + "kv_b_proj.weight", rows=[
            h * (d_nope + d_v) + j for h in range(heads) for j in range(d_nope)]),
        "W_UV": c.tensor(self_attn + "kv_b_proj.weight", rows=[
            h * (d_nope + d_v) + d_nope + j for h in range(heads) for j in range(d_v)]),
        "norm": {"eps": NORM_EPS, "kv_gain": c.tensor(self_attn + "kv_a_layernorm.weight")},
    }
    q = self_attn + "q_proj.weight"
    if not c.has(q):  # q_lora_rank: the queries' own latent
        q = self_attn + "q_b_proj.weight"
        latent["W_DQ"] = c.tensor(self_attn + "q_a_proj.weight")
        latent["norm"]["q_gain"] = c.tensor(self_attn + "q_a_layernorm.weight")
    latent["W_Q"] = c.tensor(q, rows=[h * d_k + j for h in range(heads) for j in range(d_nope)])
    latent["W_QR"] = c.tensor(q, rows=[h * d_k + d_nope + j for h in range(heads)
                                       for j in range(d_rope)])
    positional = rope(c.config, c.config_name)  # attncli/spec/arch_rope.py
    interleave = c.config.get("rope_interleave")
    if interleave is None or interleave.value is None or c.flag("rope_interleave"):
        positional["rope"]["layout"] = "interleaved"  # the pairs (2i, 2i+1), DeepSeek's own
    keys: Keys = {
        "embeddings": c.tensor("embed_tokens.weight", rows=c.rows),
        "convention": "column", "heads": heads, "latent": latent, "positional": positional,
        "weights": {"W_O": c.tensor(self_attn + "o_proj.weight")}, "mask": causal(c),
    }
    scale = mscaled(c, positional["rope"].get("scaling"))
    if scale != 1.0:  # the scores divided by √d_k / mscale²
        keys["scale"] = math.sqrt(d_k) / scale
    eps = c.number("rms_norm_eps", 1e-6)
    norms = [{"gain": c.tensor(at + name + ".weight"), "eps": eps}
             for name in ("input_layernorm", "post_attention_layernorm")]
    keys["block"] = {"norm": "pre", "rms_norm": norms, "residual": c.block}
    if c.layer >= c.number("first_k_dense_replace", 3) or not c.has(at + "mlp.gate_proj.weight"):
        refuse_block(c, "mlp.experts")
    elif c.block:  # a dense layer: SwiGLU, as Llama's
        keys["block"]["ffn"] = {"activation": activation(c, "hidden_act", "silu", GATES),
                                **{w: c.tensor(f"{at}mlp.{name}_proj.weight") for w, name in
                                   (("W_1", "gate"), ("W_3", "up"), ("W_2", "down"))}}
    return keys


def mscaled(c: Checkpoint, scaling: Keys | None) -> float:
    """What DeepSeek multiplies its softmax scale by under YaRN: mscale², mscale = 0.1·m·ln(factor)
    + 1 with m = mscale_all_dim (1 without it, or for a factor of 1 or less)."""
    parameters = c.config.get("rope_scaling")
    if parameters is None or not parameters.value:
        parameters = c.config.get("rope_parameters")
    if scaling is None or parameters is None or not isinstance(parameters.value, dict):
        return 1.0
    every = parameters.value.get("mscale_all_dim")
    if every is None or not every.value:
        return 1.0
    factor = scaling["factor"]
    factor = float(factor) if isinstance(factor, float | int) else number(factor)
    mscale = 0.1 * number(every) * math.log(factor) + 1.0 if factor > 1 else 1.0
    return mscale * mscale
