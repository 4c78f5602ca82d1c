"""Text from the input written inside LaTeX: the one escaping table that the formulas of the
walkthrough (token names in `S[chases, cat]`), the LaTeX export and the Markdown math share.

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
from collections.abc import Iterable
from functools import lru_cache
from typing import Literal

from attncli.i18n import Symbol
from attncli.model.tex_widths import TEXT_WIDTHS

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
        elif letter in ("EPSILON", "PHI"):  # U+03B5 ε and U+03C6 φ are TeX's \var forms
            table[chr(code)] = "\\var" + letter.lower()
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


CODE_POINT = 5.25  # a character of cmtt10, the typewriter type of `U+XXXX`


def text_width(text: str) -> float:
    """Points `text` takes as LaTeX text (\\text{...}) at 10 pt (model/tex_widths.py); a
    character written as its code point (code_point), as wide as that code."""
    return sum(map(_width, text))


def _width(ch: str) -> float:
    return TEXT_WIDTHS.get(ch) or CODE_POINT * len(f"U+{ord(ch):04X}")


# The widest word a page shows whole, in points at 10 pt: a name as wide as the conformance
# matrix's widest (`{braces}_$dollars$_%percent%_&amp;_#hash#`, 222.6 pt) fits every place a
# name goes (a column label, a subscript in a written-out line, a heatmap's row, a 4:3 slide),
# while a word has no point TeX may break at.
WIDEST_WORD = 225.0
# A word is what TeX sets on one line: it ends at a space only. A no-break space ties two words
# (`~`), and after a dash written as a character (`–`, `—`) TeX breaks nowhere either, so
# `ab—ab—…` and words joined by U+00A0 are one word (they ran 55 to 4,538 pt past the margin).
# One of 4 characters is narrower than 225 pt even as code points (`U+10FFFF`, 42 pt each).
_WORD = re.compile(r"[^ \t\n\r\f\v]{5,}")
_ELLIPSIS = "…"


def shown_word(word: str, widest: float = WIDEST_WORD) -> str:
    """A word wider than `widest` (a token name of 250 letters) as its first and last
    characters around `…`, as many as fit that width, the first part one character longer when
    they differ; attn's notation (a Symbol) whole."""
    if isinstance(word, Symbol) or not _wider(word, widest):
        return word
    room = widest - text_width(_ELLIPSIS)
    head, tail = 0, 0
    while head + tail < len(word):
        nxt = word[head] if head <= tail else word[len(word) - 1 - tail]
        room -= _width(nxt)
        if room < 0:
            break
        head, tail = (head + 1, tail) if head <= tail else (head, tail + 1)
    return word[:head] + _ELLIPSIS + word[len(word) - tail:]


def _wider(text: str, widest: float) -> bool:
    """text_width(text) > widest, summed only as far as needed: widths are never negative."""
    total = 0.0
    for ch in text:
        total += _width(ch)
        if total > widest:
            return True
    return False


def shown_words(text: str, widest: float = WIDEST_WORD) -> str:
    """`text` with every word wider than `widest` shortened in the middle (shown_word)."""
    if isinstance(text, Symbol) or len(text) < 5:
        return text
    return _WORD.sub(lambda found: shown_word(found.group(), widest), text)


# A page asks for each name's short form in several places (the labels of each token list, the
# long names a format replaces): 4,096 names of 1,000 characters were shortened 5 times each, a
# second of a small page. Each is shortened once; typed, so a Symbol is never taken for its text.
@lru_cache(maxsize=1 << 13, typed=True)
def shown_name(name: str) -> str:
    """A token name wider than WIDEST_WORD shortened in the middle (shown_word) as a whole: as
    a label or in `k_name` it is set in \\text{} inside math, where TeX breaks it nowhere, not
    at its spaces (`word word word …`), its dashes or its no-break spaces either."""
    if isinstance(name, Symbol) or len(name) < 5:
        return name
    return shown_word(name)


# The user's prose (a title, a description): TeX breaks a paragraph at its spaces and dashes,
# never inside a word of 400 letters, which is shortened like a name.
shown_prose = shown_words

# The title is set as a heading, \\section* (14.4 pt bold) or \\subsection* (12 pt bold) of a
# document in several languages: bold at 14.4 pt takes about 1.6 times the room of the body's
# roman, so a word of WIDEST_WORD there overflowed the line (by 3 to 10 pt, and 32 pt with a
# ` + M` tied to it); its words are shortened to what the heading sets as wide.
HEADING_SCALE = 1.6


def shown_heading(text: str) -> str:
    """A title with every word too wide for its heading shortened in the middle (shown_word)."""
    return shown_words(text, WIDEST_WORD / HEADING_SCALE)


def escape_text(text: str, dialect: Dialect = "latex", cyrillic_base: bool = False) -> str:
    """`text` as TeX text that prints exactly these characters, in text mode or inside \\text{}.

    Under "latex", a run of Cyrillic letters switches to the T2A encoding (and, in a document
    whose base encoding is T2A, a run of accented Latin letters switches to T1), so Polish,
    Russian and English words can share one line.
    """
    # no line breaks (a blank line would end a paragraph); a no-break space stays one
    text = re.sub(r"[ \t\n\r\f\v]+", " ", text).strip(" ")
    out: list[str] = []
    after_code = False  # the last character was written as its code point
    for run, kind in _runs(text, dialect):
        if kind == "ascii":
            specials = LATEX_SPECIALS if dialect == "latex" else KATEX_SPECIALS
            if after_code and run[0] in HEX_DIGITS:  # `U+E000` then 7, not `U+E0007`
                out.append(THIN_SPACE[dialect])
            out.append("".join(specials.get(ch, ch) for ch in run))
        elif kind == "other":
            out.append("".join(_other(ch, dialect) for ch in run))
        elif dialect == "latex" and kind == "cyrillic" and not cyrillic_base:
            out.append(r"{\fontencoding{T2A}\selectfont " + run + "}")
        elif dialect == "latex" and kind == "latin" and cyrillic_base:
            out.append(r"{\fontencoding{T1}\selectfont " + run + "}")
        else:
            out.append(run)
        after_code = kind == "other" and run[-1] not in MATH_SYMBOLS
    return "".join(out)


HEX_DIGITS = frozenset("0123456789ABCDEFabcdef")
# Between a code point and a digit or letter that would read as more of it: a thin space, in
# KaTeX and MathJax as math inside \text (their \text takes no spacing command).
THIN_SPACE: dict[Dialect, str] = {"latex": r"\,", "katex": r"$\,$"}


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
    """A word inside math: \\text{...} with the same escapes as prose; attn's own notation
    (a Symbol, such as the column `m_old`) as its math. Under "latex", a word too long for any
    line (a token name of 250 letters: no line breaks inside \\text, least of all in a subscript)
    is shortened in the middle as a whole (shown_name), as the LaTeX export's prose shows it:
    TeX breaks \\text{} inside math nowhere, not even at a space."""
    if isinstance(text, Symbol):
        return text.latex
    shown = shown_name(text) if dialect == "latex" else text
    return r"\text{" + escape_text(shown, dialect, cyrillic_base) + "}"
