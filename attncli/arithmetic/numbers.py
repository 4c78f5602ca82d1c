"""How every number is rounded and written: the one rule, and the one format every renderer and
the hand calculation use.

The rule is a person's: a float is read as the shortest decimal that reads back as it (`repr`:
0.125, 2.675, 0.2845), and that decimal is rounded half up (away from zero) to the precision:
0.125 -> 0.13, 2.675 -> 2.68, 0.2845 -> 0.285 at 3, -0.125 -> -0.13. Binary formatting
(`f"{x:.2f}"`) rounds the float's exact binary value instead and gives 0.12, 2.67, 0.284.

The format writes the rounded decimal with the reader's decimal mark (0.35 or 0,35), one minus
sign (U+2212, `−0.34`; in LaTeX math the `-` that TeX sets as a minus), never `−0.00`, `−∞` for a
hidden score and `—` for the weight of a hidden key.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import field, replace
from decimal import ROUND_HALF_UP, Context, Decimal
from functools import lru_cache
from typing import TYPE_CHECKING, Protocol

from attncli.records import record

if TYPE_CHECKING:
    import numpy as np

DECIMAL_MARKS = {"dot": ".", "comma": ","}
MINUS = "\u2212"  # −, the minus sign, as printed mathematics writes it
# Enough digits for any float64's shortest decimal, and e^x of it, to stay exact.
CONTEXT = Context(prec=80, Emax=999_999, Emin=-999_999)


def as_decimal(x: float) -> Decimal:
    """The shortest decimal that reads back as `x`, as written: 0.1, not 0.1000000000000000055."""
    return Decimal(repr(float(x)))


def half_up(d: Decimal, precision: int) -> Decimal:
    """`d` rounded half up (away from zero) to `precision` decimals; a decimal with no more
    decimals than that (1e300 among them), an infinity or NaN, as it is."""
    if not d.is_finite() or d.as_tuple().exponent >= -precision:  # type: ignore[operator]
        return d
    return d.quantize(Decimal(1).scaleb(-precision), rounding=ROUND_HALF_UP, context=CONTEXT)


# The same numbers are printed again and again (x_i and W[:, a] in every cell of a projection),
# so the decimals of the last numbers seen are kept. Zero is never kept: 0.0 and -0.0 are equal
# keys, but rounded(-0.0) is -0.0.
CACHED = 1 << 16


@lru_cache(maxsize=CACHED)
def _rounded(x: float, precision: int) -> Decimal:
    return half_up(as_decimal(x), precision)


def rounded_decimal(x: float, precision: int) -> Decimal:
    """`x` rounded half up to `precision` decimals, as a Decimal; finite `x` only."""
    return _rounded(x, precision) if x else half_up(as_decimal(x), precision)


POWERS = tuple(10.0 ** p for p in range(23))  # exact in float64 up to 10^22


def _clear_half_up(x: float, precision: int, tolerance: float = 1e-13) -> int | None:
    """|x| rounded half up to `precision` decimals, in units of the last one, worked in floats
    when that is sure to be the rule's answer: |x|·10^precision is within a few ulps of its
    shortest decimal's, so unless its fraction is all but one half, rounding it is rounding that
    decimal. None for a near tie, and for a number too large: the Decimal path decides those."""
    scaled = abs(x) * (POWERS[precision] if precision < len(POWERS) else 10.0 ** precision)
    if scaled >= 2.0 ** 40:
        return None
    whole = math.floor(scaled)
    fraction = scaled - whole
    if abs(fraction - 0.5) <= 1e-9 + scaled * tolerance:
        return None
    return whole + (fraction > 0.5)


def rounded_if_clear(x: float, precision: int, tolerance: float) -> float | None:
    """rounded(v, precision) for every v within a relative `tolerance` of finite `x`, when
    they all round alike; else None."""
    units = _clear_half_up(x, precision, tolerance)
    if units is None or not x:
        return None
    value = units / (POWERS[precision] if precision < len(POWERS) else 10.0 ** precision)
    return -value if x < 0 else value


def rounded(x: float, precision: int) -> float:
    """`x` as printed at `precision` decimals, as a float: `rounded(0.125, 2) == 0.13`."""
    if not math.isfinite(x) or not x:
        return float(x)  # ±0.0 keeps its sign
    units = _clear_half_up(x, precision)
    if units is None:
        return float(rounded_decimal(x, precision))
    value = units / (POWERS[precision] if precision < len(POWERS) else 10.0 ** precision)  # the
    # float nearest the decimal, as float(Decimal) gives it
    return -value if x < 0 else value


@lru_cache(maxsize=CACHED)
def _fixed(x: float, precision: int) -> str:
    text = f"{half_up(as_decimal(x), precision):.{precision}f}"
    return text[1:] if text.startswith("-") and not text.strip("-0.") else text


def fixed(x: float, precision: int) -> str:
    """`x` rounded half up and written with exactly `precision` decimals, a dot and a plain `-`
    (`fixed(0.125, 2) == "0.13"`, `fixed(-0.001, 2) == "0.00"`); finite `x` only."""
    if not x:
        return _fixed(0.0, precision)
    units = _clear_half_up(x, precision)
    if units is None:
        return _fixed(x, precision)
    digits = str(units).rjust(precision + 1, "0")
    text = f"{digits[:-precision]}.{digits[-precision:]}" if precision else digits
    return "-" + text if x < 0 and units else text  # never -0.00


class Cells(Protocol):
    """What `NumberFormat.cell` reads of a model.Matrix."""

    @property
    def shape(self) -> tuple[int, int]: ...
    def at(self, i: int, j: int) -> float: ...
    def hidden(self, i: int, j: int) -> bool: ...


def shows_hidden(matrix: Cells, i: int, j: int, value: float) -> bool:
    """Whether cell (i, j), holding `value`, is written `—`: the mask hides the key from the
    query and the number is the 0 that gives. Every format, and the worksheet's choice of
    blanks, asks this one rule."""
    return value == 0.0 and matrix.hidden(i, j)


_MEMOS: dict[NumberFormat, dict[float, str]] = {}  # NumberFormat._memo of each format


@record
class NumberFormat:
    precision: int = 2
    decimal: str = "."
    minus: str = MINUS
    minus_infinity: str = MINUS + "∞"
    infinity: str = "∞"
    nan: str = "NaN"
    hidden: str = "—"  # the weight of a key the mask hides, in place of its 0

    @classmethod
    def with_mark(cls, precision: int, decimal: str = "dot") -> NumberFormat:
        """The format for `display.decimal` (`dot` or `comma`)."""
        return cls(precision=precision, decimal=DECIMAL_MARKS[decimal])

    # the text of the numbers written last (a row of X is printed in every cell of a projection),
    # one memo for every format alike (_MEMOS): `attn snippets` writes a spec's numbers in each
    # language and format, each with a format of its own
    _memo: dict[float, str] = field(default_factory=dict, init=False, repr=False,
                                    compare=False, hash=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "_memo", _MEMOS.setdefault(self, self._memo))

    def __call__(self, value: float) -> str:
        memo = self._memo
        text = memo.get(value) if value else None  # 0.0 and -0.0 are one key
        if text is None:
            text = self._written(value)
            if value:
                if len(memo) >= CACHED:
                    memo.clear()
                memo[value] = text
        return text

    def _written(self, value: float) -> str:
        if math.isnan(value):
            return self.nan
        if math.isinf(value):
            return self.minus_infinity if value < 0 else self.infinity
        text = fixed(value, self.precision)
        if self.decimal != ".":
            text = text.replace(".", self.decimal)
        return self.minus + text[1:] if text.startswith("-") else text

    def cell(self, matrix: Cells, i: int, j: int) -> str:
        """Cell (i, j) of a matrix: its number, or `—` where the mask hides the key."""
        return self.cell_of(matrix, i, j, matrix.at(i, j))

    def cell_of(self, matrix: Cells, i: int, j: int, value: float,
                written: str | None = None) -> str:
        """Cell (i, j) of a matrix whose number, `value`, the caller has read already (and
        `written`, if it wrote a whole row at once)."""
        if shows_hidden(matrix, i, j, value):
            return self.hidden
        return self(value) if written is None else written

    def written(self, values: Sequence[float] | np.ndarray) -> list[str]:
        """Each of `values` as __call__ writes it; a row of a large matrix at once: where the
        rule's answer is clear in floats (see _clear_half_up), its units are found for the whole
        row by NumPy and written by `format`, which gives the decimal of units / 10^precision
        back exactly below 2^40 units; the rest (0, a near tie, inf, NaN, a huge number) one by
        one."""
        import numpy as np  # a caller with a row of a matrix has it loaded

        x = np.asarray(values, dtype=np.float64)  # (k,)
        precision = self.precision
        power = POWERS[precision] if precision < len(POWERS) else 10.0 ** precision
        with np.errstate(invalid="ignore", over="ignore"):
            scaled = np.abs(x) * power  # (k,), as _clear_half_up scales each
            whole = np.floor(scaled)  # (k,)
            fraction = scaled - whole  # (k,)
            clear = ((scaled < 2.0 ** 40) & (x != 0.0)
                     & (np.abs(fraction - 0.5) > 1e-9 + scaled * 1e-13))  # (k,): NaN is not
        units = np.where(clear, whole + (fraction > 0.5), 0.0)  # (k,)
        texts = []
        for value, unit, sure in zip(x.tolist(), (units / power).tolist(), clear.tolist(),
                                     strict=True):
            if not sure:
                texts.append(self(value))
                continue
            text = f"{unit:.{precision}f}"
            if self.decimal != ".":
                text = text.replace(".", self.decimal)
            texts.append(self.minus + text if value < 0 and unit else text)
        return texts

    def cells(self, matrix: Cells) -> list[list[str]]:
        """Every cell of a whole matrix, row by row (for the formats that show every number)."""
        rows, columns = matrix.shape
        return [[self.cell(matrix, i, j) for j in range(columns)] for i in range(rows)]

    def math(self) -> NumberFormat:
        """The same format inside LaTeX math: `0{,}35`, since a bare comma there is
        punctuation and TeX would put a space after it; `-`, which TeX sets as a minus sign;
        `-\\infty` for a hidden score."""
        return replace(self, decimal="{,}" if self.decimal == "," else self.decimal, minus="-",
                       minus_infinity=r"-\infty", infinity=r"\infty", nan=r"\text{NaN}",
                       hidden=r"\text{—}")

    def finer(self, more: int) -> NumberFormat:
        """The same format with `more` decimals (how far a hand result drifts)."""
        return replace(self, precision=self.precision + more)

    @property
    def list_separator(self) -> str:
        """What goes between the numbers of a list in prose: `0.35, 0.65` but `0,35; 0,65`."""
        return "; " if self.decimal != "." else ", "
