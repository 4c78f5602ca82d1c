"""The YAML loader of specs: PyYAML's (C) SafeLoader, with YAML 1.2's floats (`1e-3`), a fast
path for plain numbers, and the cell and depth limits checked while a document is composed; and
the numbers of plain scalars as YAML 1.1 reads them, converted without the constructor."""

from __future__ import annotations

import math
import re
from typing import Any

import yaml

from attncli.spec.limits import MAX_ALL_KEYS, MAX_DEPTH, MAX_KEYS, max_texts, max_written

BaseLoader: type[yaml.SafeLoader]
try:  # the C parser is several times faster on large matrices; marks are the same
    BaseLoader = yaml.CSafeLoader  # type: ignore[assignment]
except AttributeError:  # pragma: no cover - PyYAML built without libyaml
    BaseLoader = yaml.SafeLoader


_MAPPING = yaml.MappingNode
_FLOAT_TAG = "tag:yaml.org,2002:float"
_INT_TAG = "tag:yaml.org,2002:int"
_NUMBER_TAGS = (_INT_TAG, _FLOAT_TAG)
_SEQUENCE_TAG = yaml.resolver.BaseResolver.DEFAULT_SEQUENCE_TAG
_MAPPING_TAG = yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG
# The shapes of nearly every number in a matrix, which YAML 1.1 resolves as below: checked first,
# they spare the resolver's walk through every implicit type for each of a large matrix's cells.
_PLAIN_NUMBER = re.compile(r"-?(?:[0-9]+(\.[0-9]+)|0|[1-9][0-9]*)").fullmatch  # 1.5 | 12


class Overrun(Exception):
    """The document goes past the cell limit, the text limit or MAX_DEPTH while it is
    composed."""


class TooManyKeys(Exception):
    """The key at `mark` is past MAX_KEYS of its mapping (`one_mapping`) or MAX_ALL_KEYS of the
    document, counted as it is composed."""

    def __init__(self, mark: Any, one_mapping: bool) -> None:
        super().__init__()
        self.mark = mark
        self.one_mapping = one_mapping


class Loader(BaseLoader):  # type: ignore[misc, valid-type]
    """SafeLoader that also reads `1e-3`, `2E5` and `+.5` as floats, as YAML 1.2 does (1.1 reads
    them as text). Integers still resolve first, since their resolver was added first.

    With `max_cells`, composing stops (raising Overrun) at the first value past
    limits.max_written (a list and a mapping count as one, as in prescan) or the first list or
    mapping nested deeper than MAX_DEPTH, before it is built; and at the first text (a scalar
    that is no plain number) past limits.max_texts, which bounds.TextBudget would refuse only
    once a million one-letter tokens were a million composed nodes (2 MB of spec: 3 s, 375 MB).
    Keys are always counted: TooManyKeys at the first past MAX_KEYS of one mapping or
    MAX_ALL_KEYS of the document."""

    def __init__(self, stream: str, max_cells: int | None = None) -> None:
        super().__init__(stream)
        self.max_cells = max_cells
        self.max_written = max_written(max_cells) if max_cells is not None else None
        self.depth = 0
        self.values = 0
        self.keys = 0
        self.texts_left = max_texts(max_cells) if max_cells is not None else None

    # PyYAML's C composer calls these on the way into and out of every node (for path
    # resolvers, which attn has none of): they track the depth instead, and count the keys.
    def descend_resolver(self, parent: Any, index: Any) -> None:
        self.depth += 1
        if parent.__class__ is _MAPPING:
            # a mapping's value is composed after its key, which is `index`, and the pairs
            # before it are in parent.value; a value that is an alias is not composed, so its
            # key is counted by bounds.Measure, and here when the next key is composed
            pairs = parent.value
            if index is not None:
                self.keys += 1
                if len(pairs) >= MAX_KEYS or self.keys > MAX_ALL_KEYS:
                    raise TooManyKeys(index.start_mark, len(pairs) >= MAX_KEYS)
            elif len(pairs) > MAX_KEYS:
                raise TooManyKeys(pairs[MAX_KEYS][0].start_mark, True)

    def ascend_resolver(self) -> None:
        self.depth -= 1

    def resolve(self, kind: Any, value: Any, implicit: Any) -> Any:
        # called once for every node as it is composed (an alias makes none)
        if kind is not yaml.ScalarNode:
            if self.max_written is not None:
                self.written()
                if self.depth > MAX_DEPTH:
                    raise Overrun
            if not self.yaml_path_resolvers:  # attn has none: the default tag, as PyYAML gives
                return _SEQUENCE_TAG if kind is yaml.SequenceNode else _MAPPING_TAG
            return super().resolve(kind, value, implicit)  # pragma: no cover
        if implicit[0]:
            if value.isdigit() and value.isascii() and (value[0] != "0" or len(value) == 1):
                return self.written(_INT_TAG)  # an index or a count, the commonest: no regex
            plain = _PLAIN_NUMBER(value)
            if plain is not None:
                return self.written(_INT_TAG if plain.group(1) is None else _FLOAT_TAG)
        tag = super().resolve(kind, value, implicit)
        if not implicit[0] or tag not in _NUMBER_TAGS:
            if self.texts_left is not None:
                self.texts_left -= 1  # fewer than TextBudget counts (it expands aliases)
                if self.texts_left < 0:
                    raise Overrun  # prescan names the place
            return tag
        return self.written(tag)

    def written(self, tag: str = "") -> str:
        """`tag`, once the value it is the tag of (not a text: texts have their own count) is
        counted against limits.max_written."""
        self.values += 1
        if self.max_written is not None and self.values > self.max_written:
            raise Overrun
        return tag


