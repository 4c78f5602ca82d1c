"""The cells of online softmax written out (attncli/steps/tiling.py): for a row of a tile, the
rescale e^(m_old − m), each e^(s − m) of P̃, the new ℓ and the new Õ row; for the output, each
O = Õ / ℓ. The loop is run again (attncli/compute/online_softmax.py) to find what the tile started
from."""

from __future__ import annotations

import math
from collections.abc import Iterator, Sequence

from attncli.arithmetic.cells import Context, cell, token_latex
from attncli.arithmetic.selection import Cell
from attncli.arithmetic.selection import rows as chosen_rows
from attncli.compute import online_softmax
from attncli.compute.online_softmax import Tile
from attncli.model import (
    Difference,
    Exp,
    Expansion,
    Expr,
    Formula,
    Num,
    Product,
    Quotient,
    Step,
    Sum,
    Vec,
)


def minus(x: float, y: float) -> Expr:
    """x − y as it is written: `x − 1.20`, `x + 0.50` for y = −0.50, `x` for y = 0."""
    if y == 0.0:
        return Num(x)
    return Difference(Num(x), Num(y)) if y > 0 else Sum((Num(x), Num(-y)))


def at(letter: Formula, row: str) -> Formula:
    """`ℓ[book]`."""
    return Formula(f"{letter.text}[{row}]", f"{letter.latex}[{token_latex(row)}]")


def find(ctx: Context, step: Step) -> Tile:
    """The tile of the loop whose scores `step` shows."""
    tiling = ctx.spec.tiling
    assert tiling is not None
    S = step.matrices[0]
    queries, keys = ctx.head.weights.rows, ctx.head.weights.columns
    tiles = online_softmax.run(ctx.head.scores.whole(), ctx.head.values.values, tiling.queries,
                               tiling.keys, ctx.calc.rounded)
    return next(t for t in tiles if queries[t.rows.start:t.rows.stop] == S.rows
                and keys[t.columns.start:t.columns.stop] == S.columns)


def tile_rows(ctx: Context, step: Step, cells: Sequence[Cell]) -> Iterator[Expansion]:
    if not step.matrices:  # a skipped tile
        return iter(())
    S, P = step.matrices[0], step.matrices[1]
    t = find(ctx, step)
    v = ctx.head.values.values[t.columns.start:t.columns.stop]  # (b_k, d_v)
    out = []
    for a in chosen_rows(S.rows, cells):
        row = S.rows[a]
        visible = [b for b in range(len(S.columns)) if math.isfinite(S.at(a, b))]
        if not visible:
            continue
        seen = math.isfinite(float(t.m_old[a]))
        factor = float(t.factor[a])
        if seen:
            out.append(ctx.line(at(Formula("α", r"\alpha"), row),
                                None, Exp(minus(float(t.m_old[a]), float(t.m[a]))), factor))
        for b in visible:
            out.append(ctx.line(cell(P.symbol, row, S.columns[b]), None,
                                Exp(minus(S.at(a, b), float(t.m[a]))), float(t.p[a, b])))
        kept: tuple[Expr, ...] = (Product((Num(factor), Num(float(t.ell_old[a])))),) if seen \
            else ()
        out.append(ctx.line(at(Formula("ℓ", r"\ell"), row), None,
                            Sum(kept + tuple(Num(float(t.p[a, b])) for b in visible)),
                            float(t.ell[a])))
        old: tuple[Expr, ...] = (
            Product((Num(factor), Vec(tuple(float(x) for x in t.o_old[a])))),) if seen else ()
        terms = tuple(Product((Num(float(t.p[a, b])), Vec(tuple(float(x) for x in v[b]))))
                      for b in visible)
        out.append(ctx.line(at(Formula("Õ", r"\tilde O"), row), None, Sum(old + terms),
                            tuple(float(x) for x in t.o[a])))
    return iter(out)


def output_rows(ctx: Context, step: Step, cells: Sequence[Cell]) -> Iterator[Expansion]:
    """O[row, c] = Õ[row, c] / ℓ[row] for every column of each chosen row."""
    ell, tilde, result = step.matrices  # ℓ (n, 1), Õ (n, d_v), O (n, d_v)
    out = []
    for i in chosen_rows(result.rows, cells):
        if ell.at(i, 0) == 0.0:
            continue  # a query that sees no key: nothing is divided
        for c, column in enumerate(result.columns):
            out.append(ctx.line(cell(result.symbol, result.rows[i], column), None,
                                Quotient(Num(tilde.at(i, c)), Num(ell.at(i, 0))), result.at(i, c)))
    return iter(out)
