"""The JSON document written as text: the same bytes as `json.dumps(doc, indent=2,
ensure_ascii=False, allow_nan=False)`, made faster and in pieces.

The standard library's encoder is written in Python once it indents, and yields every number,
comma and line break as a token of its own. Here each array or object that is already in memory
is joined in one call (a row of floats by `float.__repr__`, as the encoder writes them), and
only the arrays made as they are written (`Streamed`) are walked one item at a time, so a document
of any length is never held whole.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from itertools import chain
from json.encoder import encode_basestring  # the C escaper, as ensure_ascii=False uses
from typing import Any

INDENT = "  "


class Streamed(list):  # type: ignore[type-arg]
    """A JSON array whose items are made as the writer reaches them, once: the steps, their
    written-out cells and the reading's sentences are never all in memory."""

    def __init__(self, items: Iterable[Any]) -> None:
        super().__init__()
        self.rest = iter(items)
        self.head = next(self.rest, _END)

    def __bool__(self) -> bool:
        return self.head is not _END

    def __iter__(self) -> Iterator[Any]:
        return iter(()) if self.head is _END else chain((self.head,), self.rest)


_END = object()


class Numbers(list):  # type: ignore[type-arg]
    """A matrix's rows of numbers, written once at each indent they stand at: `attn snippets`
    writes a spec's JSON in every language a manifest names, around the same matrices."""

    def __init__(self, rows: Iterable[Any]) -> None:
        super().__init__(rows)
        self.written: dict[int, str] = {}


def pieces(value: Any, level: int = 0) -> Iterator[str]:
    """The text of `value` indented at `level`, an object or a lazy array at a time."""
    kind = type(value)
    if kind is Streamed:
        if not value:
            yield "[]"
            return
        inner = "\n" + INDENT * (level + 1)
        separator = "[" + inner
        for item in value:
            yield separator
            yield from pieces(item, level + 1)
            separator = "," + inner
        yield "\n" + INDENT * level + "]"
    elif kind is dict and value:
        inner = "\n" + INDENT * (level + 1)
        separator = "{" + inner
        for key, item in value.items():
            name = separator + _key(key) + ": "
            if type(item) is Streamed or type(item) is dict:
                yield name
                yield from pieces(item, level + 1)
            else:
                yield name + text(item, level + 1)
            separator = "," + inner
        yield "\n" + INDENT * level + "}"
    else:
        yield text(value, level)


def text(value: Any, level: int = 0) -> str:
    """The text of a value held in memory (no `Streamed` inside), indented at `level`."""
    kind = type(value)
    if kind is str:
        return encode_basestring(value)
    if kind is float:
        return _float(value)
    if value is None:
        return "null"
    if value is True:
        return "true"
    if value is False:
        return "false"
    if kind is int:
        return int.__repr__(value)
    if kind is Numbers:
        written = value.written.get(level)
        if written is None:
            written = value.written[level] = text(list(value), level)
        return written
    if kind is list or kind is tuple:
        if not value:
            return "[]"
        inner = "\n" + INDENT * (level + 1)
        separator = "," + inner
        try:  # a row of numbers (a hidden score null), most arrays of the document: one join
            body = separator.join(["null" if x is None else float.__repr__(x) for x in value])
        except TypeError:  # an int, a string or an object among them
            body = separator.join([text(item, level + 1) for item in value])
        else:
            if body.count("n") != body.count("null"):  # nan or inf: no JSON number writes them
                raise ValueError(f"Out of range float values are not JSON compliant: {body}")
        return "[" + inner + body + "\n" + INDENT * level + "]"
    if kind is dict:
        if not value:
            return "{}"
        inner = "\n" + INDENT * (level + 1)
        body = ("," + inner).join([_key(key) + ": " + text(item, level + 1)
                                   for key, item in value.items()])
        return "{" + inner + body + "\n" + INDENT * level + "}"
    if isinstance(value, str):  # a Symbol (a column label such as m_old): its text
        return encode_basestring(value)
    raise TypeError(f"Object of type {kind.__name__} is not JSON serializable")


def _float(x: float) -> str:
    written = float.__repr__(x)
    if "n" in written:
        raise ValueError(f"Out of range float values are not JSON compliant: {written}")
    return written


def _key(key: Any) -> str:
    if type(key) is not str:
        raise TypeError(f"keys must be str, not {type(key).__name__}")
    return encode_basestring(key)
