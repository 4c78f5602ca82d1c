"""Cells written out: the sum, quotient or e^x that made a number, with the numbers substituted.

`attach(walkthrough, spec, selection)` fills `Step.expansions` (see model.Expansion for the
shape of one line) with the cells a `Selection` (attncli/arithmetic/selection.py, read from
`--expand`)
chooses. They are made lazily, cell by cell as a renderer writes them, and made again for
another pass (a second language): `-x all` holds one line at a time, never the list of all.

Steps that can be written out: projections, scores (with the angle cos θ = q·k / |q||k|), scaled,
softcap (c·tanh(S′ / c)),
weights (softmax of a row: each e^x, the row sum, each quotient), output (a row as the
weighted sum of value rows), out_projection (a cell of O = Z·W_O + b_O), and the online
softmax's tile and tiled_output (attncli/arithmetic/expand_tiles.py).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import replace

import numpy as np

from attncli.arithmetic.cells import Context, Writer, cell, joined, named, token_latex
from attncli.arithmetic.constants import is_short
from attncli.arithmetic.handcalc import arithmetic, written
from attncli.arithmetic.linear import dot, linear_cell
from attncli.arithmetic.numbers import constant
from attncli.arithmetic.selection import Cell, Selection, check, chosen, representative
from attncli.arithmetic.selection import cells as chosen_cells
from attncli.arithmetic.selection import rows as chosen_rows
from attncli.i18n import Msg, quoted
from attncli.model import (
    Array,
    Difference,
    Exp,
    Expansion,
    Expr,
    Formula,
    Lazy,
    Matrix,
    Num,
    Product,
    Quotient,
    Step,
    Sum,
    Tanh,
    Vec,
    Walkthrough,
)
from attncli.spec.model import Spec

__all__ = ["Chosen", "Selection", "attach", "cell", "dot", "named", "representative"]

Angle = tuple[int, int, int]  # (head index, query row, key column) of an expanded score


# --- the expansions of each step ---

def projection_cells(ctx: Context, step: Step, cells: Sequence[Cell]) -> Iterator[Expansion]:
    weights = ctx.spec.heads[ctx.head.index - 1]
    sources = ctx.projected()  # (n, d_model), (m, d_model)
    for matrix in step.matrices:
        letter = matrix.symbol.text
        for i, a in chosen_cells(matrix.rows, matrix.columns, cells):
            yield linear_cell(
           ctx, cell(matrix.symbol, matrix.rows[i], matrix.columns[a]),
           named("x", matrix.rows[i]), sources[letter][i],
           getattr(weights, f"W_{letter}"), Formula(f"W_{letter}", f"W_{{{letter}}}"),
           getattr(weights, f"b_{letter}"), Formula(f"b_{letter}", f"b_{{{letter}}}"),
           matrix.columns[a], a, matrix.at(i, a))


def out_projection_cells(ctx: Context, step: Step, cells: Sequence[Cell]) -> Iterator[Expansion]:
    """O[i, a] from the row of Z (the heads side by side) and W_O."""
    spec = ctx.spec
    assert spec.W_O is not None
    result = step.matrices[-1]  # (n, d_model); W_O (and b_O) come before it
    z = ctx.heads_side_by_side()  # (n, h·d_v)
    for i, a in chosen_cells(result.rows, result.columns, cells):
        yield linear_cell(
       ctx, cell(result.symbol, result.rows[i], result.columns[a]),
       named("z", result.rows[i]), z[i], spec.W_O, Formula("W_O", "W_{O}"), spec.b_O,
       Formula("b_O", "b_{O}"), result.columns[a], a, float(result.values[i, a]))


def score_cells(ctx: Context, step: Step, cells: Sequence[Cell]) -> Iterator[Expansion]:
    matrix = step.matrices[0]
    q, k = ctx.head.queries, ctx.head.keys
    general = ctx.spec.score.W
    q_norms, k_norms = Lengths(q.values), Lengths(k.values)
    for i, j in chosen_cells(matrix.rows, matrix.columns, cells):
        q_i, k_j = named("q", matrix.rows[i]), named("k", matrix.columns[j])
        score = matrix.at(i, j)
        if general is None:
            yield ctx.line(cell(matrix.symbol, matrix.rows[i], matrix.columns[j]),
                           joined(q_i, "·", k_j), dot(q.values[i], k.values[j]), score)
            yield from angle(ctx, matrix.rows[i], matrix.columns[j], q_norms[i], k_norms[j],
                             score)
        else:
            terms = tuple(
                Product((Num(float(q.values[i, a])), Num(float(general[a, b])),
                         Num(float(k.values[j, b]))))
                for a in range(general.shape[0]) for b in range(general.shape[1])
            )
            yield ctx.line(cell(matrix.symbol, matrix.rows[i], matrix.columns[j]),
                           joined(q_i, "·", Formula("W", "W"), "·", k_j), Sum(terms), score)


class Lengths:
    """|x_i| of the rows of a matrix, each worked out once however many cells name it."""

    def __init__(self, rows: Array) -> None:
        self.rows = rows  # (n, d)
        self.known: dict[int, float] = {}

    def __getitem__(self, i: int) -> float:
        if i not in self.known:
            with np.errstate(over="ignore"):  # a length past float64 is ∞: no angle is written
                self.known[i] = float(np.linalg.norm(self.rows[i]))
        return self.known[i]


def angle(ctx: Context, row: str, column: str, q_length: float, k_length: float,
          score: float) -> list[Expansion]:
    """cos θ = q·k / (|q|·|k|), the angle between a query and a key; none when a length prints
    as 0, which no one divides by (the reading says the angle is undefined for a zero vector),
    or when a length or the score overflowed to ∞ (low precision), where no angle is defined."""
    q_norm = ctx.carry(q_length)
    k_norm = ctx.carry(k_length)
    if not has_angle(ctx, q_norm, k_norm, score):
        return []
    cos = ctx.carry(score / (q_norm * k_norm))
    symbolic = Formula(f"q_{row}·k_{column} / (|q_{row}|·|k_{column}|)",
                       rf"\frac{{{named('q', row).latex} \cdot {named('k', column).latex}}}"
                       rf"{{|{named('q', row).latex}| \, |{named('k', column).latex}|}}")
    target = Formula(f"cos θ[{row}, {column}]",
                     rf"\cos\theta[{token_latex(row)}, {token_latex(column)}]")
    return [ctx.line(target, symbolic,
                     Quotient(Num(score), Product((Num(q_norm), Num(k_norm)))), cos)]


def has_angle(ctx: Context, q_norm: float, k_norm: float, score: float) -> bool:
    """Whether cos θ is written for lengths |q|, |k| as carried (see `angle`)."""
    return (written(q_norm, ctx.precision) != 0.0 and written(k_norm, ctx.precision) != 0.0
            and bool(np.isfinite((q_norm, k_norm, score)).all()))


def scaled_cells(ctx: Context, step: Step, cells: Sequence[Cell]) -> Iterator[Expansion]:
    matrix = step.matrices[0]
    divisor = ctx.head.divisor
    scale = ctx.spec.scale
    if scale.kind == "sqrt_dk":
        d_k = ctx.spec.heads[ctx.head.index - 1].d_k(ctx.spec.convention)
        by = Formula(f"√{d_k}", rf"\sqrt{{{d_k}}}")
    else:
        by = Formula.holding(constant(divisor), constant(divisor, tex=True), constant(divisor))
    scores = ctx.steps["scores"].matrices[0]  # (n, m), as computed: S′·divisor may differ
    for i, j in chosen_cells(matrix.rows, matrix.columns, cells):
        s = cell(Formula("S", "S"), matrix.rows[i], matrix.columns[j])
        yield ctx.line(cell(matrix.symbol, matrix.rows[i], matrix.columns[j]),
                       joined(s, " / ", by),
                       Quotient(Num(scores.at(i, j)), Num(divisor)),
                       matrix.at(i, j))


def qk_norm_cells(ctx: Context, step: Step, cells: Sequence[Cell]) -> Iterator[Expansion]:
    """Q̃[i, a] = Q[i, a] / RMS(q_i)·g_q[a] (and K̃ alike), with the numbers substituted."""
    before = {m.symbol.text: m for m in ctx.steps["projections"].matrices}  # Q, K (, V)
    shown = {m.symbol.text: m for m in step.matrices}
    for letter in ("Q", "K"):
        result = shown.get(letter + "\u0303")
        if result is None:
            continue  # a K shared with an earlier head is normalized there
        rms, gain = shown[f"RMS({letter})"], shown.get(f"g_{letter.lower()}")
        for i, a in chosen_cells(result.rows, result.columns, cells):
            row, column = result.rows[i], result.columns[a]
            x = cell(before[letter].symbol, row, column)
            r = Formula(f"RMS({letter.lower()}_{row})",
                        rf"\operatorname{{RMS}}({named(letter.lower(), row).latex})")
            expr: Expr = Quotient(Num(before[letter].at(i, a)), Num(rms.at(i, 0)))
            symbolic = joined(x, " / ", r)
            if gain is not None:
                g = Formula(f"g_{letter.lower()}[{column}]",
                            rf"g_{{{letter.lower()}}}[{token_latex(column)}]")
                symbolic = joined(symbolic, "·", g)
                expr = Product((expr, Num(gain.at(0, a))))
            yield ctx.line(cell(result.symbol, row, column), symbolic, expr, result.at(i, a))


def softcap_cells(ctx: Context, step: Step, cells: Sequence[Cell]) -> Iterator[Expansion]:
    """S″[i, j] = c·tanh(S′[i, j] / c), with the score before the cap and the cap substituted."""
    matrix = step.matrices[0]
    cap = ctx.spec.softcap
    assert cap is not None
    before = ctx.steps["scaled" if "scaled" in ctx.steps else "scores"].matrices[0]  # (n, m)
    # a long c is named by its letter, written once in the step's formula (steps/softcap.py)
    c = (Formula.holding(constant(cap), constant(cap, tex=True), constant(cap)) if is_short(cap)
         else Formula("c", "c"))
    for i, j in chosen_cells(matrix.rows, matrix.columns, cells):
        s = cell(before.symbol, matrix.rows[i], matrix.columns[j])
        symbolic = Formula.holding(f"{c.text}·tanh({s.text} / {c.text})",
                                   rf"{c.latex} \tanh({s.latex} / {c.latex})", *c.decimals)
        expr = Product((Num(cap), Tanh(Quotient(Num(before.at(i, j)), Num(cap)))))
        yield ctx.line(cell(matrix.symbol, matrix.rows[i], matrix.columns[j]), symbolic, expr,
                       matrix.at(i, j))


def weight_rows(ctx: Context, step: Step, cells: Sequence[Cell]) -> Iterator[Expansion]:
    """Softmax of each chosen row, written out: e^x of every score, the sum, every quotient; with
    a sink (gpt-oss), its term e^s is one more of the sum. A page that keeps the lines of its
    shown cells alone (Context.terms_shown) has e^x and the quotient written of those cells only;
    the sum is the whole row's."""
    matrix = step.matrices[0]
    m = len(matrix.columns)
    sinks = ctx.spec.sinks
    sink = None if sinks is None else sinks[(step.head or 1) - 1]
    asked = asked_columns(matrix, cells) if ctx.terms_shown else {}
    for i in chosen_rows(matrix.rows, cells):
        logits = ctx.head.scores.row(i)  # (m,), -inf where hidden
        if sink is not None:
            logits = np.append(logits, sink)  # (m + 1,): the sink as a last key
        shift, e, total, _ = ctx.calc.softmax_parts(logits[None, :])
        if total[0] == 0.0 or not np.isfinite(matrix.row(i)).all():
            continue  # a query that sees no key: the reading says so
        columns = asked.get(i) or range(m)  # the keys whose terms are written
        peak = float(shift[0])
        for j in [*columns, *range(m, len(logits))]:  # and the sink's e^s
            x = float(logits[j])
            argument: Expr = Num(x)
            if peak != 0.0 and math.isfinite(x):  # e^(12.00 − 16.00), e^(−3.00 + 2.00)
                argument = Difference(Num(x), Num(peak)) if peak > 0 else Sum(
                    (Num(x), Num(-peak)))
            target = None if j < m else Formula("e^s", "e^{s}")
            yield ctx.line(target, None, Exp(argument), float(e[0, j]))
        visible = [j for j in range(len(logits)) if math.isfinite(logits[j])]
        yield ctx.line(Formula("Σ", r"\Sigma"), None,
                       Sum(tuple(Num(float(e[0, j])) for j in visible)), float(total[0]))
        for j in columns:
            yield ctx.line(cell(matrix.symbol, matrix.rows[i], matrix.columns[j]), None,
                           Quotient(Num(float(e[0, j])), Num(float(total[0]))),
                           matrix.at(i, j))


