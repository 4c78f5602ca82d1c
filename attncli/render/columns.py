"""The columns a string takes in a terminal (a wide East Asian character two, a combining mark
none, any other one), measured at a cost that grows with the string once: a name of emoji or of
combining marks repeated in every written-out cell is measured by C loops and a table of the
characters met, not one Python call a character, and a line is cut where it fits without
measuring each longer piece again."""

from __future__ import annotations

import re
import unicodedata
from collections import Counter
from functools import cache

# Characters one column wide each, by the rule of char_width (Latin and its extensions, Greek,
# Cyrillic, punctuation, arrows, mathematical operators, box drawing, the small letters of ᵢ, ⱼ
# and ᵀ, private-use characters, and the marks attn's wrapping binds words with, render/marks.py):
# a written-out line (`·`, `≈`, `−`, `θ`, `Σⱼ`) is measured at once, not character by character.
NARROW = re.compile("[\u0020-\u007e\u00a0-\u02ff\u0384-\u038a\u038c\u038e-\u03a1"
                    "\u03a3-\u0482\u048a-\u052f\u2010-\u205f\u2070-\u2071\u2074-\u208e"
                    "\u2090-\u209c\u20a0-\u20c0\u2100-\u218b\u2190-\u2319\u2500-\u25fc"
                    "\u1d00-\u1dbf\u1e00-\u1eff\u2c60-\u2c7f\ue000-\uf8ff\ufdd0-\ufdef]*")


def is_narrow(text: str) -> bool:
    """Whether every character of `text` takes one column (so its width is its length)."""
    return text.isascii() or NARROW.fullmatch(text) is not None


@cache
def char_width(char: str) -> int:
    """Columns one character takes: 0 for a combining mark, 2 for a wide or full-width one, 1
    for one of NARROW (attn's own marks among them, which Unicode leaves wide: each stands for a
    space, and measures so inside any line, not only an ASCII one)."""
    if is_narrow(char):
        return 1
    if unicodedata.combining(char):
        return 0
    return 2 if unicodedata.east_asian_width(char) in "WF" else 1


def cell_width(text: str) -> int:
    """Columns a string takes in a terminal: wide East Asian characters count twice, combining
    marks not at all. Each distinct character is measured once (Counter counts in C)."""
    if is_narrow(text):  # numbers, labels, most formulas
        return len(text)
    return sum(char_width(char) * times for char, times in Counter(text).items())


def fitting(text: str, room: int) -> int:
    """The length of the longest start of `text` that takes at most `room` columns; the walk
    stops at the first character past `room`, so it costs what fits, not the whole text."""
    if is_narrow(text[:room + 1]):
        return min(room, len(text))
    used = 0
    for end, char in enumerate(text):
        used += char_width(char)
        if used > room:
            return end
    return len(text)
