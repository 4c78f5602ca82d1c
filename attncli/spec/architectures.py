"""Which tensor of a saved model and which field of its config.json is which key of a spec, one
function per architecture (`model_type`), for attncli/spec/model_folder.py.

Each gives the keys of the layer as plain values: a matrix is `{file, key, rows, columns}` of the
checkpoint, so that the spec reads it through the bounded reader like a key written by hand. A
PyTorch `Linear` keeps its weight as (out, in), which is attn's column convention; GPT-2's
`Conv1D` keeps (in, out), the row convention.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import field
from typing import Any

from attncli.errors import Location
from attncli.i18n import Msg
from attncli.records import record
from attncli.spec.model import Array
from attncli.spec.source import Node
from attncli.spec.values import boolean, fail, integer, number, text

Keys = dict[str, Any]


@record
class Checkpoint:
    """A model folder as the spec reads it: the checkpoint file's name in the spec, the layer,
    the token ids, config.json's fields as Nodes, the tensors' names, and whether the rest of
    the layer (`block: true`) is asked for."""

    weights: str
    layer: int
    ids: tuple[int, ...]
    config: dict[str, Node]
    config_name: str
    names: frozenset[str]
    block: bool = False
    block_node: Node | None = None
    prefixes: tuple[str, ...] = field(default=())
    read: Callable[[str, list[int]], Array] | None = None  # a tensor's rows, as float64

    def rows_of(self, key: str, rows: list[int]) -> Array:
        """Rows of the tensor `key`, read now: for what the model adds before attention."""
        assert self.read is not None
        return self.read(self.tensor(key)["key"], rows)

    def tensor(self, key: str, **selection: Any) -> Keys:
        """`key` of the checkpoint, after the first prefix under which the file holds it (a
        model saved with its head holds `model.layers…`, the bare model `layers…`)."""
        for prefix in self.prefixes:
            if prefix + key in self.names:
                return {"file": self.weights, "key": prefix + key, **selection}
        return {"file": self.weights, "key": (self.prefixes[:1] or ("",))[0] + key, **selection}

    def has(self, key: str) -> bool:
        return any(prefix + key in self.names for prefix in self.prefixes)

    def field(self, key: str) -> Node:
        found = self.config.get(key)
        if found is None or found.value is None:
            fail(Node({}, Location(self.config_name)), "the key {key} is missing", key=key)
        return found

    def whole(self, key: str, default: int | None = None) -> int:
        found = self.config.get(key)
        if default is not None and (found is None or found.value is None):
            return default
        return integer(self.field(key), 1)

    def number(self, key: str, default: float) -> float:
        found = self.config.get(key)
        return default if found is None or found.value is None else number(found)

    def flag(self, key: str) -> bool:
        found = self.config.get(key)
        return False if found is None or found.value is None else boolean(found)

    @property
    def rows(self) -> list[int]:
        return list(self.ids)

    @property
    def n(self) -> int:
        return len(self.ids)


def refuse_block(c: Checkpoint, why: str | Msg) -> None:
    if c.block and c.block_node is not None:
        fail(c.block_node, "the rest of the layer is not worked out for this model yet ({why}); "
             "remove block", why=why)


def rope(c: Checkpoint) -> Keys:
    """RoPE from `rope_parameters` (or the older `rope_theta`), the unscaled kind only."""
    parameters = c.config.get("rope_parameters")
    base = c.number("rope_theta", 10000.0)
    if parameters is not None and isinstance(parameters.value, dict):
        kind = parameters.value.get("rope_type")
        if kind is not None and text(kind) != "default":
            fail(kind, "the RoPE scaling {found} is not worked out yet; expected default",
                 found=text(kind)[:40])
        theta = parameters.value.get("rope_theta")
        base = base if theta is None else number(theta)
    return {"rope": {"base": base, "layout": "half"}}


def window(c: Checkpoint) -> int | None:
    """The sliding window of this layer, as `layer_types` (or Mistral's `sliding_window` for
    every layer) gives it: HF's window w lets a query see itself and the w − 1 keys before it."""
    types = c.config.get("layer_types")
    size = c.config.get("sliding_window")
    if size is None or size.value is None:
        return None
    if types is not None and isinstance(types.value, list):
        if c.layer < len(types.value) and types.value[c.layer].value != "sliding_attention":
            return None
    elif c.config["model_type"].value not in ("mistral",):
        return None
    return integer(size, 2) - 1