def asked_columns(matrix: Matrix, cells: Sequence[Cell]) -> dict[int, list[int]]:
    """The columns asked of each row named by single cells, ascending; a row asked whole (or not
    named by a cell of this matrix) has none."""
    whole = {i for i in chosen_rows(matrix.rows, [c for c in cells if c[1] is None])}
    asked: dict[int, set[int]] = {}
    for i, j in chosen_cells(matrix.rows, matrix.columns, [c for c in cells if c[1] is not None]):
        if i not in whole:
            asked.setdefault(i, set()).add(j)
    return {i: sorted(found) for i, found in asked.items()}


def sink_cells(ctx: Context, step: Step, cells: Sequence[Cell]) -> Iterator[Expansion]:
    """A_s[i] = 1 − Σⱼ A[i, j]: the weight query i gave the sink, what its row of A lacks."""
    share = step.matrices[0]
    weights = ctx.head.weights  # (n, m)
    for i, j in chosen_cells(share.rows, share.columns, cells):
        row = weights.row(i)  # (m,)
        visible = np.isfinite(ctx.head.scores.row(i))  # (m,)
        terms = tuple(Num(float(row[k])) for k in range(len(row)) if visible[k])
        label = share.rows[i]
        symbolic = Formula(f"1 − Σⱼ A[{label}, j]", rf"1 - \sum_j A[{token_latex(label)}, j]")
        expr: Expr = Difference(Num(1.0), Sum(terms)) if terms else Num(1.0)
        target = Formula(f"{share.symbol.text}[{label}]",
                         f"{share.symbol.latex}[{token_latex(label)}]")
        yield ctx.line(target, symbolic, expr, share.at(i, j))


