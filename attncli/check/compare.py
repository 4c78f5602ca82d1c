"""attn check's judgement: the student's matrix against the right one, cell by cell at the
precision each number was written with, and the catalogued slips that reproduce what differs.

A number is right when the right value, rounded half up to the decimals the student wrote,
is what the student wrote (0.3557 written as 0.36, 0.4 or 0.356 is right; as 0.35 it is not).
Within 10⁻⁹ of a tie (0.125 to 2 decimals) either neighbour counts, so float noise in the last
bit of a computed value never decides a student's grade.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import replace

import numpy as np
from numpy.typing import NDArray

from attncli.arithmetic.expand import Selection
from attncli.arithmetic.float_rounding import POWERS
from attncli.arithmetic.handcalc import FullPrecision, arithmetic
from attncli.arithmetic.numbers import (
    LARGE,
    as_decimal,
    half_up,
    rounded,
    rounded_where_clear,
)
from attncli.check.altered import OnRows
from attncli.check.answer import Answer, Written
from attncli.check.slips import CATALOGUE, Situation
from attncli.errors import AttnError, Location, SpecError
from attncli.i18n import Count, Msg, quoted_list, suggesting
from attncli.model import Matrix, Walkthrough
from attncli.records import record
from attncli.spec.limits import DEFAULT_MAX_CELLS, max_hand
from attncli.spec.model import Spec
from attncli.steps.budget import hand_weights
from attncli.steps.build import compute, kept_rows
from attncli.steps.row_blocks import ROW_LOCAL

PROJECTED = ("Q", "K", "V")  # the matrices of the projections step, checked one at a time
# the steps that make Q, K and V: the projections, or multi-head latent attention's two
PROJECTING = ("projections", "latent_q", "latent_kv")
TIE = 1e-9
ROWS_NAMED = 10  # a refusal names at most this many rows of a matrix (the first 9 and the last)
# The slips are tried on the rows of at most this many differing numbers, the first in reading
# order: each slip is a walkthrough of its own, and a hand calculation's e^x are Decimal
SLIP_CELLS = 12


def matches(value: float, answer: Written) -> bool:
    """Whether `answer` is `value` written to the answer's decimals (half up, see above)."""
    if math.isnan(value) or math.isnan(answer.value):
        return math.isnan(value) and math.isnan(answer.value)
    if math.isinf(value) or math.isinf(answer.value):
        return value == answer.value
    near = TIE * max(1.0, abs(value))
    return any(at_place(x, answer.decimals) == answer.value for x in (value, value - near,
                                                                         value + near))


def at_place(x: float, decimals: int) -> float:
    """Finite `x` rounded half up at the place of the `decimals`-th decimal (negative: left of
    the point, for a number written with an exponent). Fixed notation throughout: a student who
    writes 123456700000000000000 is checked to the unit, never to the mantissa attn prints."""
    if decimals >= 0 and abs(x) < LARGE / 2:  # below any m × 10^k: the one rounding, cached
        return rounded(x, decimals)
    return float(half_up(as_decimal(x), decimals))


