"""An independent reader of the written-out lines attn prints: it parses a line such as
`A[mouse, cat] = 1.77 / 4.46 = 0.40` back into numbers and recomputes it in exact fractions,
so a test can check that every printed sum gives its printed result. It reads what attn prints:
`−` (U+2212) as the minus sign, a decimal comma (`0,35`, lists `[0,35; 0,65]`) and the heading
`Written out:` in any language."""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from decimal import Decimal, localcontext
from fractions import Fraction

NUMBER = re.compile(r"(?<![\w\]])-?\d+\.\d+|-?\d+(?![\w.])")


class Row(tuple):  # type: ignore[type-arg]
    """A row of numbers: added and scaled element by element."""

    def __add__(self, other: object) -> Row:  # type: ignore[override]
        assert isinstance(other, Row)
        return Row(a + b for a, b in zip(self, other, strict=True))

    def __mul__(self, k: object) -> Row:  # type: ignore[override]
        return Row(a * k for a in self)

    __rmul__ = __mul__


def exp(x: Fraction) -> Fraction:
    """e^x to 60 digits (Python's decimal exp is correctly rounded): no display precision
    can round it differently from the true value, which is never a tie."""
    if x == -math.inf:
        return Fraction(0)
    with localcontext() as context:
        context.prec = 60
        return Fraction((Decimal(x.numerator) / Decimal(x.denominator)).exp())


def half_up(x: Fraction, precision: int) -> Fraction:
    """Round half away from zero at `precision` decimals, as a person does."""
    scaled = abs(x) * 10**precision
    whole = math.floor(scaled + Fraction(1, 2))
    return Fraction(whole if x >= 0 else -whole, 10**precision)


def scientific(x: Fraction, precision: int) -> tuple[Fraction, int] | None:
    """(m, k) when `x` is written m × 10^k (docs/formats.md): half up it reaches a million;
    m = x / 10^k rounded half up, 1 ≤ |m| < 10. Else None."""
    if abs(half_up(x, precision)) < 10**6:
        return None
    k = 0
    while abs(x) >= Fraction(10) ** (k + 1):
        k += 1
    while abs(x) < Fraction(10) ** k:
        k -= 1
    m = half_up(x / Fraction(10) ** k, precision)
    if abs(m) >= 10:
        k += 1
        m = half_up(x / Fraction(10) ** k, precision)
    return m, k


def written(x: Fraction, precision: int) -> Fraction:
    """`x` as written: half up at `precision` decimals, or m × 10^k."""
    found = scientific(x, precision)
    return half_up(x, precision) if found is None else found[0] * Fraction(10) ** found[1]


SUPERSCRIPT = str.maketrans("⁻⁰¹²³⁴⁵⁶⁷⁸⁹", "-0123456789")
POWER = re.compile(r"(\d+(?:\.\d+)?)×10([⁻⁰¹²³⁴⁵⁶⁷⁸⁹]+)")


def plain_powers(text: str) -> str:
    """`8.00×10⁻³⁰` as the plain decimal it is: 0.0000000000000000000000000000080."""
    return POWER.sub(lambda m: format(Decimal(m.group(1)).scaleb(
        int(m.group(2).translate(SUPERSCRIPT))), "f"), text)


@dataclass
class Line:
    text: str
    expression: str  # the numbers, as printed
    sign: str  # "=" or "≈"
    result: str

    @property
    def elided(self) -> bool:
        return "…" in self.expression

    def recompute(self) -> Fraction | Row:
        python = self.expression.replace("·", "*").replace("−∞", "-inf").replace("−", "-")
        python = plain_powers(plain_decimals(python))
        python = python.replace("e^(", "exp(")
        python = re.sub(r"e\^(-?\d+(?:\.\d+)?|-inf)", r"exp(\1)", python)
        python = re.sub(r"\[([^\]]*)\]", r"Row((\1,))", python)
        python = NUMBER.sub(lambda m: f"Fraction('{m.group(0)}')", python)
        value = eval(python, {"Fraction": Fraction, "Row": Row, "exp": exp,
                              "inf": math.inf})
        return value  # type: ignore[no-any-return]

    def printed(self) -> Fraction | Row:
        result = plain_powers(plain_decimals(self.result.replace("−", "-")))
        if result.startswith("["):
            return Row(Fraction(x) for x in result.strip("[]").split(", "))
        return Fraction(result)

    def numbers(self) -> list[str]:
        """Every number printed on the line's right-hand side, as printed."""
        return PRINTED.findall(self.expression + " " + self.result)


PRINTED = re.compile(r"−?\d+(?:[.,]\d+)?(?:×10[⁻⁰¹²³⁴⁵⁶⁷⁸⁹]+)?")


def plain_decimals(text: str) -> str:
    """`0,35` as `0.35` and a list `[0.35; 0.65]` as `[0.35, 0.65]`: the dot form."""
    return re.sub(r"(\d),(\d)", r"\1.\2", text).replace("; ", ", ")


# a line's target alone, with no numbers before its result (`Σ = 2.03` of a row with one key)
NAMED = re.compile(r"(?!e\^)[^\d−(\[].*")


def written_out(output: str, heading: str = "Written out:") -> list[Line]:
    """Every line under a `Written out:` heading (or its translation) of the plain-text output."""
    lines = []
    inside = False
    for raw in joined(output.splitlines()):
        text = raw.strip()
        if text == heading:
            inside = True
            continue
        if not text or not raw.startswith("   "):
            inside = False
            continue
        if inside:
            sign = "≈" if " ≈ " in text else "="
            head, _, result = text.rpartition(f" {sign} ")
            expression = head.split(" = ")[-1]
            if " = " not in head and NAMED.fullmatch(head):  # `Σ = 2.03`: a name, its value
                expression = result
            lines.append(Line(text, expression, sign, result))
    return lines


def joined(raw: list[str]) -> list[str]:
    """Written-out lines wrapped to the width put back together: a continuation line is indented
    4 more than the line it continues, which ends with `=`, `+`, `,` or `·`."""
    lines: list[str] = []
    for line in raw:
        if line.startswith("       ") and lines and lines[-1].startswith("   "):
            glue = "" if lines[-1].endswith("·") else " "
            lines[-1] += glue + line.strip()
        else:
            lines.append(line)
    return lines


def agrees(line: Line, precision: int) -> bool:
    """The printed result is what the printed numbers give, rounded to the display precision
    (never, when the line divides by a number printed as 0)."""
    try:
        got = line.recompute()
    except ZeroDivisionError:
        return False
    printed = line.printed()
    if isinstance(printed, Row):
        assert isinstance(got, Row)
        return all(written(g, precision) == p for g, p in zip(got, printed, strict=True))
    assert not isinstance(got, Row)
    return written(got, precision) == printed
