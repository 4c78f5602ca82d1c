"""Reading a notebook's JSON and keeping where each value was written, so that an error in a
block is reported at the notebook's own line:column: the root and its list of cells walked at
Python's pace, each cell read whole by JSON's own reader, and a child's place found only when it is
asked for.
"""

from __future__ import annotations

import bisect
import json
import re
from dataclasses import dataclass
from typing import Any

from attncli.errors import Location, SpecError
from attncli.i18n import Count, Msg
from attncli.spec.limits import MAX_DEPTH, MAX_NOTEBOOK_CELLS

SCALAR = re.compile(r"-?\d+(\.\d+)?([eE][-+]?\d+)?|true|false|null")
SPACE = re.compile(r"[ \t\r\n]*")
SCAN_STRING = json.decoder.scanstring  # type: ignore[attr-defined]  # JSON's own string reader


def _no_constant(name: str) -> Any:
    raise ValueError(name)  # NaN and Infinity are no JSON: read by `Reader.container`, refused


# JSON's own reader, at C speed: a list or mapping read whole, and where it ends.
DECODE = json.JSONDecoder(parse_constant=_no_constant).raw_decode


@dataclass
class Value:
    """A JSON value and where it was written: [start, end) in the text, a container's children
    by key or index. A container read whole by `DECODE` finds its children's places only when
    they are asked for (`Reader.children`): a notebook's cells with no block are never walked
    at Python's pace (600,000 cells of a 35 MB notebook took 27 s and 1.7 GB). Where each
    character of a string was written is found only for the source of a cell that holds a
    block (`char_offsets`): for every string, a notebook holding a 9 MB image took 570 MB."""

    start: int
    end: int
    data: Any
    kids: dict[Any, Value] | None = None
    reader: Reader | None = None

    @property
    def children(self) -> dict[Any, Value]:
        if self.kids is None:
            self.kids = {} if self.reader is None else self.reader.children(self)
        return self.kids


