"""Whether a written-out line may say `=`: its expression, worked exactly in decimal on its
operands as printed (each rounded by the one rule of render/numbers.py), gives its result as
printed. Otherwise the line says `≈`."""

from __future__ import annotations

import math
from decimal import Decimal, localcontext
from functools import lru_cache
from typing import Any

import numpy as np
from numpy.typing import NDArray

from attncli.arithmetic.float_rounding import power_of_ten
from attncli.arithmetic.numbers import (
    CACHED,
    CONTEXT,
    LARGE,
    as_decimal,
    large,
    mantissa,
    rounded,
    rounded_if_clear,
)
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
    Tanh,
    Terms,
    Value,
    Vec,
)


@lru_cache(maxsize=CACHED)
def _printed(x: float, precision: int) -> Decimal:
    power = large(x, precision) if math.isfinite(x) else None
    if power is not None:  # m × 10^k, not through a float: 1.80×10³⁰⁸ is past the largest
        return power[0].scaleb(power[1], context=CONTEXT)
    return as_decimal(rounded(x, precision))


def printed(x: float, precision: int) -> Decimal:
    """`x` as printed at `precision` decimals, as the Decimal a reader would recompute with."""
    return _printed(x, precision) if x else as_decimal(rounded(x, precision))


def _recomputed(x: Decimal, precision: int) -> Decimal:
    """A recomputed value as printed (`printed` of its float); one past the largest float by its
    own digits (3.60×10³⁰⁸ is not the 1.80×10³⁰⁸ of a result), not as an infinity."""
    near = float(x)
    if math.isinf(near) and x.is_finite():
        m, k = mantissa(x, precision)
        return m.scaleb(k, context=CONTEXT)
    return printed(near, precision)


@lru_cache(maxsize=CACHED)
def _units(x: float, precision: int) -> int:
    """Finite `x` as printed, in units of the last printed decimal: 0.125 at 2 -> 13; a large
    number written m × 10^k is a whole number, so it has units too (1.23×10²⁰ at 2 -> 1.23e22)."""
    return int(printed(x, precision).scaleb(precision))


def dot(expr: Sum, precision: int) -> Decimal | None:
    """A sum of numbers and products of numbers (a dot product, a bias), in one loop; None for
    any other sum. Worked in whole units of the last printed decimal (a product of k printed
    numbers is a whole number of 10^-k·precision), so it is exact in any order; then as the
    Decimal of that value."""
    if isinstance(expr.terms, Terms):
        return _dot_rows(expr.terms, precision)
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


def _dot_rows(terms: Terms, precision: int) -> Decimal:
    """Σ aₖ·bₖ of printed numbers from the two rows at once (see _dot_units)."""
    total = _dot_units(terms, precision)
    if total is None:  # ±inf or NaN among them: worked in Decimal, which knows them
        found = _dot_decimal(Sum(tuple(terms)), precision)
        assert found is not None  # two rows of numbers
        return found
    return Decimal(total).scaleb(-2 * precision)


def _dot_units(terms: Terms, precision: int) -> int | None:
    """Σ aₖ·bₖ of printed numbers in units of 10^-2·precision: each row in units once (cached,
    the same rows come back cell after cell), their dot product in whole numbers; None when
    a number is infinite or NaN."""
    left, right = units(terms.left, precision), units(terms.right, precision)
    if left is None or right is None:
        return None
    (a, a_largest), (b, b_largest) = left, right
    if a.dtype == b.dtype == np.int64 and a_largest * b_largest * len(a) < 1 << 62:
        return int(np.dot(a, b))  # (k,) · (k,): whole numbers, exact below 2^62
    return sum(x * y for x, y in zip(a.tolist(), b.tolist(), strict=True))


Units = tuple[NDArray[Any], int]  # a row in units of the last printed decimal, its largest |unit|
_UNITS: dict[tuple[bytes, int], Units | None] = {}


