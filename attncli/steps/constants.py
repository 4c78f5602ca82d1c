"""Constants as a formula writes them: 10⁻⁵ for a power of ten, else the shortest decimal."""

from __future__ import annotations

import math
import re
from decimal import Decimal

from attncli.i18n import Symbol


def constant(value: float) -> Symbol:
    """`plain_number` as notation: ε = 10⁻⁶ is math in LaTeX and Markdown (`10^{-6}`)."""
    text = plain_number(value)
    power = re.fullmatch(r"10([⁻⁰¹²³⁴⁵⁶⁷⁸⁹]+)", text)
    if power is None:
        return Symbol(text, text)
    digits = power.group(1).translate(str.maketrans("⁻⁰¹²³⁴⁵⁶⁷⁸⁹", "-0123456789"))
    return Symbol(text, "10^{" + digits + "}")


def plain_number(value: float) -> str:
    """A constant as a person writes it in a formula: 10⁻⁵ for a power of ten, else its
    shortest decimal, never e-notation (1e-05)."""
    exponent = math.log10(value) if value > 0 else 0.5
    if exponent == int(exponent) and abs(exponent) >= 3:
        superscript = str.maketrans("-0123456789", "⁻⁰¹²³⁴⁵⁶⁷⁸⁹")
        return "10" + str(int(exponent)).translate(superscript)
    return format(Decimal(repr(value)), "f")
