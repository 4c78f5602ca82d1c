"""Softmax: the attention weights A, each row of the scores turned into weights that sum to 1."""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from attncli.compute import ops
from attncli.errors import Location, SpecError
from attncli.i18n import Msg, quoted
from attncli.model import Array, Formula, Step
from attncli.steps.base import Build, HeadState, Made


def weights(b: Build, hs: HeadState) -> Made[HeadState]:
    """A = softmax(scores), row by row; what a query that sees no key gets, by masked_rows."""
    assert hs.logits is not None and hs.scores is not None
    symbol = hs.scores.symbol
    a, empty = b.calc.softmax(hs.logits, b.reuse(hs.logits))  # (n, m), (n,)
    notes = [Msg.of("Softmax is taken along each row, so every row of A sums to 1.")]
    if empty.any():
        a = empty_rows(b, a, empty, notes)
    A = b.attention(Formula("A", "A"), a)
    if b.spec.masks:  # a hidden key's weight prints as —, not as a 0 it could have earned
        A = replace(A, hidden_by=hs.scores)
    step = Step("weights", Msg.of("Attention weights"),
                Formula(f"A = softmax({symbol.text})",
                        rf"A = \operatorname{{softmax}}\left({symbol.latex}\right)"),
                (A,), hs.index, tuple(notes))
    return (step,), replace(hs, logits=None, weights=a, A=A)


def empty_rows(b: Build, weights: Array, empty: ops.Bools, notes: list[Msg]) -> Array:
    """Apply masked_rows to queries that see no key at all."""
    policy = b.spec.masked_rows
    first = b.query_labels[int(np.argmax(empty))]
    if policy == "error":
        raise SpecError(
            Msg.of("mask: the query {token} sees no key (masked_rows: error)", token=quoted(first)),
            Location(b.spec.source, "mask"),
        )
    count = int(empty.sum())
    if policy == "nan":
        weights = weights.copy()
        weights[empty] = np.nan  # (n, m): the rows the user asked to be undefined
        notes.append(Msg.plural_of(
            "{count} query sees no key; its weights are undefined (NaN).",
            "{count} queries see no key; their weights are undefined (NaN).", count))
    else:
        notes.append(Msg.plural_of(
            "{count} query sees no key; its weights and output are 0.",
            "{count} queries see no key; their weights and output are 0.", count))
    return weights