def causal(c: Checkpoint) -> Any:
    width = window(c)
    return "causal" if width is None else {"window": width, "causal": True}


def linears(c: Checkpoint, at: str, names: dict[str, str], bias: bool) -> Keys:
    """W_Q, W_K, W_V, W_O (and their biases) from `Linear` layers under `at`."""
    weights: Keys = {f"W_{k}": c.tensor(f"{at}{name}.weight") for k, name in names.items()}
    if bias:
        for k, name in names.items():
            if c.has(f"{at}{name}.bias"):
                weights[f"b_{k}"] = c.tensor(f"{at}{name}.bias")
    return weights


def rotary_heads(c: Checkpoint, at: str) -> Keys:
    """The attention of the Llama family and its heirs: `Linear` q_proj, k_proj, v_proj, o_proj
    (their biases where the file has them), grouped-query heads, RoPE, the causal mask or this
    layer's window."""
    heads = c.whole("num_attention_heads")
    return {
        "convention": "column",
        "positional": rope(c),
        "heads": heads,
        "kv_heads": c.whole("num_key_value_heads", heads),
        "weights": linears(c, at + "self_attn.", {"Q": "q_proj", "K": "k_proj", "V": "v_proj",
                                                  "O": "o_proj"}, True),
        "mask": causal(c),
    }


def llama(c: Checkpoint) -> Keys:
    """Llama, Mistral and Qwen3: RMSNorm before attention, RoPE, grouped-query heads, and a SwiGLU
    feed-forward; Qwen3 normalizes each head's q and k."""
    at = f"layers.{c.layer}."
    eps = c.number("rms_norm_eps", 1e-6)
    keys: Keys = {"embeddings": c.tensor("embed_tokens.weight", rows=c.rows),
                  **rotary_heads(c, at)}
    norms = [{"gain": c.tensor(at + name + ".weight"), "eps": eps}
             for name in ("input_layernorm", "post_attention_layernorm")]
    keys["block"] = {"norm": "pre", "rms_norm": norms, "residual": c.block}
    if c.block:
        act = c.config.get("hidden_act")
        if act is not None and text(act) != "silu":
            refuse_block(c, text(act)[:40])
        keys["block"]["ffn"] = {"activation": "swiglu",
                                **{w: c.tensor(f"{at}mlp.{name}_proj.weight") for w, name in
                                   (("W_1", "gate"), ("W_3", "up"), ("W_2", "down"))}}
    if c.has(at + "self_attn.q_norm.weight"):  # Qwen3: each head's q and k
        keys["qk_norm"] = {"over": "head", "q_gain": c.tensor(at + "self_attn.q_norm.weight"),
                           "k_gain": c.tensor(at + "self_attn.k_norm.weight"), "eps": eps}
    return keys


def gpt2(c: Checkpoint) -> Keys:
    """GPT-2: learned positions added to the token embeddings, LayerNorm before attention, one
    `Conv1D` c_attn holding W_Q, W_K and W_V side by side (row convention)."""
    at = f"h.{c.layer}."
    d = c.whole("n_embd")
    refuse_block(c, "gelu_new")
    eps = c.number("layer_norm_epsilon", 1e-5)
    thirds = {"Q": f"0:{d}", "K": f"{d}:{2 * d}", "V": f"{2 * d}:{3 * d}"}
    weights: Keys = {}
    for k, columns in thirds.items():
        weights[f"W_{k}"] = c.tensor(at + "attn.c_attn.weight", columns=columns)
        weights[f"b_{k}"] = c.tensor(at + "attn.c_attn.bias", columns=columns)
    weights["W_O"] = c.tensor(at + "attn.c_proj.weight")
    weights["b_O"] = c.tensor(at + "attn.c_proj.bias")
    norms = [{"gain": c.tensor(f"{at}{name}.weight"), "bias": c.tensor(f"{at}{name}.bias"),
              "eps": eps} for name in ("ln_1", "ln_2")]
    return {
        "embeddings": c.tensor("wte.weight", rows=c.rows),
        "positional": c.tensor("wpe.weight", rows=f"0:{c.n}"),
        "heads": c.whole("n_head"),
        "weights": weights,
        "mask": "causal",
        "block": {"norm": "pre", "layer_norm": norms, "residual": False},
    }


