"""The text of a spec that could not be read with the escapes of YAML's and JSON's
double-quoted strings read (`"data\\x2ecsv"`, `"\\u0064ata.csv"`, a line continued with a
backslash), so that `attn snippets` finds the file names written through them where the spec's
reader refused the file before it reached them: a mistake earlier in its syntax, a byte that
is not UTF-8, a JSON spec that does not parse (docs/snippets.md, "What attn writes").

The text is read as one long double-quoted string, whatever its syntax: a backslash outside
such a string is read as an escape too, which can only add names, never hide one, since the
text as written is searched as well. The escapes are read left to right as both readers read
them, so `\\\\x2e` is a backslash and `x2e`. The cost is held to the bytes: the places of the
escapes are found at C speed, and each is read once, MAX_ESCAPES of them in all the texts
together; past them the texts are taken to name every snippet there is (`Escapes.past`).
"""

from __future__ import annotations

import re

# escapes read one by one, in all the texts of the specs that could not be read together: a
# spec written by hand holds a few; 64 MB of them would be 32 million, 70 s read one by one
MAX_ESCAPES = 1 << 16

_ESCAPE = re.compile(
    rb"\\(?:u([dD][89abAB][0-9a-fA-F]{2})\\u([dD][c-fC-F][0-9a-fA-F]{2})"  # JSON's pair
    rb"|x([0-9a-fA-F]{2})|u([0-9a-fA-F]{4})|U([0-9a-fA-F]{8})"
    rb"|(?:\r\n|\r|\n|\xc2\x85|\xe2\x80[\xa8\xa9])[ \t]*"  # a line continued: YAML joins it
    rb"|(.))", re.DOTALL)
# YAML's escapes of one character (JSON's are among them)
_ONE = {b"0": "\0", b"a": "\a", b"b": "\b", b"t": "\t", b"\t": "\t", b"n": "\n", b"v": "\v",
        b"f": "\f", b"r": "\r", b"e": "\x1b", b" ": " ", b'"': '"', b"/": "/", b"\\": "\\",
        b"N": "\x85", b"_": "\xa0", b"L": "\u2028", b"P": "\u2029"}


class Escapes:
    """The readings of texts with their escapes read, MAX_ESCAPES escapes in all."""

    def __init__(self) -> None:
        self.left = MAX_ESCAPES
        self.past = False  # more escapes than were read: every snippet is taken to be named

    def read(self, text: bytes, mid: bool = False) -> list[bytes]:
        """`text` with its escapes read, if it holds any (none past MAX_ESCAPES). `mid`: the
        text is a part of a spec that may begin within a run of backslashes, whose first may
        be the second of a pair: it is also read from its second byte."""
        count = text.count(b"\\")
        if not count or self.past:
            return []
        starts = [0, 1] if mid and text[:1] == b"\\" else [0]
        self.left -= count * len(starts)
        if self.left < 0:
            self.past = True
            return []
        return [_ESCAPE.sub(_character, text[start:]) for start in starts]


def _character(escape: re.Match[bytes]) -> bytes:
    """The UTF-8 bytes of what `escape` stands for; an escape neither reader knows as it is."""
    high, low, byte, code, wide, one = escape.groups()
    if high is not None:
        return chr(0x10000 + ((int(high, 16) - 0xD800) << 10) + int(low, 16) - 0xDC00).encode()
    number = byte or code or wide
    if number is not None:
        value = int(number, 16)
        if value > 0x10FFFF:
            return escape.group()
        return chr(value).encode("utf-8", "surrogatepass")
    if one is None:  # a line break after a backslash: the lines are joined
        return b""
    read = _ONE.get(one)
    return escape.group() if read is None else read.encode()
