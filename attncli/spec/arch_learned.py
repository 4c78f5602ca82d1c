"""The families with learned positions (`gpt2`, `bert`): each gives the keys of one layer of its
checkpoint (see attncli/spec/architectures.py)."""

from __future__ import annotations

from attncli.spec.arch_keys import (
    Checkpoint,
    Keys,
    activation,
    layer_norm,
    layer_normed,
    linears,
)


def gpt2(c: Checkpoint) -> Keys:
    """GPT-2: learned positions added to the token embeddings before the first layer, LayerNorm
    before attention, one `Conv1D` c_attn holding W_Q, W_K and W_V side by side (row
    convention); the rest of the layer is pre-norm: residual, `ln_2`, the feed-forward `mlp.c_fc`,
    `gelu_new` (attn's gelu_tanh), `mlp.c_proj`, residual. (`ln_f` follows the last layer only,
    so no layer's output passes through it.)"""
    at = f"h.{c.layer}."
    act = activation(c, "activation_function", "gelu_new") if c.block else None
    d = c.whole("n_embd")
    eps = c.eps("layer_norm_epsilon", 1e-5)
    thirds = {"Q": f"0:{d}", "K": f"{d}:{2 * d}", "V": f"{2 * d}:{3 * d}"}
    weights: Keys = {}
    for k, columns in thirds.items():
        weights[f"W_{k}"] = c.tensor(at + "attn.c_attn.weight", columns=columns)
        weights[f"b_{k}"] = c.tensor(at + "attn.c_attn.bias", columns=columns)
    weights["W_O"] = c.tensor(at + "attn.c_proj.weight")
    weights["b_O"] = c.tensor(at + "attn.c_proj.bias")
    keys: Keys = {
        "embeddings": c.tensor("wte.weight", rows=c.rows),
        "heads": c.whole("n_head"),
        "weights": weights,
        "mask": "causal",
        "block": {"norm": "pre", "residual": c.block, "layer_norm": [
            layer_norm(c, at + name, eps) for name in ("ln_1", "ln_2")]},
    }
    if c.layer == 0:  # a later layer's input is what the layers before it give back
        keys["positional"] = c.tensor("wpe.weight", rows=f"0:{c.n}")
    if c.block:
        keys["block"]["ffn"] = {"activation": act, **{
            key: c.tensor(f"{at}mlp.{name}") for key, name in (
                ("W_1", "c_fc.weight"), ("b_1", "c_fc.bias"), ("W_2", "c_proj.weight"),
                ("b_2", "c_proj.bias"))}}
    return keys


def bert(c: Checkpoint) -> Keys:
    """BERT: word, position and token-type embeddings added and LayerNorm-ed before the first
    layer; the token type is 0 for every token (one sentence), so its row joins the positions'
    rows in P; `Linear` query, key and value. The rest of the layer is post-norm: residual,
    `attention.output.LayerNorm`, the feed-forward (`intermediate.dense`, the activation,
    `output.dense`), residual, `output.LayerNorm`."""
    at = f"encoder.layer.{c.layer}."
    act = activation(c, "hidden_act", "gelu") if c.block else None
    eps = c.eps("layer_norm_eps", 1e-12)
    weights = linears(c, at + "attention.self.", {"Q": "query", "K": "key", "V": "value"}, True)
    weights["W_O"] = c.tensor(at + "attention.output.dense.weight")
    weights["b_O"] = c.tensor(at + "attention.output.dense.bias")
    keys: Keys = {"convention": "column", "heads": c.whole("num_attention_heads"),
                  "weights": weights,
                  "embeddings": c.tensor("embeddings.word_embeddings.weight", rows=c.rows)}
    if c.layer == 0:  # a later layer's input is what the layers before it give back
        positions = c.rows_of("embeddings.position_embeddings.weight", list(range(c.n)))
        token_type = c.rows_of("embeddings.token_type_embeddings.weight", [0])[0]  # (d_model,)
        positions = positions + token_type  # (n, d_model) + (d_model,)
    if c.layer == 0 and not c.block:  # the embeddings' LayerNorm shown, as a norm before attention
        keys["positional"] = positions
        keys["block"] = {"norm": "pre", "residual": False, "layer_norm": [
            layer_norm(c, "embeddings.LayerNorm", eps),
            layer_norm(c, at + "attention.output.LayerNorm", eps)]}
    elif c.layer == 0:  # a post-norm block has no norm before attention: X comes LayerNorm-ed
        words = c.rows_of("embeddings.word_embeddings.weight", c.rows)  # (n, d_model)
        keys["embeddings"] = layer_normed(c, words + positions, "embeddings.LayerNorm", eps)
    if c.block:
        keys["block"] = {"norm": "post", "layer_norm": [
            layer_norm(c, at + "attention.output.LayerNorm", eps),
            layer_norm(c, at + "output.LayerNorm", eps)], "ffn": {
            "activation": act,
            "W_1": c.tensor(at + "intermediate.dense.weight"),
            "b_1": c.tensor(at + "intermediate.dense.bias"),
            "W_2": c.tensor(at + "output.dense.weight"),
            "b_2": c.tensor(at + "output.dense.bias")}}
    return keys
