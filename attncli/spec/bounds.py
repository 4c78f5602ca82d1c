"""The limits of a spec checked as it is read: how many values (aliases expanded), how deep it
nests, and how much text it holds, each refused with the place it is passed."""

from __future__ import annotations

from typing import Any

import yaml

from attncli.errors import Location, SpecError
from attncli.i18n import Count, Msg
from attncli.spec.limits import (
    MAX_ALL_KEYS,
    MAX_DEPTH,
    MAX_KEYS,
    MAX_TEXT,
    max_bytes,
    max_texts,
    max_written,
)
from attncli.spec.spec_text import LIMIT_HINT
from attncli.spec.yaml_loader import plain_numbers

NUMBER_TAGS = ("tag:yaml.org,2002:int", "tag:yaml.org,2002:float")  # a scalar that is no text


def prescan(name: str, loader: Any, max_cells: int) -> None:
    """Walk the parser's events, which take no memory, before a node is built: refuse a
    document that writes more values than limits.max_written, more texts than limits.max_texts
    (each written once: TextBudget counts them again with aliases expanded) or nests deeper
    than MAX_DEPTH."""
    from attncli.spec.yaml_loader import is_text

    depth = count = 0
    texts_left = max_texts(max_cells)
    values = max_written(max_cells)
    try:
        while (event := loader.get_event()) is not None:
            if isinstance(event, (yaml.SequenceStartEvent, yaml.MappingStartEvent)):
                depth += 1
                if depth > MAX_DEPTH:
                    raise _too_deep(name, event.start_mark)
            elif isinstance(event, (yaml.SequenceEndEvent, yaml.MappingEndEvent)):
                depth -= 1
                continue
            elif not isinstance(event, (yaml.ScalarEvent, yaml.AliasEvent)):
                continue
            if isinstance(event, yaml.ScalarEvent) and is_text(event):
                texts_left -= 1
                if texts_left < 0:
                    raise too_many_texts(max_texts(max_cells), at_mark(name, event.start_mark))
                continue
            count += 1  # a number, an alias, a list or a mapping: a text has its own count
            if count > values:
                raise SpecError(Msg.plural_of("the spec holds more than {count} value, the "
                                              "limit that {option} sets", "the spec holds more "
                                              "than {count} values, the limit that {option} "
                                              "sets", Count(values), option=LIMIT_HINT),
                                at_mark(name, event.start_mark))
    finally:
        loader.dispose()


def at_mark(name: str, mark: Any) -> Location:
    return Location(name, line=mark.line + 1, column=mark.column + 1)


def _too_deep(name: str, mark: Any) -> SpecError:
    return SpecError(too_deep(), at_mark(name, mark))


def too_deep() -> Msg:
    return Msg.plural_of("the spec nests lists and mappings more than {count} level deep",
                         "the spec nests lists and mappings more than {count} levels deep",
                         MAX_DEPTH)


class Measure:
    """How many values the document has with every alias expanded, how deep it nests, how
    many keys its mappings hold and how many Nodes building it makes, counted without expanding:
    a shared node (an alias) is counted once per use but measured once. An alias inside the
    value it names (a loop) is refused, and so is a mapping of more than MAX_KEYS keys (one whose
    values are aliases is not counted as it is composed).

    The Nodes: yaml_tree.TreeBuilder builds a row of plain numbers once, as a tuple however often
    it is aliased, and every other value anew for each use of an alias (a list of 1,000 empty
    lists aliased 1,000 times is a million Nodes of about 500 bytes: 2.2 s and 525 MB). Texts
    are not counted here: TextBudget counts them, aliases expanded, as they are built."""

    def __init__(self, name: str) -> None:
        self.name = name
        # id -> (size, height, keys, nodes); None: open
        self.memo: dict[int, tuple[int, int, int, int] | None] = {}

    def measure(self, node: yaml.Node, depth: int) -> tuple[int, int, int, int]:
        if depth > MAX_DEPTH:
            raise _too_deep(self.name, node.start_mark)
        key = id(node)
        if key in self.memo:
            known = self.memo[key]
            if known is None:
                raise SpecError(Msg.of("an alias refers to the value it is part of"),
                                at_mark(self.name, node.start_mark))
            if depth + known[1] - 1 > MAX_DEPTH:
                raise _too_deep(self.name, node.start_mark)
            return known
        self.memo[key] = None
        children: list[yaml.Node] = []
        keys = 0
        if isinstance(node, yaml.MappingNode):
            if len(node.value) > MAX_KEYS:
                raise too_many_keys(at_mark(self.name, node.value[MAX_KEYS][0].start_mark), True)
            children = [value for _, value in node.value]
            keys = len(children)
        elif isinstance(node, yaml.SequenceNode):
            children = list(node.value)
        size, height, nodes = 1, 1, 1
        if depth + 1 <= MAX_DEPTH:  # a scalar counts one and adds one level: no need to recurse
            scalars: list[yaml.Node] = [c for c in children if c.__class__ is yaml.ScalarNode]
            if scalars:
                size, height = 1 + len(scalars), 2
                row = len(scalars) == len(children) and isinstance(node, yaml.SequenceNode)
                if not row or plain_numbers(scalars) is None:  # texts have a budget of their own
                    nodes += sum(c.tag in NUMBER_TAGS and not getattr(c, "style", None)
                                 for c in scalars)
                children = [c for c in children if c.__class__ is not yaml.ScalarNode]
        for child in children:
            child_size, child_height, child_keys, child_nodes = self.measure(child, depth + 1)
            size += child_size
            height = max(height, child_height + 1)
            keys += child_keys
            nodes += child_nodes
        self.memo[key] = (size, height, keys, nodes)
        return size, height, keys, nodes


