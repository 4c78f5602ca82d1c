"""Reading a spec file into a tree of `Node`s that remember where each value was written.

YAML and JSON are both read through PyYAML's composer, which keeps line and column marks; JSON
is first checked by the json module, so JSON-only rules (no comments, no trailing commas, `1e3`
is a number) hold. Values are resolved as YAML 1.1 does, except that `1e-3` is a float (as every
reader means it), and the original text of each scalar is kept, so an error can say "you wrote
`on`, which YAML reads as true".
"""

from __future__ import annotations

import errno
import fcntl
import gc
import json
import math
import os
import re
import stat
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from typing import Any, BinaryIO

import yaml

from attncli.errors import Location, SpecError
from attncli.i18n import Msg
from attncli.i18n.library_messages import (
    YAML_PROBLEMS,
    json_problem,
    os_problem,
    yaml_problem,
    yaml_value_problem,
)
from attncli.limits import DEFAULT_MAX_CELLS, MAX_DEPTH, MAX_TEXT, max_bytes

STDIN = "-"
STDIN_NAME = "<stdin>"
LIMIT_HINT = "--max-cells"

_BaseLoader: type[yaml.SafeLoader]
try:  # the C parser is several times faster on large matrices; marks are the same
    _BaseLoader = yaml.CSafeLoader  # type: ignore[assignment]
except AttributeError:  # pragma: no cover - PyYAML built without libyaml
    _BaseLoader = yaml.SafeLoader


_FLOAT_TAG = "tag:yaml.org,2002:float"
_INT_TAG = "tag:yaml.org,2002:int"
# The shapes of nearly every number in a matrix, which YAML 1.1 resolves as below: checked first,
# they spare the resolver's walk through every implicit type for each of a large matrix's cells.
_PLAIN_NUMBER = re.compile(r"-?(?:[0-9]+(\.[0-9]+)|0|[1-9][0-9]*)").fullmatch  # 1.5 | 12


class _Overrun(Exception):
    """The document goes past the cell limit or MAX_DEPTH while it is composed."""


class _Loader(_BaseLoader):  # type: ignore[misc, valid-type]
    """SafeLoader that also reads `1e-3`, `2E5` and `+.5` as floats, as YAML 1.2 does (1.1 reads
    them as text). Integers still resolve first, since their resolver was added first.

    With `max_cells`, composing stops (raising _Overrun) at the first value past that many (a
    list and a mapping count as one, as in _prescan) or the first list or mapping nested deeper
    than MAX_DEPTH, before it is built."""

    def __init__(self, stream: str, max_cells: int | None = None) -> None:
        super().__init__(stream)
        self.max_cells = max_cells
        self.depth = 0
        self.values = 0

    # PyYAML's C composer calls these on the way into and out of every node (for path
    # resolvers, which attn has none of): they track the depth instead.
    def descend_resolver(self, parent: Any, index: Any) -> None:
        self.depth += 1

    def ascend_resolver(self) -> None:
        self.depth -= 1

    def resolve(self, kind: Any, value: Any, implicit: Any) -> Any:
        self.values += 1  # called once for every node as it is composed (an alias makes none)
        if self.max_cells is not None and (self.values > self.max_cells or (
                kind is not yaml.ScalarNode and self.depth > MAX_DEPTH)):
            raise _Overrun
        if kind is yaml.ScalarNode and implicit[0]:
            plain = _PLAIN_NUMBER(value)
            if plain is not None:
                return _INT_TAG if plain.group(1) is None else _FLOAT_TAG
        return super().resolve(kind, value, implicit)


_Loader.add_implicit_resolver(
    _FLOAT_TAG,
    re.compile(r"^[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?$"),  # YAML 1.2
    list("-+0123456789."),
)


class Node:
    """One value of the spec: a dict of Nodes, a list of Nodes, or a scalar; and where it was.

    A list whose items are all plain numbers (a row of a matrix) also has them, converted, in
    `numbers`; the Nodes of its items are made only when `value` is read (for an error message,
    say), so a large matrix costs no object per number.
    """

    __slots__ = ("_items", "_value", "keys", "numbers", "quoted", "text", "where")

    def __init__(self, value: Any, where: Location, text: str | None = None,
                 quoted: bool = False) -> None:
        self._value = value
        self._items: Callable[[], list[Node]] | None = None
        self.where = where
        self.text = text  # a scalar as written
        self.quoted = quoted
        self.numbers: Sequence[float] | None = None  # a tuple; a NumPy row (spec/objects.py)
        self.keys: dict[str, Location] = {}  # a mapping: where each key itself was written

    @classmethod
    def number_list(cls, numbers: Sequence[float], items: Callable[[], list[Node]],
                    where: Location) -> Node:
        """A list of plain numbers; `items` makes the Nodes of its items when they are asked for."""
        node = cls(None, where)
        node.numbers = numbers
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