def agreeing(values: NDArray[np.float64], answer: Answer) -> NDArray[np.bool_]:
    """`matches` of every cell of `values` (n, m) and `answer`, by array: a number that half-up
    rounding cannot bring to the one written (farther than half a unit of its last decimal, and
    the tie margin) is ruled out at once, the rest are rounded together where floats decide the
    rounding (rounded_where_clear), and only what is left (a near tie, inf, NaN, a number
    written with an exponent or m × 10^k) goes through `matches` one by one: an answer of
    whole numbers is within half a unit of every weight, and 50,000 roundings in Python for
    every slip tried took seconds."""
    written, decimals = answer.values, answer.places  # (n, m), (n, m)
    with np.errstate(invalid="ignore", over="ignore"):
        reach = 0.5 * 10.0 ** -decimals.astype(float) + TIE * np.maximum(1.0, np.abs(values))
        slack = 1e-12 * np.maximum(np.abs(values), np.abs(written))  # float noise in the test
        near = np.abs(values - written) <= reach * (1 + 1e-6) + slack  # (n, m)
        tie = TIE * np.maximum(1.0, np.abs(values))  # (n, m), as `matches` widens each
        same = np.zeros(values.shape, dtype=bool)  # (n, m)
        every = np.ones(values.shape, dtype=bool)  # (n, m): each of the three rounded in floats
        for x in (values, values - tie, values + tie):  # as `matches` tries each
            shown, clear = at_place_where_clear(x, decimals)  # (n, m), (n, m)
            same |= clear & (shown == written)
            every &= clear
    finite = np.isfinite(values) & np.isfinite(written)  # (n, m)
    near |= ~finite  # inf and NaN: decided one by one
    same &= near & finite
    sure = finite & (same | every)  # (n, m): one of the three matched, or none can
    for i, j in zip(*np.nonzero(near & ~sure), strict=True):
        same[i, j] = matches(float(values[i, j]), answer.cells[i][j])
    return same


def at_place_where_clear(x: NDArray[np.float64], decimals: NDArray[np.int_]
                         ) -> tuple[NDArray[np.float64], NDArray[np.bool_]]:
    """`at_place` of each element of `x` at its own decimals, where floats decide it, and where
    they do: right of the point as `rounded` (rounded_where_clear); left of it (a number
    written with an exponent, 0e5), a number below 10^(place - 1) is zero, as half_up has it."""
    shown, clear = rounded_where_clear(x, decimals)  # (n, m), (n, m)
    below = -decimals - 1  # (n, m): the power of ten a number under which is rounded to zero
    known = (decimals < 0) & (below < len(POWERS))  # (n, m)
    with np.errstate(invalid="ignore"):
        zero = known & (np.abs(x) < np.asarray(POWERS)[np.where(known, below, 0)])  # (n, m)
    return np.where(zero, np.where(x < 0, -0.0, 0.0), shown), clear | zero


@record
class SlipMatch:
    """A slip and the differing cells it reproduces; `whole`: it reproduces every number."""

    name: Msg
    cells: tuple[tuple[int, int], ...]
    whole: bool


@record
class Untried:
    """A slip worked by hand that was not tried: it works `weights` weights in decimal
    arithmetic, past the `limit` of hand calculation (steps/budget.py)."""

    name: Msg
    weights: int
    limit: int


@record
class Verdict:
    answer: Answer
    right: Matrix
    head: int | None  # 1-based, for a spec with several heads
    wrong: tuple[tuple[int, int], ...]  # (row, column) of every differing number
    slips: tuple[SlipMatch, ...] = ()  # those that reproduce the whole answer first
    untried: tuple[Untried, ...] = ()

    @property
    def ok(self) -> bool:
        return not self.wrong

    @property
    def tried(self) -> tuple[tuple[int, int], ...]:
        """The differing numbers the slips are tried on: the first SLIP_CELLS in reading order
        (with their rows: see explain)."""
        return self.wrong[:SLIP_CELLS]


# a step whose result is not its last matrix: the class scores z, before their softmax
RESULTS = {"class_scores": "z"}


def find(walkthrough: Walkthrough, step: str, head: int | None) -> tuple[int, Matrix] | None:
    """The step's index and the matrix a student computes there: Q, K or V of the projections
    (or of the latent's steps), the class scores z, else the step's last matrix (its result);
    None when the walkthrough has no such step."""
    for index, candidate in enumerate(walkthrough.steps):
        if candidate.head is not None and candidate.head != head:
            continue
        if step not in PROJECTED:
            if candidate.id == step:
                result = RESULTS.get(step)
                return index, next(m for m in candidate.matrices if m.symbol.text == result) \
                    if result else candidate.matrices[-1]
            continue
        if candidate.id in PROJECTING:
            made = next((m for m in candidate.matrices if m.symbol.text == step), None)
            if made is not None:
                return index, made
    return None


