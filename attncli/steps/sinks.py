"""Attention sinks (gpt-oss): each head's learned sink logit s joins every query row's softmax
as one more term of its denominator, a key with no value. The weights of a row then sum to less
than 1, and what they lack went to the sink:

    A[i, j] = e^(S[i, j] − mᵢ) / (e^(s − mᵢ) + Σₖ e^(S[i, k] − mᵢ)),  mᵢ = max(s, maxₖ S[i, k])

as gpt-oss's eager attention computes it (the sink as a last column of the scores, softmax, the
column dropped). The family replaces the plain softmax when the spec has `sinks`."""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from attncli.arithmetic.numbers import shortest
from attncli.i18n import Constant, Msg, quoted
from attncli.model import Array, Formula, Matrix, Step
from attncli.steps.base import Build, HeadState, Made

SINK = Formula("A_s", "A_{s}")  # the weight that went to the sink s, in no language's word
HALF = 0.5  # a query that gives the sink more than this has given it most of its attention


def written(value: float, minus: str = "−") -> str:
    """A sink logit as a person writes it: 2, −1, 0.5, 0.00001, 1×10³⁰⁸ (numbers.shortest; a
    true minus sign in text; TeX's math takes `-` as its minus, and pdflatex stops at a Unicode
    one)."""
    return shortest(value, minus, tex=minus == "-")


def sink_logit(b: Build, hs: HeadState) -> float:
    """s of this head: the spec lists one per head, in order."""
    assert b.spec.sinks is not None
    return b.spec.sinks[(hs.index or 1) - 1]


def sink_weights(b: Build, hs: HeadState) -> Made[HeadState]:
    """A with the sink in each row's denominator, then the weight each query gave the sink."""
    assert hs.logits is not None and hs.scores is not None
    s = sink_logit(b, hs)
    given = hs.scores.symbol
    n = hs.logits.shape[0]
    # the sink as one more key of every row, always visible: no row is left without a key
    combined = np.empty((n, hs.logits.shape[1] + 1))  # (n, m + 1)
    combined[:, :-1] = hs.logits
    combined[:, -1] = s
    probs, _ = b.calc.softmax(combined, combined)  # (n, m + 1), worked in place
    reuse = b.reuse(hs.logits)  # the logits' own array, when nothing else reads it
    if reuse is None:
        a = np.ascontiguousarray(probs[:, :-1])  # (n, m)
    else:
        a = reuse  # (n, m)
        np.copyto(a, probs[:, :-1])
    sunk = probs[:, -1:].copy()  # (n, 1): a copy, so that probs is freed
    del combined, probs
    A = b.attention(Formula("A", "A"), a)
    if b.spec.masks:  # a hidden key's weight prints as —, not as a 0 it could have earned
        A = replace(A, hidden_by=hs.scores)
    x = given.text if " " not in given.text else f"({given.text})"
    # `\right) _{ij}`: an underscore after a space never closes emphasis, so CommonMark before
    # KaTeX's auto-render cannot pair `)_{ij}` with `)_{ik}` and take the display apart
    xl = given.latex if " " not in given.text else rf"\left({given.latex}\right) "
    formula = Formula.holding(
        f"A[i, j] = e^{x}[i, j] / (e^s + Σₖ e^{x}[i, k]),  s = {written(s)}",
        rf"A_{{ij}} = \frac{{e^{{{xl}_{{ij}}}}}}{{e^{{s}} + \sum_k e^{{{xl}_{{ik}}}}}},"
        rf"\quad s = {written(s, '-')}", written(s))
    weights_step = Step("weights", Msg.of("Attention weights with a sink"), formula, (A,),
                        hs.index, (Msg.of(
                            "The sink logit s = {sink} joins the softmax of every row as e^s "
                            "in its denominator, a key with no value: each row of A sums to "
                            "less than 1.", sink=Constant(written(s), written(s, "-"))),))
    share = Matrix(SINK, sunk if b.kept is None else sunk[list(b.kept)], b.query_labels,
                   ("s",), kept=b.kept)  # (n, 1), or the kept rows of a summary
    sink_step = Step("sinks", Msg.of("Weight given to the sink"),
                     Formula("A_s[i] = 1 − Σⱼ A[i, j]", r"A_{s}[i] = 1 - \sum_j A_{ij}"),
                     (share,), hs.index, () if b.in_blocks else reading(b, sunk[:, 0]))
    return (weights_step, sink_step), replace(hs, logits=None, weights=a, A=A, sunk=sunk[:, 0])


def read_joined(b: Build, steps: list[Step], hs: HeadState) -> list[Step]:
    """The blocks' steps of a head with the sink step's reading, which reads every query."""
    assert hs.sunk is not None
    return [replace(step, notes=reading(b, hs.sunk)) if step.id == "sinks" else step
            for step in steps]


def reading(b: Build, sunk: Array) -> tuple[Msg, ...]:
    """Which query gave the sink most, and how many gave it more than half their weight."""
    top = int(np.argmax(sunk))
    notes = [Msg.of("The query {token} gives the sink the most: {share} of its weight.",
                    token=quoted(b.query_labels[top]), share=float(sunk[top]))]
    most = int((sunk > HALF).sum())
    notes.append(Msg.plural_of(
        "{count} query gives the sink more than half of its weight.",
        "{count} queries give the sink more than half of their weight.", most) if most else
        Msg.of("No query gives the sink more than half of its weight."))
    return tuple(notes)
