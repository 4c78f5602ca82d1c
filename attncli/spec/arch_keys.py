"""What every architecture's reader shares (attncli/spec/arch_*.py): a model folder as the spec
reads it (`Checkpoint`), and the keys that several families write alike: the window, the
`Linear` projections, the attention of the Llama family, a LayerNorm, the activation (RoPE is
read in attncli/spec/arch_rope.py).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import field
from typing import Any

from attncli.errors import Location, SpecError
from attncli.i18n import Count, Msg
from attncli.records import record
from attncli.spec.arch_rope import rope
from attncli.spec.model import Array
from attncli.spec.source import Node
from attncli.spec.values import boolean, choice, fail, fail_at, integer, items, number, text

Keys = dict[str, Any]
# The largest size or count config.json may give (hidden_size, heads, head sizes, experts,
# layers): above every released model's (hidden_size 16,384 at most), far below what a list of
# rows to read costs; a larger one is a config.json that lies.
MAX_SIZE = 65_536
# what transformers' `layer_types` names each layer (Gemma 2, gpt-oss)
LAYER_KINDS = ("sliding_attention", "full_attention")


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
    shape_of: Callable[[str], tuple[int, ...]] | None = None  # a tensor's shape, from its header

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

    def shape(self, key: str) -> tuple[int, ...]:
        """The shape of the tensor `key`, as the file's header gives it (nothing is read)."""
        assert self.shape_of is not None
        return self.shape_of(self.tensor(key)["key"])

    def has(self, key: str) -> bool:
        return any(prefix + key in self.names for prefix in self.prefixes)

    def field(self, key: str) -> Node:
        found = self.config.get(key)
        if found is None or found.value is None:
            fail(Node({}, Location(self.config_name)), "the key {key} is missing", key=key)
        return found

    def whole(self, key: str, default: int | None = None, high: int = MAX_SIZE) -> int:
        """A size or count of config.json: a whole number from 1 to `high` (MAX_SIZE unless
        the caller bounds it by another size), so that no lying size makes attn list its rows."""
        found = self.config.get(key)
        if default is not None and (found is None or found.value is None):
            return default
        return integer(self.field(key), 1, high)

    def number(self, key: str, default: float) -> float:
        found = self.config.get(key)
        return default if found is None or found.value is None else number(found)

    def positive(self, key: str, default: float) -> float:
        """A number of config.json that must be greater than 0 (a scale whose root is taken)."""
        found = self.config.get(key)
        value = self.number(key, default)
        if found is not None and not value > 0:
            fail(found, "expected a number greater than {low}, found {value}", low="0",
                 value=f"{value:g}")
        return value

    def eps(self, key: str, default: float) -> float:
        """A norm's eps: positive, refused where config.json says it before any norm is taken
        (a norm worked while the model is read, as BERT's embeddings', would take the root of a
        negative number)."""
        found = self.config.get(key)
        if found is None or found.value is None:
            return default
        eps = number(found)
        if not eps > 0:
            fail(found, "expected a positive eps, found {value}", value=eps)
        return eps

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


def window(c: Checkpoint) -> int | None:
    """The sliding window of this layer, as `layer_types` (or Mistral's `sliding_window` for
    every layer) gives it: HF's window w lets a query see itself and the w − 1 keys before it."""
    kinds = layer_kinds(c)
    size = c.config.get("sliding_window")
    if size is None or size.value is None:
        return None
    if kinds is not None:
        if kinds[c.layer] != "sliding_attention":
            return None
    elif c.config["model_type"].value not in ("mistral",):
        return None
    return integer(size, 2) - 1


