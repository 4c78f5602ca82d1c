"""TeX that the LaTeX and Markdown renderers share: user text made literal, numbers and labelled
matrices as math.

Two dialects, because the two consumers accept different input:
- "latex": pdflatex with T1 (and T2A for Cyrillic) font encodings; text may switch encoding.
- "katex": KaTeX / MathJax in Markdown, strict mode: no \\ensuremath, no font-encoding switches,
  math inside \\text written as $...$, only characters KaTeX knows.

A character neither dialect can typeset (an emoji, Hebrew under pdflatex, ...) is written as its
code point, `U+1F600` in typewriter type, so the file still compiles and the reader still sees
which character it was.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Literal

from attncli.model import Difference, Exp, Expansion, Expr, Num, Product, Quotient, Sum, Vec
from attncli.render.common import MAX_TERMS, elide
from attncli.arithmetic.numbers import NumberFormat

Dialect = Literal["latex", "katex"]

# Characters with a meaning in TeX (or a ligature or babel shorthand in T1 / polish / russian),
# written so that they print as themselves.
LATEX_SPECIALS = {
    "\\": r"\textbackslash{}",
    "#": r"\#",
    "$": r"\$",
    "%": r"\%",
    "&": r"\&",
    "_": r"\_",
    "{": r"\{",
    "}": r"\}",
    "~": r"\textasciitilde{}",
    "^": r"\textasciicircum{}",
    "<": r"\textless{}",  # T1 turns << into a guillemet
    ">": r"\textgreater{}",
    "|": r"\textbar{}",
    '"': r"\textquotedbl{}",  # an active shorthand under babel polish and russian
    "'": r"\textquotesingle{}",  # '' would become a closing quote
    "`": r"\textasciigrave{}",
    "-": "-{}",  # -- and --- would become dashes
    "\u00a0": "~",  # the no-break space of Polish and Russian typography (i18n/typography.py)
}
KATEX_SPECIALS = {
    **{ch: LATEX_SPECIALS[ch] for ch in "\\#%&~^<>|\u00a0"},
    # Words, not \{ \_ \$: GitHub scans $$ blocks for $ and backslash escapes before MathJax.
    "{": r"\textbraceleft{}",
    "}": r"\textbraceright{}",
    "_": r"\textunderscore{}",
    "$": r"\textdollar{}",
    # KaTeX has no ligatures and no shorthands: quotes and hyphens print as typed
}

# Symbols the walkthrough's own prose uses (−∞, qᵢ·kⱼ, √d_k, Sᵀ ...), written as math.
MATH_SYMBOLS = {
    "−": "-", "∞": r"\infty", "√": r"\surd", "·": r"\cdot", "×": r"\times", "÷": r"\div",
    "±": r"\pm", "′": "'", "″": "''", "≈": r"\approx", "≠": r"\neq", "≤": r"\leq",
    "≥": r"\geq", "→": r"\to", "←": r"\leftarrow", "∑": r"\sum", "∈": r"\in", "°": r"^{\circ}",
    "ᵀ": r"{}^{\top}", "ᵢ": "{}_{i}", "ⱼ": "{}_{j}", "ₖ": "{}_{k}", "ₙ": "{}_{n}",
    "ₘ": "{}_{m}", "ₜ": "{}_{t}", "ᵗ": "{}^{t}", "ⁿ": "{}^{n}", "¹": "{}^{1}", "²": "{}^{2}",
    "³": "{}^{3}", "⁻": "{}^{-}", "ℓ": r"\ell",
    "⋮": r"\vdots", "⋯": r"\cdots", "⋱": r"\ddots",  # where an elided matrix leaves rows out
    **{chr(0x2080 + d): "{}_{" + str(d) + "}" for d in range(10)},
    **{chr(c): "{}^{" + str(d) + "}" for d, c in enumerate(
        (0x2070, 0xB9, 0xB2, 0xB3, 0x2074, 0x2075, 0x2076, 0x2077, 0x2078, 0x2079))},
}
_GREEK_UPPER_AS_LATIN = {"ALPHA": "A", "BETA": "B", "EPSILON": "E", "ZETA": "Z", "ETA": "H",
                         "IOTA": "I", "KAPPA": "K", "MU": "M", "NU": "N", "OMICRON": "O",
                         "RHO": "P", "TAU": "T", "CHI": "X"}


def _greek() -> dict[str, str]:
    table = {}
    for code in list(range(0x391, 0x3AA)) + list(range(0x3B1, 0x3CA)):
        name = unicodedata.name(chr(code), "")
        if not name.startswith("GREEK "):
            continue
        letter = name.rsplit(" ", 1)[1].replace("LAMDA", "LAMBDA")
        if "CAPITAL" in name:
            table[chr(code)] = _GREEK_UPPER_AS_LATIN.get(letter, "\\" + letter.capitalize())
        elif letter == "OMICRON":
            table[chr(code)] = "o"
        elif letter == "SIGMA" and "FINAL" in name:
            table[chr(code)] = r"\varsigma"
        else:
            table[chr(code)] = "\\" + letter.lower()
    return table


MATH_SYMBOLS.update(_greek())

# Punctuation both T1 and KaTeX's text mode print as typed.
PUNCTUATION = frozenset("–—‘’‚“”„…«»‹›•")


# Latin letters pdflatex's utf8 input has no T1 glyph for, and signs KaTeX's strict text mode
# does not know (both measured: see tests/test_export_renderers.py).
NOT_IN_T1 = frozenset("ĦħĸĿŀŉŦŧſ")
NOT_IN_KATEX = frozenset("¡¢¤¦§¨ª«¬¯´µ¶¸º»¼½¾¿‚„‹›•")


def _is_cyrillic(ch: str) -> bool:
    return 0x400 <= ord(ch) <= 0x45F or ch in "Ґґ"


def _is_latin_extra(ch: str) -> bool:
    """Latin-1 and Latin Extended-A letters and signs beyond ASCII (T1 and KaTeX know them)."""
    code = ord(ch)
    return (0xA1 <= code <= 0xFF or 0x100 <= code <= 0x17F) and ch not in "\xad×÷"


def code_point(ch: str) -> str:
    return r"\texttt{U+" + f"{ord(ch):04X}" + "}"


def _kind(ch: str, dialect: Dialect) -> str:
    if " " <= ch <= "~" or ch == "\u00a0":
        return "ascii"
    if ch in MATH_SYMBOLS or ch in (NOT_IN_T1 if dialect == "latex" else NOT_IN_KATEX):
        return "other"
    if _is_cyrillic(ch):
        return "cyrillic"
    if _is_latin_extra(ch) or ch in PUNCTUATION:
        return "latin"
    return "other"


def escape_text(text: str, dialect: Dialect = "latex", cyrillic_base: bool = False) -> str:
    """`text` as TeX text that prints exactly these characters, in text mode or inside \\text{}.

    Under "latex", a run of Cyrillic letters switches to the T2A encoding (and, in a document
    whose base encoding is T2A, a run of accented Latin letters switches to T1), so Polish,
    Russian and English words can share one line.
    """
    # no line breaks (a blank line would end a paragraph); a no-break space stays one
    text = re.sub(r"[ \t\n\r\f\v]+", " ", text).strip(" ")
    out: list[str] = []
    for run, kind in _runs(text, dialect):
        if kind == "ascii":
            specials = LATEX_SPECIALS if dialect == "latex" else KATEX_SPECIALS
            out.append("".join(specials.get(ch, ch) for ch in run))
        elif kind == "other":
            out.append("".join(_other(ch, dialect) for ch in run))
        elif dialect == "latex" and kind == "cyrillic" and not cyrillic_base:
            out.append(r"{\fontencoding{T2A}\selectfont " + run + "}")
        elif dialect == "latex" and kind == "latin" and cyrillic_base:
            out.append(r"{\fontencoding{T1}\selectfont " + run + "}")
        else:
            out.append(run)
    return "".join(out)


def _runs(text: str, dialect: Dialect) -> Iterable[tuple[str, str]]:
    start = 0
    for i in range(1, len(text) + 1):
        if i == len(text) or _kind(text[i], dialect) != _kind(text[start], dialect):
            yield text[start:i], _kind(text[start], dialect)
            start = i


def _other(ch: str, dialect: Dialect) -> str:
    symbol = MATH_SYMBOLS.get(ch)
    if symbol is None:
        return code_point(ch)
    return r"\ensuremath{" + symbol + "}" if dialect == "latex" else "$" + symbol + "$"


def text_math(text: str, dialect: Dialect = "latex", cyrillic_base: bool = False) -> str:
    """A word inside math: \\text{...} with the same escapes as prose."""
    return r"\text{" + escape_text(text, dialect, cyrillic_base) + "}"


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
               terms: Callable[[int], str], full: bool = False, lead: bool = True) -> str:
    """The numbers of a calculation as math: `0.20 \\cdot 0.20 + 1.00 \\cdot (-0.50)`,
    `e^{-0.34}`. A long sum is elided in the middle like the text view; `terms(n)` names its
    length, `words` makes text. A negative number is bracketed unless it leads, as in the text."""
    def sub(e: Expr, first: bool) -> str:
        return expr_latex(e, number, words, terms, full, lead and first)

    def wrapped(e: Expr, around: tuple[type, ...], first: bool = False) -> str:
        if isinstance(e, around):
            return rf"\left({expr_latex(e, number, words, terms, full)}\right)"
        return sub(e, first)

    if isinstance(expr, Num):
        text = number(expr.value)
        return f"({text})" if not lead and text.startswith(number.minus) else text
    if isinstance(expr, Vec):
        values = elide(expr.values, lambda _, x: number(x), full, MAX_TERMS // 2,
                       MAX_TERMS // 2, r"\dots")
        separator = ";\\ " if number.list_separator.startswith(";") else ",\\ "
        return r"\left[" + separator.join(values) + r"\right]"
    if isinstance(expr, Product):
        return r" \cdot ".join(wrapped(f, (Sum, Difference, Quotient), k == 0)
                               for k, f in enumerate(expr.factors))
    if isinstance(expr, Sum):
        parts = elide(expr.terms, lambda k, e: wrapped(e, (Sum, Difference), k == 0),
                      full, 3, 2, r"\dots")
        text = " + ".join(parts)
        return text + r"\ " + words(terms(len(expr.terms))) if r"\dots" in parts else text
    if isinstance(expr, Quotient):
        return (wrapped(expr.numerator, (Sum, Difference, Quotient), True) + " / " +
                wrapped(expr.denominator, (Sum, Difference, Quotient, Product)))
    if isinstance(expr, Exp):
        return "e^{" + expr_latex(expr.argument, number, words, terms, full) + "}"
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
        parts.append(expr_latex(expansion.expression, number, words, terms, full))
        result = expansion.result
        value = (r"\left[" + ",\\ ".join(number(x) for x in result) + r"\right]"
                 if isinstance(result, tuple) else number(result))
        relation = "=" if expansion.exact else r"\approx"
        if expansion.blank:  # a worksheet: the result is the student's to write
            relation = "="
            value = box(number(0.0)) if box else r"\underline{\hphantom{0" + number(0.0) + "}}"
        if len(parts) == 1:  # e^x ≈ 1.76: nothing to the left of a first `=`
            yield f"{parts[0]} &{relation} {value}"
        else:
            yield f"{parts[0]} &= " + " = ".join(parts[1:]) + f" {relation} {value}"
