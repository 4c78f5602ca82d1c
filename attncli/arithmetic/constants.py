"""Constants as a formula writes them: 10⁻⁵ for a power of ten, 2.5×10⁻²⁰⁰ for a number too small
or too large for its digits to be read, else the shortest decimal."""

from __future__ import annotations

from decimal import Decimal
from typing import Literal

from attncli.arithmetic.numbers import MINUS
from attncli.i18n import SUPERSCRIPT, Constant

# Below 10⁻⁶ or from 10¹⁵ on, a constant's digits are written m × 10^k: an eps of 2.5e-200 was
# 200 decimals wide, past any line of a page.
SMALLEST_PLAIN, LARGEST_PLAIN = -7, 15

Form = Literal["power", "scientific", "decimal"]
# Significant digits of a constant a formula may repeat (5, 30, 1.5×10²⁰); a longer one is named
# by its letter and written once (a soft cap's c of 1.7976931348623157×10³⁰⁸ twice was a line
# past the page)
SHORT = 6


def constant(value: float) -> Constant:
    """`plain_number` as notation: ε = 10⁻⁶ is math in LaTeX and Markdown (`10^{-6}`)."""
    value = value or 0.0  # -0.0 is written 0.0, as every number is never −0
    mantissa, exponent, form = written_form(value)
    text = _text(value, mantissa, exponent, form)
    shown = MINUS + text[1:] if text.startswith("-") else text  # −0.5, as printed numbers are
    if form == "decimal":
        return Constant(shown, text)  # TeX sets the `-` of math as a minus
    power = "10^{" + str(exponent) + "}"
    return Constant(shown, power if form == "power" else mantissa + r" \times " + power)


def is_short(value: float) -> bool:
    """Whether `value` has at most SHORT significant digits, so a formula may repeat it."""
    return sum(ch.isdigit() for ch in scientific(value)[0]) <= SHORT


def plain_number(value: float) -> str:
    """A constant as a person writes it in a formula: 10⁻⁵ for a power of ten, m × 10^k with all
    its digits below 10⁻⁶ or from 10¹⁵ on, else its shortest decimal, never e-notation (1e-05)."""
    return _text(value, *written_form(value))


def _text(value: float, mantissa: str, exponent: int, form: Form) -> str:
    power = "10" + str(exponent).translate(SUPERSCRIPT)
    if form == "power":
        return power
    if form == "scientific":
        return mantissa + "×" + power
    return format(Decimal(repr(value)), "f")


def written_form(value: float) -> tuple[str, int, Form]:
    """(m, k, form): value = m × 10^k, and which of the three ways `plain_number` writes it."""
    mantissa, exponent = scientific(value)
    if mantissa == "1" and abs(exponent) >= 3:
        return mantissa, exponent, "power"
    if value and not SMALLEST_PLAIN < exponent < LARGEST_PLAIN:
        return mantissa, exponent, "scientific"
    return mantissa, exponent, "decimal"


def scientific(value: float) -> tuple[str, int]:
    """(m, k) with value = m × 10^k, 1 ≤ |m| < 10, m with the digits of the shortest repr."""
    written = Decimal(repr(value))
    if not written:
        return "0", 0
    exponent = written.adjusted()
    return format(written.scaleb(-exponent).normalize(), "f"), exponent