def layer_kinds(c: Checkpoint) -> list[str] | None:
    """config.json's `layer_types`, where it gives them: one of LAYER_KINDS for each of the
    model's layers (a list too short once made every layer past it a sliding one)."""
    types = c.config.get("layer_types")
    if types is None or types.value is None:
        return None
    kinds = [choice(kind, LAYER_KINDS) for kind in items(types, Msg.of("a list of layer kinds"))]
    layers = c.whole("num_hidden_layers")
    if len(kinds) != layers:
        fail_at(types, Msg.plural_of("has {count} entry, expected one per layer ({expected})",
                                     "has {count} entries, expected one per layer ({expected})",
                                     Count(len(kinds)), expected=layers))
    return kinds


def head_size(c: Checkpoint, at: str, heads: int) -> None:
    """config.json's `head_dim`, where it gives one, checked against the query projection: the
    rows of q_proj are heads · head_dim (a head_dim that lies was read past; transformers
    would refuse the folder). Rows that no count of heads splits are refused by the spec."""
    found = c.config.get("head_dim")
    if found is None or found.value is None:
        return
    size = integer(found, 1, MAX_SIZE)
    try:
        shape = c.shape(at + "self_attn.q_proj.weight")
    except SpecError:  # a tensor that is not there or not sound is refused where the spec
        return  # reads it, at model.W_Q
    rows = shape[0] if len(shape) == 2 else 0
    if rows and rows % heads == 0 and size != rows // heads:
        fail(found, "expected the rows of {tensor} over the heads, {rows} / {heads} = "
             "{expected}, found {found}", tensor=c.tensor(at + "self_attn.q_proj.weight")["key"],
             rows=rows, heads=heads, expected=rows // heads, found=size)


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
    head_size(c, at, heads)
    return {
        "convention": "column",
        "positional": rope(c.config, c.config_name),  # attncli/spec/arch_rope.py
        "heads": heads,
        "kv_heads": c.whole("num_key_value_heads", heads),
        "weights": linears(c, at + "self_attn.", {"Q": "q_proj", "K": "k_proj", "V": "v_proj",
                                                  "O": "o_proj"}, True),
        "mask": causal(c),
    }


# the activation each library's config names (`hidden_act`, `activation_function`), as attn's
# `activation`: `gelu` is the erf form x·Φ(x), as attn's gelu; `gelu_new` (GPT-2) and
# `gelu_pytorch_tanh` are its tanh approximation, attn's gelu_tanh
HF_ACTIVATIONS = {"gelu": "gelu", "gelu_new": "gelu_tanh", "gelu_pytorch_tanh": "gelu_tanh",
                  "relu": "relu", "silu": "silu"}


def activation(c: Checkpoint, key: str, default: str,
               names: dict[str, str] = HF_ACTIVATIONS) -> str:
    """attn's name of the feed-forward's activation that config.json's `key` names, as `names`
    reads it; a kind attn does not compute is refused there."""
    found = c.config.get(key)
    if found is None or found.value is None:
        return names[default]
    name = text(found)
    if name not in names:
        fail(found, "the activation {found} is not worked out yet; expected one of {known}",
             found=name[:40], known=", ".join(names))
    return names[name]


def layer_norm(c: Checkpoint, at: str, eps: float) -> Keys:
    """A LayerNorm's gain and bias under `at` (`….weight` and `….bias`)."""
    return {"gain": c.tensor(f"{at}.weight"), "bias": c.tensor(f"{at}.bias"), "eps": eps}


def layer_normed(c: Checkpoint, x: Array, at: str, eps: float) -> Array:
    """LayerNorm of each row of `x` with the gain and bias under `at`, for what a model does
    before its first layer (attn shows it already done)."""
    gain = c.rows_of(f"{at}.weight", [0])  # (d_model,)
    bias = c.rows_of(f"{at}.bias", [0])  # (d_model,)
    mu = x.mean(axis=1, keepdims=True)  # (n, 1)
    spread = ((x - mu) ** 2).mean(axis=1, keepdims=True)  # (n, 1)
    return (x - mu) / (spread + eps) ** 0.5 * gain + bias  # (n, d) * (d,) + (d,)
