"""The validated spec: immutable, every matrix a float64 array of checked shape.

Weights are kept as the user wrote them (W_Q is d_model x d_k in the row convention and
d_k x d_model in the column convention); ops.py knows how to apply either.
"""

from __future__ import annotations

from dataclasses import field
from typing import Literal

import numpy as np
from numpy.typing import NDArray

from attncli.errors import Location
from attncli.records import record
from attncli.spec.model_ffn import FeedForward, Mixture

Array = NDArray[np.float64]
Convention = Literal["row", "column"]
MaskedRows = Literal["zeros", "nan", "error"]
Decimal = Literal["dot", "comma"]
Dtype = Literal["float16", "bfloat16", "float32", "float64"]  # the `dtype` key (spec/precision.py)
@record
class RopeScaling:
    """How RoPE's frequencies are scaled for a longer context than the model was trained on:
    `linear` divides each by the factor; `llama3` keeps the fast ones, divides the slow ones and
    blends those between; `yarn` blends by pair and multiplies cos and sin by an attention
    factor (transformers' `rope_scaling`)."""

    kind: Literal["linear", "llama3", "yarn"]
    factor: float
    original_max_position_embeddings: int = 0  # llama3, yarn: the context trained on
    low_freq_factor: float = 1.0  # llama3
    high_freq_factor: float = 4.0  # llama3
    beta_fast: float = 32.0  # yarn
    beta_slow: float = 1.0  # yarn
    truncate: bool = True  # yarn: floor and ceil the pairs between which it blends
    attention_factor: float | None = None  # yarn: None is 0.1·ln(factor) + 1


@record
class Positional:
    """What is added to the embeddings: P = sinusoidal(n, d_model, base), or a given matrix;
    or `rope`: rotary embeddings, applied to each head's queries and keys instead."""

    kind: Literal["sinusoidal", "matrix", "rope"]
    base: float = 10000.0  # the n of sin(k / n^(2i/d)), for `sinusoidal`; of θᵢ, for `rope`
    values: Array | None = None  # (n, d_model), for `matrix`
    # for `rope` (nothing is added to E: each head's q and k are rotated): which features pair up
    layout: Literal["half", "interleaved"] = "half"
    scaling: RopeScaling | None = None  # for `rope`: its frequencies scaled (None: unscaled)


@record
class Sequence:
    """Tokens and their embeddings: the rows of E (n x d_model), and an optional P to add."""

    tokens: tuple[str, ...]
    embeddings: Array  # (n, d_model)
    positional: Positional | None = None

    @property
    def n(self) -> int:
        return len(self.tokens)

    @property
    def d_model(self) -> int:
        return int(self.embeddings.shape[1])


@record
class Head:
    """One attention head's projections; biases are optional vectors."""

    W_Q: Array  # row: (d_model, d_k); column: (d_k, d_model)
    W_K: Array  # row: (d_model, d_k); column: (d_k, d_model)
    W_V: Array  # row: (d_model, d_v); column: (d_v, d_model)
    b_Q: Array | None = None  # (d_k,)
    b_K: Array | None = None  # (d_k,)
    b_V: Array | None = None  # (d_v,)
    identity: frozenset[str] = frozenset()  # which of W_Q, W_K, W_V the user wrote as `identity`
    # For `heads: h`: which columns (row convention) or rows (column convention) of the full
    # W_Q, W_K and W_V this head's blocks are, as 0-based (start, stop) for d_k and for d_v.
    split: tuple[tuple[int, int], tuple[int, int]] | None = None
    # With kv_heads (grouped-query attention): the 0-based group whose K and V this head uses,
    # the (start, stop) of that group's block of W_K and of W_V, and the 1-based heads sharing it.
    group: int | None = None
    kv_split: tuple[tuple[int, int], tuple[int, int]] | None = None
    sharing: tuple[int, ...] = ()

    def d_k(self, convention: Convention) -> int:
        return int(self.W_Q.shape[1] if convention == "row" else self.W_Q.shape[0])

    def d_v(self, convention: Convention) -> int:
        return int(self.W_V.shape[1] if convention == "row" else self.W_V.shape[0])


@record
class Decode:
    """Generation with a KV cache: the first `prefill` tokens at once, then one token a step."""

    prefill: int


@record
class Tiling:
    """Online softmax in tiles: keys read `keys` at a time, queries `queries` at a time."""

    keys: int
    queries: int