def units(values: NDArray[np.float64], precision: int) -> Units | None:
    """Each number of a row as printed, in units of the last printed decimal (`_units`), or
    None when one is infinite or NaN; int64, or Python ints where a unit count is too large."""
    key = (values.tobytes(), precision)
    found = _UNITS.get(key, _MISSING)
    if found is not _MISSING:
        return found  # type: ignore[return-value]
    if len(_UNITS) >= CACHED // 16:
        _UNITS.clear()
    row = _row_units(values, precision)
    _UNITS[key] = found = None if row is None else (row, int(np.abs(row).max(initial=0)))
    return found


_MISSING = object()


def _row_units(values: NDArray[np.float64], precision: int) -> NDArray[Any] | None:
    if not np.isfinite(values).all():
        return None
    scaled = np.abs(values) * power_of_ten(precision)  # (k,), within a few ulps of the decimal's
    whole = np.floor(scaled + 0.5)  # half up, where the fraction is clearly not near one half
    fraction = scaled - np.floor(scaled)
    unsure = ((np.abs(fraction - 0.5) < 1e-9 + scaled * 1e-13) | (scaled >= 2.0 ** 40)
              | (np.abs(values) >= LARGE / 2))  # (k,): m × 10^k, rounded by _units
    if unsure.any() and (scaled >= 2.0 ** 60).any():  # too large for int64: Python ints
        return np.array([_units(float(x), precision) if x else 0 for x in values], dtype=object)
    out = np.where(values < 0, -whole, whole).astype(np.int64)  # (k,)
    for k in np.flatnonzero(unsure):  # a tie or nearly one: decided on the shortest decimal
        x = float(values[k])
        out[k] = _units(x, precision) if x else 0
    return out


def _dot_decimal(expr: Sum, precision: int) -> Decimal | None:
    """dot, with an infinite or undefined number among the terms; None for a sum that is not
    of numbers and products of numbers (a tile's Õ line multiplies a row), as dot says."""
    total = Decimal(0)
    for term in expr.terms:
        factors = term.factors if isinstance(term, Product) else (term,)
        value = Decimal(1)
        for factor in factors:
            if not isinstance(factor, Num):
                return None
            value *= printed(factor.value, precision)
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
        by_columns = _dot_columns(expr, precision)
        if by_columns is not None:
            return by_columns
    if isinstance(expr, Exp):
        return tuple(x.exp() for x in evaluate(expr.argument, precision))
    if isinstance(expr, Tanh):  # tanh x = 1 − 2 / (e^2x + 1)
        return tuple(1 - 2 / ((2 * x).exp() + 1) for x in evaluate(expr.argument, precision))
    parts = [evaluate(e, precision) for e in _operands(expr)]
    result = parts[0]
    for part in parts[1:]:
        result = _combine(expr, result, part)
    return result


def _dot_columns(expr: Sum, precision: int) -> tuple[Decimal, ...] | None:
    """A sum of numbers times vectors (an output row, Σⱼ A[i, j]·v_j) column by column, each
    worked as dot works a dot product, in whole units; None for any other sum. Worked term by
    term in Decimal, the output rows a page of 8,000 tokens shows took half a second."""
    weights: list[float] = []
    vectors: list[tuple[float, ...]] = []
    for term in expr.terms:
        if not isinstance(term, Product) or len(term.factors) != 2:
            return None
        a, v = term.factors
        if not isinstance(a, Num) or not isinstance(v, Vec) or (
                vectors and len(v.values) != len(vectors[0])):
            return None
        weights.append(a.value)
        vectors.append(v.values)
    left = np.array(weights)  # (k,)
    right = np.array(vectors).reshape(len(vectors), -1)  # (k, d)
    return tuple(_dot_rows(Terms(left, np.ascontiguousarray(right[:, c])), precision)
                 for c in range(right.shape[1]))


def _operands(expr: Expr) -> tuple[Expr, ...]:
    if isinstance(expr, Sum):
        return tuple(expr.terms)
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


