"""How every renderer writes a number: fixed precision, no `-0.00`, −∞ for a hidden score, and
the decimal mark the reader asked for (0.35, or 0,35 with a decimal comma)."""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

DECIMAL_MARKS = {"dot": ".", "comma": ","}


@dataclass(frozen=True)
class NumberFormat:
    precision: int = 2
    decimal: str = "."
    minus_infinity: str = "−∞"
    infinity: str = "∞"
    nan: str = "NaN"

    @classmethod
    def with_mark(cls, precision: int, decimal: str = "dot") -> NumberFormat:
        """The format for `display.decimal` (`dot` or `comma`)."""
        return cls(precision=precision, decimal=DECIMAL_MARKS[decimal])

    def __call__(self, value: float) -> str:
        if math.isnan(value):
            return self.nan
        if math.isinf(value):
            return self.minus_infinity if value < 0 else self.infinity
        text = f"{value:.{self.precision}f}"
        if text.startswith("-") and float(text) == 0.0:
            text = text[1:]  # -0.00 is 0.00 to a reader
        return text.replace(".", self.decimal) if self.decimal != "." else text

    def math(self) -> NumberFormat:
        """The same format inside LaTeX math: `0{,}35`, since a bare comma there is
        punctuation and TeX would put a space after it; `-\\infty` for a hidden score."""
        return replace(self, decimal="{,}" if self.decimal == "," else self.decimal,
                       minus_infinity=r"-\infty", infinity=r"\infty", nan=r"\text{NaN}")

    @property
    def list_separator(self) -> str:
        """What goes between the numbers of a list in prose: `0.35, 0.65` but `0,35; 0,65`."""
        return "; " if self.decimal != "." else ", "
