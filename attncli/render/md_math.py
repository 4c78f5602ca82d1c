"""Math for Markdown that GitHub, KaTeX and MathJax 3's default bundle all draw the same way.

What every one of them accepts, and what survives the Markdown around it:
- No macro GitHub refuses (\\def, \\newcommand, \\operatorname, the \\phantom family,
  \\mathllap/\\mathrlap ...): `\\operatorname{softmax}` is written `\\mathop{\\mathrm{softmax}}`.
- No backslash before ASCII punctuation (`\\\\`, `\\,`, `\\{`, `\\_` ...): a CommonMark pass before
  KaTeX auto-render turns `\\\\` into `\\` and `\\_` into `_`. Rows end with `\\cr`, spaces are
  `\\thinspace`, braces `\\lbrace`.
- No `$` and no backtick anywhere (markdown-it-texmath ends the math there, GitHub's $`...`$ too),
  and nothing CommonMark reads as emphasis, a link, HTML or an entity: `*`, `_`, `[`, `<`, `&`.
- Inside \\text{} only letters, digits and punctuation that KaTeX, MathJax with and without its
  textmacros extension (GitHub loads it; the default bundle does not) print as typed.

A token name becomes \\text{} runs of such characters, and math symbols for the rest (`<` is
`{\\lt}`, `_` an underline of a space), so `\\input{x}` or `[x](javascript:...)` stays text.

A labelled matrix is one outer `array`: the column labels in its first row, the row labels in its
first column, and the numbers in their own `array` inside `\\left[ \\right]`. The two inner arrays
line up because every one of their columns has the same width: the numbers are padded to it with
\\hspace (their glyphs have the same widths in KaTeX's and MathJax's fonts), the labels sit under an
\\hspace of it. A zero-width \\rule in every row gives both the same row height.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Sequence
from functools import lru_cache

from attncli.i18n import Symbol
from attncli.render.md_measure import column_width, is_text, lines_of
from attncli.render.tex import LATEX_SPECIALS, MATH_SYMBOLS

# ASCII with a meaning to TeX or Markdown, written as a math symbol (braced: an ordinary symbol,
# with no spacing around it).
ASCII_SYMBOLS = {
    "\\": r"{\backslash}", "{": r"{\lbrace}", "}": r"{\rbrace}", "<": r"{\lt}", ">": r"{\gt}",
    "|": r"{\vert}", "*": r"{\ast}", "[": r"{\lbrack}", "]": r"{\rbrack}", "~": r"{\sim}",
    "-": r"\text{-}",  # alone: KaTeX makes -- a dash
    "_": r"\underline{\hspace{0.5em}}", "^": r"\hat{\hspace{0.5em}}",
    # no macro prints these in every engine without a backslash before punctuation
    "#": r"\verb|#|", "%": r"\verb|%|", "&": r"\verb|&|",
}
# `$` and the backtick cannot appear at all and no macro prints them in every engine: they are
# written as their code points, like any character the engines have no glyph for.


def code_point(ch: str) -> str:
    return r"\mathtt{U{+}" + f"{ord(ch):04X}" + "}"


def token(text: str) -> str:
    """A user's word (a token name) as math that prints exactly these characters; attn's own
    notation (a Symbol, such as the column `m_old`) as its math."""
    if isinstance(text, Symbol):
        return formula(text.latex)
    out: list[str] = []
    run: list[str] = []

    def flush() -> None:
        if run:
            out.append(r"\text{" + "".join(run) + "}")
            run.clear()

    for ch in " ".join(text.split()):
        if is_text(ch):
            run.append(ch)
            if ch == ":":  # `javascript:` or `http://` never stands whole for a linkifier
                flush()
            continue
        flush()
        if ch in ASCII_SYMBOLS:
            out.append(ASCII_SYMBOLS[ch])
        elif ch in MATH_SYMBOLS:
            out.append("{" + MATH_SYMBOLS[ch] + "}")
        else:
            out.append(code_point(ch))
    flush()
    return "".join(out) or r"\text{}"


# --- formulas written for LaTeX, made safe for Markdown ---

# Backslash + ASCII punctuation -> the same in letters (CommonMark would drop the backslash).
SPACING = {r"\,": r"\thinspace", r"\;": r"\thickspace", r"\:": r"\medspace",
           r"\!": r"\negthinspace", r"\{": r"\lbrace", r"\}": r"\rbrace", r"\|": r"\Vert",
           "\\\\": r"\cr"}
_LATEX_TEXT = {value: key for key, value in LATEX_SPECIALS.items()}
_SYMBOL_TEXT = {value: key for key, value in MATH_SYMBOLS.items()}
_SPECIALS_LONGEST_FIRST = sorted(_LATEX_TEXT, key=len, reverse=True)
# the first characters of every escape latex_text reads: a special, a font switch `{\\font…`,
# \\ensuremath and \\texttt; the text between two of them is copied whole
_ESCAPE_START = re.compile("[" + re.escape("".join(sorted(
    {s[0] for s in _LATEX_TEXT} | {"{", "\\"}))) + "]")


@lru_cache(maxsize=4096)  # the formulas of a step, the same in every walkthrough of a batch
def formula(latex: str) -> str:
    """Formula.latex (written for pdflatex) in the math every Markdown engine draws: words in
    \\text{} re-escaped as tokens, \\operatorname{f} as \\mathop{\\mathrm{f}}, no backslash
    before punctuation."""
    out: list[str] = []
    i = 0
    while i < len(latex):
        if latex[i] != "\\":  # up to the next command as it is
            end = latex.find("\\", i)
            end = len(latex) if end < 0 else end
            out.append(latex[i:end])
            i = end
        elif latex.startswith(r"\text{", i):
            end = _group_end(latex, i + len(r"\text"))
            out.append(token(latex_text(latex[i + len(r"\text{"):end])))
            i = end + 1
        elif latex.startswith(r"\operatorname{", i):
            end = _group_end(latex, i + len(r"\operatorname"))
            out.append(r"\mathop{\mathrm{" + latex[i + len(r"\operatorname{"):end] + "}}")
            i = end + 1
        elif latex[i:i + 2] in SPACING:
            out.append(SPACING[latex[i:i + 2]])
            i += 2
            if latex[i:i + 1].isalpha():  # \thinspace v, not \thinspacev
                out.append(" ")
        elif i + 1 < len(latex) and latex[i + 1].isalpha():
            name = re.match(r"\\[A-Za-z]+", latex[i:])
            assert name is not None
            out.append(name.group())
            i += len(name.group())
        else:
            out.append(latex[i])
            i += 1
    return "".join(out)


def _group_end(text: str, start: int) -> int:
    """Index of the `}` closing the group that opens at text[start] == `{`."""
    depth = 0
    i = start
    while i < len(text):
        if text[i] == "\\":
            i += 2
            continue
        depth += {"{": 1, "}": -1}.get(text[i], 0)
        if depth == 0:
            return i
        i += 1
    raise ValueError(f"unbalanced group in {text!r}")


def latex_text(escaped: str) -> str:
    """The characters that tex.escape_text (dialect "latex") wrote as `escaped`."""
    out: list[str] = []
    i = 0
    specials = _SPECIALS_LONGEST_FIRST
    while i < len(escaped):
        plain = _ESCAPE_START.search(escaped, i)  # up to what may begin an escape, as it is
        end = len(escaped) if plain is None else plain.start()
        if end > i:
            out.append(escaped[i:end])
            i = end
            continue
        rest = escaped[i:]
        special = next((s for s in specials if rest.startswith(s)), None)
        switch = re.match(r"\{\\fontencoding\{\w+\}\\selectfont ", rest)
        if special is not None:
            out.append(_LATEX_TEXT[special])
            i += len(special)
        elif switch is not None:
            end = _group_end(escaped, i)
            out.append(latex_text(escaped[i + len(switch.group()):end]))
            i = end + 1
        elif rest.startswith(r"\ensuremath{"):
            end = _group_end(escaped, i + len(r"\ensuremath"))
            out.append(_SYMBOL_TEXT[escaped[i + len(r"\ensuremath{"):end]])
            i = end + 1
        elif rest.startswith(r"\texttt{U+"):
            end = _group_end(escaped, i + len(r"\texttt"))
            out.append(chr(int(escaped[i + len(r"\texttt{U+"):end], 16)))
            i = end + 1
        else:
            out.append(escaped[i])
            i += 1
    return "".join(out)


# --- numbers ---

# Widths in em of the glyphs a number is made of: the same in KaTeX's and MathJax's TeX fonts.
NUMBER_GLYPHS = {**{d: (d, 0.5) for d in "0123456789"}, ".": (".", 0.278), ",": ("{,}", 0.278),
                 "-": ("{-}", 0.778), "−": ("{-}", 0.778), "∞": (r"\infty", 1.0),
                 "—": (r"\text{—}", 1.0), "N": (r"\text{N}", 0.75), "a": (r"\text{a}", 0.5),
                 # the marks of an elided matrix: a cell is centred in its column, so only its
                 # true width puts its right edge at the numbers' (KaTeX's and MathJax's glyphs)
                 "⋮": (r"{\vdots}", 0.278), "⋯": (r"{\cdots}", 1.172), "⋱": (r"{\ddots}", 1.282)}


BLANK = "\ufffc"  # before a number's text: a worksheet's blank cell as wide as that number


def number(text: str) -> tuple[str, float]:
    """A printed number (`0.35`, `−0.35`, `0,35`, `−∞`, `NaN`) as math, and its width in em; a
    blank cell (BLANK + a number) is a line to write on, as wide as that number."""
    if text.startswith(BLANK):
        _, width = number(text[len(BLANK):])
        return rf"\underline{{\hspace{{{width:.2f}em}}}}", width
    return _number(text)


@lru_cache(maxsize=4096)  # a walkthrough prints the same few hundred numbers again and again
def _number(text: str) -> tuple[str, float]:
    parts = [NUMBER_GLYPHS[ch] if ch in NUMBER_GLYPHS else (token(ch), 1.0) for ch in text]
    return "".join(p for p, _ in parts), sum(w for _, w in parts)


# --- labelled matrices ---

STRUT = r"\rule[-0.35em]{0pt}{1.3em}"  # taller and deeper than any letter: equal rows
# The cells are a `matrix`, as LaTeX's bmatrix sets them: no room at its edges in KaTeX or in
# MathJax (an `array` has half a column gap there in KaTeX and none in MathJax, where the first
# column sat against the bracket), 1em between columns; inside each bracket, the half of that gap
# every column has on either side. Each cell is padded to its column's width, so all of a
# column's numbers end at one right edge.
EDGE = r"\hspace{0.5em}"


def _em(value: float) -> str:
    return f"{value:.3f}".rstrip("0").rstrip(".") + "em"


def labelled_matrix(symbol: str, cells: Sequence[Sequence[str]], rows: Sequence[str],
                    columns: Sequence[str], wrap: bool = False) -> list[str]:
    """`symbol =` a bracketed matrix, its column labels above and its row labels on the left;
    one line of math per row, each ending in \\cr. With `wrap` (see md_measure.wraps), a long
    label is set in lines (label_lines), as LaTeX's: a column's last line over its numbers, a
    row's numbers beside its first line (the numbers' array has an empty row for each further
    line, so the two arrays keep one row height). Set in lines of 16 characters, a label of 40
    fits the page beside its numbers at the text's size (no size command: MathJax's default
    bundle knows none in math)."""
    numbers = [[number(c) for c in row] for row in cells]
    widths = [column_width(c, [row[j] for row in numbers], wrap) for j, c in enumerate(columns)]
    digits = [max(row[j][1] for row in numbers) for j in range(len(columns))]
    heads = [lines_of(c, wrap) for c in columns]
    depth = max((len(h) for h in heads), default=1)
    heads = [[""] * (depth - len(h)) + h for h in heads]  # the last lines side by side
    sides = [lines_of(r, wrap) for r in rows]
    lines = [r"\begin{array}{rrc}",
             r"& & \begin{matrix}",
             " & ".join(r"\hspace{" + _em(w) + "}" for w in widths) + r" \cr",
             *(" & ".join(token(h[k]) if h[k] else "" for h in heads)
               + (r" \cr" if k < depth - 1 else "") for k in range(depth)),
             r"\end{matrix} \cr",
             symbol + r" = & \begin{array}{r}",
             *_rows([[STRUT + token(line)] for line in side] for side in sides),
             r"\end{array} & \left[" + EDGE + r"\begin{matrix}"]
    table = []
    for side, row in zip(sides, numbers, strict=True):
        out = []
        for j, (tex, w) in enumerate(row):
            margin = (widths[j] - digits[j]) / 2
            left, right = margin + digits[j] - w, margin
            out.append((STRUT if j == 0 else "") + _pad(left) + tex + _pad(right))
        table.append([out] + [[STRUT] + [""] * (len(row) - 1) for _ in side[1:]])
    lines += _rows(table)
    lines += [r"\end{matrix}" + EDGE + r"\right]", r"\end{array}"]
    return lines


def _rows(groups: Iterable[Iterable[list[str]]]) -> list[str]:
    """Array rows (lists of cells), each group's one after another, as lines ending in \\cr
    but the last."""
    rows = [" & ".join(row) for group in groups for row in group]
    return [row + (r" \cr" if i < len(rows) - 1 else "") for i, row in enumerate(rows)]


def _pad(width: float) -> str:
    return r"\hspace{" + _em(width) + "}" if width > 0.0005 else ""


def written_out(rows: Iterable[str]) -> Iterator[list[str]]:
    """align* rows (`S[a, b] &= q_a \\cdot k_b = ...`) as lines of math, one each, as they
    come, each cut into pieces that end in a top-level `=`, `\\approx` or `+` (see pieces)."""
    return (list(_row_pieces(row)) for row in rows)


@lru_cache(maxsize=4096)  # a walkthrough's rows are the same in each language of a batch
def _row_pieces(row: str) -> tuple[str, ...]:
    return tuple(pieces(formula(_ALIGN.sub("", row, count=1))))


_ALIGN = re.compile(r"(?<!\\)&")  # align*'s column mark, which a line of inline math drops


_TOP = re.compile(r"\\left\b|\\right\b|[{}]| = | \\approx | \+ ")
# Within a piece that long names make too long for a line (LONG_PIECE characters shown), also
# after a product's dot and an index's comma: `q_{…} \cdot{}` `k_{…} ={}`, `S[the₂,{}` `…] ={}`;
# and a piece still too long (a name alone nearly a line) after a `_` of a name in it.
_LONG_TOP = re.compile(r"\\left\b|\\right\b|[{}]| \\cdot |, ")
_NAME_GAP = re.compile(r"\\left\b|\\right\b|\\underline\{\\hspace\{0\.5em\}\}|[{}]")
LONG_PIECE = 40


def pieces(tex: str) -> list[str]:
    """`a = b + c` as `a ={}`, `b +{}`, `c` (and after `\\approx`, as after `=`): inline math that
    a page may wrap between the pieces; a piece longer than LONG_PIECE characters (long token
    names) is cut again after its `\\cdot` and its commas.
    KaTeX breaks a long inline formula after a relation or a binary operator by itself, MathJax
    3's default bundle never does (its line breaking is for displays, and off): written as
    pieces, a long line wraps in both, at the same places, and stays in the column."""
    return [part for piece in _cut(tex, _TOP)
            for cut in (_cut(piece, _LONG_TOP) if shown_length(piece) > LONG_PIECE else [piece])
            for part in (_halves(cut) if shown_length(cut) > LONG_PIECE else [cut])]


def _halves(piece: str) -> list[str]:
    """A piece cut in two after the `_` of a name nearest its middle."""
    parts = _cut(piece, _NAME_GAP)
    lengths = [shown_length(part) for part in parts]
    if len(parts) < 2:
        return parts
    half = min(range(1, len(parts)), key=lambda k: abs(2 * sum(lengths[:k]) - sum(lengths)))
    return ["".join(parts[:half]), "".join(parts[half:])]


def shown_length(tex: str) -> int:
    """About how many characters `tex` shows: without its commands, braces and scripts' marks."""
    return len(_UNSHOWN.sub("", tex))


_UNSHOWN = re.compile(r"\\[A-Za-z]+|[{}_^\s]")  # what shown_length does not count


def _cut(tex: str, top: re.Pattern[str]) -> list[str]:
    """`tex` cut after each of `top`'s separators outside braces and \\left…\\right, each piece
    but the last ending in `{}`."""
    out, depth, start = [], 0, 0
    for found in top.finditer(tex):
        token = found.group()
        if token in ("{", "\\left"):
            depth += 1
        elif token in ("}", "\\right"):
            depth -= 1
        elif depth == 0:  # `+{}`: an operator between two atoms, spaced as in the whole line
            out.append(tex[start:found.end()].strip() + "{}")
            start = found.end()
    out.append(tex[start:].strip())
    return [piece for piece in out if piece]