def output_rows(ctx: Context, step: Step, cells: Sequence[Cell]) -> Iterator[Expansion]:
    """Each chosen output row as the weighted sum of the value rows its query sees."""
    matrix = step.matrices[0]
    v = ctx.head.values.values  # (m, d_v)
    for i in chosen_rows(matrix.rows, cells):
        weights = ctx.head.weights.row(i)  # (m,)
        visible = np.isfinite(ctx.head.scores.row(i))  # (m,)
        keys = [j for j in range(v.shape[0]) if visible[j]]
        if not keys or not np.isfinite(weights).all():
            continue
        terms = tuple(Product((Num(float(weights[j])),
                               Vec(tuple(float(x) for x in v[j])))) for j in keys)
        label = matrix.rows[i]
        symbolic = Formula(f"Σⱼ A[{label}, j]·v_j", rf"\sum_j A[{token_latex(label)}, j] \, v_j")
        target = Formula(f"{matrix.symbol.text}[{label}]",
                         f"{matrix.symbol.latex}[{token_latex(label)}]")
        yield ctx.line(target, symbolic, Sum(terms),
                       tuple(float(x) for x in matrix.row(i)))


def _same(x: float) -> float:
    return x


def tile_rows(ctx: Context, step: Step, cells: Sequence[Cell]) -> Iterator[Expansion]:
    from attncli.arithmetic import expand_tiles  # only a spec with tiling has tiles

    return expand_tiles.tile_rows(ctx, step, cells)