def read_text(path: str, max_cells: int = DEFAULT_MAX_CELLS) -> tuple[str, str]:
    """(display name, text) of a spec file, or of standard input for `-`; a file larger than
    the byte limit of `max_cells` is refused before it is read."""
    limit = max_bytes(max_cells)
    if path == STDIN:
        import sys

        name = STDIN_NAME
        data = sys.stdin.buffer.read(limit + 1)
        if len(data) > limit:
            raise too_large(name, None, limit)
        return name, decode(name, data)
    name = path
    try:
        with _open_unblocked(path) as file:
            size = os.fstat(file.fileno()).st_size
            if size > limit:
                raise too_large(name, size, limit)
            data = file.read(limit + 1)
    except FileNotFoundError:
        raise SpecError(Msg.of("no such file"), Location(name)) from None
    except IsADirectoryError:
        raise SpecError(Msg.of("this is a folder, expected a spec file"), Location(name)) from None
    except OSError as exc:
        raise SpecError(Msg.of("cannot read the file: {reason}", reason=os_problem(exc)),
                        Location(name)) from None
    if len(data) > limit:  # a file that grew, or one whose size the system does not know
        raise too_large(name, None, limit)
    return name, decode(name, data)


def _open_unblocked(path: str) -> BinaryIO:
    """`path` opened for reading without waiting for a writer: a FIFO nobody writes to reads as
    empty instead of hanging (opened with O_NONBLOCK, which is then cleared, so a pipe that has
    a writer, such as bash's <(...), is read to its end)."""
    if "\0" in path:
        raise OSError(errno.EINVAL, "a file name cannot hold the character NUL")
    handle = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    try:
        if stat.S_ISDIR(os.fstat(handle).st_mode):
            raise IsADirectoryError(errno.EISDIR, os.strerror(errno.EISDIR))
        flags = fcntl.fcntl(handle, fcntl.F_GETFL)
        fcntl.fcntl(handle, fcntl.F_SETFL, flags & ~os.O_NONBLOCK)
        return os.fdopen(handle, "rb")
    except BaseException:
        os.close(handle)
        raise


def too_large(name: str, size: int | None, limit: int) -> SpecError:
    if size is None:
        return SpecError(Msg.plural_of("the spec is larger than {count} byte, the limit that "
                                       "{option} sets", "the spec is larger than {count} bytes, "
                                       "the limit that {option} sets", limit, option=LIMIT_HINT),
                         Location(name))
    return SpecError(Msg.plural_of("the spec has {count} byte; the limit is {limit}, which "
                                   "{option} sets", "the spec has {count} bytes; the limit is "
                                   "{limit}, which {option} sets", size, limit=byte_count(limit),
                                   option=LIMIT_HINT), Location(name))


def byte_count(count: int) -> Msg:
    return Msg.plural_of("{count} byte", "{count} bytes", count)


def decode(name: str, data: bytes) -> str:
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        column = exc.start - (data.rfind(b"\n", 0, exc.start) + 1) + 1
        raise SpecError(
            Msg.of(
                "expected UTF-8 text, found the byte 0x{byte}",
                byte=f"{data[exc.start]:02x}",
            ),
            Location(name, line=line, column=column),
        ) from None
    if not text.strip():
        raise SpecError(Msg.of("the spec is empty, expected a mapping of keys"), Location(name))
    return text


def is_json(name: str, text: str) -> bool:
    if name.lower().endswith(".json"):
        return True
    if name.lower().endswith((".yaml", ".yml")):
        return False
    return text.lstrip()[:1] in ("{", "[")