@record
class Score:
    """How a query is compared with a key: q·k, or q·W·k (`general`)."""

    kind: Literal["dot", "general"] = "dot"
    W: Array | None = None  # (d_k, d_k) for `general`


@record
class Scale:
    """What the scores are divided by: √d_k, nothing, or a given number."""

    kind: Literal["sqrt_dk", "none", "number"] = "sqrt_dk"
    value: float = 1.0  # the divisor, for `number`


@record
class CausalMask:
    """Query i sees keys j <= i."""


@record
class WindowMask:
    """Query i sees keys with |i - j| <= width; with causal, only j in [i - width, i]; and the
    first `sink_tokens` keys besides (StreamingLLM's attention sinks), with causal only j <= i."""

    width: int
    causal: bool = False
    sink_tokens: int = 0


@record
class PaddingMask:
    """Key j is visible where keep[j] is true (padding tokens are hidden)."""

    keep: tuple[bool, ...]


@record
class MatrixMask:
    """An explicit n x m matrix: true (1) where the key is visible."""

    visible: NDArray[np.bool_]  # (n, m)


Mask = CausalMask | WindowMask | PaddingMask | MatrixMask


@record
class ScoreBias:
    """What is added to the scaled scores before the mask: ALiBi's −m·|i − j| with each head's
    slope m, or given n x m matrices (one for every head, or one per head)."""

    kind: Literal["alibi", "matrix"]
    matrices: tuple[Array, ...] = ()  # (n, m) each; one, or one per head

    def for_head(self, index: int) -> Array:
        """The matrix of head `index` (0-based), for `matrix`."""
        return self.matrices[index if len(self.matrices) > 1 else 0]


@record
class LayerNorm:
    """LayerNorm over the features of each row: gain·(x - μ)/√(σ² + eps) + bias."""

    gain: Array | None = None  # (d_model,); None: all ones
    bias: Array | None = None  # (d_model,); None: all zeros
    eps: float = 1e-5


@record
class RMSNorm:
    """RMSNorm over the features of each row: gain·x/√(mean(x²) + eps), no centring, no bias."""

    gain: Array | None = None  # (d_model,); None: all ones
    eps: float = 1e-6


Norm = LayerNorm | RMSNorm


@record
class QKNorm:
    """RMSNorm of the queries and keys before RoPE: over each head's d_k (`head`, Qwen3) or
    over the whole projection of all heads (`projection`, OLMo 2); gains None: all ones."""

    over: Literal["head", "projection"]
    q_gain: Array | None = None  # (d_k,) for head; (heads·d_k,) for projection
    k_gain: Array | None = None  # (d_k,) for head; (kv_heads·d_k,) for projection
    eps: float = 1e-6


@record
class Latent:
    """Multi-head latent attention (DeepSeek-V2, V3): every head's keys and values made from one
    latent C_KV of d_c features per token, and a part of d_R features for RoPE, whose key part
    K_R one projection makes for all heads. Row convention: x·W."""

    W_DKV: Array  # (d_model, d_c): the latent of keys and values, C_KV = X·W_DKV
    W_UK: Array  # (d_c, heads·d_nope): each head's keys from the latent
    W_UV: Array  # (d_c, heads·d_v): each head's values from the latent
    W_KR: Array  # (d_model, d_R): the keys' RoPE part, one for all heads
    W_Q: Array  # (d_q, heads·d_nope): each head's queries (d_q: d_model, or d_cq with W_DQ)
    W_QR: Array  # (d_q, heads·d_R): each head's RoPE part of the queries
    W_DQ: Array | None = None  # (d_model, d_cq): the queries' own latent C_Q = X·W_DQ, or None
    kv_norm: RMSNorm | None = None  # RMSNorm of C_KV (DeepSeek's kv_a_layernorm), or None
    q_norm: RMSNorm | None = None  # RMSNorm of C_Q (q_a_layernorm), or None

    @property
    def heads(self) -> int:
        return int(self.W_QR.shape[1]) // self.d_rope

    @property
    def d_c(self) -> int:
        return int(self.W_DKV.shape[1])

    @property
    def d_rope(self) -> int:
        return int(self.W_KR.shape[1])

    @property
    def d_nope(self) -> int:
        return int(self.W_UK.shape[1]) // self.heads

    @property
    def d_v(self) -> int:
        return int(self.W_UV.shape[1]) // self.heads


