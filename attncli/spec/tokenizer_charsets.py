"""The character sets of a tokenizer pattern (spec/tokenizer_regex.py), compared on a sample of
characters: all below U+0300, every 97th above to U+30000, the Unicode spaces, and every
character the pattern writes. A set is an int, one bit a character of the sample, so two sets
overlap when a character of the sample is in both.

A pattern of 1,000 characters may write a class 500 times (`\\w\\w\\w…`), and each is the whole
sample looked at (about 2,800 characters), which took 2 s: so a named class (`\\w`, `\\d`,
`\\p{…}`, `[:alpha:]`) is worked out once for a sample, and a span (`a-z`) is found from the
sample's order, its cases from arrays of them.
"""

from __future__ import annotations

import re
import unicodedata
from bisect import bisect_left, bisect_right
from collections.abc import Callable
from functools import cache
from typing import Any

SPACES = frozenset([*range(9, 14), 32, 0x85, 0xA0, 0x1680, *range(0x2000, 0x200B), 0x2028,
                    0x2029, 0x202F, 0x205F, 0x3000])
BASE = tuple(sorted({*range(0x300), *range(0x300, 0x30000, 97), *SPACES}))
ESCAPED = re.compile(r"\\x\{([0-9a-fA-F]{1,6})\}|\\u([0-9a-fA-F]{4})|\\x([0-9a-fA-F]{2})")
NAMES = {"letter": "L", "uppercaseletter": "Lu", "lowercaseletter": "Ll", "titlecaseletter": "Lt",
         "modifierletter": "Lm", "otherletter": "Lo", "mark": "M", "combiningmark": "M",
         "nonspacingmark": "Mn", "spacingmark": "Mc", "enclosingmark": "Me", "number": "N",
         "decimalnumber": "Nd", "letternumber": "Nl", "othernumber": "No", "punctuation": "P",
         "connectorpunctuation": "Pc", "dashpunctuation": "Pd", "openpunctuation": "Ps",
         "closepunctuation": "Pe", "initialpunctuation": "Pi", "finalpunctuation": "Pf",
         "otherpunctuation": "Po", "symbol": "S", "mathsymbol": "Sm", "currencysymbol": "Sc",
         "modifiersymbol": "Sk", "othersymbol": "So", "separator": "Z", "spaceseparator": "Zs",
         "lineseparator": "Zl", "paragraphseparator": "Zp", "other": "C", "control": "Cc",
         "format": "Cf", "surrogate": "Cs", "privateuse": "Co", "unassigned": "Cn"}
SCRIPTS = {"han": ("CJK UNIFIED", "CJK COMPATIBILITY IDEOGRAPH"), "hiragana": ("HIRAGANA",),
           "katakana": ("KATAKANA",), "latin": ("LATIN",), "greek": ("GREEK",),
           "cyrillic": ("CYRILLIC",), "arabic": ("ARABIC",), "hebrew": ("HEBREW",),
           "hangul": ("HANGUL",), "thai": ("THAI",), "devanagari": ("DEVANAGARI",)}
POSIX = {"alpha": "L", "alphabetic": "L", "upper": "Lu", "uppercase": "Lu", "lower": "Ll",
         "lowercase": "Ll", "digit": "Nd", "punct": "P", "cntrl": "Cc"}
HEX_DIGITS = "0123456789abcdefABCDEF"


@cache
def category(c: int) -> str:
    return unicodedata.category(chr(c))


# The class escapes (`\w`, `\d`, `\s`, `\h`; the upper-case letter is the rest of the sample).
ESCAPES: dict[str, Callable[[int], bool]] = {
    "w": lambda c: category(c)[0] in "LMN" or category(c) == "Pc",
    "d": lambda c: category(c) == "Nd", "s": lambda c: c in SPACES,
    "h": lambda c: chr(c) in HEX_DIGITS}


class Sample:
    """The characters sets are compared on; a set is an int, one bit a character."""

    def __init__(self, regex: str) -> None:
        extra = {ord(c) for c in regex + regex.swapcase()}
        for match in ESCAPED.finditer(regex):
            extra.add(min(int(next(g for g in match.groups() if g), 16), 0x10FFFF))
        self.chars = tuple(sorted(set(BASE) | extra))
        self.index = {c: k for k, c in enumerate(self.chars)}
        self.all = (1 << len(self.chars)) - 1
        self.known: dict[str, int] = {}  # the sets of the classes named so far
        self.cases: tuple[Any, ...] | None = None  # each character's lower and upper case

    def where(self, name: str, keep: Callable[[int], bool]) -> int:
        """The set of the characters `keep` keeps, worked out once for the class `name`."""
        found = self.known.get(name)
        if found is None:
            found = int("".join("1" if keep(c) else "0" for c in reversed(self.chars)) or "0", 2)
            self.known[name] = found
        return found

    def category(self, code: str) -> int:
        return self.where("gc=" + code, lambda c: category(c).startswith(code))

    def escape(self, letter: str) -> int | None:
        """The set of the class escape `\\letter` (`w`, `W`, `d`…), or None for another."""
        keep = ESCAPES.get(letter.lower())
        if keep is None:
            return None
        found = self.where("\\" + letter.lower(), keep)
        return self.all & ~found if letter.isupper() else found

    def property(self, name: str) -> int:
        """The set of `\\p{name}` or `[:name:]`: a general category, a script, a POSIX class;
        any character for a name not known here ("Any", "graph", "print")."""
        key = re.sub(r"[\s_-]", "", name).lower()
        code = NAMES.get(key) or next((c for c in set(NAMES.values()) if c.lower() == key), None)
        if code is not None:
            return self.category(code)
        if key in ("l&", "lc"):
            return self.category("Lu") | self.category("Ll") | self.category("Lt")
        if key in SCRIPTS:
            return self.where("sc=" + key, lambda c: unicodedata.name(chr(c), "").startswith(
                SCRIPTS[key]))
        if key in POSIX:
            return self.category(POSIX[key]) | (self.category("M") if POSIX[key] == "L" else 0)
        if key in ("space", "whitespace", "blank"):
            return self.where("\\s", ESCAPES["s"])
        if key == "word":
            return self.where("\\w", ESCAPES["w"])
        if key == "alnum":
            return self.where("alnum", lambda c: category(c)[0] in "LMN")
        if key == "ascii":
            return self.where("ascii", lambda c: c < 128)
        if key == "xdigit":
            return self.where("\\h", ESCAPES["h"])
        return self.all

    def char(self, c: int, fold: bool) -> int:
        found = {c} | ({ord(x) for x in (chr(c).lower(), chr(c).upper()) if len(x) == 1}
                       if fold else set())
        return sum(1 << self.index[x] for x in found if x in self.index)

    def span(self, low: int, high: int, fold: bool) -> int:
        """The characters from `low` to `high`, and (`fold`) those whose lower or upper case
        is one of them."""
        first, last = bisect_left(self.chars, low), bisect_right(self.chars, high)
        found = ((1 << last) - 1) ^ ((1 << first) - 1) if first < last else 0
        if not fold:
            return found
        import numpy as np

        if self.cases is None:
            self.cases = tuple(np.array([ord(x) if len(x) == 1 else -1 for x in map(
                change, map(chr, self.chars))], np.int64) for change in (str.lower, str.upper))
        inside = np.zeros(len(self.chars), bool)  # (n,)
        for case in self.cases:
            inside |= (low <= case) & (case <= high)
        return found | int.from_bytes(np.packbits(inside, bitorder="little").tobytes(), "little")
