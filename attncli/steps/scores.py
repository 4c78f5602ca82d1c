"""Scores: how each query meets each key (S = Q·Kᵀ or Q·W·Kᵀ), and the scores scaled (S′)."""

from __future__ import annotations

import math
from dataclasses import replace

from attncli.arithmetic.numbers import constant
from attncli.i18n import Msg
from attncli.model import Array, Formula, Step
from attncli.spec.model import Head
from attncli.steps.base import Build, HeadState, Made


def scores(b: Build, hs: HeadState) -> Made[HeadState]:
    """S = Q·Kᵀ (or Q·W·Kᵀ for the `general` score)."""
    spec = b.spec
    assert hs.q is not None and hs.k is not None and hs.Q is not None and hs.K is not None
    Q, K = hs.Q.symbol, hs.K.symbol  # Q and K, or Q̂ and K̂ after RoPE
    if spec.score.kind == "general":
        assert spec.score.W is not None
        s = b.calc.general_scores(hs.q, spec.score.W, hs.k)  # (n, m)
        formula = Formula(f"S = {Q.text}·W·{K.text}ᵀ", rf"S = {Q.latex} W {K.latex}^{{\top}}")
        note = Msg.of("Each score compares a query with a key through W: qᵢ·W·kⱼ.")
    else:
        s = b.calc.dot_scores(hs.q, hs.k)  # (n, m)
        formula = Formula(f"S = {Q.text}·{K.text}ᵀ", rf"S = {Q.latex} {K.latex}^{{\top}}")
        note = Msg.of("Each score is the dot product of a query and a key: qᵢ·kⱼ.")
    if spec.score.kind == "general" or not bounded(hs.q, hs.k):
        b.finite(s, "S", b.query_labels, b.key_labels)
    S = b.attention(Formula("S", "S"), s)
    step = Step("scores", Msg.of("Scores"), formula, (S,), hs.index, (note,))
    return (step,), replace(hs, logits=s, scores=S)


def bounded(q: Array, k: Array) -> bool:
    """Whether no score qᵢ·kⱼ can overflow, so the n x m scores need no pass to find out:
    |qᵢ·kⱼ| ≤ d_k·max|q|·max|k|, and that bound is far below float64's largest number (q and k
    are finite, checked as they were made)."""
    largest = magnitude(q) * magnitude(k)
    return largest * q.shape[1] < 1e300


def magnitude(a: Array) -> float:
    """max|a|, 0 when a is empty, without the copy np.abs(a) would make (an (n, d_k) one is as
    large as Q): the largest and the least of its numbers, two passes over them."""
    return max(float(a.max(initial=0.0)), -float(a.min(initial=0.0)))


def divisor(b: Build, head: Head) -> float:
    scale = b.spec.scale
    if scale.kind == "sqrt_dk":
        return b.calc.divisor(math.sqrt(head.d_k(b.spec.convention)))
    if scale.kind == "number":
        return scale.value
    return 1.0


def scaled(b: Build, hs: HeadState) -> Made[HeadState]:
    """S′ = S / divisor."""
    scale = b.spec.scale
    assert hs.logits is not None
    by = divisor(b, hs.head)
    s = b.calc.scale(hs.logits, by, b.reuse(hs.logits))  # (n, m)
    if not abs(by) >= 1.0:  # the scores are finite (checked), and so is each over |by| >= 1
        b.finite(s, "S′", b.query_labels, b.key_labels)
    if scale.kind == "sqrt_dk":
        d_k = hs.head.d_k(b.spec.convention)
        formula = Formula(f"S′ = S / √d_k = S / √{d_k}",
                          rf"S' = \frac{{S}}{{\sqrt{{d_k}}}} = \frac{{S}}{{\sqrt{{{d_k}}}}}")
        note = Msg.of("Dividing by √d_k = {root} keeps the scores from growing with the "
                      "dimension of the keys.", root=by)
    else:
        formula = Formula.holding(f"S′ = S / {constant(by)}",
                                  rf"S' = \frac{{S}}{{{constant(by, tex=True)}}}", constant(by))
        note = Msg.of("The scores are divided by {divisor}.", divisor=by)
    matrix = b.attention(Formula("S′", "S'"), s)
    step = Step("scaled", Msg.of("Scaled scores"), formula, (matrix,), hs.index, (note,))
    return (step,), replace(hs, logits=s, scores=matrix)