def bert(c: Checkpoint) -> Keys:
    """BERT: word, position and token-type embeddings added and LayerNorm-ed before the first
    layer; the token type is 0 for every token (one sentence), so its row joins the positions'
    rows in P; `Linear` query, key and value."""
    at = f"encoder.layer.{c.layer}.attention."
    refuse_block(c, Msg.of("LayerNorm after each sublayer"))
    eps = c.number("layer_norm_eps", 1e-12)
    weights = linears(c, at + "self.", {"Q": "query", "K": "key", "V": "value"}, True)
    weights["W_O"] = c.tensor(at + "output.dense.weight")
    weights["b_O"] = c.tensor(at + "output.dense.bias")
    norms = [{"gain": c.tensor(f"embeddings.LayerNorm.{w}"),
              "bias": c.tensor(f"embeddings.LayerNorm.{b}"), "eps": eps}
             for w, b in (("weight", "bias"),)]
    norms.append({"gain": c.tensor(at + "output.LayerNorm.weight"),
                  "bias": c.tensor(at + "output.LayerNorm.bias"), "eps": eps})
    positions = c.rows_of("embeddings.position_embeddings.weight", list(range(c.n)))  # (n, d)
    token_type = c.rows_of("embeddings.token_type_embeddings.weight", [0])[0]  # (d_model,)
    return {
        "convention": "column",
        "embeddings": c.tensor("embeddings.word_embeddings.weight", rows=c.rows),
        "positional": positions + token_type,  # (n, d_model) + (d_model,)
        "heads": c.whole("num_attention_heads"),
        "weights": weights,
        "block": {"norm": "pre", "layer_norm": norms, "residual": False},
    }


def gemma2(c: Checkpoint) -> Keys:
    """Gemma 2: token embeddings times √d_model, RMSNorm with the gain 1 + w, scores divided by
    √query_pre_attn_scalar and soft-capped, sliding-window layers as `layer_types` lists."""
    at = f"layers.{c.layer}."
    refuse_block(c, "post_feedforward_layernorm")
    d = c.whole("hidden_size")
    eps = c.number("rms_norm_eps", 1e-6)
    embeddings = c.rows_of("embed_tokens.weight", c.rows) * d ** 0.5  # (n, d_model)
    gain = 1.0 + c.rows_of(at + "input_layernorm.weight", [0])  # (d_model,)
    keys: Keys = {
        "embeddings": embeddings,
        **rotary_heads(c, at),
        "scale": c.number("query_pre_attn_scalar", 256.0) ** 0.5,
        "block": {"norm": "pre", "rms_norm": {"gain": gain, "eps": eps}, "residual": False},
    }
    cap = c.config.get("attn_logit_softcapping")
    if cap is not None and cap.value is not None:
        keys["softcap"] = number(cap)
    return keys


def gpt_oss(c: Checkpoint) -> Keys:
    """gpt-oss: RMSNorm before attention, RoPE, grouped-query heads with biases, each head's
    learned sink logit, sliding-window and full layers as `layer_types` lists."""
    at = f"layers.{c.layer}."
    refuse_block(c, "mlp.experts")
    return {
        "embeddings": c.tensor("embed_tokens.weight", rows=c.rows),
        **rotary_heads(c, at),
        "sinks": c.rows_of(at + "self_attn.sinks", [0]),  # (heads,)
        "block": {"norm": "pre", "residual": False, "rms_norm": {
            "gain": c.tensor(at + "input_layernorm.weight"), "eps": c.number("rms_norm_eps",
                                                                              1e-5)}},
    }


@record
class Architecture:
    """How one `model_type` is read: its config's count of layers, its tensors' prefixes, and
    the keys of one layer."""

    layers_key: str
    prefixes: tuple[str, ...]
    keys: Callable[[Checkpoint], Keys]
    deep: bool = False  # whether attn works out whole layers, to reach a layer past the first


LLAMA = Architecture("num_hidden_layers", ("model.", ""), llama, deep=True)
ARCHITECTURES: dict[str, Architecture] = {
    "llama": LLAMA,
    "mistral": LLAMA,
    "qwen3": LLAMA,
    "gpt2": Architecture("n_layer", ("transformer.", ""), gpt2),
    "bert": Architecture("num_hidden_layers", ("bert.", ""), bert),
    "gemma2": Architecture("num_hidden_layers", ("model.", ""), gemma2),
    "gpt_oss": Architecture("num_hidden_layers", ("model.", ""), gpt_oss),
}