def checkable(walkthrough: Walkthrough) -> tuple[str, ...]:
    """The step ids an answer may be for: Q, K and V where the steps that make them stand."""
    ids = list(dict.fromkeys(step.id for step in walkthrough.steps))
    at = next(i for i, step in enumerate(ids) if step in PROJECTING)
    return (*ids[:at], *PROJECTED, *(step for step in ids[at:] if step not in PROJECTING))


def which_head(spec: Spec, answer: Answer, head: int | None) -> int | None:
    """The 1-based head the answer is for, None with a single head; UsageError when unsaid."""
    count = len(spec.heads)
    chosen = answer.head if answer.head is not None else head
    if count == 1 and chosen in (None, 1):
        return None
    if chosen is None:
        return None  # a step of the whole layer (concat, out_projection) needs none
    if not 1 <= chosen <= count:
        where = answer.head_where if answer.head is not None else Location("--head")
        raise SpecError(Msg.of("expected a head from 1 to {last}, found {found}", last=count,
                               found=chosen), where)
    return chosen


def target(walkthrough: Walkthrough, answer: Answer, head: int | None) -> tuple[int, Matrix]:
    found = find(walkthrough, answer.step, head)
    if found is None:
        known = checkable(walkthrough)
        base = answer.step in known
        if base and len(walkthrough.heads) > 1 and head is None:
            raise SpecError(Msg.plural_of(
                "{step} belongs to one head; the spec has {count}: say which with --head or head: "
                "in the answer file",
                "{step} belongs to one head; the spec has {count}: say which with --head or head: "
                "in the answer file", len(walkthrough.heads), step=answer.step), answer.where)
        raise SpecError(suggesting(Msg.of("unknown step {found}; expected one of {known}",
                                          found=answer.step, known=", ".join(known)),
                                   answer.step, known), answer.step_where)
    index, matrix = found
    if matrix.shape != answer.shape:
        raise SpecError(Msg.of("{symbol} is {rows} × {columns} (rows {row_names}); the answer is "
                               "{found_rows} × {found_columns}", symbol=matrix.symbol.text,
                               rows=Count(matrix.shape[0]), columns=Count(matrix.shape[1]),
                               row_names=quoted_list(matrix.rows, most=ROWS_NAMED),
                               found_rows=Count(answer.shape[0]),
                               found_columns=Count(answer.shape[1])), answer.where)
    return index, matrix


def check(spec: Spec, answer: Answer, head: int | None = None,
          max_cells: int = DEFAULT_MAX_CELLS) -> Verdict:
    """The verdict on `answer` for `spec` (computed as the spec's display says)."""
    return check_all(spec, (answer,), head, max_cells)[0]


def check_all(spec: Spec, answers: Sequence[Answer], head: int | None = None,
              max_cells: int = DEFAULT_MAX_CELLS) -> list[Verdict]:
    """The verdict on each answer. Each answer's step, head and shape are compared first, with a
    summary of the walkthrough whose n x m matrices hold a few rows (as `attn explain` prints
    one), so a refusal never waits for (or holds) every matrix of a long sequence; the
    walkthrough is computed whole once, for the answers that fit."""
    kept = kept_rows(spec, Selection())
    # the sketch's numbers are never read: a hand calculation's Decimal arithmetic, which runs on
    # every row however few are kept, is left for the walkthrough that is
    by_hand = spec.display.round_intermediates and spec.dtype == "float64"
    sketch = compute(spec, kept, FullPrecision() if by_hand else None)
    placed = []
    for answer in answers:
        chosen = which_head(spec, answer, head)
        target(sketch, answer, chosen)  # the refusal of an unknown step or a wrong shape
        placed.append((answer, chosen))
    right = sketch if kept is None and not by_hand else compute(spec)
    return [judged(spec, right, answer, chosen, max_cells) for answer, chosen in placed]


