"""Text from the input shown inert: every character that a terminal, a viewer or an XML parser
would act on, or that a reader could not see, is written as an escape a reader can see.

A spec, a file name or a manifest comes from whoever wrote it (in CI, a contributor's pull
request). `visible` is the one function that makes such text safe to show; every renderer (through
`render.render`) and every error message (attncli/cli/) calls it, so

- no control character reaches a terminal or a file raw: ESC, BEL, CR, BS, DEL and the C1
  controls (U+0080-U+009F, which some terminals read as ESC [) become `\\x1b`, `\\r` ...;
- no character that XML 1.0 forbids (most of C0, lone surrogates, U+FFFE and U+FFFF, even as
  references) reaches an SVG;
- zero-width and bidirectional characters (U+200B, U+202E ...) and the other invisible format
  characters show, so `a` and `a` followed by U+200B get labels that look different.

Escapes read as in Python and JSON: `\\n`, `\\r`, `\\t`, `\\xHH` below U+0100, `\\uHHHH`, and
`\\UHHHHHHHH` above the BMP.
"""

from __future__ import annotations

import re
import unicodedata
from functools import cache

_NAMED = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}

# Cc (C0, DEL, C1), Cf (format: zero-width, bidi, soft hyphen, BOM ...), Cs (lone surrogates),
# Zl/Zp (line and paragraph separators), and the noncharacters U+FDD0-U+FDEF and U+xFFFE/U+xFFFF
# of every plane, which XML forbids or a viewer may drop.
# Then the characters that draw nothing, or a blank, yet are letters or marks to Unicode: the
# combining grapheme joiner U+034F, the Hangul fillers (U+115F, U+1160, U+3164, U+FFA0), the
# Khmer inherent vowels U+17B4-U+17B5, the Mongolian variation selectors U+180B-U+180F, the
# Braille blank U+2800 and the variation selectors U+FE00-U+FE0F (U+E0100-U+E01EF below): `a` and
# `a` + U+FE0F are two tokens that would print as one.
_HIDDEN_RANGES = (
    "\x00-\x1f\x7f-\x9f\xad\u0600-\u0605\u061c\u06dd\u070f\u0890\u0891\u08e2"
    "\u200b-\u200f\u2028-\u202e\u2060-\u206f\ufdd0-\ufdef\ufeff\ufff0-\ufffb\ufffe\uffff"
    "\ud800-\udfff"
    "\u034f\u115f\u1160\u17b4\u17b5\u180b-\u180f\u2800\u3164\ufe00-\ufe0f\uffa0"
)
_ASTRAL_NONCHARACTERS = "".join(f"{chr(plane * 0x10000 + 0xFFFE)}-{chr(plane * 0x10000 + 0xFFFF)}"
                                for plane in range(1, 17))
_OTHER_HIDDEN = (f"{_ASTRAL_NONCHARACTERS}\U000110bd\U000110cd\U00013430-\U0001343f"
                 "\U0001bca0-\U0001bca3\U0001d173-\U0001d17a\U000e0000-\U000e0fff")
# The same but the line break, which a document keeps: one pass over a whole document.
_BUT_LINE_BREAK = _HIDDEN_RANGES.replace("\x00-\x1f", "\x00-\x09\x0b-\x1f", 1)


@cache
def hidden_pattern(line_breaks: bool = True) -> re.Pattern[str]:
    """The hidden characters as one class, line breaks among them or not; compiled when first
    used (a few milliseconds that `attn --help` never needs)."""
    return re.compile(f"[{_HIDDEN_RANGES if line_breaks else _BUT_LINE_BREAK}{_OTHER_HIDDEN}]")


_ASCII_HIDDEN = re.compile("[\x00-\x09\x0b-\x1f\x7f]")  # the same, in ASCII text: far quicker


@cache
def _candidates() -> tuple[re.Pattern[str], re.Pattern[str]]:
    """The hidden characters of the BMP but the line break, with every character beyond it (a
    class of ranges the regex engine tests by a table: one pass, about 13 ns a character); and
    the hidden characters beyond the BMP, for the few such characters a document holds."""
    return (re.compile(f"[{_BUT_LINE_BREAK}\U00010000-\U0010ffff]"),
            re.compile(f"[{_OTHER_HIDDEN}]"))