def tiled_output_rows(ctx: Context, step: Step, cells: Sequence[Cell]) -> Iterator[Expansion]:
    from attncli.arithmetic import expand_tiles

    return expand_tiles.output_rows(ctx, step, cells)


def patch_cells(ctx: Context, step: Step, cells: Sequence[Cell]) -> Iterator[Expansion]:
    from attncli.arithmetic import expand_vit  # only a spec with an image has patches

    return expand_vit.patch_cells(ctx, step, cells)


def class_cells(ctx: Context, step: Step, cells: Sequence[Cell]) -> Iterator[Expansion]:
    from attncli.arithmetic import expand_vit

    return expand_vit.class_cells(ctx, step, cells)


# step id -> what writes its cells out; a new step that computes cells adds one entry here
WRITERS: dict[str, Writer] = {
    "projections": projection_cells,
    "scores": score_cells,
    "scaled": scaled_cells,
    "softcap": softcap_cells,
    "qk_norm": qk_norm_cells,
    "weights": weight_rows,
    "sinks": sink_cells,
    "output": output_rows,
    "out_projection": out_projection_cells,
    "tile": tile_rows,
    "tiled_output": tiled_output_rows,
    "patch_embedding": patch_cells,
    "class_scores": class_cells,
}


# the chosen cells of each step that has some, with its head's context, before any is written
Chosen = tuple[Context, Step, list[Cell]]
Charge = Callable[[Iterable[Chosen]], None]