def judged(spec: Spec, right: Walkthrough, answer: Answer, head: int | None,
           max_cells: int = DEFAULT_MAX_CELLS) -> Verdict:
    index, matrix = target(right, answer, head)
    same = agreeing(matrix.whole(), answer)  # (n, m)
    wrong = tuple((int(i), int(j)) for i, j in zip(*np.nonzero(~same), strict=True))
    verdict = Verdict(answer, matrix, head, wrong)
    if not wrong:
        return verdict
    slips, untried = explain(spec, right, index, verdict, max_cells)
    return replace(verdict, slips=slips, untried=untried)


def explain(spec: Spec, right: Walkthrough, index: int, verdict: Verdict,
            max_cells: int = DEFAULT_MAX_CELLS
            ) -> tuple[tuple[SlipMatch, ...], tuple[Untried, ...]]:
    """Every variant of every catalogued slip that reproduces at least one differing number and
    leaves every number the student got right as it is: first those that reproduce the whole
    answer (several, when slips coincide on this spec), then the rest by how many numbers they
    explain.

    With more than SLIP_CELLS differing numbers, the slips are tried on the rows of the first
    SLIP_CELLS of them only (`Verdict.tried`): those rows are compared, and a hand calculation
    of the n x m steps is done on them alone. A variant worked by hand on more weights than
    hand calculation may take (steps/budget.py) is not tried, and is returned as Untried."""
    answer = verdict.answer
    situation = Situation(spec, (verdict.head or 1) - 1, answer.decimals)
    step_ids = [step.id for step in right.steps]
    wrong = np.zeros(answer.shape, dtype=bool)  # (n, m): the numbers the student got wrong
    for i, j in verdict.wrong:
        wrong[i, j] = True
    tried = verdict.tried
    bounded = len(tried) < len(verdict.wrong)
    rows = sorted({i for i, _ in tried}) if bounded else list(range(answer.shape[0]))
    considered = np.zeros(answer.shape, dtype=bool)  # (n, m): the rows compared
    considered[rows] = True
    part = replace(answer, cells=tuple(answer.cells[i] for i in rows))
    narrow = bounded and answer.step in ROW_LOCAL
    found, untried = [], []
    limit = max_hand(max_cells)
    for slip in CATALOGUE:
        if slip.first in step_ids and step_ids.index(slip.first) > index:
            continue  # the slip changes only later steps
        for variant in slip.variants(situation):
            calc = variant.calc
            if narrow and calc is None and variant.spec.display.round_intermediates \
                    and variant.spec.dtype == "float64":
                calc = OnRows(arithmetic(True, variant.spec.display.precision), tuple(rows),
                              variant.spec.queries.n)
            if variant.spec.display.round_intermediates and variant.spec.dtype == "float64":
                weights = hand_weights(variant.spec, len(rows) if isinstance(calc, OnRows)
                                       else None)
                if weights > limit:  # charged before any e^x is worked in Decimal
                    untried.append(Untried(variant.name, weights, limit))
                    continue
            try:
                walkthrough = compute(variant.spec, calc=calc)
            except AttnError:  # the slip overflows, or leaves a query with no key to see
                continue
            located = find(walkthrough, answer.step, verdict.head)
            if located is None or located[1].shape != answer.shape:
                continue
            same = np.zeros(answer.shape, dtype=bool)  # (n, m)
            same[rows] = agreeing(located[1].whole()[rows], part)  # (rows, m)
            # a slip that would also change a number the student got right did not happen
            # (softmax over columns changes every row: it cannot be why one cell of Z is wrong)
            if not same[considered & ~wrong].all():
                continue
            cells = tuple((i, j) for i, j in tried if same[i, j])
            if cells:
                found.append(SlipMatch(variant.name, cells, bool(same[considered].all())))
    return tuple(sorted(found, key=lambda s: (not s.whole, -len(s.cells)))), tuple(untried)
