"""The rotary families (`llama`, `mistral`, `qwen3`, `gemma2`, `gpt_oss`): each gives the keys
of one layer of its checkpoint (see attncli/spec/architectures.py)."""

from __future__ import annotations

from attncli.i18n import Msg
from attncli.spec.arch_keys import Checkpoint, Keys, activation, rotary_heads
from attncli.spec.model import Array
from attncli.spec.values import fail, number, shape_text

# the gated feed-forward that each `hidden_act` makes of gate_proj, up_proj and down_proj
GATES = {"gelu": "geglu", "silu": "swiglu"}
# Gemma's `hidden_activation`: `gelu_pytorch_tanh` is GELU's tanh form, `gelu` the exact one
GEMMA_GATES = {"gelu_pytorch_tanh": "geglu_tanh", "gelu": "geglu"}
MLP = (("W_1", "gate"), ("W_3", "up"), ("W_2", "down"))


def llama(c: Checkpoint) -> Keys:
    """Llama, Mistral and Qwen3: RMSNorm before attention, RoPE, grouped-query heads, and a SwiGLU
    feed-forward; Qwen3 normalizes each head's q and k."""
    at = f"layers.{c.layer}."
    eps = c.eps("rms_norm_eps", 1e-6)
    keys: Keys = {"embeddings": c.tensor("embed_tokens.weight", rows=c.rows),
                  **rotary_heads(c, at)}
    norms = [{"gain": c.tensor(at + name + ".weight"), "eps": eps}
             for name in ("input_layernorm", "post_attention_layernorm")]
    keys["block"] = {"norm": "pre", "rms_norm": norms, "residual": c.block}
    if c.block:  # the gate's activation: SiLU (SwiGLU) or the exact GELU (GeGLU)
        keys["block"]["ffn"] = {"activation": activation(c, "hidden_act", "silu", GATES),
                                **{w: c.tensor(f"{at}mlp.{name}_proj.weight") for w, name in MLP}}
    if c.has(at + "self_attn.q_norm.weight"):  # Qwen3: each head's q and k
        keys["qk_norm"] = {"over": "head", "q_gain": c.tensor(at + "self_attn.q_norm.weight"),
                           "k_gain": c.tensor(at + "self_attn.k_norm.weight"), "eps": eps}
    return keys


def gemma2(c: Checkpoint) -> Keys:
    """Gemma 2: token embeddings times √d_model, RMSNorm with the gain 1 + w, scores divided by
    √query_pre_attn_scalar and soft-capped, sliding-window layers as `layer_types` lists; the
    rest of the layer normalizes each sublayer's output before its residual add
    (`post_attention_layernorm`, `post_feedforward_layernorm`), and its feed-forward is GeGLU
    with the tanh GELU (`hidden_activation: gelu_pytorch_tanh`)."""
    at = f"layers.{c.layer}."
    d = c.whole("hidden_size")
    eps = c.eps("rms_norm_eps", 1e-6)

    def norm(name: str) -> Keys:
        return {"gain": 1.0 + c.rows_of(f"{at}{name}.weight", [0]), "eps": eps}  # (d_model,)

    keys: Keys = {
        "embeddings": c.rows_of("embed_tokens.weight", c.rows) * d ** 0.5,  # (n, d_model)
        **rotary_heads(c, at),
        "scale": c.positive("query_pre_attn_scalar", 256.0) ** 0.5,
        "block": {"norm": "pre", "residual": c.block, "rms_norm": [
            norm("input_layernorm"), norm("pre_feedforward_layernorm")]},
    }
    if c.block:
        keys["block"]["sandwich"] = {"rms_norm": [norm("post_attention_layernorm"),
                                                  norm("post_feedforward_layernorm")]}
        keys["block"]["ffn"] = {
            "activation": activation(c, "hidden_activation", "gelu_pytorch_tanh", GEMMA_GATES),
            **{w: c.tensor(f"{at}mlp.{name}_proj.weight") for w, name in MLP}}
    cap = c.config.get("attn_logit_softcapping")
    if cap is not None and cap.value is not None:
        keys["softcap"] = number(cap)
    return keys


