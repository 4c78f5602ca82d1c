"""What a low precision did to the numbers: every step of the walkthrough computed in the spec's
dtype set beside the same step in float64. Each step gains a note with its largest error (absolute,
and relative where the float64 number is not 0) and one for every overflow (inf where float64 is
finite), underflow (0 where float64 is not) and NaN, naming the cell; a last step says what the
format holds and what softmax would do without its max subtraction and without the scale
(attncli/steps/verdicts.py). The same findings are kept as data for the JSON export."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

import numpy as np

from attncli.arithmetic.elision import FULL_SWITCH
from attncli.compute.lowprec import finfo, largest
from attncli.i18n import SUPERSCRIPT, Msg, Power
from attncli.model import Array, Cell, Finding, Formula, LowPrecisionReport, Matrix, Step, StepError
from attncli.spec.model import Dtype
from attncli.steps.verdicts import Digits, cell_text, verdict_notes, verdicts

LISTED = 5  # overflows, underflows and NaNs named per step; the rest are counted
DIFFERENCE_CELLS = 1 << 18  # the cells of a matrix compared at once (2 MB of float64)
KINDS = ("overflow", "underflow", "nan")


def compared(dtype: Dtype, precision: int, steps: list[Step],
             full: list[Step]) -> tuple[list[Step], LowPrecisionReport]:
    """`steps` (computed in `dtype`), each with notes on how it differs from the same step of
    `full` (float64), then the `precision` step; and the same as data. A step's number is its
    place in `steps`, from 1, as the walkthrough numbers them."""
    d = Digits(dtype, precision)
    out: list[Step] = []
    errors: list[StepError] = []
    findings: list[Finding] = []
    for number, (low, exact) in enumerate(zip(steps, full, strict=True), start=1):
        assert low.id == exact.id
        pairs = twins(low.matrices, exact.matrices)
        if not pairs:
            out.append(low)
            continue
        error, found = differences(number, tuple(pair[0] for pair in pairs),
                                   tuple(pair[1] for pair in pairs))
        notes = [] if error is None else [error_note(d, error, bool(found))]
        for kind in KINDS:
            these = [f for f in found if f.kind == kind]
            notes += [finding_note(d, f) for f in these[:LISTED]]
            if len(these) > LISTED:
                notes.append(Msg.plural_of("… and {count} more such cell.",
                                           "… and {count} more such cells.", len(these) - LISTED))
        errors += [] if error is None else [error]
        findings += found
        out.append(replace(low, notes=low.notes + tuple(notes)))
    judged = verdicts(d, steps)
    heads = sorted({s.head for s in steps if s.id == "weights"}, key=lambda h: h or 0)
    partial = any(m.kept is not None for step in steps for m in step.matrices)
    out.append(summary(d, findings, verdict_notes(d, judged, heads), partial))
    return out, LowPrecisionReport(dtype, tuple(errors), tuple(findings), tuple(judged))


def twins(low: tuple[Matrix, ...], exact: tuple[Matrix, ...]) -> list[tuple[Matrix, Matrix]]:
    """Each matrix of a step in the low precision beside the same matrix in float64: one for
    one; by symbol where the two passes show different matrices (a tile whose scores are ∞ in
    float16 shows what its float64 twin does not)."""
    if len(low) == len(exact):
        return list(zip(low, exact, strict=True))
    by_symbol = {m.symbol.text: m for m in exact}
    return [(m, by_symbol[m.symbol.text]) for m in low
            if m.symbol.text in by_symbol and by_symbol[m.symbol.text].values.shape
            == m.values.shape]


def at(number: int, matrix: Matrix, i: int, j: int) -> Cell:
    return Cell(number, matrix.symbol.text, matrix.rows[i], matrix.columns[j])


def differences(number: int, lows: tuple[Matrix, ...],
                exacts: tuple[Matrix, ...]) -> tuple[StepError | None, list[Finding]]:
    """The largest absolute and relative error over the step's matrices (the first cell that
    has it, row by row), and its overflows, underflows and NaNs, row by row. Worked a block of
    rows at a time: row by row, the n rows of Q, K and V of 4,096 tokens cost 0.5 s."""
    worst: tuple[float, Cell] | None = None
    worst_relative: tuple[float, Cell] | None = None
    found: list[Finding] = []
    for low, exact in zip(lows, exacts, strict=True):
        rows = low.row_indices()
        exacts_held = exact.values if exact.kept == low.kept else np.array(
            [exact.row(i) for i in rows])  # (rows, columns): in the order of low's rows
        size = max(1, DIFFERENCE_CELLS // max(1, int(low.values.shape[1])))
        for first in range(0, len(rows), size):
            a, b = low.values[first:first + size], exacts_held[first:first + size]  # (block, c)
            error, relative = errors(a, b)  # (block, columns) each
            r, j = np.unravel_index(int(np.argmax(error)), error.shape)  # the first largest
            if error[r, j] >= 0.0 and (worst is None or error[r, j] > worst[0]):
                worst = (float(error[r, j]), at(number, low, rows[first + r], int(j)))
            r, j = np.unravel_index(int(np.argmax(relative)), relative.shape)
            if relative[r, j] >= 0.0 and (worst_relative is None
                                          or relative[r, j] > worst_relative[0]):
                worst_relative = (float(relative[r, j]), at(number, low, rows[first + r],
                                                            int(j)))
            found += findings(number, low, rows, first, a, b)
    if worst is None:
        return None, found
    if worst_relative is None or worst_relative[0] == 0.0:
        return StepError(number, *worst), found
    return StepError(number, *worst, *worst_relative), found


def errors(a: Array, b: Array) -> tuple[Array, Array]:
    """The absolute and relative error of each cell of `a` (in dtype) against `b` (float64),
    -1 where either is not finite (and, relative, where b is 0)."""
    both = np.isfinite(a) & np.isfinite(b)  # (rows, columns)
    with np.errstate(invalid="ignore", over="ignore"):
        error = np.where(both, np.abs(a - b), -1.0)  # (rows, columns)
        relative = np.where(both & (b != 0.0), error / np.where(b == 0.0, 1.0, np.abs(b)),
                            -1.0)  # (rows, columns)
    return error, relative


def findings(number: int, low: Matrix, rows: Sequence[int], first: int, a: Array,
             b: Array) -> list[Finding]:
    """The overflows, underflows and NaNs of a block of rows of `low` (its rows from `first`),
    row by row, each row's by kind, then by column."""
    kinds = (np.isinf(a) & np.isfinite(b), (a == 0.0) & (b != 0.0) & np.isfinite(b),
             np.isnan(a) & ~np.isnan(b))  # (rows, columns) each
    places = [(r, np.full(r.shape, k), j) for k, (r, j) in enumerate(np.nonzero(w) for w in kinds)]
    r, k, j = (np.concatenate(part) for part in zip(*places, strict=True))  # (found,) each
    order = np.lexsort((j, k, r))  # (found,): by row, then kind, then column
    return [Finding(KINDS[int(k[o])], at(number, low, rows[first + int(r[o])], int(j[o])),  # type: ignore[arg-type]
                    float(b[r[o], j[o]])) for o in order]


