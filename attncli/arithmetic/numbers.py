"""How every number is rounded and written: the one rule, and the one format every renderer and
the hand calculation use.

The rule is a person's: a float is read as the shortest decimal that reads back as it (`repr`:
0.125, 2.675, 0.2845), and that decimal is rounded half up (away from zero) to the precision:
0.125 -> 0.13, 2.675 -> 2.68, 0.2845 -> 0.285 at 3, -0.125 -> -0.13. Binary formatting
(`f"{x:.2f}"`) rounds the float's exact binary value instead and gives 0.12, 2.67, 0.284.

The format writes the rounded decimal with the reader's decimal mark (0.35 or 0,35), one minus
sign (U+2212, `−0.34`; in LaTeX math the `-` that TeX sets as a minus), never `−0.00`, `−∞` for a
hidden score and `—` for the weight of a hidden key.

A number whose rounded value reaches LARGE is written as a lecturer writes it, m × 10^k with
1 ≤ |m| < 10 and `precision` decimals in m (the shortest decimal's m rounded half up as above):
`1.23×10²⁰` in text, `1.23 \\times 10^{20}` in LaTeX math. Every number of the examples is
below it, so they are written in fixed notation. A small number is rounded as any other: a weight
of 10⁻⁴⁵ is 0.00, as one of 10⁻⁵ is.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import field, replace
from decimal import ROUND_HALF_UP, Context, Decimal
from functools import lru_cache
from typing import TYPE_CHECKING, Protocol

from attncli.arithmetic.float_rounding import POWERS, clear_half_up, clear_units, power_of_ten
from attncli.i18n import SUPERSCRIPT
from attncli.records import record
from attncli.spec.limits import MAX_PRECISION

if TYPE_CHECKING:
    import numpy as np

DECIMAL_MARKS = {"dot": ".", "comma": ","}
MINUS = "\u2212"  # −, the minus sign, as printed mathematics writes it
# Enough digits for any float64's shortest decimal, and e^x of it, to stay exact.
CONTEXT = Context(prec=80, Emax=999_999, Emin=-999_999)
# Past this a number is written m × 10^k (docs/formats.md, "Very large numbers"); a small one is
# rounded as every number is (a weight of 10⁻⁴⁵ is 0.00, as 10⁻⁵ is)
LARGE = 1e6  # a rounded value of at least a million: 1.00×10⁶, not 1000000.00
SMALL = 1e-29  # a spec's own number (shortest) under this is written m × 10^k, not 0.000…01
# the most decimals a number is written with in fixed digits: the most `-p` takes and the three
# more decimals a drift or an error is written with beside it
FIXED_DECIMALS = MAX_PRECISION + 3


def as_decimal(x: float) -> Decimal:
    """The shortest decimal that reads back as `x`, as written: 0.1, not 0.1000000000000000055."""
    return Decimal(repr(float(x)))


def half_up(d: Decimal, precision: int) -> Decimal:
    """`d` rounded half up (away from zero) to `precision` decimals; a decimal with no more
    decimals than that (1e300 among them), an infinity or NaN, as it is. A place past `d`'s
    first digit rounds it to a zero at that place, however far out (a student's `0e1000000`
    is checked at 10^1000000, a place no Context reaches)."""
    if not d.is_finite() or d.as_tuple().exponent >= -precision:  # type: ignore[operator]
        return d
    if d.adjusted() + 1 < -precision:  # |d| < 10^(place - 1): less than half a unit
        return Decimal((d.is_signed(), (0,), -precision))
    return d.quantize(Decimal(1).scaleb(-precision), rounding=ROUND_HALF_UP, context=CONTEXT)


def large(x: float, precision: int) -> tuple[Decimal, int] | None:
    """(m, k) when finite `x` is written m × 10^k: its value rounded to `precision` decimals
    reaches LARGE. m is the shortest decimal's mantissa rounded
    half up to `precision` decimals, 1 ≤ |m| < 10 (9.9999995 at 2 -> 1.00 and k + 1). Else None."""
    size = abs(x)
    if size < LARGE / 2:
        return None
    return _large(as_decimal(x), precision)


def tiny(x: float, precision: int) -> tuple[Decimal, int] | None:
    """(m, k) when `x` is written m × 10^k for want of room: a number written to more decimals
    than FIXED_DECIMALS (an error of 10^−310 to its two significant digits, 311 decimals) whose
    first digit is past the tenth decimal; m has the digits of those decimals (1.0×10⁻³¹⁰)."""
    if precision <= FIXED_DECIMALS or not x or abs(x) >= 1e-10:
        return None
    d = as_decimal(x)
    return mantissa(d, max(0, precision + d.adjusted()))


def _large(d: Decimal, precision: int) -> tuple[Decimal, int] | None:
    if abs(half_up(d, precision)) < Decimal(repr(LARGE)):
        return None
    return mantissa(d, precision)


def mantissa(d: Decimal, digits: int) -> tuple[Decimal, int]:
    """(m, k) with d ≈ m × 10^k, m rounded half up to `digits` decimals and 1 ≤ |m| < 10 (0 for
    0): 9.996 at 2 decimals is 10.00, so one more power of ten, 1.00. m has exactly `digits`
    decimals, however many (zeros past d's own digits: no Context's precision bounds them)."""
    k = d.adjusted() if d else 0
    m = half_up(d.scaleb(-k, context=CONTEXT), digits)
    if abs(m) >= 10:
        k += 1
        m = half_up(d.scaleb(-k, context=CONTEXT), digits)
    return padded(m, digits), k


def padded(d: Decimal, decimals: int) -> Decimal:
    """Finite `d`, of at most `decimals` decimals, with exactly that many (none for a place
    left of the point): 1.5 at 4 is 1.5000, 1E+30 at 2 is 1000000000000000000000000000000.00
    (formatted, so no Context's precision or exponent limit applies)."""
    return Decimal(f"{d:.{max(0, decimals)}f}")


def written_decimal(d: Decimal, precision: int) -> Decimal:
    """Finite `d` as a hand calculation carries it: rounded half up to `precision` decimals, or,
    a million and more, to m × 10^k as it is written (see large)."""
    rounded_d = half_up(d, precision)
    if abs(rounded_d) < Decimal(repr(LARGE)):
        return rounded_d
    found = _large(d, precision)
    assert found is not None
    return found[0].scaleb(found[1], context=CONTEXT)


def sci_value(x: float, precision: int) -> float | None:
    """The value of m × 10^k as written for `x` (see large), or None when `x` is written
    in fixed notation."""
    found = large(x, precision)
    return None if found is None else float(found[0].scaleb(found[1], context=CONTEXT))


def shortest(value: float, minus: str = MINUS, tex: bool = False) -> str:
    """A number given in a spec (a sink logit) as a person writes it: with the digits it was
    written with and no trailing zeros (2, −1, 0.5, 0.00001, 123456.5), never e-notation; past
    LARGE or under SMALL, m × 10^k with m's digits (1e308 -> `1×10³⁰⁸`, in TeX math
    `1 \\times 10^{308}`). Finite `value` only."""
    sign = minus if value < 0 else ""
    d = abs(as_decimal(value))
    if not value or SMALL <= d < Decimal(repr(LARGE)):
        text = f"{abs(value):g}"
        if "e" in text or float(text) != abs(value):  # 1e-05: 0.00001; 123456.5, not 123456
            text = format(d.normalize(context=CONTEXT), "f")
        return sign + text
    k = d.adjusted()
    m = format(d.scaleb(-k).normalize(context=CONTEXT), "f")
    return sign + (rf"{m} \times 10^{{{k}}}" if tex else
                   f"{m}×10{str(k).translate(SUPERSCRIPT)}")


def constant(value: float, tex: bool = False, bracket: bool = True) -> str:
    """A number of the spec written into a formula (a RoPE base, a soft cap, a divisor): a whole
    number below 10^15 with its digits (1000000, not 1e+06), else as `shortest` writes it (six
    significant digits, m × 10^k past a million). m × 10^k is bracketed unless `bracket` is
    false, so that a power or a division takes all of it: `(1.5×10²⁰)^(−2i/d_k)`, `S / (1×10³⁰⁰)`.
    """
    if float(value).is_integer() and abs(value) < 1e15:
        return str(int(value))
    text = shortest(value, "-", tex)
    if bracket and ("×" in text or "times" in text):
        return rf"\left({text}\right)" if tex else f"({text})"
    return text


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


def rounded_if_clear(x: float, precision: int, tolerance: float) -> float | None:
    """rounded(v, precision) for every v within a relative `tolerance` of finite `x`, when
    they all round alike; else None."""
    units = clear_half_up(x, precision, tolerance)
    if units is None or not x or abs(x) >= LARGE / 2:
        return None
    value = units / power_of_ten(precision)
    return -value if x < 0 else value


def rounded_where_clear(x: np.ndarray, precision: int | np.ndarray
                        ) -> tuple[np.ndarray, np.ndarray]:
    """`rounded` of every element of `x` (each at its own precision, or all at one) where
    floats decide it, and where they do: a number written m × 10^k, inf, NaN and a near tie are
    left to `rounded`, one by one."""
    import numpy as np

    units, sure = clear_units(x, precision)
    sure &= np.abs(x) < LARGE / 2  # False for NaN
    shown = units / np.asarray(POWERS)[np.where(sure, precision, 0)]
    return np.where(x < 0, -shown, shown), sure


def rounded(x: float, precision: int) -> float:
    """`x` as printed at `precision` decimals, as a float: `rounded(0.125, 2) == 0.13`; a number
    written m × 10^k, as m × 10^k (`rounded(1.234e20, 2) == 1.23e20`)."""
    if not math.isfinite(x) or not x:
        return float(x)  # ±0.0 keeps its sign
    if abs(x) >= LARGE / 2:
        shown = sci_value(x, precision)
        if shown is not None:
            return shown
    units = clear_half_up(x, precision)
    if units is None:
        return float(rounded_decimal(x, precision))
    value = units / power_of_ten(precision)  # the
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
    units = clear_half_up(x, precision)
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
    power: str = "{m}×10{k}"  # m × 10^k, k in superscript digits (see large)
    superscript: bool = True

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
        found = large(value, self.precision) or tiny(value, self.precision)
        if found is not None:
            m, k = found
            exponent = str(k).translate(SUPERSCRIPT) if self.superscript else str(k)
            mantissa = self._plain(str(m))
            return self.power.format(m=mantissa, k=exponent)
        return self._plain(fixed(value, self.precision))

    def _plain(self, text: str) -> str:
        """A decimal written with a dot and `-`, in this format's marks."""
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
        if precision > FIXED_DECIMALS:  # a tiny number may be m × 10^k (see tiny)
            return [self(value) for value in x.tolist()]
        power = power_of_ten(precision)
        units, clear = clear_units(x, precision)  # (k,), (k,)
        with np.errstate(invalid="ignore"):
            clear &= (x != 0.0) & (np.abs(x) < LARGE / 2)  # (k,): m × 10^k one by one
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
                       hidden=r"\text{—}", power=r"{m} \times 10^{{{k}}}", superscript=False)

    def finer(self, more: int) -> NumberFormat:
        """The same format with `more` decimals (how far a hand result drifts)."""
        return replace(self, precision=self.precision + more)

    @property
    def list_separator(self) -> str:
        """What goes between the numbers of a list in prose: `0.35, 0.65` but `0,35; 0,65`."""
        return "; " if self.decimal != "." else ", "
