"""Prose in the Markdown export: escaped so that a word prints as written (no HTML, emphasis,
link or table border from a token name), with the catalog's notation (`d_model = 4`, `÷ √d_k`,
`q_mouse`) typeset as inline math.

Token names reach a sentence as parameters of its message. `Marked` translates a message with
each word parameter replaced by a mark (attncli/render/marks.py: a character no user's text
holds), so `prose` knows which characters came from the user: those are escaped, or, in
`q_mouse`, written as math by md_math.token.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import replace

from attncli.i18n import Msg, Symbol
from attncli.i18n.visible import inert_markdown_math
from attncli.render import md_math, symbols
from attncli.render.marks import END, MARK
from attncli.render.notation import segments

# Characters that start Markdown syntax anywhere in a line; a backslash makes them literal. `{`
# too: pandoc reads `{…}` at a heading's end as its attributes (the title `T {onclick=…}` was
# `<h1 onclick=…>`), and commonmark_x reads it after any text as a span's.
MARKDOWN_SPECIALS = frozenset("\\`*_[]#|~$<>!{")
# Characters that start a block at the beginning of a line (a list, a quote, a heading).
LINE_START = frozenset("-+>=")
_WORD = re.compile(MARK + r"(\d+)" + END)


class Marked:
    """A translator that marks each word parameter and keeps the words."""

    def __init__(self, t: Callable[[Msg], str]) -> None:
        self.t = t
        self.words: list[str] = []

    def __call__(self, msg: Msg) -> str:
        return self.t(self._marked(msg))

    def _marked(self, msg: Msg) -> Msg:
        """`msg` with every word parameter marked, in the sentences it holds too."""
        params = tuple((name, self._mark(value) if isinstance(value, str)
                        and not symbols.is_subscript(value)  # the `₁` of `K₁`: attn's own
                        else self._marked(value) if isinstance(value, Msg) else value)
                       for name, value in msg.params)
        return replace(msg, params=params)

    def _mark(self, word: str) -> str:
        self.words.append(word)
        return f"{MARK}{len(self.words) - 1}{END}"

    def unmark(self, text: str) -> str:
        return unmark(text, self.words)


def unmark(text: str, words: Sequence[str]) -> str:
    return _WORD.sub(lambda m: words[int(m.group(1))], text)


def inline_math(tex: str, flavor: str) -> str:
    tex = inert_markdown_math(tex)
    return "$`" + tex + "`$" if flavor == "github" else "$" + tex + "$"


def escape(text: str) -> str:
    """A line of prose or a table cell that Markdown prints as written: no HTML, no emphasis, no
    link, no table border."""
    # one line; a no-break space (Polish and Russian typography) stays one
    line = re.sub(r"[ \t\n\r\f\v]+", " ", text).strip(" ")
    return _line_start(line.translate(_ESCAPES))


# each special character with its backslash, `&` as `&amp;`: one str.translate a line
_ESCAPES = {ord(ch): "\\" + ch for ch in MARKDOWN_SPECIALS} | {ord("&"): "&amp;"}


def _line_start(line: str) -> str:
    return "\\" + line if line[:1] in LINE_START or numbered(line) else line


_VALUED = re.compile(rf"(?P<valued>{symbols.SYMBOL_EQUALS}){MARK}(?P<number>\d+){END}")
_SUBSCRIPT = re.compile(rf"(?<![\w])([qk])_{MARK}(\d+){END}")  # q_{query}: named by a token


def prose(text: str, flavor: str, words: Sequence[str] = (), lang: str = "en") -> str:
    """A sentence escaped like `escape`, its notation (`d_k = 2`, `÷ √d_k`, `q_mouse`, `W_Q`)
    as inline math, found as the LaTeX export finds it (attncli/render/notation.py); `words`
    are the marked word parameters (see Marked): a Symbol among them is math too."""
    text = " ".join(re.split(r"[^\S\u00a0]+", text.strip()))  # keeps no-break spaces
    if flavor == "plain":
        return escape(unmark(text, words))
    text, words = _valued(text, words, lang)
    out: list[str] = []
    for is_math, part in segments(text, lang):
        if is_math:
            out.append(inline_math(_attached(out, md_math.formula(part)), flavor))
        else:
            out.append(_words(part, flavor, words))
    return _line_start(_touching("".join(out), flavor))


def _touching(line: str, flavor: str) -> str:
    """Two inline formulas with nothing between (the symbol `S`, then its subscript `{}_{11}`)
    as one: `$S$$…$` would open a display. A subscript then joins its letter (`S_{11}`, not
    `S{}_{11}`): an underscore after `}` opens CommonMark emphasis (see `_attached`)."""
    if flavor == "github":
        return re.sub(r"(?<=[A-Za-z])`\$\$`\{\}_", "_", line).replace("`$$`", "")
    return re.sub(r"(?<!\\)\$\$", "", re.sub(r"(?<=[A-Za-z])\$\$\{\}_", "_", line))


def _words(text: str, flavor: str, words: Sequence[str]) -> str:
    """Prose between the catalog's notation: a user's word escaped, `q_{query}` and attn's own
    symbols as math."""
    out: list[str] = []
    end = 0
    for match in re.finditer(rf"{_SUBSCRIPT.pattern}|{MARK}(\d+){END}", text):
        out.append(_literal(text[end:match.start()], words))
        if match.group(1):
            tex = match.group(1) + "_{" + md_math.token(words[int(match.group(2))]) + "}"
            out.append(inline_math(tex, flavor))
        else:
            word = words[int(match.group(3))]
            out.append(_symbol_math(out, word, flavor) if isinstance(word, Symbol)
                       else word.translate(_ESCAPES))
        end = match.end()
    out.append(_literal(text[end:], words))
    return "".join(out)


def _symbol_math(out: list[str], symbol: Symbol, flavor: str) -> str:
    """attn's notation as inline math; one that long names make too long for a line (the score
    the cap bends most, `S′[name, name]`) in pieces a page may wrap between, as a written-out
    line is (md_math.pieces)."""
    tex = _attached(out, md_math.formula(symbol.latex))
    if md_math.shown_length(tex) <= md_math.LONG_PIECE:
        return inline_math(tex, flavor)
    return " ".join(inline_math(piece, flavor) for piece in md_math.pieces(tex))


def _valued(text: str, words: Sequence[str], lang: str) -> tuple[str, list[str]]:
    """`s = {sink}`, `ε = {eps}` with a Symbol as the value: one formula, a new marked word."""
    out = list(words)

    def joined(match: re.Match[str]) -> str:
        word = out[int(match["number"])]
        if not isinstance(word, Symbol) or symbols.valued(match["valued"], lang) is None:
            return match.group(0)
        letter = match["valued"].split()[0]
        out.append(Symbol(f"{letter} = {word}",
                          f"{symbols.math_of(letter)} = {word.latex}"))
        return f"{MARK}{len(out) - 1}{END}"

    return _VALUED.sub(joined, text), out


def _attached(out: list[str], tex: str) -> str:
    """S₁₁ is $S_{11}$, not S${}_{11}$: an underscore after `}` opens CommonMark emphasis, which
    a later m_{…} closes, taking the math apart before KaTeX's auto-render; after a letter it
    never opens. The letter before a bare subscript moves into its math (out[-1] loses it)."""
    if tex.startswith("{}_") and out and re.search(r"(?<![\w\\])[A-Za-z]$", out[-1]):
        out[-1], letter = out[-1][:-1], out[-1][-1]
        return letter + tex[2:]
    return tex


def _literal(text: str, words: Sequence[str]) -> str:
    return unmark(text, words).translate(_ESCAPES)


def numbered(line: str) -> bool:
    """`1. word` or `1) word` at the start of a line would begin a numbered list."""
    digits = len(line) - len(line.lstrip("0123456789"))
    return 0 < digits < len(line) and line[digits] in ".)"
