"""The validated spec's feed-forward network: its activations, the plain and gated FFN, and
gpt-oss's mixture of experts."""

from __future__ import annotations

from typing import Literal

import numpy as np
from numpy.typing import NDArray

from attncli.records import record

Array = NDArray[np.float64]
Activation = Literal["relu", "gelu", "gelu_tanh", "silu", "swiglu", "geglu", "geglu_tanh"]
ACTIVATIONS: tuple[Activation, ...] = ("relu", "gelu", "gelu_tanh", "silu", "swiglu", "geglu",
                                       "geglu_tanh")
GATED = ("swiglu", "geglu", "geglu_tanh")
# the activation of a gated kind's gate (W_1)
GATES: dict[str, str] = {"swiglu": "silu", "geglu": "gelu", "geglu_tanh": "gelu_tanh"}
# how prose and a formula's text name each activation (the spec writes them in lower case)
ACTIVATION_NAMES: dict[str, str] = {"relu": "ReLU", "gelu": "GELU", "gelu_tanh": "GELU_tanh",
                                    "silu": "SiLU", "swiglu": "SwiGLU", "geglu": "GeGLU",
                                    "geglu_tanh": "GeGLU_tanh"}


@record
class FeedForward:
    """The position-wise feed-forward network: activation(X·W_1 + b_1)·W_2 + b_2, or gated
    (swiglu, geglu): (act(X·W_1 + b_1) ⊙ (X·W_3 + b_3))·W_2 + b_2, W_1 the gate, W_3 the up."""

    W_1: Array  # row: (d_model, d_ff); column: (d_ff, d_model)
    W_2: Array  # row: (d_ff, d_model); column: (d_model, d_ff)
    b_1: Array | None = None  # (d_ff,)
    b_2: Array | None = None  # (d_model,)
    activation: Activation = "relu"
    W_3: Array | None = None  # like W_1; for swiglu and geglu
    b_3: Array | None = None  # (d_ff,)

    @property
    def gated(self) -> bool:
        return self.activation in GATED


@record
class Expert:
    """One expert of a mixture (gpt-oss): a gated network W_1 (gate), W_3 (up), W_2 (down) with
    biases, shaped as FeedForward's."""

    W_1: Array  # row: (d_model, d_ff); column: (d_ff, d_model)
    W_3: Array  # like W_1
    W_2: Array  # row: (d_ff, d_model); column: (d_model, d_ff)
    b_1: Array | None = None  # (d_ff,)
    b_3: Array | None = None  # (d_ff,)
    b_2: Array | None = None  # (d_model,)


@record
class Mixture:
    """A mixture of experts in place of the feed-forward (gpt-oss): router logits X·W_r + b_r,
    each token's top_k experts, a softmax over those k, and the weighted sum of what they give;
    each expert is gpt-oss's clamped SwiGLU: g = min(gate, limit), u = clip(up, −limit, limit),
    H = (u + 1) ⊙ g·σ(alpha·g)."""

    W_r: Array  # row: (d_model, experts); column: (experts, d_model)
    experts: tuple[Expert, ...]
    top_k: int
    b_r: Array | None = None  # (experts,)
    alpha: float = 1.702
    limit: float = 7.0