@record
class Block:
    """The rest of the layer around attention: residual adds, LayerNorms and the FFN."""

    residual: bool = True
    norms: tuple[Norm, Norm] | None = None  # before/after the FFN; None: no normalization
    ffn: FeedForward | None = None
    norm: Literal["post", "pre"] = "post"
    # a norm of each sublayer's output before its residual add (Gemma 2's post_attention and
    # post_feedforward norms): (after attention, after the FFN); None: none
    sandwich: tuple[Norm, Norm] | None = None
    moe: Mixture | None = None  # in place of ffn


@record
class Classifier:
    """The MLP head of a Vision Transformer: the class scores of the CLS row of the layer's
    output, after the model's final LayerNorm when it has one: z = W·LayerNorm(y_CLS) + b."""

    W: Array  # row: (d_model, classes); column: (classes, d_model)
    b: Array | None = None  # (classes,)
    norm: LayerNorm | None = None
    labels: tuple[str, ...] = ()  # one per class


@record
class Vision:
    """A Vision Transformer's input: an image cut into p x p patches, each flattened (channel,
    row, column) and projected, a learned CLS row before them (attncli/spec/vit.py)."""

    image: Array  # (channels, height, width), as the model takes it
    patch: int  # p
    W_E: Array  # row: (channels·p·p, d_model); column: (d_model, channels·p·p)
    cls: Array  # (d_model,)
    b_E: Array | None = None  # (d_model,)
    classifier: Classifier | None = None


@record
class Display:
    """How the spec asks to be shown; a command's options override each choice."""

    precision: int = 2
    round_intermediates: bool = False
    decimal: Decimal = "dot"
    steps: str | None = None  # step ids separated by commas, as --steps takes them
    expand: tuple[str, ...] = ()  # --expand values
    head: str | None = None  # as --head takes it
    reading: bool = True
    header: bool = True
    md_flavor: str | None = None
    # where each key was written, for errors in choices only a walkthrough can check
    where: dict[str, Location] = field(default_factory=dict, compare=False)


@record
class Backward:
    """dL/dO for L = Σ dO ⊙ O: the output's gradient, n x d_out (the layer's output Y, n x
    d_model, with a block)."""

    dO: Array  # (n, d_out)


@record
class Spec:
    """Everything the pipeline needs, validated. Keys and values come from `context` when given."""

    source: str
    queries: Sequence
    heads: tuple[Head, ...]
    convention: Convention = "row"
    context: Sequence | None = None
    W_O: Array | None = None  # row: (h·d_v, d_model); column: (d_model, h·d_v)
    b_O: Array | None = None  # (d_model,)
    block: Block | None = None
    score: Score = field(default_factory=Score)
    scale: Scale = field(default_factory=Scale)
    masks: tuple[Mask, ...] = ()
    bias: ScoreBias | None = None
    kv_heads: int | None = None  # grouped-query attention: the K/V heads the heads share
    masked_rows: MaskedRows = "zeros"
    decode: Decode | None = None
    dtype: Dtype = "float64"  # what every step is computed in (attncli/compute/lowprec.py)
    tiling: Tiling | None = None
    display: Display = field(default_factory=Display)
    title: dict[str, str] = field(default_factory=dict)  # language -> text; "" for any language
    description: dict[str, str] = field(default_factory=dict)
    backward: Backward | None = None  # the gradient steps after the forward ones (backward.py)
    softcap: float | None = None  # c of S″ = c·tanh(S′ / c), Gemma 2's logit soft-capping
    qk_norm: QKNorm | None = None  # RMSNorm of q and k before RoPE (Qwen3, OLMo 2)
    sinks: tuple[float, ...] | None = None  # each head's sink logit s_h (gpt-oss), one per head
    vision: Vision | None = None  # `image`: the tokens are its patches (attncli/spec/vit.py)
    latent: Latent | None = None  # multi-head latent attention (DeepSeek-V2, V3)
    # `model: {layer: L}` past the first layer: the whole layers 0 … L − 1 of the saved model,
    # whose output is this layer's input X (attncli/steps/build.py)
    earlier: tuple[Spec, ...] = ()

    @property
    def keys_source(self) -> Sequence:
        return self.context if self.context is not None else self.queries

    def rope(self, which: str) -> Positional | None:
        """The RoPE of the queries (`q`) or of the keys' sequence (`k`), or None."""
        seq = self.queries if which == "q" else self.keys_source
        return seq.positional if seq.positional is not None and seq.positional.kind == "rope" \
            else None

    @property
    def rotary(self) -> bool:
        """Whether RoPE turns the queries or the keys."""
        return self.rope("q") is not None or self.rope("k") is not None