def _has_hidden(text: str) -> bool:
    """Whether `text` has a hidden character other than a line break."""
    if text.isascii():  # a flag of the string: no scan
        return _ASCII_HIDDEN.search(text) is not None
    candidates, beyond = _candidates()
    return any(found.group() <= "\uffff" or beyond.match(found.group()) is not None
               for found in candidates.finditer(text))


def _any_hidden(text: str) -> bool:
    """Whether hidden_pattern() finds a character of `text`, looked for as quickly as the text
    allows: one class of every hidden character, those beyond the BMP among them, is tested range
    by range (about 100 ns a character: 12,000 token names of 1,000 letters took 1.3 s); the
    BMP's alone by a table, and the rest only in a text that has a character beyond the BMP."""
    if text.isascii():  # a flag of the string: no scan
        return _ASCII_CONTROLS.search(text) is not None
    bmp, beyond = _by_plane()
    return bmp.search(text) is not None or (
        max(text) > "\uffff" and beyond.search(text) is not None)


_ASCII_CONTROLS = re.compile("[\x00-\x1f\x7f]")  # every hidden character of ASCII


@cache
def _by_plane() -> tuple[re.Pattern[str], re.Pattern[str]]:
    """The hidden characters of the BMP, and those beyond it (compiled when first used)."""
    return re.compile(f"[{_HIDDEN_RANGES}]"), re.compile(f"[{_OTHER_HIDDEN}]")


@cache
def escape_char(char: str) -> str:
    """The visible escape of one hidden character: `\\x1b`, `\\u200b`, `\\U000e0041`."""
    if char in _NAMED:
        return _NAMED[char]
    code = ord(char)
    if code < 0x100:
        return f"\\x{code:02x}"
    if code < 0x10000:
        return f"\\u{code:04x}"
    return f"\\U{code:08x}"


def is_hidden(char: str) -> bool:
    """Whether `visible` escapes `char` (a control, format or noncharacter, or a surrogate)."""
    return hidden_pattern().fullmatch(char) is not None


def visible(text: str) -> str:
    """`text` with every hidden character written as its escape; `text` itself (the same
    object) when it has none, which is nearly always."""
    if not _any_hidden(text):
        return text
    return hidden_pattern().sub(lambda found: escape_char(found.group()), text)


def visible_label(text: str) -> str:
    """`visible`, and for a token not in Unicode's composed form (NFC) its combining marks too:
    `e` + U+0301 is written `e\\u0301`, so it is not taken for the token `é` (U+00E9), which
    looks the same."""
    shown = visible(text)
    if shown.isascii() or unicodedata.is_normalized("NFC", text):
        return shown
    return "".join(escape_char(char) if unicodedata.combining(char) else char for char in shown)


def visible_lines(text: str) -> str:
    """`visible` for prose that may run over several lines (a description): line breaks kept."""
    return "\n".join(map(visible, text.split("\n")))


def visible_document(text: str) -> str:
    """A whole rendered document (text, Markdown, LaTeX, SVG) with no hidden character raw but
    its line breaks. Labels and titles are made `visible` when the walkthrough is built; this
    pass is the guarantee for whatever else a document quotes."""
    if not _has_hidden(text):
        return text
    return hidden_pattern(False).sub(lambda found: escape_char(found.group()), text)


def _json_escape(char: str) -> str:
    code = ord(char)
    if code < 0x10000:
        return f"\\u{code:04x}"
    code -= 0x10000  # a UTF-16 surrogate pair, as JSON writes a character beyond the BMP
    return f"\\u{0xD800 + (code >> 10):04x}\\u{0xDC00 + (code & 0x3FF):04x}"


def inert_json(text: str) -> str:
    """JSON text with every hidden character inside its strings written as a `\\\\u` escape:
    the same data for a program, nothing raw for a terminal. (`json.dumps` escapes only C0.)"""
    if not _has_hidden(text):
        return text
    return hidden_pattern(False).sub(lambda found: _json_escape(found.group()), text)


_LINK_SEAM = re.compile(r"\](?=[(\[])")


def inert_markdown_math(tex: str) -> str:
    """LaTeX for a Markdown `$$` block or `$..$`, with link and image syntax broken: a Markdown
    reader that does not take `$$` as math (and GitHub's, which reads links first) would make
    `![i](http://x/y.png)` an image and `[x](javascript:..)` a link. An empty group `{}` between
    `]` and `(` or `[` breaks them and renders as nothing in KaTeX, MathJax and LaTeX."""
    return _LINK_SEAM.sub("]{}", tex)
