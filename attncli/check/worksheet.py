"""Worksheets: a walkthrough with chosen cells left as boxes to fill in, and its answer key.

Blanking happens here, on the model: a Matrix lists its blank cells, an Expansion whose result
is a blank cell is marked blank (its left side and arithmetic stay, its result becomes a box).
Renderers print a box for each (render/common.py BOX_*); the key is the same walkthrough
without blanks, so worksheet and key agree everywhere but the boxes.

Cells to blank: every cell of the chosen steps' results (`--blank weights,output`), or a number
of cells drawn from the results of every computed step with NumPy's seeded Generator
(`--blank-cells 6 --seed 1`), the same cells on every machine. Given inputs (the embeddings and
the weights) and hidden scores (−∞) are never blanked.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import replace

import numpy as np

from attncli.arithmetic import elision
from attncli.arithmetic.numbers import shows_hidden
from attncli.errors import UsageError
from attncli.i18n import Msg, suggesting
from attncli.model import (
    Difference,
    Exp,
    Expansion,
    Expr,
    Matrix,
    Num,
    Product,
    Quotient,
    Step,
    Sum,
    Tanh,
    Terms,
    Vec,
    Walkthrough,
)

GIVEN = ("embeddings", "context", "parameters", "grad_output")  # the inputs: nothing to compute
PROJECTED = ("Q", "K", "V")
# steps whose every matrix is computed side by side from the step before: dQ and dK, each dW
ALL_COMPUTED = ("grad_projections", "grad_rope", "grad_weights", "grad_shared")


def results(step: Step) -> tuple[int, ...]:
    """The matrices of a step a student computes: Q, K and V of the projections, every matrix
    of the gradient steps that make several side by side, the last (the result) of any other
    step; none of a step of given inputs."""
    if step.id in GIVEN or step.id in ("positional", "context_positional") or not step.matrices:
        return ()  # given, or words only (the KV cache's sizes)
    if step.id == "projections":
        return tuple(i for i, m in enumerate(step.matrices) if m.symbol.text in PROJECTED)
    if step.id in ALL_COMPUTED:
        return tuple(range(len(step.matrices)))
    return (len(step.matrices) - 1,)


def candidates(walkthrough: Walkthrough, steps: Sequence[str] | None,
               full: bool = False) -> list[tuple[int, int, int, int]]:
    """(step, matrix, row, column) of every cell that may be blanked, in walkthrough order: of
    a large matrix shown elided (unless `full`), only the cells the sheet shows."""
    found = []
    for s, step in enumerate(walkthrough.steps):
        if steps is not None and step.id not in steps:
            continue
        for k in results(step):
            matrix = step.matrices[k]
            values = matrix.whole()  # (rows, columns)
            elide = not full and elision.is_elided(*values.shape)
            rows, columns = (elision.shown(count, elide) for count in values.shape)
            found += [(s, k, i, j) for i in rows if i is not None for j in columns
                      if j is not None and math.isfinite(float(values[i, j]))
                      and not shows_hidden(matrix, i, j, float(values[i, j]))]  # keeps its —
    return found


def elided(walkthrough: Walkthrough, steps: Sequence[str] | None) -> bool:
    """Whether a matrix whose cells may be blanked shows only its edges."""
    return any(elision.is_elided(*step.matrices[k].shape) for step in walkthrough.steps
               if steps is None or step.id in steps for k in results(step))


def choose(walkthrough: Walkthrough, steps: Sequence[str] | None, count: int | None,
           seed: int, full: bool = False) -> list[tuple[int, int, int, int]]:
    """The cells to blank: all of the chosen steps', or `count` of them drawn with `seed`."""
    if seed < 0:  # NumPy's generator takes none
        raise UsageError(Msg.of("{option}: expected a whole number of at least {low}, found "
                                "{value}", option="--seed", low=0, value=seed))
    if steps is not None:
        known = {step.id for step in walkthrough.steps}
        for step_id in steps:
            if step_id not in known:
                ids = list(dict.fromkeys(s.id for s in walkthrough.steps))
                raise UsageError(suggesting(Msg.of(
                    "--blank: unknown step {found}; expected one of {known}", found=step_id,
                    known=", ".join(ids)), step_id, ids))
    pool = candidates(walkthrough, steps, full)
    if count is None:
        return pool
    if not 1 <= count <= len(pool) and not full and elided(walkthrough, steps):
        # a large matrix shows its first and last rows and columns, so more tokens can show
        # fewer cells: --full shows them all, as many as the tokens make
        raise UsageError(Msg.of(
            "--blank-cells: expected a number from 1 to {last}, the cells the sheet shows (a "
            "large matrix shows its first and last rows and columns; {option} shows them all), "
            "found {found}", last=len(pool), option=elision.FULL_SWITCH, found=count))
    if not 1 <= count <= len(pool):
        raise UsageError(Msg.of("--blank-cells: expected a number from 1 to {last}, found "
                                "{found}", last=len(pool), found=count))
    picked = np.random.default_rng(seed).choice(len(pool), size=count, replace=False)
    return [pool[int(p)] for p in sorted(picked)]