def too_many_texts(limit: int, where: Location) -> SpecError:
    return SpecError(Msg.plural_of(
        "the spec holds more than {count} text (keys and text values, with aliases "
        "expanded), the limit that {option} sets", "the spec holds more than {count} "
        "texts (keys and text values, with aliases expanded), the limit that {option} "
        "sets", Count(limit), option=LIMIT_HINT), where)


def too_many_keys(where: Location, one_mapping: bool) -> SpecError:
    """The key at `where` is past MAX_KEYS of its mapping, or past MAX_ALL_KEYS of the file."""
    if one_mapping:
        return SpecError(Msg.plural_of(
            "this mapping has more than {count} key, the limit of one mapping",
            "this mapping has more than {count} keys, the limit of one mapping",
            Count(MAX_KEYS)), where)
    return SpecError(Msg.plural_of(
        "the mappings hold more than {count} key in all, the limit of one file",
        "the mappings hold more than {count} keys in all, the limit of one file",
        Count(MAX_ALL_KEYS)), where)


def too_many_keys_expanded(name: str, mark: Any, keys: int) -> SpecError:
    """The mappings hold `keys` keys, more than MAX_ALL_KEYS, once aliases are expanded."""
    return SpecError(Msg.plural_of(
        "the mappings hold {count} key once the aliases are expanded; the limit of one file is "
        "{limit}", "the mappings hold {count} keys once the aliases are expanded; the limit of "
        "one file is {limit}", Count(keys), limit=Count(MAX_ALL_KEYS)), at_mark(name, mark))


class TextBudget:
    """Text in a spec is bounded before it is kept: each key or text value to MAX_TEXT
    characters, and all of them together, counted once per use of an alias, to the byte limit
    of the spec file (limits.max_bytes), so a long title aliased as thousands of tokens is
    refused as it is read; and the texts themselves, keys and text values counted once per use
    of an alias, to limits.max_texts, so a million one-letter tokens are refused before they are
    a million Nodes."""

    def __init__(self, max_cells: int) -> None:
        self.limit = self.left = max_bytes(max_cells)
        self.count_limit = self.count_left = max_texts(max_cells)

    def take(self, text: str) -> bool:
        """Count the text `text` against the budget when it fits: False, and nothing counted,
        when `charge` would refuse it (a key needs no place to be counted)."""
        if len(text) > MAX_TEXT or self.count_left <= 0 or self.left < len(text):
            return False
        self.count_left -= 1
        self.left -= len(text)
        return True

    def charge(self, text: str, where: Location, number: bool = False) -> None:
        """Count `text` against the budget; `number`: it is written as a number (`top_k: 777…`),
        so the refusal does not call it a text."""
        if len(text) > MAX_TEXT:
            problem = Msg.plural_of("expected a number of at most {count} character, found "
                                    "{length}", "expected a number of at most {count} "
                                    "characters, found {length}", Count(MAX_TEXT),
                                    length=Count(len(text))) if number else Msg.plural_of(
                "expected a text of at most {count} character, found {length}",
                "expected a text of at most {count} characters, found {length}", Count(MAX_TEXT),
                length=Count(len(text)))
            raise SpecError(Msg.of("{path}: {problem}", path=where.path, problem=problem)
                            if where.path else problem, where)
        if not number:
            self.count_left -= 1
            if self.count_left < 0:
                raise too_many_texts(self.count_limit, where)
        self.left -= len(text)
        if self.left < 0:
            raise SpecError(Msg.plural_of(
                "the spec's texts, with aliases expanded, are longer than the limit of {count} "
                "character that {option} sets", "the spec's texts, with aliases expanded, are "
                "longer than the limit of {count} characters that {option} sets", Count(self.limit),
                option=LIMIT_HINT), where)
