"""TeX that the LaTeX and Markdown renderers share: numbers, written-out cells and labelled
matrices as math. User text is made literal by the one escaping table (attncli/model/latex_text.py,
re-exported here), in the "latex" dialect (pdflatex) or the "katex" one (KaTeX and MathJax).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Iterator, Sequence

from attncli.arithmetic.numbers import NumberFormat
from attncli.model import (
    Difference,
    Exp,
    Expansion,
    Expr,
    Num,
    Product,
    Quotient,
    Sum,
    Tanh,
    Vec,
)
from attncli.model.latex_text import (
    KATEX_SPECIALS,
    LATEX_SPECIALS,
    MATH_SYMBOLS,
    NOT_IN_KATEX,
    PUNCTUATION,
    Dialect,
    code_point,
    escape_text,
    text_math,
)
from attncli.render import shortened
from attncli.render.common import exact_as_written


def number_format(number: NumberFormat) -> NumberFormat:
    """Numbers as math: `-\\infty` for a hidden score, NaN as a word, `0{,}35` with a decimal
    comma (a bare comma in math is punctuation, followed by a space)."""
    return number.math()


def _shape(cell: str) -> str:
    """Cells of one shape have one width: digits all take the same room in TeX's fonts."""
    return re.sub(r"[0-9]", "0", cell)


def labelled_matrix(symbol: str, cells: Sequence[Sequence[str]], rows: Sequence[str],
                    columns: Sequence[str], dialect: Dialect = "latex",
                    cyrillic_base: bool = False) -> list[str]:
    """Lines of display math: `symbol = ` a bmatrix, its row labels on the left and its column
    labels above, one matrix row per line.

    Every column is made as wide as the widest label or number (a phantom of all of them), and
    each cell is right-aligned in it, so the labels line up with the numbers in both TeX and
    KaTeX without any package beyond amsmath.
    """
    labels = [text_math(c, dialect, cyrillic_base) for c in columns]
    widest = sorted(set(labels) | {_shape(cell) for row in cells for cell in row})
    phantom = r"\hphantom{\begin{matrix}" + r"\\".join(widest) + r"\end{matrix}}"
    llap = r"\llap{$#1$}" if dialect == "latex" else r"\mathllap{#1}"
    height = r"\vphantom{\begin{matrix}" + r"\\".join("0" for _ in cells) + r"\end{matrix}}"
    row_labels = [text_math(r, dialect, cyrillic_base) for r in rows]
    # KaTeX knows no @{} in a column spec; pdflatex gets the tighter layout
    outer, inner = ("{@{}r@{\\,}l@{}}", "{@{}r@{}}") if dialect == "latex" else ("{rl}", "{r}")
    lines = [
        r"\def\attncell#1{" + phantom + llap + "}",
        symbol + r" = \begin{array}" + outer,
        r"& \hphantom{\left[" + height + r"\right.}\begin{matrix}"
        + " & ".join(r"\attncell{" + label + "}" for label in labels) + r"\end{matrix} \\",
        r"\begin{array}" + inner + r" \\ ".join(row_labels) + r"\end{array} & \begin{bmatrix}",
    ]
    for i, row in enumerate(cells):
        end = r" \\" if i < len(cells) - 1 else ""
        lines.append(" & ".join(r"\attncell{" + cell + "}" for cell in row) + end)
    lines += [r"\end{bmatrix}", r"\end{array}"]
    # every \\ ends its line: GitHub drops one in the middle of a line
    text = "\n".join(lines).replace("\\\\", "\\\\\n")
    return [line.strip() for line in text.split("\n") if line.strip()]


# --- written-out cells (model.Expansion) as aligned math ---