def blank(walkthrough: Walkthrough, steps: Sequence[str] | None = None, count: int | None = None,
          seed: int = 0, full: bool = False) -> Walkthrough:
    """The worksheet: `walkthrough` with the chosen cells and the results of their written-out
    lines blank."""
    chosen = choose(walkthrough, steps, count, seed, full)
    new_steps = list(walkthrough.steps)
    for s, step in enumerate(walkthrough.steps):
        mine = [(k, i, j) for (t, k, i, j) in chosen if t == s]
        if not mine:
            continue
        matrices = list(step.matrices)
        names: set[str] = set()
        for k in {k for k, _, _ in mine}:
            cells = frozenset((i, j) for kk, i, j in mine if kk == k)
            matrices[k] = replace(matrices[k], blank=cells)
            names |= cell_names(matrices[k], cells)
        expansions = tuple(replace(e, blank=True) if targets(e, names) else e
                           for e in step.expansions)
        new_steps[s] = replace(step, matrices=tuple(matrices), expansions=expansions)
    # a blanked number is blank wherever a later line is worked from it (the output row from the
    # weights, the backward steps from A ...), or the sheet would give it away
    # (a number also in a matrix the student computes it from, a V of 1.00 beside a weight of
    # 1.00, is no secret: a box there would hide a given number)
    first = min((s for s, _, _, _ in chosen), default=len(new_steps))
    secrets = frozenset(float(walkthrough.steps[s].matrices[k].whole()[i, j])
                        for s, k, i, j in chosen) - shown_numbers(new_steps[:first])
    for s in range(first, len(new_steps)):
        step = new_steps[s]
        if step.expansions:
            new_steps[s] = replace(step, expansions=tuple(
                replace(e, expression=hidden(e.expression, secrets)) for e in step.expansions))
    # the reading and the hand calculation's drift would say the blanked numbers in words
    sheet = replace(walkthrough, steps=tuple(new_steps), reading=(), drift=None)
    return told(sheet, Msg.of("Worksheet: fill in every empty box with the number it should "
                              "hold, rounded as the numbers around it are."))


def answer_key(walkthrough: Walkthrough) -> Walkthrough:
    """The worksheet's answer key: the whole walkthrough, saying what it is."""
    return told(walkthrough, Msg.of("Answer key: the worksheet with every box filled in."))


def told(walkthrough: Walkthrough, line: Msg) -> Walkthrough:
    """`walkthrough` with `line` first among the facts of its header (what the page is for)."""
    header = walkthrough.header
    return replace(walkthrough, header=replace(header, facts=(line, *header.facts)))


def shown_numbers(steps: Sequence[Step]) -> set[float]:
    """Every number the matrices of `steps` show."""
    shown: set[float] = set()
    for step in steps:
        for matrix in step.matrices:
            values = matrix.whole()  # (rows, columns)
            if matrix.blank:
                values = values.copy()
                for i, j in matrix.blank:
                    values[i, j] = np.nan
            shown.update(values.ravel().tolist())
    return shown


def hidden(expr: Expr, secrets: frozenset[float]) -> Expr:
    """`expr` with every number that is one of `secrets` blank (a dot product's rows made into
    its products where one of their numbers is)."""
    if isinstance(expr, Num):
        return replace(expr, blank=True) if expr.value in secrets else expr
    if isinstance(expr, Vec):
        places = frozenset(k for k, x in enumerate(expr.values) if x in secrets)
        return replace(expr, blank=places) if places else expr
    if isinstance(expr, Sum):
        if isinstance(expr.terms, Terms) and not (
                secrets.intersection(expr.terms.left.tolist())
                or secrets.intersection(expr.terms.right.tolist())):
            return expr  # (a dot product of 768 terms is not made into 768 products)
        return Sum(tuple(hidden(e, secrets) for e in expr.terms))
    if isinstance(expr, Product):
        return Product(tuple(hidden(f, secrets) for f in expr.factors))
    if isinstance(expr, Quotient):
        return Quotient(hidden(expr.numerator, secrets), hidden(expr.denominator, secrets))
    if isinstance(expr, Exp):
        return Exp(hidden(expr.argument, secrets))
    if isinstance(expr, Tanh):
        return Tanh(hidden(expr.argument, secrets))
    return Difference(hidden(expr.left, secrets), hidden(expr.right, secrets))


def cell_names(matrix: Matrix, cells: frozenset[tuple[int, int]]) -> set[str]:
    """How written-out lines name these cells: `A[chases, cat]`, and `Z[chases]` for a row
    whose result is a whole row of numbers."""
    symbol = matrix.symbol.text
    names = {f"{symbol}[{matrix.rows[i]}, {matrix.columns[j]}]" for i, j in cells}
    return names | {f"{symbol}[{matrix.rows[i]}]" for i, _ in cells}


def targets(expansion: Expansion, names: set[str]) -> bool:
    return expansion.target is not None and expansion.target.text in names


WORKSHEET_FORMATS = ("latex", "markdown", "beamer")
DEFAULT_BLANK = ("weights", "output")


def check_worksheet(asked: bool, fmt: str | None) -> None:
    """UsageError unless --worksheet is given (`asked`) with a format that has worksheets."""
    if not asked:
        raise UsageError(Msg.of("--blank, --blank-cells and --answers make a worksheet; add "
                                "--worksheet"))
    if fmt not in WORKSHEET_FORMATS:
        raise UsageError(Msg.of("--worksheet: choose --latex, --beamer or --markdown"))


def worksheet_of(walkthrough: Walkthrough, asked: bool, fmt: str | None, steps: str | None,
                 count: int | None, seed: int, full: bool = False) -> Walkthrough:
    """The worksheet `attn export --worksheet` asks for; UsageError for options that clash."""
    check_worksheet(asked, fmt)
    if steps is not None and count is None:
        chosen: tuple[str, ...] | None = tuple(p.strip() for p in steps.split(",") if p.strip())
    elif steps is None and count is None:
        chosen = DEFAULT_BLANK
    else:
        chosen = None if steps is None else tuple(p.strip() for p in steps.split(",")
                                                  if p.strip())
    return blank(walkthrough, chosen, count, seed, full)
