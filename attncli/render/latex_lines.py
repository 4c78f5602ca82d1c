"""Written-out cells as paragraphs of inline math that TeX may break.

TeX breaks inline math after a binary operator or a relation, never inside a group: so each
product (`0.20 \\cdot 0.20`) is a group and a line breaks after `+` or `=`. A row of numbers that
fits on a line is a group too (`[0.20, 1.00]` never ends a line inside its brackets); a longer
one (`--full`, 64 numbers) may break after a comma: its brackets are plain `[ ]`, not
`\\left[ \\right]`. Each line hangs: its continuation is indented under its start.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator, Sequence

from attncli.arithmetic.numbers import NumberFormat
from attncli.i18n import Msg, Symbol
from attncli.model import (
    Difference,
    Exp,
    Expansion,
    Expr,
    Formula,
    Lazy,
    Num,
    Product,
    Quotient,
    Sum,
    Tanh,
    Vec,
)
from attncli.model.latex_text import shown_name, shown_words
from attncli.render import shortened
from attncli.render.common import box_math, exact_as_written
from attncli.render.latex_matrix import SIZES
from attncli.render.tex_metrics import (
    MATH_WIDTHS,
    SPACE,
    UNBROKEN,
    number_width,
    text_width,
)

BRACKET = 2.78  # a square bracket in text size
SUBSCRIPT = 0.8  # a line of q_name·k_name beside the same in text: its names are subscripts

HANG = r"\hangindent=2em\hangafter=1 "
# a number written m × 10^k (NumberFormat.math): at 12 decimals three of them are wider than a
# Beamer line, so a product or quotient of them is no single group (99 pt too wide)
POWER = r" \times 10^{"
# ends a heading's paragraph so that no page (nor frame: frame_fit.py) breaks after it
KEEP = r"\par\nopagebreak"


def is_negative(text: str) -> bool:
    return text[:1] in ("-", "−")


def expr_math(expr: Expr, number: NumberFormat, words: Callable[[int], str],
              full: bool = False) -> str:
    """The numbers of a calculation as breakable inline math; `number` writes math numbers and
    `words(n)` what a shortened sum of n terms leaves out."""
    def wrapped(e: Expr, around: tuple[type, ...]) -> str:
        text = expr_math(e, number, words, full)
        return f"({text})" if isinstance(e, around) else text

    if isinstance(expr, Num):
        if expr.blank:
            return box_math(number)
        text = number(expr.value)
        return f"({text})" if is_negative(text) else text
    if isinstance(expr, Vec):
        values = shortened.values(expr.values, lambda k, x: box_math(number) if k in expr.blank
                                  else number(x), full, r"\dots")
        return vector_math(values, number)
    if isinstance(expr, Product):
        factors = [wrapped(f, (Sum, Difference, Quotient)) for f in expr.factors]
        text = r" \cdot ".join(factors)
        # a group cannot break; a product with a long row of numbers must, after its commas
        if r"\allowbreak" in text:
            return text
        if POWER in text:  # numbers m × 10^k, each a group, may break between them
            return r" \cdot \allowbreak ".join("{" + f + "}" for f in factors)
        return "{" + text + "}"
    if isinstance(expr, Sum):
        parts = shortened.sum_terms(expr.terms, lambda _, e: wrapped(e, (Sum, Difference)), full,
                                    r"\dots")
        text = " + ".join(parts)
        return text + r"\ " + words(len(expr.terms)) if r"\dots" in parts else text
    if isinstance(expr, Quotient):
        numerator = wrapped(expr.numerator, (Sum, Difference, Quotient))
        denominator = wrapped(expr.denominator, (Sum, Difference, Quotient, Product))
        if isinstance(expr.denominator, Num) and r"\times" in denominator:  # 1.00 / (1.23 × 10^8)
            denominator = f"({denominator})"
        if POWER in numerator + denominator:  # as a product of numbers m × 10^k
            return "{" + numerator + r"} / \allowbreak {" + denominator + "}"
        return "{" + numerator + " / " + denominator + "}"
    if isinstance(expr, Exp):
        return "e^{" + expr_math(expr.argument, number, words, full) + "}"
    if isinstance(expr, Tanh):  # one group: a line breaks around it, not inside it
        return r"{\tanh(" + expr_math(expr.argument, number, words, full) + ")}"
    assert isinstance(expr, Difference)
    return (expr_math(expr.left, number, words, full) + " - " +
            wrapped(expr.right, (Sum, Difference)))


def vector_math(values: Sequence[str], number: NumberFormat) -> str:
    """A row of numbers in brackets: one group when it fits on a line (UNBROKEN), else one that
    may break after a comma (a semicolon with a decimal comma)."""
    separator = ";" if number.decimal == "{,}" else ","
    blank = number_width(number(0.0)) + MATH_WIDTHS["0"]  # box_math: a number and a digit
    width = sum(blank if "hphantom" in v else number_width(v) for v in values) \
        + (len(values) - 1) * (MATH_WIDTHS[","] + SPACE) + 2 * BRACKET
    if width <= UNBROKEN:
        return "{[" + (separator + r"\ ").join(values) + "]}"
    return "[" + (separator + r"\allowbreak\ ").join(values) + "]"


def expansion_math(expansion: Expansion, number: NumberFormat, words: Callable[[int], str],
                   full: bool = False) -> str:
    """`S[a, b] = q_a \\cdot k_b = 0.20 \\cdot 0.20 + 1.00 \\cdot 1.00 = 1.04`, with `\\approx`
    before a result that the printed operands do not give exactly."""
    parts = [f.latex for f in (expansion.target, expansion.symbolic) if f is not None]
    if not expansion.repeats_result():
        parts.append(expr_math(expansion.expression, number, words, full))
    result = expansion.result
    value = (vector_math([number(x) for x in result], number) if isinstance(result, tuple)
             else number(result))
    relation = " = " if exact_as_written(expansion, full) else r" \approx "
    if expansion.blank:  # a worksheet: the result is the student's to write
        relation, value = " = ", box_math(number)
    return " = ".join(parts) + relation + value


# a name in brackets (`dQ[name, d2]`, `A[i, name]`): TeX breaks inline math only outside it.
# Each begins where a word does: tried from inside one (a 1,000-letter token), `\w*` would run
# to its end and fail at every letter, a time the square of the name's length.
_UNBROKEN = re.compile(r"(?<!\w)\w*\[[^\]]*\]")


def _shown_names(cell: str) -> str:
    """`S[the, name]` with its names as text_math writes them: one too long for any line
    shortened (shown_name)."""
    head, inside = cell[:-1].split("[", 1)
    return head + "[" + ", ".join(shown_name(name) for name in inside.split(", ")) + "]"


_CELLS = re.compile(r"(?<!\w)\w*\[[^\]]*\]·\w*\[[^\]]*\]")  # `A[a, j]·dA[a, j]`, one group in TeX


def _cells_apart(expansion: Expansion, line: float) -> bool:
    """Whether two cells side by side (set `A[a, j]\\, dA[a, j]`, which TeX does not break)
    are together wider than `line`: then they may break between them."""
    texts = [f.text for f in (expansion.target, expansion.symbolic) if f is not None]
    return any(sum(text_width(_shown_names(cell)) for cell in found.group().split("·")) * 1.2
               > line for t in texts for found in _CELLS.finditer(t))


_NAME_COMMA = re.compile(r"(?<!\\), ")  # `[a, b]`, not a thin space `\, `
_PIECE = re.compile(r", | / ")  # what a broken line's pieces end at: a name's comma, a `/`


def breakable_cell(symbol: Symbol, line: float) -> Symbol:
    """A cell a sentence names (`S′[name, name]`, the score the cap bends most) that TeX may
    break after its comma when the cell is wider than `line`, as a written-out line's is
    (fitting); any other notation as it is."""
    if not any(text_width(_shown_names(m.group())) * 1.2 > line
               for m in _UNBROKEN.finditer(symbol)):
        return symbol
    return Symbol(str(symbol), _NAME_COMMA.sub(r",\\allowbreak ", symbol.latex))


def inline_fraction(math: str) -> str:
    """`math` with its first `\\frac{a}{b}` written `a / (b)`, which may break after `·`."""
    start = math.find(r"\frac{")
    if start < 0:
        return math
    groups, end = [], start + len(r"\frac")
    for _ in range(2):
        depth, first = 0, end
        while end < len(math):
            if math[end] == "\\":  # \{ and \} of a token's text are no group's braces
                end += 2
                continue
            depth += {"{": 1, "}": -1}.get(math[end], 0)
            if depth == 0:
                break
            end += 1
        groups.append(math[first + 1:end])
        end += 1
    below = groups[1].replace(r"\, ", r"\,\allowbreak ")  # |q| |k|: may break between
    return math[:start] + groups[0] + r" /\allowbreak (" + below + ")" + math[end:]


# where TeX may break a written-out line's notation: after a relation or a sum's sign, and after
# a product's \cdot (written `·` in the text; where the LaTeX has no \cdot, `1 \tanh(…)`, `·`
# breaks nothing)
_RELATIONS = re.compile(r" = | \+ | − | - ")
_SUBSCRIPT = re.compile(r"(?<=[A-Za-z])_([^()\[\]·\s]+)")  # the name of `RMS(q_name)`


def _unbroken_runs(formula: Formula) -> list[str]:
    """The parts of a formula's notation TeX sets on one line, each name in them as it is shown
    (`Q[name, d1] / RMS(q_name)`: `/` is no operator TeX breaks after)."""
    runs = _RELATIONS.split(formula.text)
    if r"\cdot" in formula.latex:
        runs = [part for run in runs for part in run.split("·")]
    return [shown_words(_UNBROKEN.sub(lambda m: _shown_names(m.group()), run)) for run in runs]


def _math_width(text: str) -> float:
    """Points of notation at 10 pt, a name in a subscript (`q_name`) at its smaller size; math
    sets no space around `/`."""
    text = text.replace(" / ", "/")
    return text_width(_SUBSCRIPT.sub("", text)) + SUBSCRIPT * sum(
        text_width(m.group(1)) for m in _SUBSCRIPT.finditer(text))


def fitting(expansion: Expansion, line: float) -> tuple[str, bool]:
    """The size command that fits the line's widest unbreakable part, or "" (the body's size),
    and whether a name in brackets must break after its comma (and a quotient after its `/`):
    when the whole part does not fit even in the smallest size (two 40-character names on a 4:3
    slide, `Q[name, d1] / RMS(q_name)`), the size is the one its widest piece fits in. Sans
    serif (Beamer) and math take a little more than the article's roman: 1.2 to spare."""
    formulas = [f for f in (expansion.target, expansion.symbolic) if f is not None]
    names = [_shown_names(m.group()) for f in formulas for m in _UNBROKEN.finditer(f.text)]
    names += [run for f in formulas if r"\frac" not in f.latex for run in _unbroken_runs(f)]
    # a fraction (cos θ's q·k over |q|·|k|) is one box: its wider line, names in subscripts
    fractions = [max(map(text_width, f.text.split(" / ", 1))) * SUBSCRIPT
                 for f in (expansion.symbolic,) if f is not None and r"\frac" in f.latex]
    whole = max(max(map(_math_width, names), default=0.0), *fractions, 0.0) * 1.2
    if whole <= line:
        return "", False
    size = next((size for size, share in SIZES if whole * share <= line), None)
    if size is not None:
        return size, False
    # broken, a fraction is written inline (inline_fraction): its names are the pieces
    piece = max([_math_width(part) for name in names for part in _PIECE.split(name)],
                default=0.0) * 1.2
    return next((size for size, share in SIZES if piece * share <= line), SIZES[-1][0]), True