def error_note(d: Digits, error: StepError, found: bool) -> Msg:
    """The step's largest error; `found`: whether some of its cells overflowed, underflowed or are
    NaN (named in the notes after it), which the errors leave out."""
    dtype = d.dtype
    if error.largest == 0.0 and found:
        return Msg.of("In {dtype}: every other number equals float64's.", dtype=dtype)
    if error.largest == 0.0:
        return Msg.of("In {dtype}: every number equals float64's.", dtype=dtype)
    if error.relative is None or error.relative_at is None:
        return Msg.of("In {dtype}: the largest error against float64 is {error}, at {cell}.",
                      dtype=dtype, error=d.significant(error.largest), cell=cell_text(error.at))
    return Msg.of("In {dtype}: the largest error against float64 is {error}, at {cell}; the "
                  "largest relative error is {percent} %, at {relative_cell}.", dtype=dtype,
                  error=d.significant(error.largest), cell=cell_text(error.at),
                  percent=d.significant(100.0 * error.relative),
                  relative_cell=cell_text(error.relative_at))


def finding_note(d: Digits, finding: Finding) -> Msg:
    shown, dtype, where = d.significant(finding.full, 4), d.dtype, cell_text(finding.at)
    if finding.kind == "overflow":
        return Msg.of("Overflow: {cell} is inf in {dtype} (float64: {value}).", cell=where,
                      dtype=dtype, value=shown)
    if finding.kind == "underflow":
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
        tiny=Power(float(info.tiny)), smallest=Power(float(info.smallest_subnormal)))


def summary(d: Digits, findings: list[Finding], judged: list[Msg], partial: bool) -> Step:
    counts = {kind: sum(1 for f in findings if f.kind == kind) for kind in KINDS}
    dtype = d.dtype
    p = int(finfo(dtype).nmant) + 1  # the unit roundoff is 2^−p, half the gap after 1
    notes = [
        facts(d),
        Msg.of("Every input and every result above is rounded to {dtype}. A matrix product is "
               "summed in higher precision and rounded once, as PyTorch does on a CPU; softmax "
               "is worked in its steps, each rounded: the row's largest score m, x − m, "
               "e^(x − m), their sum, and each quotient.", dtype=dtype),
        Msg.of("In all: {overflows}, {underflows}, {nans}.",
               overflows=Msg.plural_of("{count} overflow", "{count} overflows",
                                       counts["overflow"]),
               underflows=Msg.plural_of("{count} underflow", "{count} underflows",
                                        counts["underflow"]),
               nans=Msg.plural_of("{count} NaN", "{count} NaNs", counts["nan"])),
        *judged,
    ]
    if partial:  # a summary of a large spec (attncli/arithmetic/elision.py) keeps some rows of n x
        # m
        notes.insert(3, Msg.of("The queries × keys matrices are summaries here: their errors, "
                               "overflows and underflows are those of the rows shown ({switch} "
                               "counts every row).", switch=FULL_SWITCH))
    return Step("precision", Msg.of("Low precision: {dtype}", dtype=dtype),
                Formula(f"fl(x) = x·(1 + δ), |δ| ≤ 2{str(-p).translate(SUPERSCRIPT)}",
                        rf"\operatorname{{fl}}(x) = x\,(1 + \delta),\ "
                        rf"|\delta| \le 2^{{-{p}}}"),
                (), None, tuple(notes))
