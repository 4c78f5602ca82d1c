"""The validated spec: immutable, every matrix a float64 array of checked shape.

Weights are kept as the user wrote them (W_Q is d_model x d_k in the row convention and
d_k x d_model in the column convention); ops.py knows how to apply either.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

import numpy as np
from numpy.typing import NDArray

Array = NDArray[np.float64]
Convention = Literal["row", "column"]
MaskedRows = Literal["zeros", "nan", "error"]
Decimal = Literal["dot", "comma"]


@dataclass(frozen=True)
class Sequence:
    """Tokens and their embeddings: the rows of E (n x d_model)."""

    tokens: tuple[str, ...]
    embeddings: Array  # (n, d_model)

    @property
    def n(self) -> int:
        return len(self.tokens)

    @property
    def d_model(self) -> int:
        return int(self.embeddings.shape[1])


@dataclass(frozen=True)
class Head:
    """One attention head's projections; biases are optional vectors."""

    W_Q: Array  # row: (d_model, d_k); column: (d_k, d_model)
    W_K: Array  # row: (d_model, d_k); column: (d_k, d_model)
    W_V: Array  # row: (d_model, d_v); column: (d_v, d_model)
    b_Q: Array | None = None  # (d_k,)
    b_K: Array | None = None  # (d_k,)
    b_V: Array | None = None  # (d_v,)
    identity: frozenset[str] = frozenset()  # which of W_Q, W_K, W_V the user wrote as `identity`

    def d_k(self, convention: Convention) -> int:
        return int(self.W_Q.shape[1] if convention == "row" else self.W_Q.shape[0])

    def d_v(self, convention: Convention) -> int:
        return int(self.W_V.shape[1] if convention == "row" else self.W_V.shape[0])


@dataclass(frozen=True)
class Score:
    """How a query is compared with a key: q·k, or q·W·k (`general`)."""

    kind: Literal["dot", "general"] = "dot"
    W: Array | None = None  # (d_k, d_k) for `general`


@dataclass(frozen=True)
class Scale:
    """What the scores are divided by: √d_k, nothing, or a given number."""

    kind: Literal["sqrt_dk", "none", "number"] = "sqrt_dk"
    value: float = 1.0  # the divisor, for `number`


@dataclass(frozen=True)
class CausalMask:
    """Query i sees keys j <= i."""


@dataclass(frozen=True)
class WindowMask:
    """Query i sees keys with |i - j| <= width; with causal, only j in [i - width, i]."""

    width: int
    causal: bool = False


@dataclass(frozen=True)
class PaddingMask:
    """Key j is visible where keep[j] is true (padding tokens are hidden)."""

    keep: tuple[bool, ...]


@dataclass(frozen=True)
class MatrixMask:
    """An explicit n x m matrix: true (1) where the key is visible."""

    visible: NDArray[np.bool_]  # (n, m)


Mask = CausalMask | WindowMask | PaddingMask | MatrixMask


@dataclass(frozen=True)
class Display:
    precision: int = 2
    round_intermediates: bool = False
    decimal: Decimal = "dot"


@dataclass(frozen=True)
class Spec:
    """Everything the pipeline needs, validated. Keys and values come from `context` when given."""

    source: str
    queries: Sequence
    heads: tuple[Head, ...]
    convention: Convention = "row"
    context: Sequence | None = None
    W_O: Array | None = None  # (h·d_v, d_model) in the row convention
    b_O: Array | None = None  # (d_model,)
    score: Score = field(default_factory=Score)
    scale: Scale = field(default_factory=Scale)
    masks: tuple[Mask, ...] = ()
    masked_rows: MaskedRows = "zeros"
    display: Display = field(default_factory=Display)
    title: dict[str, str] = field(default_factory=dict)  # language -> text; "" for any language
    description: dict[str, str] = field(default_factory=dict)

    @property
    def keys_source(self) -> Sequence:
        return self.context if self.context is not None else self.queries