def written_out(expansions: Sequence[Expansion], number: NumberFormat,
                t: Callable[[Msg], str], esc: Callable[[str], str],
                full: bool, heading: str = "", line: float = 345.0) -> list[Sequence[str]]:
    """One chunk: `heading` ("Written out:") and every written-out line of a step as a hanging
    paragraph, each line made as it is written (`-x all` writes millions). The heading is inside
    the list and tied to the first line (KEEP): a page or frame never ends with it. A line whose
    unbreakable part (`dQ[name, d2]` with a 40-character name) is wider than `line` (points at
    10 pt) is set in the largest smaller size at which it fits, or broken after its comma."""
    def words(count: int) -> str:
        return r"\text{" + esc(t(shortened.left_out(count))) + "}"

    math_number = number.math()

    def lines() -> Iterator[str]:
        yield r"\begin{flushleft}"
        if heading:
            yield heading + KEEP
        for e in expansions:
            size, breaking = fitting(e, line)
            math = expansion_math(e, math_number, words, full)
            if breaking:  # the names' commas (the numbers' rows are groups), and a fraction
                math = _NAME_COMMA.sub(r",\\allowbreak ", inline_fraction(math))
                math = math.replace(" / ", r" /\allowbreak ")  # a group's too: never broken
            if _cells_apart(e, line):  # Σⱼ A[name, j]·dA[name, j]: two wide names in a row
                math = math.replace(r"]\, ", r"]\,\allowbreak ")
            text = HANG + "$" + math + r"$\par"
            yield "{" + size + " " + text + "}" if size else text
        yield r"\end{flushleft}"

    return [Lazy(lines)]
