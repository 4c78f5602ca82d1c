"""Logit soft-capping (Gemma 2): each score squeezed into (−c, c) by S″ = c·tanh(S′ / c), after the
scale and before the bias and the mask, as Gemma 2's attention applies attn_logit_softcapping."""

from __future__ import annotations

import math
from dataclasses import replace

import numpy as np

from attncli.arithmetic.cells import cell
from attncli.arithmetic.constants import constant as written
from attncli.arithmetic.constants import is_short
from attncli.arithmetic.numbers import constant
from attncli.compute import ops
from attncli.i18n import Finer, Msg, Symbol
from attncli.model import Array, Formula, Step
from attncli.steps.base import Bend, Build, HeadState, Made

CAPPED = Formula("S″", "S''")


def capped(b: Build, hs: HeadState) -> Made[HeadState]:
    """S″ = c·tanh(S′ / c): the scores, each bent towards ±c the nearer it comes to it."""
    cap = b.spec.softcap
    assert cap is not None and hs.logits is not None and hs.scores is not None
    given = hs.scores.symbol
    before = hs.logits  # (n, m), kept for the note: the result may be written into a copy only
    s = b.calc.rounded(ops.softcap(before, cap))  # (n, m); by hand: one calculator entry a cell
    b.finite(s, CAPPED.text, b.query_labels, b.key_labels)
    formula = cap_formula(cap, given)
    notes = [Msg.of("Soft-capping keeps every score in (−c, c), here c = {cap}: a small score "
                    "passes almost unchanged (tanh x ≈ x near 0), a large one is bent towards "
                    "the cap and never passes it.", cap=cap)]
    most = bend(b, given, before, s)
    if not b.in_blocks:  # in blocks of rows, the blocks' most is found once they are joined
        notes.append(bent(b, most))
    matrix = b.attention(CAPPED, s)
    step = Step("softcap", Msg.of("Soft-capped scores"), formula, (matrix,), hs.index,
                tuple(notes))
    return (step,), replace(hs, logits=s, scores=matrix, bend=most)


def cap_formula(cap: float, given: Formula) -> Formula:
    """S″ = c·tanh(S′ / c) with c substituted; a c of more than SHORT significant digits
    (arithmetic/constants.py) is written once, after the formula, with all its digits: twice,
    1.7976931348623157×10³⁰⁸ took a line past the page (and `numbers.constant` writes a c under
    a million to six digits only). Its written-out cells name it c too."""
    text, tex = f"S″ = c·tanh({given.text} / c)", rf"S'' = c \tanh({given.latex} / c)"
    if not is_short(cap):
        once = written(cap)
        return Formula.holding(f"{text},  c = {once}", rf"{tex},\quad c = {once.latex}", once)
    c, c_tex = constant(cap), constant(cap, tex=True)
    return Formula.holding(f"{text} = {c}·tanh({given.text} / {c})",
                           rf"{tex} = {c_tex} \tanh({given.latex} / {c_tex})", c)


def bend(b: Build, given: Formula, before: Array, after: Array) -> Bend:
    """The score the cap moves most (the first, in reading order, of equal moves)."""
    moved = np.subtract(before, after)  # (n, m)
    np.abs(moved, out=moved)  # (n, m), in place
    i, j = (int(x) for x in np.unravel_index(int(np.argmax(moved)), moved.shape))
    return Bend(float(moved[i, j]), b.first_row + i, j, float(before[i, j]),
                float(after[i, j]), given)


def bent(b: Build, most: Bend) -> Msg:
    """The score the cap moves most, before and after, in words: written with as many more
    decimals as its move needs to show (a c of 10⁹ moves 8.5 by 6×10⁻¹⁷, and `from 8.50 to
    8.50` said nothing); a cap that moves no score says so."""
    if most.moved == 0.0:
        return Msg.of("The cap moves no score: each capped score equals the score it was given.")
    score = cell(most.given, b.query_labels[most.i - b.first_row], b.key_labels[most.j])
    # a move of at least 10^-d shows in d decimals: the two numbers rounded half up differ
    more = max(0, -math.floor(math.log10(most.moved)) - b.spec.display.precision)
    return Msg.of("The cap bends {score} most: from {before} to {after}.",
                  score=Symbol(score.text, score.latex), before=Finer(most.before, more),
                  after=Finer(most.after, more))


def bent_joined(b: Build, steps: list[Step], hs: HeadState) -> list[Step]:
    """The blocks' steps of a head with the soft-capping's note on the score moved most of all
    rows."""
    assert hs.bend is not None
    return [replace(step, notes=(*step.notes, bent(b, hs.bend))) if step.id == "softcap"
            else step for step in steps]
