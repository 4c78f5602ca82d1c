"""How deep a TOML manifest nests, measured before tomllib reads it: tomllib recurses once per
level of arrays and inline tables, so ~330 `[` end in Python's RecursionError. The text is
scanned once, strings and comments skipped, and the first bracket past MAX_DEPTH is named."""

from __future__ import annotations

import re

from attncli.errors import Location, SpecError
from attncli.i18n import Msg
from attncli.spec.limits import MAX_DEPTH

# A TOML string: multi-line or one-line, basic or literal (compiled with re.S).
STRING = r'"""(?:[^\\]|\\.)*?"""|\'\'\'.*?\'\'\'|"(?:[^"\\\n]|\\.)*"|\'[^\'\n]*\''
# A string or a comment, skipped whole; else a bracket.
_TOKEN = re.compile(STRING + r"|#[^\n]*|[\[\]{}]", re.S)


def check_depth(name: str, content: str) -> None:
    """SpecError at the first `[` or `{` that opens a level past MAX_DEPTH."""
    depth = 0
    for token in _TOKEN.finditer(content):
        char = token.group()
        if char in ("[", "{"):
            depth += 1
            if depth > MAX_DEPTH:
                at = token.start()
                line = content.count("\n", 0, at) + 1
                column = at - (content.rfind("\n", 0, at) + 1) + 1
                raise SpecError(too_deep(), Location(name, line=line, column=column))
        elif char in ("]", "}"):
            depth = max(0, depth - 1)  # tomllib names an unbalanced bracket itself


def too_deep() -> Msg:
    return Msg.plural_of("the manifest nests lists and tables more than {count} level deep",
                         "the manifest nests lists and tables more than {count} levels deep",
                         MAX_DEPTH)
