"""What a low precision did to the numbers: every step of the walkthrough computed in the spec's
dtype set beside the same step in float64. Each step gains a note with its largest error (absolute,
and relative where the float64 number is not 0) and one for every overflow (inf where float64 is
finite), underflow (0 where float64 is not) and NaN, naming the cell; a last step says what the
format holds and what softmax would do without its max subtraction and without the scale
(attncli/steps/verdicts.py)."""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from attncli.i18n import Msg
from attncli.lowprec import finfo, largest, power
from attncli.model import Formula, Matrix, Step
from attncli.spec.model import Dtype
from attncli.steps.verdicts import Digits, cell, verdicts

LISTED = 5  # overflows, underflows and NaNs named per step; the rest are counted


def compared(dtype: Dtype, precision: int, steps: list[Step], full: list[Step]) -> list[Step]:
    """`steps` (computed in `dtype`), each with notes on how it differs from the same step of
    `full` (float64); then the `precision` step."""
    out: list[Step] = []
    counts = [0, 0, 0]  # overflows, underflows, NaNs
    for low, exact in zip(steps, full, strict=True):
        assert low.id == exact.id and len(low.matrices) == len(exact.matrices)
        if not low.matrices:
            out.append(low)
            continue
        notes = step_notes(Digits(dtype, precision), low.matrices, exact.matrices, counts)
        out.append(replace(low, notes=low.notes + tuple(notes)))
    out.append(summary(Digits(dtype, precision), steps, counts))
    return out


def step_notes(d: Digits, lows: tuple[Matrix, ...], exacts: tuple[Matrix, ...],
               counts: list[int]) -> list[Msg]:
    """The largest absolute and relative error over the step's matrices, then its overflows,
    underflows and NaNs."""
    worst: tuple[float, str] | None = None
    worst_relative: tuple[float, str] | None = None
    found: list[list[tuple[str, float]]] = [[], [], []]  # (cell, float64 value) of each kind
    for low, exact in zip(lows, exacts, strict=True):
        for i in low.row_indices():
            a, b = low.row(i), exact.row(i)  # (columns,): in dtype, in float64
            both = np.isfinite(a) & np.isfinite(b)  # (columns,)
            with np.errstate(invalid="ignore", over="ignore"):
                error = np.where(both, np.abs(a - b), -1.0)  # (columns,)
                relative = np.where(both & (b != 0.0),
                                    error / np.where(b == 0.0, 1.0, np.abs(b)), -1.0)
            j = int(np.argmax(error))
            if error[j] >= 0.0 and (worst is None or error[j] > worst[0]):
                worst = (float(error[j]), cell(low, i, j))
            j = int(np.argmax(relative))
            if relative[j] >= 0.0 and (worst_relative is None or relative[j] > worst_relative[0]):
                worst_relative = (float(relative[j]), cell(low, i, j))
            kinds = (np.isinf(a) & np.isfinite(b), (a == 0.0) & (b != 0.0) & np.isfinite(b),
                     np.isnan(a) & ~np.isnan(b))
            for kind, where in enumerate(kinds):
                found[kind] += [(cell(low, i, int(j)), float(b[j])) for j in np.flatnonzero(where)]
    notes = [error_note(d, worst, worst_relative)] if worst is not None else []
    for kind, cells in enumerate(found):
        counts[kind] += len(cells)
        notes += [finding(kind, d, name, value) for name, value in cells[:LISTED]]
        if len(cells) > LISTED:
            notes.append(Msg.plural_of("… and {count} more such cell.",
                                       "… and {count} more such cells.", len(cells) - LISTED))
    return notes


def error_note(d: Digits, worst: tuple[float, str],
               relative: tuple[float, str] | None) -> Msg:
    error, where = worst
    dtype = d.dtype
    if error == 0.0:
        return Msg.of("In {dtype}: every number equals float64's.", dtype=dtype)
    if relative is None or relative[0] == 0.0:
        return Msg.of("In {dtype}: the largest error against float64 is {error}, at {cell}.",
                      dtype=dtype, error=d.significant(error), cell=where)
    return Msg.of("In {dtype}: the largest error against float64 is {error}, at {cell}; the "
                  "largest relative error is {percent} %, at {relative_cell}.", dtype=dtype,
                  error=d.significant(error), cell=where,
                  percent=d.significant(100.0 * relative[0]), relative_cell=relative[1])


def finding(kind: int, d: Digits, where: str, value: float) -> Msg:
    shown, dtype = d.significant(value, 4), d.dtype
    if kind == 0:
        return Msg.of("Overflow: {cell} is inf in {dtype} (float64: {value}).", cell=where,
                      dtype=dtype, value=shown)
    if kind == 1:
        return Msg.of("Underflow: {cell} is 0 in {dtype} (float64: {value}).", cell=where,
                      dtype=dtype, value=shown)
    return Msg.of("{cell} is NaN in {dtype}, from an inf before it (float64: {value}).",
                  cell=where, dtype=dtype, value=shown)


def facts(d: Digits) -> Msg:
    """What the format holds: its significant bits, the gap after 1, its largest number and its
    smallest positive ones."""
    dtype = d.dtype
    info = finfo(dtype)
    return Msg.plural_of(
        "{dtype} keeps {count} significant bit: the next number after 1 is 1 + {eps}. Its "
        "largest number is {largest}, its smallest normal one {tiny}, its smallest of all "
        "{smallest}; beyond them a result is inf or 0.",
        "{dtype} keeps {count} significant bits: the next number after 1 is 1 + {eps}. Its "
        "largest number is {largest}, its smallest normal one {tiny}, its smallest of all "
        "{smallest}; beyond them a result is inf or 0.", int(info.nmant) + 1, dtype=dtype,
        eps=d.significant(float(info.eps)), largest=largest(dtype),
        tiny=power(float(info.tiny)), smallest=power(float(info.smallest_subnormal)))


def summary(d: Digits, steps: list[Step], counts: list[int]) -> Step:
    overflows, underflows, nans = counts
    dtype = d.dtype
    p = int(finfo(dtype).nmant) + 1  # the unit roundoff is 2^−p, half the gap after 1
    notes = [
        facts(d),
        Msg.of("Every input and every result above is rounded to {dtype}. A matrix product is "
               "summed in higher precision and rounded once, as PyTorch does on a CPU; softmax "
               "is worked in its steps, each rounded: the row's largest score m, x − m, "
               "e^(x − m), their sum, and each quotient.", dtype=dtype),
        Msg.of("In all: {overflows}, {underflows}, {nans}.",
               overflows=Msg.plural_of("{count} overflow", "{count} overflows", overflows),
               underflows=Msg.plural_of("{count} underflow", "{count} underflows", underflows),
               nans=Msg.plural_of("{count} NaN", "{count} NaNs", nans)),
    ]
    notes += verdicts(d, steps)
    return Step("precision", Msg.of("Low precision: {dtype}", dtype=dtype),
                Formula(f"fl(x) = x·(1 + δ), |δ| ≤ 2^−{p}",
                        rf"\operatorname{{fl}}(x) = x\,(1 + \delta),\ "
                        rf"|\delta| \le 2^{{-{p}}}"),
                (), None, tuple(notes))