def expr_latex(expr: Expr, number: NumberFormat, words: Callable[[str], str],
               terms: Callable[[int], str], full: bool = False, lead: bool = True,
               box: str | None = None) -> str:
    """The numbers of a calculation as math: `0.20 \\cdot 0.20 + 1.00 \\cdot (-0.50)`,
    `e^{-0.34}`. A long sum is shortened like the text view; `terms(n)` says what a sum of n
    terms leaves out, `words` makes text. A negative number is bracketed unless it leads, as in
    the text. A worksheet's blank number is `box` (default: a LaTeX line as wide as a number)."""
    blank = box if box is not None else r"\underline{\hphantom{0" + number(0.0) + "}}"

    def sub(e: Expr, first: bool) -> str:
        return expr_latex(e, number, words, terms, full, lead and first, box)

    def wrapped(e: Expr, around: tuple[type, ...], first: bool = False) -> str:
        if isinstance(e, around):
            return rf"\left({expr_latex(e, number, words, terms, full, box=box)}\right)"
        return sub(e, first)

    if isinstance(expr, Num):
        if expr.blank:
            return blank
        text = number(expr.value)
        return f"({text})" if not lead and text.startswith(number.minus) else text
    if isinstance(expr, Vec):
        values = shortened.values(expr.values, lambda k, x: blank if k in expr.blank
                                  else number(x), full, r"\dots")
        separator = ";\\ " if number.list_separator.startswith(";") else ",\\ "
        return r"\left[" + separator.join(values) + r"\right]"
    if isinstance(expr, Product):
        return r" \cdot ".join(wrapped(f, (Sum, Difference, Quotient), k == 0)
                               for k, f in enumerate(expr.factors))
    if isinstance(expr, Sum):
        parts = shortened.sum_terms(expr.terms, lambda k, e: wrapped(e, (Sum, Difference),
                                                                     k == 0), full, r"\dots")
        text = " + ".join(parts)
        return text + r"\ " + words(terms(len(expr.terms))) if r"\dots" in parts else text
    if isinstance(expr, Quotient):
        below = wrapped(expr.denominator, (Sum, Difference, Quotient, Product))
        if isinstance(expr.denominator, Num) and r"\times" in below:  # 1.00 / (1.23 × 10^8)
            below = rf"\left({below}\right)"
        return wrapped(expr.numerator, (Sum, Difference, Quotient), True) + " / " + below
    if isinstance(expr, Exp):
        return "e^{" + expr_latex(expr.argument, number, words, terms, full, box=box) + "}"
    if isinstance(expr, Tanh):
        return (r"\tanh\left(" + expr_latex(expr.argument, number, words, terms, full, box=box)
                + r"\right)")
    assert isinstance(expr, Difference)
    return sub(expr.left, True) + " - " + wrapped(expr.right, (Sum, Difference))


def expansion_rows(expansions: Iterable[Expansion], number: NumberFormat,
                   words: Callable[[str], str], terms: Callable[[int], str],
                   full: bool = False,
                   box: Callable[[str], str] | None = None) -> Iterator[str]:
    """Rows of an align* block, aligned at the first relation: `S[a, b] &= q_a \\cdot k_b = …`;
    `\\approx` before a result that the printed operands do not give exactly. A worksheet's
    blank result is `box(a number's text)`: a line as wide as that number."""
    for expansion in expansions:
        parts = [f.latex for f in (expansion.target, expansion.symbolic) if f is not None]
        if not expansion.repeats_result():
            parts.append(expr_latex(expansion.expression, number, words, terms, full,
                                    box=box(number(0.0)) if box else None))
        result = expansion.result
        value = (r"\left[" + ",\\ ".join(number(x) for x in result) + r"\right]"
                 if isinstance(result, tuple) else number(result))
        relation = "=" if exact_as_written(expansion, full) else r"\approx"
        if expansion.blank:  # a worksheet: the result is the student's to write
            relation = "="
            value = box(number(0.0)) if box else r"\underline{\hphantom{0" + number(0.0) + "}}"
        if len(parts) == 1:  # e^x ≈ 1.76: nothing to the left of a first `=`
            yield f"{parts[0]} &{relation} {value}"
        else:
            yield f"{parts[0]} &= " + " = ".join(parts[1:]) + f" {relation} {value}"


__all__ = ["KATEX_SPECIALS", "LATEX_SPECIALS", "MATH_SYMBOLS", "NOT_IN_KATEX", "PUNCTUATION",
           "Dialect",
           "code_point", "escape_text", "expansion_rows", "expr_latex", "labelled_matrix",
           "number_format", "text_math"]