def parse(name: str, text: str, max_cells: int = DEFAULT_MAX_CELLS) -> Node:
    """The document in `text` as a Node tree; SpecError with line:column if it is malformed,
    holds more than `max_cells` values (aliases expanded) or is nested too deep."""
    json_mode = is_json(name, text)
    if json_mode:  # read as JSON, which YAML is not quite (attncli/spec/json_source.py)
        from attncli.spec.json_source import parse_json

        with _collector_paused():
            return parse_json(name, text, max_cells)
    loader = _Loader(text, max_cells)
    try:
        with _collector_paused():
            try:
                root = loader.get_single_node()
            except (yaml.YAMLError, _Overrun):
                root = None
            if root is None:  # malformed, empty or past a limit: say which, and where
                return _parse_checked(name, text, json_mode, max_cells)
            if json_mode:
                _check_json(name, text)
            return _build(name, text, root, loader, json_mode, max_cells)
    finally:
        loader.dispose()


def _parse_checked(name: str, text: str, json_mode: bool, max_cells: int) -> Node:
    """The document read event by event first, which builds nothing, so that the first problem
    in it is named (a malformed place, a value past the cell limit, nesting past MAX_DEPTH),
    then composed."""
    try:
        _prescan(name, _Loader(text), max_cells)
    except yaml.YAMLError:
        if json_mode:  # JSON's own words for a mistake in JSON
            _check_json(name, text)
        with _yaml_errors(name, text):
            raise
    if json_mode:
        _check_json(name, text)
    loader = _Loader(text)
    try:
        return _compose(name, text, loader, json_mode, max_cells)
    finally:
        loader.dispose()


@contextmanager
def _collector_paused() -> Iterator[None]:
    """Python's cyclic garbage collector off while a document is read: a large matrix is
    hundreds of thousands of new objects, none of them garbage yet, which the collector would
    otherwise walk again and again (half the time of reading a 400 x 250 matrix)."""
    was_on = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_on:
            gc.enable()


@contextmanager
def _yaml_errors(name: str, text: str) -> Iterator[None]:
    """PyYAML's errors as one-line SpecErrors at the line:column they name."""
    try:
        yield
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        problem = yaml_problem((exc.problem or exc.context or "").strip())
        where = Location(name)
        if mark is not None:
            where = Location(name, line=mark.line + 1, column=mark.column + 1)
            if _tab_at(text, mark.line, mark.column):  # whatever the reader calls it
                problem = YAML_PROBLEMS["found a tab character that violates indentation"]
        raise SpecError(Msg.of("malformed YAML: {problem}", problem=problem), where) from None
    except yaml.reader.ReaderError as exc:  # a character YAML does not allow, e.g. NUL
        before = text[:exc.position]
        where = Location(name, line=before.count("\n") + 1,
                         column=exc.position - (before.rfind("\n") + 1) + 1)
        problem = yaml_problem(exc.reason)
        if isinstance(exc.character, int):
            problem = Msg.of("{problem} (U+{code})", problem=problem,
                             code=f"{exc.character:04X}")
        raise SpecError(Msg.of("malformed YAML: {problem}", problem=problem), where) from None
    except yaml.YAMLError as exc:
        raise SpecError(Msg.of("malformed YAML: {problem}", problem=yaml_problem(str(exc))),
                        Location(name)) from None


def _tab_at(text: str, line: int, column: int) -> bool:
    """Whether the YAML reader stopped at a tab: at the column it names, or in the indentation
    of that line (YAML indents with spaces only)."""
    lines = text.split("\n")
    if line >= len(lines):
        return False
    here = lines[line]
    indent = here[:len(here) - len(here.lstrip(" \t"))]
    return here[column:column + 1] == "\t" or "\t" in indent


def _prescan(name: str, loader: Any, max_cells: int) -> None:
    """Walk the parser's events, which take no memory, before a node is built: refuse a
    document that writes more than `max_cells` values or nests deeper than MAX_DEPTH."""
    depth = count = 0
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
            count += 1
            if count > max_cells:
                raise SpecError(Msg.plural_of("the spec holds more than {count} value, the "
                                              "limit that {option} sets", "the spec holds more "
                                              "than {count} values, the limit that {option} "
                                              "sets", max_cells, option=LIMIT_HINT),
                                _at(name, event.start_mark))
    finally:
        loader.dispose()


def _at(name: str, mark: Any) -> Location:
    return Location(name, line=mark.line + 1, column=mark.column + 1)


def _too_deep(name: str, mark: Any) -> SpecError:
    return SpecError(too_deep(), _at(name, mark))