def is_text(event: Any) -> bool:
    """Whether the scalar `event` is a text that bounds.TextBudget counts (a quoted scalar, or
    a plain one that is no number), as `Loader.resolve` decides."""
    if event.style or not event.implicit[0]:
        return True
    if event.tag not in (None, "!"):
        return event.tag not in _NUMBER_TAGS
    value = event.value
    if (value.isdigit() and value.isascii()) or _PLAIN_NUMBER(value) is not None:
        return False
    # the resolver reads only Loader's class attributes (its implicit resolvers, YAML 1.2's
    # floats among them), whatever parser made `event` (prescan also runs PyYAML's own)
    tag = yaml.resolver.BaseResolver.resolve(Loader, yaml.ScalarNode, value,  # type: ignore[no-untyped-call, arg-type]
                                             event.implicit)
    return tag not in _NUMBER_TAGS


Loader.add_implicit_resolver(
    _FLOAT_TAG,
    re.compile(r"^[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?$"),  # YAML 1.2
    list("-+0123456789."),
)


def _whole(text: str) -> int | float:
    """A whole number as written; one with more digits than Python converts (4300) is read as a
    float, which is inf, so the spec's checks say it is too large instead of failing here."""
    try:
        return int(text)
    except ValueError:
        if text.lstrip("+-").isdigit():
            return float(text)
        raise


_DECIMAL_INT = re.compile(r"[-+]?(?:0|[1-9][0-9_]*)").fullmatch
_LARGEST_INT = 2**1023  # parse.number refuses a larger whole number, with its line:column


def scalar_number(tag: str, text: str) -> int | float | None:
    """A plain scalar's number, when Python reads its text as YAML 1.1 does: a float but .inf,
    .nan and 1:30.5; a decimal int (not 017, octal in YAML, or 0x1f, or 1:30). None otherwise:
    the YAML constructor reads it."""
    try:
        if tag == _FLOAT_TAG:
            return float(text)
        if tag == _INT_TAG and _DECIMAL_INT(text):
            return _whole(text)
    except ValueError:  # 1__0, 1.5_ ...
        pass
    return None


def plain_numbers(items: list[yaml.Node]) -> tuple[float, ...] | None:
    """The numbers of a non-empty list whose items are all plain (unquoted) numbers that
    `scalar_number` reads, finite and of float size; None for any other list, whose items then
    become Nodes of their own, so that a bad one is reported at its line and column."""
    if not items or any(item.__class__ is not yaml.ScalarNode or item.style for item in items):
        return None
    if all(item.tag == _FLOAT_TAG for item in items):  # a row of a matrix, mostly: at once
        try:
            numbers = list(map(float, [item.value for item in items]))
        except ValueError:
            return None
    else:
        read = [scalar_number(item.tag, item.value) for item in items]
        if any(x is None or abs(x) > _LARGEST_INT for x in read):
            return None
        numbers = [float(x) for x in read if x is not None]
    if not all(map(math.isfinite, numbers)):
        return None
    return tuple(numbers)