def gpt_oss(c: Checkpoint) -> Keys:
    """gpt-oss: RMSNorm before attention, RoPE, grouped-query heads with biases, each head's
    learned sink logit, sliding-window and full layers as `layer_types` lists; the rest of the
    layer is pre-norm with a mixture of experts (`mlp.router`, `mlp.experts`) in place of the
    feed-forward."""
    at = f"layers.{c.layer}."
    eps = c.eps("rms_norm_eps", 1e-5)
    keys: Keys = {
        "embeddings": c.tensor("embed_tokens.weight", rows=c.rows),
        **rotary_heads(c, at),
        "sinks": c.rows_of(at + "self_attn.sinks", [0]),  # (heads,)
        "block": {"norm": "pre", "residual": c.block, "rms_norm": [
            {"gain": c.tensor(f"{at}{name}.weight"), "eps": eps}
            for name in ("input_layernorm", "post_attention_layernorm")]},
    }
    if c.block:
        keys["block"]["moe"] = experts(c, at + "mlp.")
    return keys


# Experts of one layer's mixture: released models have 8 (Mixtral), 128 (gpt-oss-120b, Qwen3),
# 256 (DeepSeek-V3), 384 (Kimi K2). Each costs its reading and checks however small it is
# (65,536 experts of d_model 2 took 28 s and 567 MB), and every expert of every layer worked
# out is charged before the first is read (attncli/spec/costs.py EXPERT_CELLS).
MAX_EXPERTS = 512


def experts(c: Checkpoint, at: str) -> Keys:
    """The router (a `Linear`: experts × d_model, the column convention) and each expert of
    `experts.gate_up_proj` (experts, d_model, 2·d_ff), whose even columns are the gate and odd
    ones the up projection, and `experts.down_proj` (experts, d_ff, d_model): (in, out), so
    each is turned to the column convention. Each tensor is read once, every expert's rows at
    once."""
    count = c.whole("num_local_experts", high=MAX_EXPERTS)
    gate_up = experts_of(c, at + "experts.gate_up_proj", count, 2)  # (E, d_model, 2·d_ff)
    gate_up_bias = experts_of(c, at + "experts.gate_up_proj_bias", count, 1)  # (E, 2·d_ff)
    down = experts_of(c, at + "experts.down_proj", count, 2)  # (E, d_ff, d_model)
    down_bias = experts_of(c, at + "experts.down_proj_bias", count, 1)  # (E, d_model)
    made = [{"W_1": gate_up[e, :, ::2].T, "b_1": gate_up_bias[e, ::2],
             "W_3": gate_up[e, :, 1::2].T, "b_3": gate_up_bias[e, 1::2], "W_2": down[e].T,
             "b_2": down_bias[e]} for e in range(count)]
    return {"router": {"W": c.tensor(at + "router.weight"), "b": c.tensor(at + "router.bias")},
            "top_k": c.whole("num_experts_per_tok"), "alpha": c.number("swiglu_alpha", 1.702),
            "limit": c.number("swiglu_limit", 7.0), "experts": made}


def experts_of(c: Checkpoint, key: str, count: int, ndim: int) -> Array:
    """The first `count` experts' parts of the tensor `key` (experts first), each with the
    dimensions it must have: a tensor saved with one fewer is refused at the spec's `block`,
    never indexed as it is."""
    found = c.rows_of(key, list(range(count)))  # (count, ...)
    if found.ndim != ndim + 1:
        wanted = Msg.of("a matrix (2 dimensions)") if ndim == 2 else \
            Msg.of("a vector (1 dimension)")
        fail(c.block_node or c.field("num_local_experts"),
             "{name} holds an array of shape {found}, expected {expected}",
             name=f"{c.tensor(key)['key']}[0]", found=shape_text(found.shape[1:]),
             expected=wanted)
    return found
