"""The `=` check takes shortcuts on large outputs (attncli/arithmetic/exactness.py): a dot product
worked in
whole units from its two rows, a quotient or e^x in floats when no tie is near. Each must decide
exactly as the decimal arithmetic on the printed operands does; here both are asked about every
written-out cell of every example at several precisions, and about constructed near ties.
"""

from __future__ import annotations

import math
from dataclasses import replace
from decimal import Decimal, localcontext
from pathlib import Path

import numpy as np
import pytest

from attncli.arithmetic import exactness
from attncli.arithmetic.exactness import evaluate, exact, exact_in_decimal, printed
from attncli.arithmetic.expand import Selection
from attncli.arithmetic.numbers import CONTEXT
from attncli.model import Difference, Exp, Num, Product, Quotient, Sum, Terms, Vec
from attncli.spec import load_spec
from attncli.steps.build import build

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = sorted((ROOT / "configs").glob("*.yaml"))


def slow_expr(expr):  # type: ignore[no-untyped-def]
    """The same expression with a dot product's terms as a plain tuple of Products."""
    if isinstance(expr, Sum) and isinstance(expr.terms, Terms):
        return Sum(tuple(expr.terms))
    return expr


@pytest.mark.parametrize("precision", [0, 2, 4])
def test_every_written_out_cell_of_every_example_is_judged_as_in_decimal(precision: int) -> None:
    judged = shortcut = 0
    for path in EXAMPLES:
        spec = load_spec(str(path))
        if spec.dtype != "float64" or spec.display.round_intermediates:
            continue
        spec = replace(spec, display=replace(spec.display, precision=precision))
        walkthrough = build(spec, expand=Selection(mode="all"))
        for step in walkthrough.steps:
            for e in step.expansions:
                decimal = exact_in_decimal(slow_expr(e.expression), e.result, precision)
                assert exact(e.expression, e.result, precision) == decimal, (path.stem, e)
                judged += 1
                shortcut += isinstance(e.expression, (Quotient, Exp)) or (isinstance(
                    e.expression, Sum) and isinstance(e.expression.terms, Terms))
    assert judged > 5000 and shortcut > judged // 3


def test_near_ties_are_decided_in_decimal() -> None:
    # 1/8 = 0.125 prints 0.13 at 2 (a tie, half up); 0.12 is not what it gives
    assert exact(Quotient(Num(1.0), Num(8.0)), 0.13, 2)
    assert not exact(Quotient(Num(1.0), Num(8.0)), 0.12, 2)
    # e^(ln 2) on printed operands: ln 2 prints 0.69, e^0.69 = 1.9937… -> 1.99
    assert exact(Exp(Num(math.log(2))), 1.99, 2)
    assert not exact(Exp(Num(math.log(2))), 2.0, 2)
    # (2.675 − 0.0) rounds half up on the decimal 2.675, not on the float below it
    assert exact(Exp(Difference(Num(math.log(2.675)), Num(0.0))), 2.67, 2) == exact_in_decimal(
        Exp(Difference(Num(math.log(2.675)), Num(0.0))), 2.67, 2)
    # a divisor printed as 0.00 cannot be recomputed: ≈
    assert not exact(Quotient(Num(1.0), Num(0.001)), 1000.0, 2)


def test_random_quotients_exponentials_and_dot_products_agree_with_decimal() -> None:
    rng = np.random.default_rng(7)
    for _ in range(3000):
        precision = int(rng.integers(0, 5))
        a, b, c = (float(x) for x in np.round(rng.normal(size=3) * 10, int(rng.integers(0, 6))))
        for expr in (Quotient(Num(a), Num(b)), Quotient(Num(a), Product((Num(b), Num(c)))),
                     Exp(Difference(Num(a), Num(b))), Exp(Sum((Num(a), Num(c)))), Exp(Num(a))):
            for result in (a / b if b else 1.0, round(a / b, precision) if b else 0.0,
                           math.exp(min(a - b, 50))):
                assert exact(expr, result, precision) == exact_in_decimal(expr, result,
                                                                          precision), expr
        # rounded to one decimal more than printed: half of them end in 5, a tie to round up
        left = np.round(rng.normal(size=16) * 3, precision + 1)  # (16,)
        right = np.round(rng.normal(size=16), precision + 1)  # (16,)
        dot = Sum(Terms(left, right))
        for result in (float(left @ right), round(float(left @ right), precision)):
            assert exact(dot, result, precision) == exact_in_decimal(
                Sum(tuple(dot.terms)), result, precision)


def output_row(draw: np.random.Generator, k: int, d: int) -> Sum:
    """Σⱼ aⱼ·v_j as an output row writes it: weights, ties (0.125, 2.675), zeros, negatives."""
    pool = np.concatenate([draw.random(50), -draw.random(20) * 1e3, [0.0, -0.0, 0.125, 2.675,
                                                                    1e15 + 0.5, 0.005]])
    return Sum(tuple(Product((Num(float(draw.choice(pool))),
                              Vec(tuple(float(x) for x in draw.choice(pool, d)))))
                     for _ in range(k)))


def by_decimal(expr: Sum, precision: int) -> tuple[Decimal, ...]:
    """Each column's Σ aⱼ·vⱼ of the printed numbers, added in Decimal one term at a time."""
    with localcontext(CONTEXT):
        columns = [Decimal(0)] * len(expr.terms[0].factors[1].values)  # type: ignore[union-attr]
        for term in expr.terms:
            a, v = term.factors  # type: ignore[union-attr]
            for c, x in enumerate(v.values):
                columns[c] += printed(a.value, precision) * printed(x, precision)
        return tuple(columns)


@pytest.mark.parametrize("precision", [0, 2, 4])
def test_an_output_row_is_summed_column_by_column_as_in_decimal(precision: int) -> None:
    draw = np.random.default_rng(28)
    for _ in range(200):
        expr = output_row(draw, int(draw.integers(1, 60)), int(draw.integers(1, 5)))
        with localcontext(CONTEXT):  # as exact_in_decimal works
            assert evaluate(expr, precision) == by_decimal(expr, precision)


def test_an_output_row_of_thousands_of_terms_is_not_worked_term_by_term(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Each of 8,000 terms was evaluated on its own in Decimal (3 evaluations a term: 0.5 s of a
    page of 8,000 tokens); the row is now one evaluation, its columns summed in whole units."""
    expr = output_row(np.random.default_rng(8), 8000, 4)
    result = tuple(float(x) for x in by_decimal(expr, 4))
    evaluations: list[object] = []
    whole = exactness.evaluate

    def counted(e: object, precision: int) -> tuple[Decimal, ...]:
        evaluations.append(e)
        return whole(e, precision)  # type: ignore[arg-type]

    monkeypatch.setattr(exactness, "evaluate", counted)
    assert exact(expr, result, 4)
    assert len(evaluations) == 1  # 24,001 before