# How far from the exact decimal value _in_floats may be, relatively: a few roundings of floats,
# and e^ of an argument of at most EXP_ARGUMENT whose own rounding it multiplies.
FLOAT_TOLERANCE = 1e-11
EXP_ARGUMENT = 1000.0


def _in_floats(expr: Expr, precision: int) -> float | None:
    """A quotient of a number by a number or by a product of two (a softmax weight, a scaled
    score, cos θ), or e^ of a number or of a difference or sum of two, worked in floats on its
    printed operands: within FLOAT_TOLERANCE of the exact decimal value. None for any other
    shape, a zero divisor or an argument out of range (the decimal path decides those)."""
    if isinstance(expr, Quotient):
        top, bottom = _printed_float(expr.numerator, precision), _product(expr.denominator,
                                                                          precision)
        if top is None or bottom is None or not bottom:
            return None
        return top / bottom
    if isinstance(expr, Exp):
        argument = expr.argument
        if isinstance(argument, Difference):
            pair = _printed_float(argument.left, precision), _printed_float(argument.right,
                                                                            precision)
        elif isinstance(argument, Sum) and len(argument.terms) == 2:
            pair = (_printed_float(argument.terms[0], precision),
                    _printed_float(argument.terms[1], precision))
        else:
            pair = _printed_float(argument, precision), 0.0
        x, y = pair
        if x is None or y is None or abs(x) > EXP_ARGUMENT or abs(y) > EXP_ARGUMENT:
            return None
        return math.exp(x - y if isinstance(argument, Difference) else x + y)
    return None


def _printed_float(expr: Expr, precision: int) -> float | None:
    if not isinstance(expr, Num) or not math.isfinite(expr.value):
        return None
    return rounded(expr.value, precision)  # the float nearest the printed decimal


def _product(expr: Expr, precision: int) -> float | None:
    if isinstance(expr, Product) and len(expr.factors) == 2:
        a, b = (_printed_float(f, precision) for f in expr.factors)
        return None if a is None or b is None else a * b
    return _printed_float(expr, precision)


def line(target: Formula | None, symbolic: Formula | None, expr: Expr, result: Value,
         precision: int) -> Expansion:
    """An Expansion, marked exact when its printed operands give its printed result."""
    return Expansion(target, symbolic, expr, result, exact(expr, result, precision))


def exact(expr: Expr, result: Value, precision: int) -> bool:
    """Whether `expr` on its printed operands gives `result` as printed: in floats where that
    is sure to give the decimal answer (_in_floats), else in decimal."""
    if isinstance(expr, Sum) and isinstance(expr.terms, Terms) and not isinstance(result,
                                                                                 tuple):
        total = _dot_units(expr.terms, precision)  # a dot product: from its rows, in units
        if total is not None and abs(total) < 1 << 900:  # int / int is the float nearest
            # the exact quotient: float(Decimal) of the exact sum
            return rounded(total / 10 ** (2 * precision), precision) == rounded(result,
                                                                              precision)
    fast = _in_floats(expr, precision)
    if fast is not None and math.isfinite(fast) and not isinstance(result, tuple):
        mine = rounded_if_clear(fast, precision, FLOAT_TOLERANCE)
        if mine is not None:  # every value that near prints alike
            return mine == rounded(result, precision)
    return exact_in_decimal(expr, result, precision)


def exact_in_decimal(expr: Expr, result: Value, precision: int) -> bool:
    """exact, worked in 80-digit decimal on the printed operands."""
    with localcontext(CONTEXT):
        try:
            recomputed = evaluate(expr, precision)
        except (ArithmeticError, ValueError):  # a divisor printed as 0.00: not recomputable
            return False
        shown = result if isinstance(result, tuple) else (result,)
        return len(recomputed) == len(shown) and all(
            _recomputed(x, precision) == printed(float(y), precision)
            for x, y in zip(recomputed, shown, strict=False)
        )