def too_deep() -> Msg:
    return Msg.plural_of("the spec nests lists and mappings more than {count} level deep",
                         "the spec nests lists and mappings more than {count} levels deep",
                         MAX_DEPTH)


def _compose(name: str, text: str, loader: Any, json_mode: bool, max_cells: int) -> Node:
    with _yaml_errors(name, text):
        root = loader.get_single_node()
    return _build(name, text, root, loader, json_mode, max_cells)


def _build(name: str, text: str, root: yaml.Node | None, loader: Any, json_mode: bool,
           max_cells: int) -> Node:
    if root is None:
        raise SpecError(Msg.of("the spec is empty, expected a mapping of keys"), Location(name))
    size, _ = _Measure(name).measure(root, 1)
    if size > max_cells:
        # composed without the event walk (parse): the values as written may pass the limit
        # already, which is said first, as the walk says it
        _prescan(name, _Loader(text), max_cells)
        raise SpecError(
            Msg.plural_of("the spec holds {count} value once its aliases are expanded; the "
                          "limit is {limit}, which {option} sets", "the spec holds {count} "
                          "values once its aliases are expanded; the limit is {limit}, which "
                          "{option} sets", size, limit=max_cells, option=LIMIT_HINT),
            _at(name, root.start_mark),
        )
    return _Builder(name, loader, json_mode, max_cells).build(root, "")


