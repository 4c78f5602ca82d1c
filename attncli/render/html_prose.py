"""Catalog prose in the HTML export, with the notation that names a size as MathML, as the LaTeX,
Markdown and Typst exports set it as math (attncli/render/notation.py): a symbol with a
subscript, its value or sum (`d_k = 2 + 2`, `d_k = d_nope + d_R = 4`, `d_k/2`) and its root
(`÷ √d_k = 1.41`). The rest of a sentence, and every word a user wrote (a token's name, marked
while the sentence is translated), is escaped text: never markup.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from functools import lru_cache, partial
from html import escape

from attncli.i18n import Msg
from attncli.render.common import Translate
from attncli.render.md_prose import Marked, unmark
from attncli.render.notation import Segment, SizeMath, scan, size_math

_TERM = re.compile(r"[0-9]+(?:[.,][0-9]+)?|[=+−]")  # ` = 4 + 2`, ` = 1,41`
# notation._join puts ` = `, ` + ` or ` - ` between two pieces of one formula
_JOINED = re.compile(r" ([=+-]) ")
_OPERATORS = {"=": "=", "+": "+", "-": "−", "−": "−"}


def subscript(base: str, index: str) -> str:
    """`d_k`, `W_12`, and `d_nope`: a word as a subscript is upright text."""
    script = (f"<mi>{index}</mi>" if len(index) == 1 else
              f"<mn>{index}</mn>" if index.isdigit() else f"<mtext>{index}</mtext>")
    return f"<msub><mi>{base}</mi>{script}</msub>"


def value(equals: str | None) -> str:
    """` = 4 + 2` after a symbol: numbers as <mn> (a decimal comma is the number's own) and a
    true minus."""
    if equals is None:
        return ""
    return "".join(f"<mo>{_OPERATORS[term]}</mo>" if term in _OPERATORS else f"<mn>{term}</mn>"
                   for term in _TERM.findall(equals))


MATHML_SIZES = SizeMath(subscript=subscript, over=lambda digits: f"<mo>/</mo><mn>{digits}</mn>",
                        root=lambda inside: f"<msqrt>{inside}</msqrt>", divide="<mo>÷</mo>",
                        value=value)


@lru_cache(maxsize=4096)
def segments(text: str, lang: str) -> tuple[Segment, ...]:
    """`text` split into prose and MathML; kept for the next time, as notation.segments."""
    return scan(text, lang, partial(size_math, syntax=MATHML_SIZES))


def sentence(text: str, lang: str, words: Sequence[str] = ()) -> str:
    """A sentence of the catalog as HTML: its notation in <math>, the rest escaped; `words` are
    the word parameters Marked marked in it (md_prose.py), put back as text."""
    return "".join(
        "<math>" + _JOINED.sub(lambda m: f"<mo>{_OPERATORS[m.group(1)]}</mo>", part) + "</math>"
        if is_math else escape(unmark(part, words))
        for is_math, part in segments(text, lang))


def paragraph(msg: Msg, t: Translate, lang: str) -> str:
    """`msg` translated, as the inside of a <p>."""
    marked = Marked(t)
    return sentence(marked(msg), lang, marked.words)
