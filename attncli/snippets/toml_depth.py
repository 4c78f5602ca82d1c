"""How deep a TOML manifest nests and how many values it writes, measured before tomllib reads
it, in one scan of the text (strings and comments skipped whole):

- tomllib recurses once per level of arrays and inline tables, so ~330 `[` end in Python's
  RecursionError: the first bracket past MAX_DEPTH is named; so is the dot of a dotted key
  (`a.a.a…a = 1`, tables in tables) that goes past it;
- each key and value costs about 11 µs once read, placed (toml_marks) and made a Node, and
  nothing else bounds them within the manifest's 1 MiB: 500,000 ones in one array took 5.5 s and
  331 MB before the key that held them was refused as unknown. Every value is opened by an
  equals sign, a comma or an opening bracket outside texts and comments, so at most
  MAX_MANIFEST_VALUES of them are read (an entry as docs/snippets.md writes it, every key set,
  has about 20, and a manifest holds at most 500 entries).
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from attncli.errors import Location, SpecError
from attncli.i18n import Count, Msg
from attncli.spec.limits import MAX_DEPTH

# Equals signs, commas and opening brackets outside the texts and comments of one manifest.
MAX_MANIFEST_VALUES = 20_000

# A TOML string as tomllib reads it (compiled with re.S), in a text whose escaped quotes and
# backslashes (`\"`, `\\`) were made two plain characters first (ESCAPED): only they can hide a
# quote, and each pattern is then a run of single characters, whose matching holds no state per
# character (500,000 escapes in one string held 120 MB of the regex engine's state). A multi-line
# string ends at the first run of three quotes and keeps up to two more quotes of that run as its
# last characters: `"""a""""` is the text `a"` (ended one quote early, its fourth quote was taken
# to open a one-line string that hid the rest of the line from the counts below). A string left
# open runs to the end of its line (one-line) or of the text (multi-line), where tomllib refuses
# it, so that no string's start is tried twice. (A backslash is a plain character in a literal
# string, where no quote of the other kind matters.)
STRING = (r'""".*?(?:"""(?:""?)?|\Z)'
          r"|'''.*?(?:'''(?:''?)?|\Z)"
          r'|"[^"\n]*"?'
          r"|'[^'\n]*'?")
ESCAPED = re.compile(r'\\[\\"]')
# A string or a comment, skipped whole; else a bracket, a comma or an equals sign.
TOKEN = re.compile(STRING + r"|#[^\n]*|[\[\]{},=.\n]", re.S)


def check_depth(name: str, content: str) -> None:
    """SpecError at the first `[` or `{` that opens a level past MAX_DEPTH, or at the first
    equals sign, comma or opening bracket past MAX_MANIFEST_VALUES, whichever comes first."""
    depth = values = dots = 0
    for token in tokens(content):
        char = token.group()
        if char == ".":  # a dotted key's parts are tables in tables: `a.b.c = 1` is 3 deep
            dots += 1
            if depth + dots > MAX_DEPTH:
                raise SpecError(too_deep(), _at(name, content, token.start()))
            continue
        dots = 0  # a number's point is one dot between two of these
        if char == "\n":
            continue
        if char in ("[", "{", ",", "="):
            values += 1
            if values > MAX_MANIFEST_VALUES:
                raise SpecError(too_many_values(), _at(name, content, token.start()))
        if char in ("[", "{"):
            depth += 1
            if depth > MAX_DEPTH:
                raise SpecError(too_deep(), _at(name, content, token.start()))
        elif char in ("]", "}"):
            depth = max(0, depth - 1)  # tomllib names an unbalanced bracket itself


def tokens(content: str) -> Iterator[re.Match[str]]:
    """Each string, comment, bracket, comma, equals sign, dot and line break of `content`, at
    its place (read from a copy whose escaped quotes and backslashes are two plain characters)."""
    plain = ESCAPED.sub("__", content) if "\\" in content else content  # the same length
    return TOKEN.finditer(plain)


def _at(name: str, content: str, at: int) -> Location:
    line = content.count("\n", 0, at) + 1
    column = at - (content.rfind("\n", 0, at) + 1) + 1
    return Location(name, line=line, column=column)


def too_deep() -> Msg:
    return Msg.plural_of("the manifest nests lists and tables more than {count} level deep",
                         "the manifest nests lists and tables more than {count} levels deep",
                         MAX_DEPTH)


def too_many_values() -> Msg:
    return Msg.plural_of(
        "the manifest has more than {count} equals sign, comma and opening bracket outside its "
        "texts and comments, the limit of one manifest",
        "the manifest has more than {count} equals signs, commas and opening brackets outside "
        "its texts and comments, the limit of one manifest", Count(MAX_MANIFEST_VALUES))
