"""Formulas whose intermediate could pass the largest double: NumPy carries it on as ±∞ (e^−∞ is
0, tanh ±∞ is ±1), where LibreOffice stops at #NUM! and so does every cell after it. Each is
written so that the spreadsheet never forms the number, and still computes NumPy's double."""

from __future__ import annotations

import math
import sys

from attncli.render.xlsx.cells import literal

# e^x is 0 in doubles below about −745, so where x − top < −800 the cell is 0 without forming
# x − top: halved, the difference of two doubles cannot overflow (−1e308 − 1e308 can).
HALF_UNDER = -400

# tanh x is ±1 in doubles past about ±19.1
SATURATED = 20.0


def shifted_exp(x: str, top: str) -> str:
    """e^(x − top) for an x at most `top` (softmax's shift): 0 where the difference is far below
    any that e^x tells from 0, which could itself be −∞ (bias −1e308 under a max of 1e308)."""
    return f"IF({x}/2-{top}/2<{HALF_UNDER},0,EXP({x}-{top}))"


def half_product(alpha: float, g: str) -> str:
    """0.5·α·g, the argument of tanh in σ(α·g) = (1 + tanh(α·g / 2)) / 2. Past an α of 2 the
    product could overflow for a g near the largest double, so g is first held to ±2·20/α, where
    tanh is ±1 already: α = 1.7976931348623157e308 and g = −2 made #NUM! of σ."""
    product = f"0.5*{literal(alpha)}*"
    bound = 2 * SATURATED / abs(alpha) if alpha else math.inf
    if math.isinf(0.5 * abs(alpha) * sys.float_info.max) and math.isfinite(bound):
        held = literal(bound)
        return f"{product}MAX(MIN({g},{held}),-{held})"
    return product + g
