"""Reading a JSON spec as JSON, into the same tree of `Node`s the YAML reader makes.

The YAML parser refuses JSON that is valid (an emoji written as `"\\ud83d\\ude00"`, a raw U+007F,
U+0085 or U+FFFE in a string) and cannot place a nested duplicate key or `NaN`. This reader
follows RFC 8259, uses the json module's own string scanner, and keeps the offset of every value,
which it maps to line:column, so every error is located as a YAML one is: duplicate keys, `NaN`
and `Infinity`, nesting past MAX_DEPTH, more values than limits.max_written, more than MAX_KEYS
keys in one object or MAX_ALL_KEYS in all, a lone surrogate.

A list of plain numbers (a row of a matrix) is matched and converted at once; the Nodes of its
items are made only if an error needs them.
"""

from __future__ import annotations

import math
import re
from json.decoder import scanstring  # type: ignore[attr-defined]
from typing import Any

from attncli.errors import Location, SpecError
from attncli.i18n import Count, Msg
from attncli.i18n.library_messages import json_problem
from attncli.spec.bounds import TextBudget, too_many_keys
from attncli.spec.limits import (
    DEFAULT_MAX_CELLS,
    MAX_ALL_KEYS,
    MAX_DEPTH,
    MAX_KEYS,
    max_written,
)
from attncli.spec.node import Node
from attncli.spec.spec_text import LIMIT_HINT

_WS = re.compile(r"[ \t\n\r]*")
_NUMBER = re.compile(r"(-?(?:0|[1-9][0-9]*))(\.[0-9]+)?([eE][-+]?[0-9]+)?")
_NUM = r"-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][-+]?[0-9]+)?"
# whitespace taken possessively (`*+`): a list that is no row (texts, mappings, a text after a
# number) fails where its whitespace ends, not again at each of its places (38 MB of spaces
# before a text: 1.1 s)
_ROW = re.compile(rf"\[[ \t\n\r]*+{_NUM}(?:[ \t\n\r]*+,[ \t\n\r]*+{_NUM})*+[ \t\n\r]*+\]")
_CONSTANTS = {"true": True, "false": False, "null": None}
_NON_FINITE = ("NaN", "Infinity", "-Infinity")
_SURROGATE = re.compile("[\ud800-\udfff]")
BLOCK = 512  # characters of the text whose newlines are counted when a place is asked for


