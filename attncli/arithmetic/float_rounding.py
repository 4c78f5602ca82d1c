"""The half-up rule worked in floats where floats are sure to give its answer: a number's
distance from a tie is measured in units of its last decimal, and only a near tie (or a number
too large for exact float units) is left to the Decimal path of `numbers.rounded`."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import numpy as np

POWERS = tuple(10.0 ** p for p in range(23))  # exact in float64 up to 10^22


def power_of_ten(precision: int) -> float:
    """10^precision as a float: exact up to 10^22; ∞ past float64 (a subnormal's error written
    to 311 decimals asked for 10^313, an OverflowError), which sends a number to the Decimal
    path."""
    if precision < len(POWERS):
        return POWERS[precision]
    return 10.0 ** precision if precision <= 308 else math.inf


def clear_half_up(x: float, precision: int, tolerance: float = 1e-13) -> int | None:
    """|x| rounded half up to `precision` decimals, in units of the last one, worked in floats
    when that is sure to be the rule's answer: |x|·10^precision is within a few ulps of its
    shortest decimal's, so unless its fraction is all but one half, rounding it is rounding that
    decimal. None for a near tie, and for a number too large: the Decimal path decides those."""
    scaled = abs(x) * power_of_ten(precision)
    if scaled >= 2.0 ** 40:
        return None
    whole = math.floor(scaled)
    fraction = scaled - whole
    if abs(fraction - 0.5) <= 1e-9 + scaled * tolerance:
        return None
    return whole + (fraction > 0.5)


def clear_units(x: np.ndarray, precision: int | np.ndarray, tolerance: float = 1e-13
                ) -> tuple[np.ndarray, np.ndarray]:
    """clear_half_up of every element of `x` at once (at one precision, or each at its own):
    the units and where they are sure; a precision past 10^22, where a float power of ten is no
    longer exact, is left to the one-by-one path."""
    import numpy as np  # a caller with an array has it loaded

    places = np.asarray(precision)
    exact = (places >= 0) & (places < len(POWERS))
    power = np.asarray(POWERS)[np.where(exact, places, 0)]
    with np.errstate(invalid="ignore", over="ignore"):
        scaled = np.abs(x) * power  # as clear_half_up scales each
        whole = np.floor(scaled)
        fraction = scaled - whole
        sure = (exact & (scaled < 2.0 ** 40)
                & (np.abs(fraction - 0.5) > 1e-9 + scaled * tolerance))  # NaN is not
    return np.where(sure, whole + (fraction > 0.5), 0.0), sure