def attach(walkthrough: Walkthrough, spec: Spec, selection: Selection,
           charge: Charge | None = None) -> tuple[Walkthrough, Lazy[Angle]]:
    """The walkthrough with the chosen cells to be written out, and the score cells expanded
    (head, row, column), both made as they are read. `charge` is given the chosen cells of
    every head's steps before any is written out, and may refuse them
    (steps/name_charge.py `check_chosen`)."""
    selection = check(selection, walkthrough)
    precision = walkthrough.precision
    hand = walkthrough.round_intermediates
    calc = arithmetic(hand, precision, spec.dtype)
    carry: Callable[[float], float] = (lambda x: written(x, precision)) if hand else _same
    heads = {head.index: head for head in walkthrough.heads}
    by_head: dict[int | None, dict[str, Step]] = {}  # once, not once per step: linear in heads
    for s in walkthrough.steps:
        by_head.setdefault(s.head, {})[s.id] = s
    every: list[Chosen | None] = []
    for step in walkthrough.steps:
        cells = chosen(selection, walkthrough, step, tuple(WRITERS))
        every.append((Context(spec, heads[step.head or 1], by_head[step.head], precision, calc,
                              carry, selection.terms_shown), step, cells) if cells else None)
    if charge is not None:
        charge(work for work in every if work is not None)
    steps = []
    expanded: list[tuple[int, Step, list[Cell]]] = []  # the score steps written out
    for step, work in zip(walkthrough.steps, every, strict=True):
        if work is None:
            steps.append(step)
            continue
        ctx, _, cells = work
        notes = step.notes + shift_notes(ctx, step, cells)
        if step.id == "scores" and spec.score.W is None:
            expanded.append((ctx.head.index, step, cells))
        steps.append(replace(step, expansions=writer(ctx, step, cells), notes=notes))
    return replace(walkthrough, steps=tuple(steps)), Lazy(lambda: angles(expanded))


def writer(ctx: Context, step: Step, cells: list[Cell]) -> Lazy[Expansion]:
    widest = max((m.shape[1] for m in step.matrices), default=1)
    most = len(step.matrices) * sum(widest if column is None else 1 for _, column in cells)
    return Lazy(lambda: WRITERS[step.id](ctx, step, cells), most)


def angles(expanded: list[tuple[int, Step, list[Cell]]]) -> Iterator[Angle]:
    for index, step, cells in expanded:
        m = step.matrices[0]
        yield from ((index, i, j) for i, j in chosen_cells(m.rows, m.columns, cells))


def shift_notes(ctx: Context, step: Step, cells: list[Cell]) -> tuple[Msg, ...]:
    """A note for every written-out softmax row whose largest score is subtracted first."""
    if step.id != "weights":
        return ()
    matrix = step.matrices[0]
    notes = []
    for i in chosen_rows(matrix.rows, cells):
        peak = float(ctx.calc.softmax_parts(ctx.head.scores.row(i)[None, :])[0][0])
        if peak != 0.0:
            notes.append(Msg.of("Row {row}: its largest score, {peak}, is subtracted from each "
                                "score before e^x, so that e^x cannot overflow; the weights "
                                "stay the same.", row=quoted(matrix.rows[i]), peak=peak))
    return tuple(notes)