class _Reader:
    def __init__(self, name: str, text: str, max_cells: float) -> None:
        self.name = name
        self.text = text
        self.max_written: float = max_written(int(max_cells))
        self.values = 0
        self.keys = 0
        self.texts = TextBudget(int(max_cells))
        self.before_close = self.close = 0  # the first `]` at or after before_close is at close
        # the lines before each block of BLOCK characters and where the line at its start
        # began: a list of every newline's place took 1.6 GB for 40 MB of newlines
        self.lines_before, self.line_starts = [0], [0]
        for at in range(0, len(text), BLOCK):
            self.lines_before.append(self.lines_before[-1] + text.count("\n", at, at + BLOCK))
            last = text.rfind("\n", at, at + BLOCK)
            self.line_starts.append(last + 1 if last >= 0 else self.line_starts[-1])

    def where(self, offset: int, path: str) -> Location:
        block = offset // BLOCK
        at = block * BLOCK
        line = self.lines_before[block] + self.text.count("\n", at, offset)
        last = self.text.rfind("\n", at, offset)
        start = last + 1 if last >= 0 else self.line_starts[block]
        return Location(self.name, path, line + 1, offset - start + 1)

    def fail(self, offset: int, message: Msg, path: str = "") -> SpecError:
        return SpecError(message, self.where(offset, path))

    def malformed(self, offset: int, problem: str) -> SpecError:
        # json's own words, as a catalogue message (i18n/library_messages.py)
        return self.fail(offset, Msg.of("malformed JSON: {problem}", problem=json_problem(problem)))

    def skip(self, at: int) -> int:
        found = _WS.match(self.text, at)
        assert found is not None  # matches the empty string
        return found.end()

    def count(self, at: int, values: int = 1) -> None:
        self.values += values
        if self.values > self.max_written:
            raise self.fail(at, Msg.plural_of("the spec holds more than {count} value, the limit "
                                              "that {option} sets", "the spec holds more than "
                                              "{count} values, the limit that {option} sets",
                                              Count(int(self.max_written)), option=LIMIT_HINT))

    def document(self) -> Node:
        at = self.skip(0)
        node, end = self.value(at, "", 1)
        end = self.skip(end)
        if end != len(self.text):
            raise self.malformed(end, "Extra data")
        return node

    def value(self, at: int, path: str, depth: int) -> tuple[Node, int]:
        text = self.text
        char = text[at:at + 1]
        if char in ("{", "["):
            if depth > MAX_DEPTH:
                raise self.fail(at, Msg.plural_of(
                    "the spec nests lists and mappings more than {count} level deep",
                    "the spec nests lists and mappings more than {count} levels deep", MAX_DEPTH))
            return self.mapping(at, path, depth) if char == "{" else self.sequence(at, path, depth)
        where = self.where(at, path)
        if char == '"':  # a text: counted by its own budget, as the YAML reader counts it
            value, end = self.string(at)
            return Node(value, where, value, quoted=True), end
        self.count(at)
        for word in _NON_FINITE:
            if text.startswith(word, at):
                problem = Msg.of("expected a finite number, found {found}", found=word)
                raise SpecError(Msg.of("{path}: {problem}", path=path, problem=problem)
                                if path else problem, where)
        number = _NUMBER.match(text, at)
        if number is not None and number.end() > at:
            written = number.group()
            self.texts.charge(written, where, number=True)  # as YAML's: 5,000 digits is no number
            return Node(_number(written, number), where, written), number.end()
        for word, constant in _CONSTANTS.items():
            if text.startswith(word, at):
                return Node(constant, where, word), at + len(word)
        raise self.malformed(at, "Expecting value")

    def string(self, at: int) -> tuple[str, int]:
        try:
            value, end = scanstring(self.text, at + 1, True)
        except ValueError as error:  # json.JSONDecodeError: its offset is exact
            pos: int = getattr(error, "pos", at)
            problem: str = getattr(error, "msg", str(error))
            # "Invalid control character at": the character named ("Unterminated string
            # starting at" is said as it is, at the string's opening quote)
            if problem.startswith("Invalid control") and pos < len(self.text):
                problem = f"{problem[:-3]} U+{ord(self.text[pos]):04X}"
            raise self.malformed(pos, problem) from None
        if not self.texts.take(value):  # past a limit: refused where it was written
            self.texts.charge(value, self.where(at, ""))
        lone = _SURROGATE.search(value)
        if lone is not None:
            raise self.fail(at, Msg.of("expected text, found half of a UTF-16 surrogate pair "
                                       "(U+{code})", code=f"{ord(lone.group()):04X}"))
        return value, end

    def mapping(self, start: int, path: str, depth: int) -> tuple[Node, int]:
        self.count(start)
        children: dict[str, Node] = {}
        keys: dict[str, Location] = {}  # where each key itself is written
        at = self.skip(start + 1)
        if self.text.startswith("}", at):
            return Node(children, self.where(start, path)), at + 1
        while True:
            if not self.text.startswith('"', at):
                raise self.malformed(at, "Expecting property name enclosed in double quotes")
            key_at = at
            self.keys += 1
            if len(children) >= MAX_KEYS or self.keys > MAX_ALL_KEYS:
                raise too_many_keys(self.where(at, ""), len(children) >= MAX_KEYS)
            key, after = self.string(at)
            child_path = f"{path}.{key}" if path else key
            if key in children:
                raise self.fail(at, Msg.of("the key {key} is given twice", key=key), child_path)
            at = self.skip(after)
            if not self.text.startswith(":", at):
                raise self.malformed(at, "Expecting ':' delimiter")
            at = self.skip(at + 1)
            keys[key] = self.where(key_at, child_path)
            children[key], at = self.value(at, child_path, depth + 1)
            at = self.skip(at)
            if self.text.startswith("}", at):
                mapping = Node(children, self.where(start, path))
                mapping.keys = keys
                return mapping, at + 1
            if not self.text.startswith(",", at):
                raise self.malformed(at, "Expecting ',' delimiter")
            at = self.skip(at + 1)

    def sequence(self, start: int, path: str, depth: int) -> tuple[Node, int]:
        after = self.skip(start + 1)
        if self.text.startswith("]", after):  # an empty list: one value, no row to look for
            self.count(start)
            return Node([], self.where(start, path)), after + 1
        self.row_within_limit(start)
        row = _ROW.match(self.text, start)
        if row is not None:
            # its numbers and commas alone: findall tried to match a number at each of 38 MB
            # of spaces in a row (1.4 s)
            written = "".join(self.text[start + 1:row.end() - 1].split())
            numbers = tuple(map(float, written.split(",")))
            if all(map(math.isfinite, numbers)):
                self.count(start, 1 + len(numbers))
                whole = not any(mark in written for mark in ".eE")
                return Node.number_list(numbers, lambda: self.uncounted(start, path, depth),
                                        self.where(start, path), whole), row.end()
        self.count(start)
        items, end = self.items(start, path, depth)
        return Node(items, self.where(start, path)), end

    def row_within_limit(self, start: int) -> None:
        """Refuse a list of plain values past limits.max_written before it is matched: the
        pattern of a row keeps a place for each number it passes (a row of a million took
        650 MB). Its values are its commas and one, up to its `]`, where no text or inner list
        can hold a comma."""
        text = self.text
        if not self.before_close <= start < self.close:  # no `]` between: the same one
            self.close = text.find("]", start) % (len(text) + 1)  # none: the text's end
        self.before_close = start
        # looked for in place, an inner list first: each of 64 nested lists copied and searched
        # the 38 MB to the first `]` (2 s)
        if any(text.find(mark, start + 1, self.close) >= 0 for mark in "[{\""):
            return
        written = 2 + text.count(",", start + 1, self.close)  # the list and its values
        if self.values + written > self.max_written:
            self.count(start, written)  # refused

    def uncounted(self, start: int, path: str, depth: int) -> list[Node]:
        """The Nodes of a row read at once, made later (for an error): counted already."""
        self.max_written = math.inf
        return self.items(start, path, depth)[0]

    def items(self, start: int, path: str, depth: int) -> tuple[list[Node], int]:
        items: list[Node] = []
        at = self.skip(start + 1)
        if self.text.startswith("]", at):
            return items, at + 1
        while True:
            item, at = self.value(at, f"{path}[{len(items)}]", depth + 1)
            items.append(item)
            at = self.skip(at)
            if self.text.startswith("]", at):
                return items, at + 1
            if not self.text.startswith(",", at):
                raise self.malformed(at, "Expecting ',' delimiter")
            at = self.skip(at + 1)


def _number(written: str, parts: re.Match[str]) -> Any:
    """An integer as written (one past Python's 4300 digits, or past float range, as inf, for
    the spec's checks to refuse with its line:column), else a float."""
    if parts.group(2) is None and parts.group(3) is None:
        try:
            return int(written)
        except ValueError:
            return float(written)
    return float(written)


def parse_json(name: str, text: str, max_cells: int = DEFAULT_MAX_CELLS) -> Node:
    """The JSON document `text` as a Node tree; SpecError at the line:column of its first
    problem."""
    return _Reader(name, text, max_cells).document()
