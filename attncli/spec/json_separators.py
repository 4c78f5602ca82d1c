"""Counting the values of a JSON file before it is read, at C speed: Python's reader (and the
`tokenizers` package's) builds an object for each, so a notebook or a tokenizer.json of millions
of numbers costs seconds and hundreds of megabytes before any limit of attn's can see it.

Every value but the first of a list or a mapping follows a comma, and every list and mapping
opens with a bracket, so commas and opening brackets outside texts, plus one, bound the values
(keys aside; an empty list or mapping is counted twice). When the count over the whole file is
within the limit nothing more is done (the file's texts hold few commas, or few enough); else
the texts are found from their quotes (escapes undone first, keeping the length), in pieces of
a megabyte.
"""

from __future__ import annotations

PIECE = 1 << 20  # characters (or bytes) looked at together
COMMA, BRACKET, BRACE, QUOTE = b",[{\""


def separator_past(content: str | bytes | bytearray, limit: int) -> int | None:
    """Where the separator that opens value `limit + 1` of the JSON `content` is (a comma or an
    opening bracket outside texts): an index into `content`, a character's of a text and a
    byte's of bytes; None when there are no more than `limit` values."""
    text = isinstance(content, str)
    if isinstance(content, str):
        separators = content.count(",") + content.count("[") + content.count("{")
    else:
        separators = content.count(b",") + content.count(b"[") + content.count(b"{")
    if separators + 1 <= limit:
        return None
    import numpy as np

    backslash = "\\" if text else b"\\"
    total, inside, at = 1, 0, 0
    while at < len(content):
        stop = min(at + PIECE, len(content))
        piece = content[at:stop]
        if stop < len(content) and (len(piece) - len(piece.rstrip(backslash))) % 2:  # type: ignore[arg-type]
            stop -= 1  # a backslash that escapes the next piece's first character goes with it
            piece = piece[:-1]
        data = np.frombuffer(plain(piece), np.uint8)  # (bytes,)
        quotes = np.cumsum(data == QUOTE, dtype=np.int32)  # (bytes,) quotes up to each byte
        outside = ((quotes + inside) & 1) == 0  # (bytes,)
        marked = outside & ((data == COMMA) | (data == BRACKET) | (data == BRACE))  # (bytes,)
        found = int(np.count_nonzero(marked))
        if total + found > limit:
            where = int(np.flatnonzero(marked)[limit - total])
            return at + (len(data[:where].tobytes().decode("utf-8", "surrogateescape")) if text
                         else where)
        total += found
        inside = (inside + int(quotes[-1])) & 1 if len(quotes) else inside
        at = stop
    return None


def plain(piece: str | bytes | bytearray) -> bytes | bytearray:
    """`piece` as bytes whose every quote opens or closes a text: `\\\\` and `\\"` made two
    characters that are neither (a backslash escapes only inside a text, where it is no
    separator)."""
    if isinstance(piece, str):
        return piece.replace("\\\\", "__").replace('\\"', "__").encode("utf-8", "surrogateescape")
    return piece.replace(b"\\\\", b"__").replace(b'\\"', b"__")
