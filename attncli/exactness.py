"""Whether a written-out line may say `=`: its expression, worked exactly in decimal on its
operands as printed (each rounded by the one rule of render/numbers.py), gives its result as
printed. Otherwise the line says `≈`."""

from __future__ import annotations

from decimal import Decimal, localcontext
from functools import lru_cache

from attncli.model import (
    Difference,
    Exp,
    Expansion,
    Expr,
    Formula,
    Num,
    Product,
    Quotient,
    Sum,
    Value,
    Vec,
)
from attncli.render.numbers import CACHED, CONTEXT, as_decimal, rounded


def _as_decimals(value: Value) -> tuple[Decimal, ...]:
    values = value if isinstance(value, tuple) else (value,)
    return tuple(as_decimal(x) for x in values)


@lru_cache(maxsize=CACHED)
def _printed(x: float, precision: int) -> Decimal:
    return as_decimal(rounded(x, precision))


def printed(x: float, precision: int) -> Decimal:
    """`x` as printed at `precision` decimals, as the Decimal a reader would recompute with."""
    return _printed(x, precision) if x else as_decimal(rounded(x, precision))


@lru_cache(maxsize=CACHED)
def _units(x: float, precision: int) -> int:
    """Finite `x` as printed, in units of the last printed decimal: 0.125 at 2 -> 13."""
    return int(printed(x, precision).scaleb(precision))


def dot(expr: Sum, precision: int) -> Decimal | None:
    """A sum of numbers and products of numbers (a dot product, a bias), in one loop; None for
    any other sum. Worked in whole units of the last printed decimal (a product of k printed
    numbers is a whole number of 10^-k·precision), so it is exact in any order; then as the
    Decimal of that value."""
    totals: dict[int, int] = {}  # decimals of a term -> the sum of such terms, in units
    for term in expr.terms:
        factors = term.factors if isinstance(term, Product) else (term,)
        value = 1
        for factor in factors:
            if not isinstance(factor, Num):
                return None
            x = factor.value
            if x - x != 0.0:  # ±inf or NaN: worked in Decimal, which knows them
                return _dot_decimal(expr, precision)
            value *= _units(x, precision) if x else 0
        decimals = len(factors) * precision
        totals[decimals] = totals.get(decimals, 0) + value
    return sum((Decimal(units).scaleb(-decimals) for decimals, units in totals.items()),
               Decimal(0))


def _dot_decimal(expr: Sum, precision: int) -> Decimal:
    """dot, with an infinite or undefined number among the terms."""
    total = Decimal(0)
    for term in expr.terms:
        factors = term.factors if isinstance(term, Product) else (term,)
        value = Decimal(1)
        for factor in factors:
            value *= printed(factor.value, precision)  # type: ignore[union-attr]
        total += value
    return total


def evaluate(expr: Expr, precision: int) -> tuple[Decimal, ...]:
    """The expression on its operands rounded to `precision` (as printed), in decimal."""
    if isinstance(expr, Num):
        return (printed(expr.value, precision),)
    if isinstance(expr, Vec):
        return tuple(printed(x, precision) for x in expr.values)
    if isinstance(expr, Sum) and expr.terms:
        total = dot(expr, precision)
        if total is not None:
            return (total,)
    if isinstance(expr, Exp):
        return tuple(x.exp() for x in evaluate(expr.argument, precision))
    parts = [evaluate(e, precision) for e in _operands(expr)]
    result = parts[0]
    for part in parts[1:]:
        result = _combine(expr, result, part)
    return result


def _operands(expr: Expr) -> tuple[Expr, ...]:
    if isinstance(expr, Sum):
        return expr.terms
    if isinstance(expr, Product):
        return expr.factors
    if isinstance(expr, Quotient):
        return (expr.numerator, expr.denominator)
    assert isinstance(expr, Difference)
    return (expr.left, expr.right)


def _combine(expr: Expr, a: tuple[Decimal, ...], b: tuple[Decimal, ...]) -> tuple[Decimal, ...]:
    if len(a) == 1 and len(b) > 1:
        a = a * len(b)
    if len(b) == 1 and len(a) > 1:
        b = b * len(a)
    if isinstance(expr, Sum):
        return tuple(x + y for x, y in zip(a, b, strict=True))
    if isinstance(expr, Product):
        return tuple(x * y for x, y in zip(a, b, strict=True))
    if isinstance(expr, Quotient):
        return tuple(x / y for x, y in zip(a, b, strict=True))
    return tuple(x - y for x, y in zip(a, b, strict=True))


def line(target: Formula | None, symbolic: Formula | None, expr: Expr, result: Value,
         precision: int) -> Expansion:
    """An Expansion, marked exact when its printed operands give its printed result."""
    with localcontext(CONTEXT):
        try:
            recomputed = evaluate(expr, precision)
        except (ArithmeticError, ValueError):  # a divisor printed as 0.00: not recomputable
            return Expansion(target, symbolic, expr, result, False)
        printed = _as_decimals(result)
        exact = len(recomputed) == len(printed) and all(
            rounded(float(x), precision) == rounded(float(y), precision)
            for x, y in zip(recomputed, printed, strict=False)
        )
    return Expansion(target, symbolic, expr, result, exact)
