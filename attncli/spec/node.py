"""`Node`: one value of a spec as read, with where it was written (file, key path, line:column).

Every reader (YAML in attncli/spec/source.py, JSON in attncli/spec/json_source.py) makes a tree
of these, and the spec layer reads only them.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from attncli.errors import Location


class Node:
    """One value of the spec: a dict of Nodes, a list of Nodes, or a scalar; and where it was.

    A list whose items are all plain numbers (a row of a matrix) also has them, converted, in
    `numbers`; the Nodes of its items are made only when `value` is read (for an error message,
    say), so a large matrix costs no object per number.
    """

    __slots__ = ("_items", "_value", "array", "keys", "numbers", "quoted", "text", "where",
                 "whole")

    def __init__(self, value: Any, where: Location, text: str | None = None,
                 quoted: bool = False) -> None:
        self._value = value
        self._items: Callable[[], list[Node]] | None = None
        self.where = where
        self.text = text  # a scalar as written
        self.quoted = quoted
        self.numbers: Sequence[float] | None = None  # a tuple; a NumPy row (spec/objects.py)
        self.whole = False  # `numbers` were all written as whole numbers (`3`, never `3.0`)
        self.keys: dict[str, Location] = {}  # a mapping: where each key itself was written
        # a matrix given as a NumPy array of finite numbers (spec/objects.py): read whole, as a
        # read-only view that the spec copies once everything is charged
        self.array: Any = None

    @classmethod
    def number_list(cls, numbers: Sequence[float], items: Callable[[], list[Node]],
                    where: Location, whole: bool = False) -> Node:
        """A list of plain numbers; `items` makes the Nodes of its items when they are asked for.
        `whole`: each was written as a whole number, so a list of indices is read from
        `numbers` alone (spec/selection.py)."""
        node = cls(None, where)
        node.numbers = numbers
        node.whole = whole
        node._items = items
        return node

    @property
    def value(self) -> Any:
        if self._items is not None:
            self._value, self._items = self._items(), None
        return self._value

    def __getitem__(self, key: str) -> Node:
        child = self.value[key]
        assert isinstance(child, Node)
        return child

    def get(self, key: str) -> Node | None:
        if isinstance(self.value, dict):
            child = self.value.get(key)
            return child if isinstance(child, Node) else None
        return None

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Node):
            return NotImplemented
        return (self.value, self.where, self.text, self.quoted) == (
            other.value, other.where, other.text, other.quoted)

    __hash__ = None  # type: ignore[assignment]  # a Node holds lists and dicts

    def __repr__(self) -> str:
        return (f"Node(value={self.value!r}, where={self.where!r}, text={self.text!r}, "
                f"quoted={self.quoted!r})")