class Reader:
    def __init__(self, text: str, name: str) -> None:
        self.text, self.name = text, name
        # the places found so far, in order, each with its line and where that line begins
        self.found_at: list[int] = [0]
        self.found: list[tuple[int, int]] = [(1, 0)]

    def where(self, at: int) -> Location:
        """The line:column of `at`, its line breaks counted from the nearest place found before
        it: the cells are found in order, so the notebook is counted about once (counted from
        its start for each cell, 4,000 cells took 17.7 s; a list of where each line begins
        took 1.9 GB for a notebook of 39 million line breaks)."""
        k = bisect.bisect_right(self.found_at, at) - 1
        start, (line, line_start) = self.found_at[k], self.found[k]
        breaks = self.text.count("\n", start, at)
        if breaks:
            line, line_start = line + breaks, self.text.rfind("\n", start, at) + 1
        self.found_at.insert(k + 1, at)
        self.found.insert(k + 1, (line, line_start))
        return Location(self.name, line=line, column=at - line_start + 1)

    def fail(self, at: int) -> SpecError:
        return SpecError(Msg.of("malformed notebook: expected JSON here"), self.where(at))

    def skip(self, at: int) -> int:
        match = SPACE.match(self.text, at)
        assert match is not None
        return match.end()

    def value(self, at: int, depth: int = 0, walk: frozenset[str] | None = None) -> Value:
        """The value at `at`: a container read whole, or with `walk` (the keys of a mapping whose
        values are walked in turn) walked at Python pace, its children read whole."""
        at = self.skip(at)
        first = self.text[at:at + 1]
        if first == '"':
            return self.string(at)
        if first in ("{", "["):
            if depth >= MAX_DEPTH:  # a notebook nests a few levels; this reader recurses
                raise SpecError(Msg.plural_of(
                    "the notebook nests lists and mappings more than {count} level deep",
                    "the notebook nests lists and mappings more than {count} levels deep",
                    Count(MAX_DEPTH)), self.where(at))
            if walk is not None:  # below the root, the only list walked is the cells
                return self.container(at, depth + 1, walk, MAX_NOTEBOOK_CELLS if depth else None)
            try:
                data, end = DECODE(self.text, at)
            except (ValueError, RecursionError):  # read again below, where it is refused
                return self.container(at, depth + 1)
            if depth + levels(data) > MAX_DEPTH:
                return self.container(at, depth + 1)
            return Value(at, end, data, reader=self)
        match = SCALAR.match(self.text, at)
        if match is None:
            raise self.fail(at)
        try:
            return Value(at, match.end(), json.loads(match[0]))
        except ValueError:  # a whole number of more than 4,300 digits: Python refuses it
            raise self.fail(at) from None

    def string(self, at: int) -> Value:
        try:
            data, end = SCAN_STRING(self.text, at + 1)
        except ValueError:
            raise self.fail(at) from None
        return Value(at, end, data)

    def children(self, node: Value) -> dict[Any, Value]:
        """The places of the children of a container read whole, its data theirs (a key
        written twice: the last, as JSON's reader keeps it)."""
        found: dict[Any, Value] = {}
        mapping = isinstance(node.data, dict)
        at, index = self.skip(node.start + 1), 0
        while self.text[at] not in "]}":
            if index:
                at = self.skip(at + 1)  # the comma
            if mapping:
                key, at = SCAN_STRING(self.text, at + 1)
                at = self.skip(self.skip(at) + 1)  # the colon
                data = node.data[key]
            else:
                key, data = index, node.data[index]
            first = self.text[at]
            if first == '"':
                end = SCAN_STRING(self.text, at + 1)[1]
            elif first in "{[":
                end = DECODE(self.text, at)[1]
            else:
                match = SCALAR.match(self.text, at)
                assert match is not None
                end = match.end()
            found[key] = Value(at, end, data, reader=self if first in "{[" else None)
            at, index = self.skip(end), index + 1
        return found

    def container(self, at: int, depth: int, walk: frozenset[str] = frozenset(),
                  most: int | None = None) -> Value:
        """A list or mapping walked at Python's pace, a list to `most` items: the cells are
        counted as they are read, their keys decoded (counted from the text `"cell_type"`,
        160,000 cells keyed `"cell_typ\\u0065"` were read in 2.0 to 2.5 s)."""
        mapping = self.text[at] == "{"
        closing = "}" if mapping else "]"
        node = Value(at, at, {} if mapping else [], kids={})
        children = node.children
        at = self.skip(at + 1)
        while self.text[at:at + 1] != closing:
            if children:
                if self.text[at:at + 1] != ",":
                    raise self.fail(at)
                at = self.skip(at + 1)
            if mapping:
                key = self.string(at)
                at = self.skip(key.end)
                if self.text[at:at + 1] != ":":
                    raise self.fail(at)
                child = self.value(at + 1, depth, frozenset() if key.data in walk else None)
                node.data[key.data] = child.data
                children[key.data] = child
            else:
                if len(node.data) == most:
                    raise too_many_cells(self.where(at))
                child = self.value(at, depth)
                children[len(node.data)] = child
                node.data.append(child.data)
            at = self.skip(child.end)
            if at >= len(self.text):
                raise self.fail(at)
        node.end = at + 1
        return node


def levels(data: Any) -> int:
    """How many levels of lists and mappings `data` nests (a number or a text: none), counted
    to MAX_DEPTH + 1 at most."""
    count, layer = 0, [data]
    while count <= MAX_DEPTH:
        layer = [item for item in layer if isinstance(item, (dict, list))]
        if not layer:
            break
        count += 1
        layer = [child for item in layer
                 for child in (item.values() if isinstance(item, dict) else item)]
    return count


def char_offsets(text: str, start: int, stop: int) -> list[int]:
    """The offset in `text` where each character of the JSON string between `start` and
    `stop` (its quotes excluded) was written."""
    found = []
    at = start
    while at < stop:
        found.append(at)
        if text[at] != "\\":
            at += 1
        elif text[at + 1] != "u":
            at += 2
        else:  # a surrogate pair is one character written as two escapes
            pair = (0xD800 <= int(text[at + 2:at + 6], 16) < 0xDC00
                    and text[at + 6:at + 8] == "\\u")
            at += 12 if pair else 6
    return found


def too_many_cells(where: Location) -> SpecError:
    return SpecError(Msg.plural_of(
        "the notebook has more than {count} cell, the limit of one notebook",
        "the notebook has more than {count} cells, the limit of one notebook",
        Count(MAX_NOTEBOOK_CELLS)), where)
