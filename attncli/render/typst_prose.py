"""Catalog prose in the Typst export, with the notation that names a size as math, as the LaTeX
and Markdown exports write it (attncli/render/notation.py): a symbol with a subscript, its value
or sum (`d_k = 2 + 2`, `d_k = d_nope + d_R = 4`, `d_k/2`) and its root (`÷ √d_k = 1.41`). The
rest of a sentence, and every word a user wrote (a token's name, marked while the sentence is
translated), is a string literal: never markup.

A sentence is one Typst expression, its strings and formulas added: `#("heads (" + $d_k = 2 +
2$ + "):")`.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from functools import lru_cache, partial

from attncli.i18n import Msg
from attncli.render.common import Translate
from attncli.render.md_prose import Marked, unmark
from attncli.render.notation import Segment, SizeMath, scan, size_math
from attncli.render.typst_math import quoted

_TERM = re.compile(r"[0-9]+(?:[.,][0-9]+)?|[=+−]")  # ` = 4 + 2`, ` = 1,41`


def subscript(base: str, index: str) -> str:
    """`d_k`, `W_(12)`, but `d_"nope"`: a word as a subscript is upright text."""
    if len(index) == 1:
        return f"{base}_{index}"
    return f"{base}_({index})" if index.isdigit() else f"{base}_{quoted(index)}"


def value(equals: str | None) -> str:
    """` = 4 + 2` after a symbol as Typst math: a true minus; a decimal comma is the number's own,
    not math's comma between two numbers (`"1,41"`)."""
    if equals is None:
        return ""
    terms = _TERM.findall(equals)
    return "".join(" " + ("-" if term == "−" else quoted(term) if "," in term else term)
                   for term in terms)


TYPST_SIZES = SizeMath(subscript=subscript, over=lambda digits: "\\/" + digits,
                       root=lambda inside: f"sqrt({inside})", divide="div ", value=value)


@lru_cache(maxsize=4096)
def segments(text: str, lang: str) -> tuple[Segment, ...]:
    """`text` split into prose and Typst math; kept for the next time, as notation.segments."""
    return scan(text, lang, partial(size_math, syntax=TYPST_SIZES))


def expression(text: str, lang: str, words: Sequence[str] = ()) -> str:
    """A sentence of the catalog as a Typst expression: its strings and formulas added; `words`
    are the word parameters Marked marked in it (md_prose.py), put back as text."""
    pieces = [f"${part}$" if is_math else quoted(unmark(part, words))
              for is_math, part in segments(text, lang)] or ['""']
    return pieces[0] if len(pieces) == 1 else "(" + " + ".join(pieces) + ")"


def paragraph(msg: Msg, t: Translate, lang: str) -> str:
    """`msg` translated as a paragraph: `#"…"`, or `#("…" + $…$ + "…")` with notation."""
    marked = Marked(t)
    return "#" + expression(marked(msg), lang, marked.words)
