"""Counting the values of a notebook's JSON before it is read: Python's reader builds an object
for each (13 million `{}` in a 39 MB notebook took 4.6 s and 1.9 GB), so the count comes first,
at C speed, from the separators written outside the notebook's texts.

Every value but the first of a list or a mapping follows a comma, and every list and mapping
opens with a bracket, so commas and opening brackets outside texts, plus one, bound the values
(keys aside). A notebook holds most of its commas in texts (its sources, its HTML outputs), so
when the count over the whole file is within the limit nothing more is done; else the texts are
found from their quotes (escapes undone first, keeping the length), in pieces of a megabyte.

The text of a Markdown cell that holds a block is held to MAX_BLOCK_CELL_TEXT characters before
where each was written is found (one at a time: a cell of 20 MB took 6.3 s and 1 GB).
"""

from __future__ import annotations

from collections.abc import Callable

from attncli.errors import Location, SpecError
from attncli.i18n import Count, Msg
from attncli.spec.limits import MAX_BLOCK_CELL_TEXT, MAX_DOCUMENT_LINES, MAX_NOTEBOOK_VALUES

PIECE = 1 << 20  # characters looked at together
COMMA, BRACKET, BRACE, QUOTE = b",[{\""


def check_values(text: str, name: str) -> None:
    """SpecError at the comma or bracket outside texts past MAX_NOTEBOOK_VALUES (their count,
    plus one, bounds the values: an empty list or mapping is counted twice)."""
    at = value_past(text, MAX_NOTEBOOK_VALUES)
    if at is None:
        return
    line = text.count("\n", 0, at) + 1
    column = at - text.rfind("\n", 0, at)
    raise SpecError(Msg.plural_of(
        "the notebook has more than {count} comma and opening bracket outside its texts, the "
        "limit of one notebook",
        "the notebook has more than {count} commas and opening brackets outside its texts, the "
        "limit of one notebook",
        Count(MAX_NOTEBOOK_VALUES)), Location(name, "", line, column))


def check_cell_text(text: str, where: Location | Callable[[], Location]) -> None:
    """SpecError at the cell's source (`where`, or what it gives) when its text is longer than a
    cell holding a block may be."""
    if len(text) > MAX_BLOCK_CELL_TEXT:
        raise SpecError(Msg.plural_of(
            "this Markdown cell holds an attn block and more than {count} character, the limit "
            "of such a cell",
            "this Markdown cell holds an attn block and more than {count} characters, the limit "
            "of such a cell", Count(MAX_BLOCK_CELL_TEXT)), where if isinstance(where, Location)
            else where())


def check_cells_together(cells: list[tuple[str, Callable[[], Location]]]) -> None:
    """SpecError at the cell (its place found by the callable) where the Markdown cells that name
    attn pass, together, the characters one such cell may hold or the lines of one document:
    each is cut into lines and each character's place in the notebook is found at Python's pace
    (95 cells of 199,990 lines, each within a cell's limits, took 41 s CPU and 1.6 GB for
    `fill --check`; 40 cells of 990,000 characters more than 8 s and 1.7 GB)."""
    characters = lines = 0
    for text, where in cells:
        check_cell_text(text, where)  # a cell past a cell's limit is refused as such
        own = text.count("\n") + text.count("\r") - text.count("\r\n")
        if own >= MAX_DOCUMENT_LINES:  # refused, or not, at its own line (blocks.check_size)
            return
        characters += len(text)
        lines += own
        if characters > MAX_BLOCK_CELL_TEXT:
            raise SpecError(Msg.plural_of(
                "the Markdown cells that name attn, up to this one, hold more than {count} "
                "character in all, the limit of one notebook",
                "the Markdown cells that name attn, up to this one, hold more than {count} "
                "characters in all, the limit of one notebook", Count(MAX_BLOCK_CELL_TEXT)),
                where())
        if lines > MAX_DOCUMENT_LINES:
            raise SpecError(Msg.plural_of(
                "the document has more than {count} line, the limit of one document",
                "the document has more than {count} lines, the limit of one document",
                Count(MAX_DOCUMENT_LINES)), where())


def value_past(text: str, limit: int) -> int | None:
    """Where the separator that opens value `limit + 1` of `text` is (a comma or a bracket
    outside texts), or None when there are no more than `limit` values."""
    if text.count(",") + text.count("[") + text.count("{") + 1 <= limit:
        return None
    import numpy as np

    total, inside, at = 1, 0, 0
    while at < len(text):
        stop = min(at + PIECE, len(text))
        piece = text[at:stop]
        if stop < len(text) and (len(piece) - len(piece.rstrip("\\"))) % 2:
            stop -= 1  # a backslash that escapes the next piece's first character goes with it
            piece = piece[:-1]
        # `\\` and `\"` made two characters that are neither, so every quote left opens or
        # closes a text (a backslash escapes only inside a text, where it is no separator)
        plain = piece.replace("\\\\", "__").replace('\\"', "__")
        data = np.frombuffer(plain.encode("utf-8", "surrogateescape"), np.uint8)  # (bytes,)
        quotes = np.cumsum(data == QUOTE, dtype=np.int32)  # (bytes,) quotes up to each byte
        outside = ((quotes + inside) & 1) == 0  # (bytes,)
        marks = outside & ((data == COMMA) | (data == BRACKET) | (data == BRACE))  # (bytes,)
        found = int(np.count_nonzero(marks))
        if total + found > limit:
            where = int(np.flatnonzero(marks)[limit - total])
            return at + len(data[:where].tobytes().decode("utf-8", "surrogateescape"))
        total += found
        inside = (inside + int(quotes[-1])) & 1 if len(quotes) else inside
        at = stop
    return None
