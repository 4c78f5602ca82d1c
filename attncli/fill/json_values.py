"""Counting the values of a notebook's JSON before it is read: Python's reader builds an object
for each (13 million `{}` in a 39 MB notebook took 4.6 s and 1.9 GB), so the count comes first,
at C speed, from the separators written outside the notebook's texts.

A notebook holds most of its commas in texts (its sources, its HTML outputs), so the count over
the whole file is most often within the limit (spec/json_separators.py, which a tokenizer.json's
count shares).

The text of a Markdown cell that holds a block is held to MAX_BLOCK_CELL_TEXT characters, and its
source to MAX_BLOCK_CELL_STRINGS strings, before where each was written is found (one at a time:
a cell of 20 MB took 6.3 s and 1 GB, one of 490,000 one-character strings 2.75 s).
"""

from __future__ import annotations

from collections.abc import Callable

from attncli.errors import Location, SpecError
from attncli.fill.blocks import line_breaks, past_document_lines
from attncli.i18n import Count, Msg
from attncli.spec.json_separators import separator_past
from attncli.spec.limits import (
    MAX_BLOCK_CELL_STRINGS,
    MAX_BLOCK_CELL_TEXT,
    MAX_DOCUMENT_LINES,
    MAX_NOTEBOOK_VALUES,
)


def check_values(text: str, name: str) -> None:
    """SpecError at the comma or bracket outside texts past MAX_NOTEBOOK_VALUES (their count,
    plus one, bounds the values: an empty list or mapping is counted twice)."""
    at = separator_past(text, MAX_NOTEBOOK_VALUES)
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


def check_cell_strings(strings: int, where: Location) -> None:
    """SpecError at the cell's source (`where`) when it is a list of more JSON strings than a
    cell holding a block may have (their places are found one at a time)."""
    if strings > MAX_BLOCK_CELL_STRINGS:
        raise SpecError(Msg.plural_of(
            "this Markdown cell holds an attn block and a source of more than {count} JSON "
            "string, the limit of such a cell",
            "this Markdown cell holds an attn block and a source of more than {count} JSON "
            "strings, the limit of such a cell", Count(MAX_BLOCK_CELL_STRINGS)), where)


def check_cells_together(cells: list[tuple[str, Callable[[], Location]]]) -> None:
    """SpecError at the cell (its place found by the callable) where the Markdown cells that name
    attn pass, together, the characters one such cell may hold or the lines of one document:
    each is cut into lines and each character's place in the notebook is found at Python's pace
    (95 cells of 199,990 lines, each within a cell's limits, took 41 s CPU and 1.6 GB for
    `fill --check`; 40 cells of 990,000 characters more than 8 s and 1.7 GB). A cell past the
    lines of a document on its own is left to blocks.check_size; one of exactly as many is
    counted, and the cells after it (a first cell of 200,000 lines stopped the count: 28 s)."""
    characters = lines = 0
    for text, where in cells:
        check_cell_text(text, where)  # a cell past a cell's limit is refused as such
        own = line_breaks(text)
        if past_document_lines(text, own):  # refused at its own line as it is read, before any
            return  # later cell (blocks.check_size); a cell of as many lines as the limit is not
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


def check_sources_together(sources: list[tuple[int, Callable[[], Location]]]) -> None:
    """SpecError at the source (its place found by the callable) where the Markdown cells that
    name attn pass, together, the JSON strings one such cell's source may have, before any
    string's place is found (at Python's pace, about 5 µs a string: 24 cells of 19,994
    strings, each within a cell's limit, took 2.3 to 3.1 s CPU and 190 MB for `fill --check`).
    `sources` holds each list source's count of strings."""
    strings = 0
    for own, where in sources:
        strings += own
        if strings <= MAX_BLOCK_CELL_STRINGS:
            continue
        check_cell_strings(own, where())  # a cell past a cell's limit is refused as such
        raise SpecError(Msg.plural_of(
            "the Markdown cells that name attn, up to this one, have sources of more than "
            "{count} JSON string in all, the limit of one notebook",
            "the Markdown cells that name attn, up to this one, have sources of more than "
            "{count} JSON strings in all, the limit of one notebook",
            Count(MAX_BLOCK_CELL_STRINGS)), where())
