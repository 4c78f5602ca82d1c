"""Counting the values of a JSON file before it is read, at C speed: Python's reader (and the
`tokenizers` package's) builds an object for each, so a notebook or a tokenizer.json of millions
of numbers costs seconds and hundreds of megabytes before any limit of attn's can see it.

Every value but the first of a list or a mapping follows a comma, and every list and mapping
opens with a bracket, so commas and opening brackets outside texts, plus one, bound the values
(keys aside; an empty list or mapping is counted twice). When the count over the whole file is
within the limit nothing more is done (the file's texts hold few commas, or few enough); else
the texts are found from their quotes (escapes undone first, keeping the length), in pieces of
a megabyte. How deep lists and objects nest is found the same way, from the brackets outside
texts: a reader that recurses for each level (`tokenizers`' serde stops at 128, in English) is
given no file deeper than its caller's limit.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

PIECE = 1 << 20  # characters (or bytes) looked at together
COMMA, BRACKET, BRACE, QUOTE = b",[{\""
# every byte but a quote and a bracket: what deeper_past's first look deletes
OTHER_BYTES = bytes(sorted(set(range(256)) - set(b'"[]{}')))


def separator_past(content: str | bytes | bytearray, limit: int) -> int | None:
    """Where the separator that opens value `limit + 1` of the JSON `content` is (a comma or an
    opening bracket outside texts): an index into `content`, a character's of a text and a
    byte's of bytes; None when there are no more than `limit` values."""
    if isinstance(content, str):
        separators = content.count(",") + content.count("[") + content.count("{")
    else:
        separators = content.count(b",") + content.count(b"[") + content.count(b"{")
    if separators + 1 <= limit:
        return None
    import numpy as np

    total = 1
    for at, data, outside in outside_texts(content):
        marked = outside & ((data == COMMA) | (data == BRACKET) | (data == BRACE))  # (bytes,)
        found = int(np.count_nonzero(marked))
        if total + found > limit:
            return at + index_in(content, data, int(np.flatnonzero(marked)[limit - total]))
        total += found
    return None


def deeper_past(content: str | bytes | bytearray, limit: int) -> int | None:
    """Where the first opening bracket of the JSON `content` that nests lists and objects more
    than `limit` deep is (outside texts; an index as separator_past's), or None. Looked for in
    the quotes and brackets alone first (a tokenizer.json of 10 MB keeps 0.5 MB of them, in a
    quarter of the time: 0.05 s, not 0.23 s), then, when one is past, in the whole content for
    its place."""
    if isinstance(content, str):
        openings = content.count("[") + content.count("{")
    else:
        openings = content.count(b"[") + content.count(b"{")
    if openings <= limit:
        return None
    marks = b"".join(piece.translate(None, OTHER_BYTES) for _, piece in plain_pieces(content))
    # two quotes side by side close a text and open the next, or open and close one: either
    # way dropping them leaves every bracket inside or outside the texts as it was
    marks = marks.replace(b'""', b"")
    return None if first_past(marks, limit) is None else first_past(content, limit)


def first_past(content: str | bytes | bytearray, limit: int) -> int | None:
    """deeper_past's answer, from every piece of `content`."""
    import numpy as np

    steps = np.zeros(256, np.int8)  # (256,) for each byte: +1 an opening, -1 a closing
    steps[list(b"[{")], steps[list(b"]}")] = 1, -1
    depth = 0
    for at, data, outside in outside_texts(content):
        depths = depth + np.cumsum(steps[data] * outside, dtype=np.int64)  # (bytes,) after each
        found = np.flatnonzero(depths > limit)
        if len(found):
            return at + index_in(content, data, int(found[0]))
        depth = int(depths[-1]) if len(depths) else depth
    return None


def outside_texts(content: str | bytes | bytearray) -> Iterator[tuple[int, Any, Any]]:
    """The JSON `content` a piece at a time: where the piece starts (an index into `content`),
    its bytes as a NumPy array (plain), and for each byte whether it is outside the texts."""
    import numpy as np

    inside = 0
    for at, piece in plain_pieces(content):
        data = np.frombuffer(piece, np.uint8)  # (bytes,)
        quotes = np.cumsum(data == QUOTE, dtype=np.int32)  # (bytes,) quotes up to each byte
        yield at, data, ((quotes + inside) & 1) == 0
        inside = (inside + int(quotes[-1])) & 1 if len(quotes) else inside


def plain_pieces(content: str | bytes | bytearray) -> Iterator[tuple[int, bytes | bytearray]]:
    """The JSON `content` a piece of about PIECE at a time, each where it starts (an index
    into `content`) and plain: a backslash that escapes the next piece's first character goes
    with it."""
    backslash = "\\" if isinstance(content, str) else b"\\"
    at = 0
    while at < len(content):
        stop = min(at + PIECE, len(content))
        piece = content[at:stop]
        if stop < len(content) and (len(piece) - len(piece.rstrip(backslash))) % 2:  # type: ignore[arg-type]
            stop -= 1
            piece = piece[:-1]
        yield at, plain(piece)
        at = stop


def index_in(content: str | bytes | bytearray, data: Any, where: int) -> int:
    """Byte `where` of a piece's `data` as an index from the piece's start: a character's for
    a text."""
    if isinstance(content, str):
        return len(data[:where].tobytes().decode("utf-8", "surrogateescape"))
    return where


def plain(piece: str | bytes | bytearray) -> bytes | bytearray:
    """`piece` as bytes whose every quote opens or closes a text: `\\\\` and `\\"` made two
    characters that are neither (a backslash escapes only inside a text, where it is no
    separator)."""
    if isinstance(piece, str):
        return piece.replace("\\\\", "__").replace('\\"', "__").encode("utf-8", "surrogateescape")
    return piece.replace(b"\\\\", b"__").replace(b'\\"', b"__")


def depths_at(content: bytes | bytearray, places: list[int]) -> list[int]:
    """How many lists and objects are open before each byte of `places` (ascending, each
    outside the texts of the JSON `content`), read from the bytes before the last of them."""
    import numpy as np

    steps = np.zeros(256, np.int8)  # (256,) for each byte: +1 an opening, -1 a closing
    steps[list(b"[{")], steps[list(b"]}")] = 1, -1
    found = [0 for place in places if place == 0]
    depth = 0
    for at, data, outside in outside_texts(content[:places[-1]] if places else b""):
        depths = depth + np.cumsum(steps[data] * outside, dtype=np.int64)  # (bytes,) after each
        while len(found) < len(places) and places[len(found)] <= at + len(data):
            found.append(int(depths[places[len(found)] - at - 1]))
        depth = int(depths[-1]) if len(depths) else depth
    return found
