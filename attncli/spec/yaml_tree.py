"""A composed YAML document turned into the `Node` tree: keys checked (plain, given once), text
charged to the spec's budget, rows of plain numbers converted at once, and every other scalar
constructed as YAML 1.1 reads it, a value it cannot read reported at its line:column."""

from __future__ import annotations

from typing import Any

import yaml

from attncli.errors import Location, SpecError
from attncli.i18n import Msg
from attncli.i18n.library_messages import date_problem, yaml_value_problem
from attncli.i18n.quoting import shown
from attncli.spec.bounds import TextBudget
from attncli.spec.limits import DEFAULT_MAX_CELLS
from attncli.spec.node import Node
from attncli.spec.yaml_loader import plain_numbers, scalar_number

# The tags of a list and a mapping, written or not (`!!seq [a]` is `[a]`); any other tag on a
# collection (`!foo [a]`, `!!set`, `!!omap`) is refused as it is on a scalar.
PLAIN_COLLECTIONS = frozenset(("tag:yaml.org,2002:seq", "tag:yaml.org,2002:map"))
TIMESTAMP_TAG = "tag:yaml.org,2002:timestamp"
INT_TAG = "tag:yaml.org,2002:int"
STR_TAG = "tag:yaml.org,2002:str"
NUMBER_TAGS = (INT_TAG, "tag:yaml.org,2002:float")
# what a scalar tagged so must hold, said when it does not (`!!float one`, `!!bool maybe`)
TAG_KINDS = {INT_TAG: lambda: Msg.of("a whole number"), NUMBER_TAGS[1]: lambda: Msg.of("a number"),
             "tag:yaml.org,2002:bool": lambda: Msg.of("true or false")}


class TreeBuilder:
    """Builds the Nodes of one document, `path` naming each value by its keys (`heads[1].W_Q`)."""

    def __init__(self, name: str, loader: Any, max_cells: int = DEFAULT_MAX_CELLS) -> None:
        self.name = name
        self.loader = loader
        self.texts = TextBudget(max_cells)
        # a list's numbers, by its YAML node: an alias repeats the node, which is read once
        # (a row of ten numbers aliased 100,000 times took 2.5 s read anew each time)
        self.numbers: dict[int, tuple[tuple[float, ...] | None, bool]] = {}

    def where(self, node: yaml.Node, path: str) -> Location:
        mark = node.start_mark
        return Location(self.name, path, mark.line + 1, mark.column + 1)

    def build(self, node: yaml.Node, path: str) -> Node:
        if not isinstance(node, yaml.ScalarNode) and node.tag not in PLAIN_COLLECTIONS:
            raise SpecError(Msg.of("cannot read this value: {problem}", problem=yaml_value_problem(
                f"could not determine a constructor for the tag '{node.tag}'")),
                self.where(node, path))  # a list tagged `!foo` is never read as a plain list
        if isinstance(node, yaml.MappingNode):
            return self._mapping(node, path)
        if isinstance(node, yaml.SequenceNode):
            if not node.value:  # an empty list: no numbers to read, nothing to remember
                return Node([], self.where(node, path))
            if id(node) not in self.numbers:
                self.numbers[id(node)] = (plain_numbers(node.value),
                                          all(item.tag == INT_TAG for item in node.value))
            numbers, whole = self.numbers[id(node)]
            if numbers is not None:
                return Node.number_list(numbers, lambda: self._items(node, path),
                                        self.where(node, path), whole)
            return Node(self._items(node, path), self.where(node, path))
        assert isinstance(node, yaml.ScalarNode)
        where = self.where(node, path)
        self.texts.charge(node.value, where,  # `top_k: 777…` is no text
                          number=not node.style and node.tag in NUMBER_TAGS)
        return Node(self._scalar(node, path), where, node.value, node.style in ("'", '"'))

    def _items(self, node: yaml.SequenceNode, path: str) -> list[Node]:
        return [self.build(child, f"{path}[{i}]") for i, child in enumerate(node.value)]

    def _mapping(self, node: yaml.MappingNode, path: str) -> Node:
        children: dict[str, Node] = {}
        keys: dict[str, Location] = {}
        for key_node, value_node in node.value:
            if not isinstance(key_node, yaml.ScalarNode):
                raise SpecError(
                    Msg.of("expected a plain key, found a nested value"),
                    self.where(key_node, path),
                )
            key = key_node.value
            if not self.texts.take(key):  # past a limit: refused where the key was written
                self.texts.charge(key, self.where(key_node, path))
            child_path = f"{path}.{key}" if path else key
            place = self.where(key_node, child_path)
            if key in children:
                raise SpecError(Msg.of("the key {key} is given twice", key=key), place)
            children[key] = self.build(value_node, child_path)
            keys[key] = place
        mapping = Node(children, self.where(node, path))
        mapping.keys = keys
        return mapping

    def _scalar(self, node: yaml.ScalarNode, path: str) -> Any:
        if node.tag == STR_TAG:  # what the constructor makes of a text: its value, as written
            return node.value
        if not node.style:  # plain: None, or "" from libyaml
            # The composer has already resolved the tag; the common decimal forms convert
            # directly, the rest (.inf, 0x1f, 017, 1:30) below.
            number = scalar_number(node.tag, node.value)
            if number is not None:
                return number
        try:
            return self.loader.construct_object(node, deep=True)
        except yaml.constructor.ConstructorError as exc:
            raise SpecError(
                Msg.of("cannot read this value: {problem}",
                       problem=yaml_value_problem(str(exc.problem))),
                self.where(node, path),
            ) from None
        except (ValueError, OverflowError, KeyError, AttributeError) as exc:
            # a date such as 2024-02-30 (or !!timestamp x); a value its tag cannot read:
            # !!float one, !!int 1.5 (ValueError), !!bool maybe (KeyError)
            problem = (date_problem(node.value) if node.tag == TIMESTAMP_TAG else
                       Msg.of("expected {expected}, found {found}",
                              expected=TAG_KINDS[node.tag](),
                              found=Msg.of('the text "{value}"', value=shown(node.value)))
                       if node.tag in TAG_KINDS else
                       Msg.of("cannot read this value: {problem}", problem=Msg.of(
                           "Python's message has no translation: {detail}", detail=str(exc))))
            raise SpecError(Msg.of("{path}: {problem}", path=path, problem=problem) if path
                            else problem, self.where(node, path)) from None
