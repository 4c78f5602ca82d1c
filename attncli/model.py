"""The Walkthrough: what `build` produces and every renderer reads. Data only."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
from numpy.typing import NDArray

from attncli.i18n import Msg

Array = NDArray[np.float64]


@dataclass(frozen=True)
class Formula:
    """One formula, as plain text (Unicode) and as LaTeX math."""

    text: str
    latex: str


@dataclass(frozen=True)
class Matrix:
    """A labelled matrix. A hidden (masked) score is -inf; an undefined weight is NaN."""

    symbol: Formula  # its name: Q, K, Sᵀ ...
    values: Array  # (rows, columns)
    rows: tuple[str, ...]
    columns: tuple[str, ...]

    @property
    def shape(self) -> tuple[int, int]:
        return (int(self.values.shape[0]), int(self.values.shape[1]))


@dataclass(frozen=True)
class Step:
    """One step of the computation: what it is called, its formula, what it produced."""

    id: str  # stable: embeddings, projections, scores, scaled, masked, weights, output
    title: Msg
    formula: Formula | None
    matrices: tuple[Matrix, ...]
    head: int | None = None  # 1-based, for steps that belong to one head
    notes: tuple[Msg, ...] = ()


@dataclass(frozen=True)
class HeadResult:
    """The matrices of one head, for the JSON `heads` entries."""

    index: int  # 1-based
    queries: Matrix
    keys: Matrix
    values: Matrix
    scores: Matrix  # the softmax input: scaled and masked (-inf where hidden)
    weights: Matrix
    context: Matrix


@dataclass(frozen=True)
class Header:
    title: dict[str, str]  # language -> text; "" for any
    description: dict[str, str]
    n_queries: int
    n_keys: int
    d_model: int
    d_k: int
    d_v: int
    n_heads: int
    convention: str
    mask: Msg
    scale: Msg


@dataclass(frozen=True)
class Walkthrough:
    header: Header
    steps: tuple[Step, ...]
    heads: tuple[HeadResult, ...]
    output: Matrix
    precision: int = 2
    notes: tuple[Msg, ...] = field(default=())
