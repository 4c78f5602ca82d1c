"""Whether a written-out line may say `=`: its expression, worked exactly in decimal on its
operands as printed (each rounded by the one rule of render/numbers.py), gives its result as
printed. Otherwise the line says `≈`."""

from __future__ import annotations

from decimal import Decimal, localcontext

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
from attncli.render.numbers import CONTEXT, as_decimal, rounded


def _as_decimals(value: Value) -> tuple[Decimal, ...]:
    values = value if isinstance(value, tuple) else (value,)
    return tuple(as_decimal(x) for x in values)


def evaluate(expr: Expr, precision: int) -> tuple[Decimal, ...]:
    """The expression on its operands rounded to `precision` (as printed), in decimal."""
    if isinstance(expr, Num):
        return _as_decimals(rounded(expr.value, precision))
    if isinstance(expr, Vec):
        return tuple(_as_decimals(tuple(rounded(x, precision) for x in expr.values)))
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
