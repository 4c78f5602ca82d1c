"""Prose in the Markdown export: escaped so that a word prints as written (no HTML, emphasis,
link or table border from a token name), with the catalog's notation (`d_model = 4`, `÷ √d_k`,
`q_mouse`) typeset as inline math.

Token names reach a sentence as parameters of its message. `Marked` translates a message with
each word parameter replaced by a mark, so `prose` knows which characters came from the user:
those are escaped, or, in `q_mouse`, written as math by md_math.token.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import replace

from attncli.i18n import Msg
from attncli.i18n.visible import inert_markdown_math
from attncli.render import md_math

# Characters that start Markdown syntax anywhere in a line; a backslash makes them literal.
MARKDOWN_SPECIALS = frozenset("\\`*_[]#|~$<>!")
# Characters that start a block at the beginning of a line (a list, a quote, a heading).
LINE_START = frozenset("-+>=")
MARK, END = "\ue000", "\ue001"  # private-use: around the index of a marked word
_WORD = re.compile(MARK + r"(\d+)" + END)


class Marked:
    """A translator that marks each word parameter and keeps the words."""

    def __init__(self, t: Callable[[Msg], str]) -> None:
        self.t = t
        self.words: list[str] = []

    def __call__(self, msg: Msg) -> str:
        params = tuple((name, self._mark(value) if isinstance(value, str) else value)
                       for name, value in msg.params)
        return self.t(replace(msg, params=params))

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
    return _line_start("".join(_escape_char(ch) for ch in line))


def _escape_char(ch: str) -> str:
    if ch == "&":
        return "&amp;"
    return "\\" + ch if ch in MARKDOWN_SPECIALS else ch


def _line_start(line: str) -> str:
    return "\\" + line if line[:1] in LINE_START or numbered(line) else line


# The notation the catalog's sentences use, and its math: `d_model = 4` is $d_{\text{model}} = 4$.
NOTATION = {"÷ √d_k": r"\div \sqrt{d_k}", "cos θ": r"\cos\theta",
            "q·k = |q|·|k|·cos θ": r"q \cdot k = |q| \cdot |k| \cdot \cos\theta",
            "√d_k": r"\sqrt{d_k}",
            "d_model": r"d_{\text{model}}", "d_ff": r"d_{\text{ff}}", "d_k": "d_k", "d_v": "d_v",
            "qᵢ·W·kⱼ": r"q_i \cdot W \cdot k_j", "qᵢ·kⱼ": r"q_i \cdot k_j", "−∞": r"-\infty",
            **{f"{m}_{i}": f"{m}_{{{i}}}" for m in "Wb" for i in "QKVO12"}}
_ATOM = "|".join([rf"[qk]_{MARK}\d+{END}",  # q_{query}: a vector named by a token
                  *(re.escape(n) for n in sorted(NOTATION, key=len, reverse=True))])
_NUMBER = r"\d+(?:[.,]\d+)?"
_SPAN = re.compile(rf"(?<!\w)(?:{_ATOM})(?: ?= ?(?:{_ATOM}|{_NUMBER}))*(?![\w])")


def prose(text: str, flavor: str, words: Sequence[str] = ()) -> str:
    """A sentence escaped like `escape`, its notation (`d_k = 2`, `÷ √d_k`, `q_mouse`) as inline
    math; `words` are the marked word parameters (see Marked)."""
    text = " ".join(re.split(r"[^\S\u00a0]+", text.strip()))  # keeps no-break spaces
    if flavor == "plain":
        return escape(unmark(text, words))

    def atom(match: re.Match[str]) -> str:
        word = _WORD.search(match.group())
        if word is None:
            return NOTATION[match.group()]
        return match.group()[0] + "_{" + md_math.token(words[int(word.group(1))]) + "}"

    def literal(part: str) -> str:
        return "".join(_escape_char(ch) for ch in unmark(part, words))

    out: list[str] = []
    end = 0
    for match in _SPAN.finditer(text):
        out.append(literal(text[end:match.start()]))
        tex = re.sub(_ATOM, atom, match.group().replace(",", "{,}"))
        out.append(inline_math(tex, flavor))
        end = match.end()
    out.append(literal(text[end:]))
    return _line_start("".join(out))


def numbered(line: str) -> bool:
    """`1. word` or `1) word` at the start of a line would begin a numbered list."""
    digits = len(line) - len(line.lstrip("0123456789"))
    return 0 < digits < len(line) and line[digits] in ".)"
