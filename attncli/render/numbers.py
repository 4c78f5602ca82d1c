"""How every renderer writes a number: fixed precision, no `-0.00`, −∞ for a hidden score."""

from __future__ import annotations

import math
from dataclasses import dataclass


@dataclass(frozen=True)
class NumberFormat:
    precision: int = 2
    decimal: str = "."
    minus_infinity: str = "−∞"
    nan: str = "NaN"

    def __call__(self, value: float) -> str:
        if math.isnan(value):
            return self.nan
        if math.isinf(value):
            return self.minus_infinity if value < 0 else "∞"
        text = f"{value:.{self.precision}f}"
        if text.startswith("-") and float(text) == 0.0:
            text = text[1:]  # -0.00 is 0.00 to a reader
        return text.replace(".", self.decimal) if self.decimal != "." else text
