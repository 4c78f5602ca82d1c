"""How wide a labelled matrix of the Markdown export is drawn, in em of math, and so where it is
split into column blocks: only when it does not fit the narrowest page it is read on, in
balanced blocks.

A page's measure is its text column over the pixels an em of math takes there (engines draw math
larger than the text around it), as tests/render measures them in headless Chromium:

- pandoc --mathjax, MathJax 3's default bundle: a 720 px column (36 em of 20 px text) and math
  1.244 times the text: 28.9 em. The narrowest, so the one that decides.
- GitHub's ~830 px column of 16 px text: 40.7 em in MathJax (1.273 times the text, as JupyterLab
  draws it), 42.9 em in KaTeX (1.21 times).

Beside the cells a matrix display holds its symbol (`S' + M`, `\\mathop{\\mathrm{RMS}}(Q)`),
` = `, the row labels, the brackets and, inside each, half a column gap (md_math.EDGE). All but the
symbol and the labels are the same for every matrix (FRAME, measured per engine); the symbol is
counted by its glyphs (math_width), the labels by theirs (text_width).
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from functools import lru_cache
from typing import NamedTuple

from attncli.render.common import column_blocks, label_lines
from attncli.render.latex_matrix import balanced
from attncli.render.tex import MATH_SYMBOLS, NOT_IN_KATEX, PUNCTUATION


class Measure(NamedTuple):
    """A page in em of math: its column, and what a matrix display takes besides its symbol,
    its row labels and its cells (` = `, the array's gaps, the brackets, the edges)."""
    page: float
    frame: float


# Measured by tests/render (the drawn width of matrices less their cells, row labels and symbol,
# 0.1 em to spare); KaTeX's array keeps half a column gap at each outer edge, MathJax's does not.
MEASURES = {"pandoc + MathJax 3": Measure(720 / (20 * 1.244), 4.3),
            "GitHub, MathJax 3": Measure(830 / (16 * 1.273), 4.3),
            "KaTeX": Measure(830 / (16 * 1.21), 5.35)}

# Widths in em of Computer Modern roman (KaTeX's and MathJax's text font); too wide is harmless
# (a little more room), so a character not in the table counts as wide.
CMR = {**dict(zip("abcdefghijklmnopqrstuvwxyz", (
    .5, .556, .444, .556, .444, .306, .5, .556, .278, .306, .528, .278, .833, .556, .5, .556,
    .528, .392, .394, .389, .556, .528, .722, .528, .528, .444), strict=True)),
    **dict(zip("ABCDEFGHIJKLMNOPQRSTUVWXYZ", (
        .75, .708, .722, .764, .681, .653, .785, .75, .361, .514, .778, .625, .917, .75, .778,
        .681, .778, .736, .556, .722, .75, .75, 1.028, .75, .75, .611), strict=True)),
    **{d: .5 for d in "0123456789"}, " ": .333, ".": .278, ",": .278, ":": .278, ";": .278,
    "(": .389, ")": .389, "'": .278, "!": .278, "?": .472, "/": .5, "-": .333}
# Math italic (cmmi10), with the italic correction MathJax adds before a script.
CMMI = {**dict(zip("abcdefghijklmnopqrstuvwxyz", (
    .529, .429, .433, .52, .466, .49, .477, .576, .345, .412, .521, .298, .878, .6, .485, .503,
    .446, .451, .469, .361, .572, .485, .716, .572, .49, .465), strict=True)),
    **dict(zip("ABCDEFGHIJKLMNOPQRSTUVWXYZ", (
        .75, .759, .715, .828, .738, .643, .786, .831, .44, .555, .849, .681, .97, .803, .763,
        .642, .791, .759, .613, .584, .683, .583, .944, .828, .581, .683), strict=True))}
# Math symbols with the space TeX sets around them: a binary operator 2/9 em on each side, a
# relation 5/18, a comma 1/6 after it; a prime is a small superscript.
MATH = {"+": .778 + .444, "-": .778 + .444, "=": .778 + .556, ",": .278 + .167, "'": .3,
        "(": .389, ")": .389, "[": .278, "]": .278, "|": .278, ":": .278, "/": .5}
COMMANDS = {"thinspace": .167, "medspace": .222, "thickspace": .278, "quad": 1.0, " ": .333,
            "cdot": .278 + .444, "odot": .778 + .444, "times": .778 + .444, "ell": .417,
            "alpha": .64, "beta": .566, "gamma": .518, "mu": .603, "sigma": .571, "omega": .622,
            "theta": .469, "tau": .437, "lambda": .583, "pi": .57, "infty": 1.0}
ACCENTS = ("tilde", "hat", "bar", "vec", "left", "right", "mathop", "mathrm", "text", "mathit")
SCRIPT = 0.7  # a sub- or superscript's size
ITALIC = {**CMR, **CMMI, **MATH}  # outside \mathrm and \text: letters italic, symbols spaced


@lru_cache(maxsize=1024)
def math_width(tex: str) -> float:
    """About how wide `tex` (a matrix's symbol, as md_math writes it) is drawn, in em, at least:
    italic letters by cmmi10, \\mathrm and \\text by cmr10, scripts at 0.7, an unknown command
    1 em."""
    width, roman, pending, size = 0.0, 0, False, 1.0
    groups: list[tuple[bool, float]] = []  # each open group: whether it is upright, its size
    for found in re.finditer(r"\\[A-Za-z]+|\\.|[_^]\{|[_^].|.", tex):
        part = found.group()
        if part in (r"\mathrm", r"\text"):
            pending = True
        elif part.startswith("\\"):
            if part[1:] not in ACCENTS:
                width += size * COMMANDS.get(part[1:], 1.0)
        elif part[0] in "_^" and part.endswith("{"):
            groups.append((False, size))
            size *= SCRIPT
        elif part[0] in "_^":
            width += SCRIPT * size * (MATH.get(part[1]) or CMMI.get(part[1], 1.0))
        elif part == "{":
            groups.append((pending, size))
            roman += pending
            pending = False
        elif part == "}" and groups:
            upright, size = groups.pop()
            roman -= upright
        elif part not in " }":
            table = CMR if roman > 0 else ITALIC
            width += size * table.get(part, 1.0)
    return width


@lru_cache(maxsize=4096)  # a matrix's labels are measured for each of its blocks and symbols
def text_width(text: str) -> float:
    """A label's width in em, at least: other fonts (Cyrillic falls back to the browser's) get
    a wide guess; a character md_math.token writes as its code point (`$`, a private-use or CJK
    character) is as wide as `U+XXXX` in \\mathtt."""
    return sum(CMR.get(ch) or (TT * len(f"U+{ord(ch):04X}") if _code_point(ch)
                               else 0.8 if ch.islower() else 1.0) for ch in text) + 0.3


# ASCII that every engine prints as typed inside \text{} and that Markdown leaves alone there.
TEXT_SAFE = frozenset(
    "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789 .,:;?!()/@+=\"'")
TT = 0.525  # a character of \mathtt (Computer Modern Typewriter), in em


def is_text(ch: str) -> bool:
    """Whether md_math.token sets `ch` in \\text{} as typed."""
    if ch in TEXT_SAFE:
        return True
    if ch.isascii() or ch in MATH_SYMBOLS or ch in NOT_IN_KATEX:
        return False
    code = ord(ch)
    return (0x400 <= code <= 0x45F or ch in "Ґґ" or (0xC0 <= code <= 0x17F and ch not in "×÷")
            or ch in PUNCTUATION)


def _code_point(ch: str) -> bool:
    """Whether md_math.token writes `ch` as its code point: no engine prints it (`$`, the
    backtick) or has a glyph for it (neither text nor an ASCII symbol nor a math symbol)."""
    return (ch in "$`" or not ch.isascii()) and not is_text(ch) and ch not in MATH_SYMBOLS


def lines_of(label: str, wrap: bool) -> list[str]:
    return label_lines(label) if wrap else [label]


def label_width(label: str, wrap: bool = False) -> float:
    """A label's width in em: its widest line (set in lines when `wrap`, see wraps)."""
    return max(text_width(line) for line in lines_of(label, wrap))


def column_width(label: str, cells: Sequence[tuple[str, float]], wrap: bool = False) -> float:
    return max(label_width(label, wrap), *(w for _, w in cells))


def widths(columns: Sequence[str], cells: Sequence[Sequence[tuple[str, float]]],
           wrap: bool = False) -> list[float]:
    """Each column's width with the 1 em gap the cells' `matrix` sets beside it."""
    return [column_width(c, [row[j] for row in cells], wrap) + 1.0
            for j, c in enumerate(columns)]


def room(symbol: str, rows: Sequence[str], wrap: bool = False) -> float:
    """The em of cells (each with its gap) that fit beside `symbol =` and the row labels on
    every page: the least over MEASURES."""
    beside = math_width(symbol) + max((label_width(r, wrap) for r in rows), default=0.0)
    return min(page - frame - beside for page, frame in MEASURES.values())


def wraps(symbol: str, columns: Sequence[str], cells: Sequence[Sequence[tuple[str, float]]],
          rows: Sequence[str]) -> bool:
    """Whether the matrix's long labels are set in lines (label_lines, 16 characters, as LaTeX
    sets its column labels): when, whole, they leave no room for even its widest column beside
    the row labels (40-character token names). Else every label is one line, as it was."""
    return max(widths(columns, cells), default=0.0) > room(symbol, rows)


def blocks(symbol: str, columns: Sequence[str], cells: Sequence[Sequence[tuple[str, float]]],
           rows: Sequence[str]) -> list[range]:
    """Column blocks that each fit every page beside `symbol =` and the row labels: the whole
    matrix when it fits, else as few blocks as fit, of nearly equal size when that fits (4 + 4,
    not 7 + 1), as LaTeX's."""
    wrap = wraps(symbol, columns, cells, rows)
    sizes = widths(columns, cells, wrap)
    available = room(symbol, rows, wrap)
    filled = column_blocks([math.ceil(w * 100) for w in sizes], math.floor(available * 100))
    for count in range(len(filled), len(columns) + 1):
        even = balanced(len(columns), math.ceil(len(columns) / count))
        if all(sum(sizes[j] for j in block) <= available for block in even):
            return even
    return filled
