"""What softmax would do in a low precision without its two safeguards: the max subtraction
(e^x of the scores as they are) and the scale (e^x of the unscaled S). A one-line verdict for
each head: the cell where e^x overflows, the row where every e^x underflows to 0, or the largest
e^x, which stays finite."""

from __future__ import annotations

import math
from typing import Literal

import numpy as np

from attncli.compute.lowprec import finfo, largest, to_format
from attncli.i18n import Finer, Msg
from attncli.model import Cell, Matrix, Step, Verdict
from attncli.records import record
from attncli.spec.model import Dtype

SCORES = ("scores", "scaled", "masked")  # the steps whose matrix may be the softmax input
Without = Literal["max_subtraction", "scale_and_max_subtraction"]
Outcome = Literal["overflow", "underflow", "finite"]


@record
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


def cell_text(at: Cell) -> str:
    """`S′[cat, mouse]`; `(S′ + M)[cat, mouse]` for a symbol of several terms."""
    name = f"({at.matrix})" if " " in at.matrix else at.matrix
    return f"{name}[{at.row}, {at.column}]"


def verdicts(d: Digits, steps: list[Step]) -> list[Verdict]:
    """For each head: softmax without the max subtraction, then without the scale (when the
    spec scales its scores)."""
    numbers = {id(s): n for n, s in enumerate(steps, start=1)}
    heads = sorted({s.head for s in steps if s.id == "weights"}, key=lambda h: h or 0)
    out = []
    for head in heads:
        mine = {s.id: s for s in steps if s.head == head and s.id in SCORES}
        last = next(mine[i] for i in reversed(SCORES) if i in mine)
        logits = last.matrices[0]
        found = verdict(d, logits, numbers[id(last)], head, "max_subtraction")
        out += [] if found is None else [found]
        if "scaled" in mine:
            found = verdict(d, mine["scores"].matrices[0], numbers[id(mine["scores"])], head,
                            "scale_and_max_subtraction", hidden=logits)
            out += [] if found is None else [found]
    return out


def verdict_notes(d: Digits, judged: list[Verdict], heads: list[int | None]) -> list[Msg]:
    """One line per verdict, each head's in order; a head that is not scaled says so."""
    out = []
    for head in heads:
        lines = [verdict_note(d, v) for v in judged if v.head == head]
        if not any(v.without == "scale_and_max_subtraction" for v in judged if v.head == head):
            lines.append(Msg.of("This spec does not scale its scores, so without the scale "
                                "softmax meets the same scores."))
        out += [Msg.of("Head {index}: {verdict}", index=head, verdict=line) if head else line
                for line in lines]
    return out


def verdict(d: Digits, scores: Matrix, number: int, head: int | None,
            without: Without, hidden: Matrix | None = None) -> Verdict | None:
    """e^x of every score a query sees (those not −∞ in `hidden`, else in `scores`), in the
    format: where it overflows, else a row where it all underflows, else the largest e^x; None
    when no query sees a key."""
    mask = hidden or scores
    best: tuple[float, int, int] | None = None  # the largest seen score: (x, i, j)
    over = 0
    empty_row: tuple[float, int, int] | None = None
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
            empty_row = (float(row[j]), i, j)
    if best is None:
        return None
    outcome: Outcome = "overflow" if over else "underflow" if empty_row else "finite"
    x, i, j = empty_row if outcome == "underflow" and empty_row else best
    with np.errstate(over="ignore", under="ignore"):
        exp = float(to_format(np.exp(np.array([x])), d.dtype)[0])
    where = Cell(number, scores.symbol.text, scores.rows[i], scores.columns[j])
    return Verdict(head, without, outcome, where, x, exp, over)


def verdict_note(d: Digits, v: Verdict) -> Msg:
    without = (Msg.of("Without the max subtraction") if v.without == "max_subtraction"
               else Msg.of("Without the scale and the max subtraction"))
    where = cell_text(v.at)
    if v.outcome == "overflow" and math.isinf(v.x):  # the score itself overflowed before
        return Msg.plural_of(
            "{without}, e^x overflows at {cell}, whose score is already inf in {dtype} ({count} "
            "cell in all): softmax gives inf / inf = NaN.",
            "{without}, e^x overflows at {cell}, whose score is already inf in {dtype} ({count} "
            "cells in all): softmax gives inf / inf = NaN.", v.count, without=without,
            cell=where, dtype=d.dtype)
    if v.outcome == "overflow":
        ln_max = math.log(float(finfo(d.dtype).max))
        return Msg.plural_of(
            "{without}, e^x overflows at {cell}: {value} > ln {largest} ≈ {ln} ({count} "
            "cell in all): softmax gives inf / inf = NaN.",
            "{without}, e^x overflows at {cell}: {value} > ln {largest} ≈ {ln} ({count} "
            "cells in all): softmax gives inf / inf = NaN.", v.count, without=without,
            cell=where, value=d.decimals(v.x), largest=largest(d.dtype),
            ln=d.decimals(ln_max))
    if v.outcome == "underflow":
        return Msg.of("{without}, every e^x of row {row} underflows to 0 (its largest score "
                      "is {value}): softmax gives 0 / 0 = NaN.", without=without,
                      row=v.at.row, value=d.decimals(v.x))
    return Msg.of("{without}, e^x stays finite: its largest value is {exp}, for x = {value} at "
                  "{cell}, below {largest}.", without=without, value=d.decimals(v.x),
                  exp=d.significant(v.exp, 4), cell=where, largest=largest(d.dtype))
