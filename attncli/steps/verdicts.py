"""What softmax would do in a low precision without its two safeguards: the max subtraction
(e^x of the scores as they are) and the scale (e^x of the unscaled S). A one-line verdict for
each head: the cell where e^x overflows, the row where every e^x underflows to 0, or the largest
e^x, which stays finite."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from attncli.i18n import Finer, Msg
from attncli.lowprec import finfo, largest, to_format
from attncli.model import Matrix, Step
from attncli.spec.model import Dtype

SCORES = ("scores", "scaled", "masked")  # the steps whose matrix may be the softmax input


@dataclass(frozen=True)
class Digits:
    """The format reported on, and the display precision its small numbers must outgrow."""

    dtype: Dtype
    precision: int

    def significant(self, x: float, digits: int = 2) -> Finer:
        """`x` with at least `digits` significant digits: 0.00049, not 0.00 at precision 2."""
        if x == 0.0 or not math.isfinite(x):
            return Finer(x, 0)
        decimals = digits - 1 - math.floor(math.log10(abs(x)))
        return Finer(x, max(0, decimals - self.precision))

    def decimals(self, x: float, places: int = 2) -> Finer:
        """`x` with at least `places` decimals: 11.20 > 11.09, even at precision 0."""
        return Finer(x, max(0, places - self.precision))


def cell(matrix: Matrix, i: int, j: int) -> str:
    """`S′[cat, mouse]`; `(S′ + M)[cat, mouse]` for a symbol of several terms."""
    name = matrix.symbol.text
    return f"{f'({name})' if ' ' in name else name}[{matrix.rows[i]}, {matrix.columns[j]}]"


def verdicts(d: Digits, steps: list[Step]) -> list[Msg]:
    """For each head: softmax without the max subtraction, then without the scale."""
    heads = sorted({s.head for s in steps if s.id == "weights"}, key=lambda h: h or 0)
    out = []
    for head in heads:
        mine = {s.id: s for s in steps if s.head == head and s.id in SCORES}
        logits = next(mine[i] for i in reversed(SCORES) if i in mine).matrices[0]
        lines = [verdict(d, logits, Msg.of("Without the max subtraction"))]
        if "scaled" in mine:
            unscaled = mine["scores"].matrices[0]
            lines.append(verdict(d, unscaled, Msg.of("Without the scale and the max "
                                                     "subtraction"), hidden=logits))
        else:
            lines.append(Msg.of("This spec does not scale its scores, so without the scale "
                                "softmax meets the same scores."))
        out += [Msg.of("Head {index}: {verdict}", index=head, verdict=line) if head else line
                for line in lines]
    return out


def verdict(d: Digits, scores: Matrix, without: Msg, hidden: Matrix | None = None) -> Msg:
    """e^x of every score a query sees (those not −∞ in `hidden`, else in `scores`), in the
    format: where it overflows, else a row where it all underflows, else the largest e^x."""
    mask = hidden or scores
    ln_max = math.log(float(finfo(d.dtype).max))
    best: tuple[float, int, int] | None = None  # the largest seen score: (x, i, j)
    over = 0
    empty_row: tuple[float, int] | None = None
    for i in scores.row_indices():
        row = scores.row(i)  # (m,)
        seen = ~np.isnan(row) & ~np.isneginf(row) & ~np.isneginf(mask.row(i))  # (m,)
        if not seen.any():
            continue
        with np.errstate(over="ignore", under="ignore"):
            e = to_format(np.exp(np.where(seen, row, 0.0)), d.dtype)  # (m,)
        over += int((np.isinf(e) & seen).sum())
        j = int(np.argmax(np.where(seen, row, -np.inf)))
        if best is None or row[j] > best[0]:
            best = (float(row[j]), i, j)
        if empty_row is None and not (e[seen] > 0.0).any():
            empty_row = (float(row[j]), i)
    if best is None:
        return Msg.of("{without}, no score is left to take e^x of.", without=without)
    x, i, j = best
    where = cell(scores, i, j)
    if over:
        return Msg.plural_of(
            "{without}, e^x overflows at {cell}: {value} > ln {largest} ≈ {ln} ({count} "
            "cell in all): softmax gives inf / inf = NaN.",
            "{without}, e^x overflows at {cell}: {value} > ln {largest} ≈ {ln} ({count} "
            "cells in all): softmax gives inf / inf = NaN.", over, without=without, cell=where,
            value=d.decimals(x), largest=largest(d.dtype), ln=d.decimals(ln_max))
    if empty_row is not None:
        return Msg.of("{without}, every e^x of row {row} underflows to 0 (its largest score "
                      "is {value}): softmax gives 0 / 0 = NaN.", without=without,
                      row=scores.rows[empty_row[1]], value=d.decimals(empty_row[0]))
    with np.errstate(over="ignore"):
        top = float(to_format(np.exp(np.array([x])), d.dtype)[0])
    return Msg.of("{without}, e^x stays finite: its largest value is {exp}, for x = {value} at "
                  "{cell}, below {largest}.", without=without, value=d.decimals(x),
                  exp=d.significant(top, 4), cell=where, largest=largest(d.dtype))