class _Measure:
    """How many values the document has with every alias expanded, and how deep it nests,
    counted without expanding: a shared node (an alias) is counted once per use but measured
    once. An alias inside the value it names (a loop) is refused."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.memo: dict[int, tuple[int, int] | None] = {}  # id -> (size, height); None: open

    def measure(self, node: yaml.Node, depth: int) -> tuple[int, int]:
        if depth > MAX_DEPTH:
            raise _too_deep(self.name, node.start_mark)
        key = id(node)
        if key in self.memo:
            known = self.memo[key]
            if known is None:
                raise SpecError(Msg.of("an alias refers to the value it is part of"),
                                _at(self.name, node.start_mark))
            if depth + known[1] - 1 > MAX_DEPTH:
                raise _too_deep(self.name, node.start_mark)
            return known
        self.memo[key] = None
        children: list[yaml.Node] = []
        if isinstance(node, yaml.MappingNode):
            children = [value for _, value in node.value]
        elif isinstance(node, yaml.SequenceNode):
            children = list(node.value)
        size, height = 1, 1
        if depth + 1 <= MAX_DEPTH:  # a scalar counts one and adds one level: no need to recurse
            scalars = [c for c in children if c.__class__ is yaml.ScalarNode]
            if scalars:
                size, height = 1 + len(scalars), 2
                children = [c for c in children if c.__class__ is not yaml.ScalarNode]
        for child in children:
            child_size, child_height = self.measure(child, depth + 1)
            size += child_size
            height = max(height, child_height + 1)
        self.memo[key] = (size, height)
        return size, height


def _check_json(name: str, text: str) -> None:
    def no_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
        seen: set[str] = set()
        for key, _ in pairs:
            if key in seen:
                raise _DuplicateKey(key)
            seen.add(key)
        return dict(pairs)

    try:
        # parse_int=float: only the syntax is checked here, and a 5000-digit number is still one
        json.loads(text, object_pairs_hook=no_duplicates, parse_constant=_reject_constant,
                   parse_int=float)
    except json.JSONDecodeError as exc:
        raise SpecError(
            Msg.of("malformed JSON: {problem}", problem=json_problem(exc.msg)),
            Location(name, line=exc.lineno, column=exc.colno),
        ) from None
    except _DuplicateKey as exc:
        raise SpecError(
            Msg.of("the key {key} is given twice", key=str(exc)), Location(name)
        ) from None
    except _BadConstant as exc:
        raise SpecError(
            Msg.of("expected a finite number, found {found}", found=str(exc)), Location(name)
        ) from None
    except RecursionError:
        raise SpecError(too_deep(), Location(name)) from None


class _DuplicateKey(Exception):
    pass


class _BadConstant(Exception):
    pass


def _reject_constant(name: str) -> float:
    raise _BadConstant(name)


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


def _number(tag: str, text: str) -> int | float | None:
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


def _plain_numbers(items: list[yaml.Node]) -> tuple[float, ...] | None:
    """The numbers of a non-empty list whose items are all plain (unquoted) numbers that
    `_number` reads, finite and of float size; None for any other list, whose items then become
    Nodes of their own, so that a bad one is reported at its line and column."""
    if not items or any(item.__class__ is not yaml.ScalarNode or item.style for item in items):
        return None
    if all(item.tag == _FLOAT_TAG for item in items):  # a row of a matrix, mostly: at once
        try:
            numbers = list(map(float, [item.value for item in items]))
        except ValueError:
            return None
    else:
        read = [_number(item.tag, item.value) for item in items]
        if any(x is None or abs(x) > _LARGEST_INT for x in read):
            return None
        numbers = [float(x) for x in read if x is not None]
    if not all(map(math.isfinite, numbers)):
        return None
    return tuple(numbers)


class TextBudget:
    """Text in a spec is bounded before it is kept: each key or text value to MAX_TEXT
    characters, and all of them together, counted once per use of an alias, to the byte limit
    of the spec file (limits.max_bytes), so a long title aliased as thousands of tokens is
    refused as it is read."""

    def __init__(self, max_cells: int) -> None:
        self.limit = self.left = max_bytes(max_cells)

    def charge(self, text: str, where: Location) -> None:
        if len(text) > MAX_TEXT:
            problem = Msg.plural_of("expected a text of at most {count} character, found "
                                    "{length}", "expected a text of at most {count} characters, "
                                    "found {length}", MAX_TEXT, length=len(text))
            raise SpecError(Msg.of("{path}: {problem}", path=where.path, problem=problem)
                            if where.path else problem, where)
        self.left -= len(text)
        if self.left < 0:
            raise SpecError(Msg.plural_of(
                "the spec's texts, with aliases expanded, are longer than the limit of {count} "
                "character that {option} sets", "the spec's texts, with aliases expanded, are "
                "longer than the limit of {count} characters that {option} sets", self.limit,
                option=LIMIT_HINT), where)


class _Builder:
    def __init__(self, name: str, loader: Any, json_mode: bool,
                 max_cells: int = DEFAULT_MAX_CELLS) -> None:
        self.name = name
        self.loader = loader
        self.json_mode = json_mode
        self.texts = TextBudget(max_cells)

    def where(self, node: yaml.Node, path: str) -> Location:
        mark = node.start_mark
        return Location(self.name, path, mark.line + 1, mark.column + 1)

    def build(self, node: yaml.Node, path: str) -> Node:
        if isinstance(node, yaml.MappingNode):
            return self._mapping(node, path)
        if isinstance(node, yaml.SequenceNode):
            numbers = _plain_numbers(node.value)
            if numbers is not None:
                return Node.number_list(numbers, lambda: self._items(node, path),
                                        self.where(node, path))
            return Node(self._items(node, path), self.where(node, path))
        assert isinstance(node, yaml.ScalarNode)
        self.texts.charge(node.value, self.where(node, path))
        return Node(self._scalar(node, path), self.where(node, path), node.value,
                    node.style in ("'", '"'))

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
            self.texts.charge(key, self.where(key_node, path))
            child_path = f"{path}.{key}" if path else key
            if key in children:
                raise SpecError(
                    Msg.of("the key {key} is given twice", key=key),
                    self.where(key_node, child_path),
                )
            children[key] = self.build(value_node, child_path)
            keys[key] = self.where(key_node, child_path)
        mapping = Node(children, self.where(node, path))
        mapping.keys = keys
        return mapping

    def _scalar(self, node: yaml.ScalarNode, path: str) -> Any:
        if not node.style:  # plain: None, or "" from libyaml
            # The composer has already resolved the tag; the common decimal forms convert
            # directly, the rest (.inf, 0x1f, 017, 1:30) below.
            number = _number(node.tag, node.value)
            if number is not None:
                return number
        if self.json_mode:
            if node.style in ("'", '"'):
                return node.value
            return json.loads(node.value)
        try:
            return self.loader.construct_object(node, deep=True)
        except yaml.constructor.ConstructorError as exc:
            raise SpecError(
                Msg.of("cannot read this value: {problem}",
                       problem=yaml_value_problem(str(exc.problem))),
                self.where(node, path),
            ) from None
        except (ValueError, OverflowError) as exc:  # e.g. a date such as 2024-02-30
            problem = Msg.of("cannot read this value: {problem}", problem=str(exc))
            raise SpecError(Msg.of("{path}: {problem}", path=path, problem=problem) if path
                            else problem, self.where(node, path)) from None
