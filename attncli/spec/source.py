"""Reading a spec file into a tree of `Node`s that remember where each value was written.

YAML and JSON are both read through PyYAML's composer, which keeps line and column marks; JSON
is first checked by the json module, so JSON-only rules (no comments, no trailing commas, `1e3`
is a number) hold. Values are resolved as YAML 1.1 does, except that `1e-3` is a float (as every
reader means it), and the original text of each scalar is kept, so an error can say "you wrote
`on`, which YAML reads as true".
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from attncli.errors import Location, SpecError
from attncli.i18n import Msg

STDIN = "-"
STDIN_NAME = "<stdin>"
# Every value of the document, aliases expanded, counts against this: an alias bomb is refused
# before it is built.
DEFAULT_MAX_NODES = 5_000_000

_BaseLoader: type[yaml.SafeLoader]
try:  # the C parser is several times faster on large matrices; marks are the same
    _BaseLoader = yaml.CSafeLoader  # type: ignore[assignment]
except AttributeError:  # pragma: no cover - PyYAML built without libyaml
    _BaseLoader = yaml.SafeLoader


class _Loader(_BaseLoader):  # type: ignore[misc, valid-type]
    """SafeLoader that also reads `1e-3`, `2E5` and `+.5` as floats, as YAML 1.2 does (1.1 reads
    them as text). Integers still resolve first, since their resolver was added first."""


_Loader.add_implicit_resolver(
    "tag:yaml.org,2002:float",
    re.compile(r"^[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?$"),  # YAML 1.2
    list("-+0123456789."),
)


@dataclass(frozen=True, slots=True)
class Node:
    """One value of the spec: a dict of Nodes, a list of Nodes, or a scalar; and where it was."""

    value: Any
    where: Location
    text: str | None = None  # a scalar as written
    quoted: bool = False

    def __getitem__(self, key: str) -> Node:
        child = self.value[key]
        assert isinstance(child, Node)
        return child

    def get(self, key: str) -> Node | None:
        if isinstance(self.value, dict):
            child = self.value.get(key)
            return child if isinstance(child, Node) else None
        return None


def read_text(path: str) -> tuple[str, str]:
    """(display name, text) of a spec file, or of standard input for `-`."""
    if path == STDIN:
        import sys

        data = sys.stdin.buffer.read()
        name = STDIN_NAME
    else:
        file = Path(path)
        name = path
        if file.is_dir():
            raise SpecError(Msg.of("this is a folder, expected a spec file"), Location(name))
        try:
            data = file.read_bytes()
        except FileNotFoundError:
            raise SpecError(Msg.of("no such file"), Location(name)) from None
        except OSError as exc:
            raise SpecError(
                Msg.of("cannot read the file: {reason}", reason=exc.strerror or str(exc)),
                Location(name),
            ) from None
    return name, decode(name, data)


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


def parse(name: str, text: str, max_nodes: int = DEFAULT_MAX_NODES) -> Node:
    """The document in `text` as a Node tree; SpecError with line:column if it is malformed."""
    json_mode = is_json(name, text)
    if json_mode:
        _check_json(name, text)
    loader = _Loader(text)
    try:
        return _compose(name, loader, json_mode, max_nodes)
    finally:
        loader.dispose()


def _compose(name: str, loader: Any, json_mode: bool, max_nodes: int) -> Node:
    try:
        root = loader.get_single_node()
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        problem = (exc.problem or exc.context or "malformed YAML").strip()
        where = Location(name)
        if mark is not None:
            where = Location(name, line=mark.line + 1, column=mark.column + 1)
        raise SpecError(Msg.of("malformed YAML: {problem}", problem=problem), where) from None
    except yaml.YAMLError as exc:
        raise SpecError(
            Msg.of("malformed YAML: {problem}", problem=str(exc)), Location(name)
        ) from None
    if root is None:
        raise SpecError(Msg.of("the spec is empty, expected a mapping of keys"), Location(name))
    size = _expanded_size(root, {})
    if size > max_nodes:
        raise SpecError(
            Msg.of("the spec holds {size} values once its aliases are expanded; the limit is "
                   "{limit}", size=size, limit=max_nodes),
            Location(name, line=root.start_mark.line + 1, column=root.start_mark.column + 1),
        )
    return _Builder(name, loader, json_mode).build(root, "")


def _expanded_size(node: yaml.Node, memo: dict[int, int]) -> int:
    """How many values the document has with every alias expanded, counted without expanding:
    a shared node (an alias) is counted once per use but measured once."""
    known = memo.get(id(node))
    if known is not None:
        return known
    memo[id(node)] = 1  # a recursive alias counts as one value until it is measured
    size = 1
    if isinstance(node, yaml.MappingNode):
        size += sum(_expanded_size(value, memo) for _, value in node.value)
    elif isinstance(node, yaml.SequenceNode):
        size += sum(_expanded_size(child, memo) for child in node.value)
    memo[id(node)] = size
    return size


def _check_json(name: str, text: str) -> None:
    def no_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
        seen: set[str] = set()
        for key, _ in pairs:
            if key in seen:
                raise _DuplicateKey(key)
            seen.add(key)
        return dict(pairs)

    try:
        json.loads(text, object_pairs_hook=no_duplicates, parse_constant=_reject_constant)
    except json.JSONDecodeError as exc:
        raise SpecError(
            Msg.of("malformed JSON: {problem}", problem=exc.msg),
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


class _DuplicateKey(Exception):
    pass


class _BadConstant(Exception):
    pass


def _reject_constant(name: str) -> float:
    raise _BadConstant(name)


_NUMBER_TAGS: dict[str, Any] = {"tag:yaml.org,2002:float": float, "tag:yaml.org,2002:int": int}


class _Builder:
    def __init__(self, name: str, loader: Any, json_mode: bool) -> None:
        self.name = name
        self.loader = loader
        self.json_mode = json_mode

    def where(self, node: yaml.Node, path: str) -> Location:
        mark = node.start_mark
        return Location(self.name, path, mark.line + 1, mark.column + 1)

    def build(self, node: yaml.Node, path: str) -> Node:
        if isinstance(node, yaml.MappingNode):
            return self._mapping(node, path)
        if isinstance(node, yaml.SequenceNode):
            items = [
                self.build(child, f"{path}[{i}]") for i, child in enumerate(node.value)
            ]
            return Node(items, self.where(node, path))
        assert isinstance(node, yaml.ScalarNode)
        return Node(self._scalar(node, path), self.where(node, path), node.value,
                    node.style in ("'", '"'))

    def _mapping(self, node: yaml.MappingNode, path: str) -> Node:
        children: dict[str, Node] = {}
        for key_node, value_node in node.value:
            if not isinstance(key_node, yaml.ScalarNode):
                raise SpecError(
                    Msg.of("expected a plain key, found a nested value"),
                    self.where(key_node, path),
                )
            key = key_node.value
            child_path = f"{path}.{key}" if path else key
            if key in children:
                raise SpecError(
                    Msg.of("the key {key} is given twice", key=key),
                    self.where(key_node, child_path),
                )
            children[key] = self.build(value_node, child_path)
        return Node(children, self.where(node, path))

    def _scalar(self, node: yaml.ScalarNode, path: str) -> Any:
        if node.style is None and node.tag in _NUMBER_TAGS:
            # The composer has already resolved the tag; the common decimal forms convert
            # directly (a large matrix is mostly these), the rest (.inf, 0x1f, 1:30) below.
            try:
                return _NUMBER_TAGS[node.tag](node.value)
            except ValueError:
                pass
        if self.json_mode:
            if node.style in ("'", '"'):
                return node.value
            return json.loads(node.value)
        try:
            return self.loader.construct_object(node, deep=True)
        except yaml.constructor.ConstructorError as exc:
            raise SpecError(
                Msg.of("cannot read this value: {problem}", problem=str(exc.problem)),
                self.where(node, path),
            ) from None
