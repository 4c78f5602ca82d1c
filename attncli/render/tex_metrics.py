"""How wide TeX will set a label or a number, estimated before TeX runs, so that a matrix can be
split into column blocks that fit the page (TeX cannot break a matrix by itself).

Widths are in points at 10 pt, as pdflatex sets them (attncli/model/tex_widths.py: the wider of
the article's roman and Beamer's sans serif, Latin letters in T1, Cyrillic in T2A, a symbol as
its math; in Computer Modern every digit is 0.5 em wide). A character escape_text writes as its
code point, `U+1F600` in typewriter type, is as wide as that code.
"""

from __future__ import annotations

from attncli.model.latex_text import CODE_POINT as CODE_POINT
from attncli.model.latex_text import text_width as text_width

EM = 10.0
# In math: a digit is 0.5 em, the decimal point or comma 0.278 em, the minus sign 0.778 em.
MATH_WIDTHS = {**{d: 5.0 for d in "0123456789"}, ".": 2.78, ",": 2.78, "-": 7.78, "−": 7.78}
INFINITY = 10.0
ARRAYCOLSEP = 5.0  # \arraycolsep: half the gap between two columns of an array or matrix
BRACKET = 5.0  # one square bracket of a bmatrix, with its null delimiter space
SPACE = 3.33  # `\ ` in math: a space between words
# The widest bracketed group a line keeps whole, `[0.20, 1.00]` or `S[cat, mouse]` (points at
# 10 pt): well inside the narrowest line attn sets, a 4:3 frame's 268 pt.
UNBROKEN = 200.0


def number_width(cell: str) -> float:
    """Points a number written as math takes at 10 pt: `0.35`, `0{,}35`, `-\\infty`, NaN."""
    if "infty" in cell:
        return INFINITY + (MATH_WIDTHS["-"] if "-" in cell else 0.0)
    if "NaN" in cell:
        return text_width("NaN")
    if cell.startswith(r"\text{") and cell.endswith("}"):  # a hidden key's weight: \text{—}
        return text_width(cell[len(r"\text{"):-1])
    return sum(MATH_WIDTHS.get(ch, EM) for ch in cell.replace("{,}", ","))
