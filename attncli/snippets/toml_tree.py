"""A TOML manifest read into a Node tree whose locations carry each key path and, from the text
(toml_marks), each key's and value's line:column, as a YAML manifest's Node tree has them.

Its entries are counted as soon as tomllib has read the text, before their places are found,
any is checked or any glob is expanded: a manifest holds at most MAX_ENTRIES (a real one has
tens). 15,886 alike entries, within the manifest's 1 MiB, took 6 s and 110 MB to be refused for
a clash in the first two, all placed and globbed first.
"""

from __future__ import annotations

import re
import sys
from typing import Any

from attncli.errors import Location, SpecError
from attncli.i18n import Count, Msg
from attncli.i18n.library_messages import toml_problem
from attncli.snippets.toml_depth import check_depth, too_deep
from attncli.snippets.toml_marks import Position, marks
from attncli.spec.node import Node

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - exercised on Python 3.10 only
    import tomli as tomllib

# Entries of one manifest (`snippets`): each names globs to expand and specs to work out.
MAX_ENTRIES = 500
# The header of an entry as a manifest writes it (the form docs/snippets.md shows), found to
# place the entry past MAX_ENTRIES without placing every key of the text
ENTRY_HEADER = re.compile(r"^[ \t]*\[\[[ \t]*snippets[ \t]*\]\]", re.MULTILINE)


def too_many_entries(path: str) -> Msg:
    return Msg.of("{path}: this is entry {index} of the list snippets; a manifest holds at "
                  "most {limit}", path=path, index=MAX_ENTRIES + 1, limit=Count(MAX_ENTRIES))


def check_headers(name: str, content: str) -> None:
    """SpecError at the header of the entry past MAX_ENTRIES, counted at C speed before tomllib
    reads the text (which took 0.5 s of a 1 MiB manifest's 6 s)."""
    place = entry_place(content, MAX_ENTRIES)
    if place is not None:
        path = f"snippets[{MAX_ENTRIES}]"
        raise SpecError(too_many_entries(path), Location(name, path, line=place[0],
                                                         column=place[1]))


def check_entries(name: str, content: str, document: dict[str, Any]) -> None:
    """SpecError at the entry past MAX_ENTRIES, if there is one (written inline, as
    `snippets = [{...}, ...]`, it is placed as every key is)."""
    entries = document.get("snippets")
    if not isinstance(entries, list) or len(entries) <= MAX_ENTRIES:
        return
    path = f"snippets[{MAX_ENTRIES}]"
    place = entry_place(content, MAX_ENTRIES) or marks(content)[1].get(path)
    line, column = place if place is not None else (None, None)
    raise SpecError(too_many_entries(path), Location(name, path, line=line, column=column))


def entry_place(content: str, index: int) -> Position | None:
    """Where the header of entry `index` (from 0) stands, if the entries are written as headers."""
    for k, found in enumerate(ENTRY_HEADER.finditer(content)):
        if k == index:
            at = found.start()
            return content.count("\n", 0, at) + 1, at - (content.rfind("\n", 0, at) + 1) + 1
    return None


# A whole number of 600 digits or more is read as ±inf: int() may refuse it, from 640 digits
# where PYTHONINTMAXSTRDIGITS asks the least it allows (4,300 by default).
HUGE_WHOLE = re.compile(r"(?<![\w.])([+-]?)[0-9][0-9_]{599,}(?![\w.])")


def toml_tree(name: str, content: str) -> Node:
    """The TOML document as a Node tree whose locations carry the key path (and each key of a
    mapping its line:column too)."""
    check_headers(name, content)  # the documented refusal of many entries comes first
    check_depth(name, content)
    try:
        try:
            document = tomllib.loads(content)
        except ValueError as exc:  # a whole number past the digits Python converts (4300)
            if isinstance(exc, tomllib.TOMLDecodeError):
                raise
            document = tomllib.loads(HUGE_WHOLE.sub(r"\1inf", content))  # as JSON specs read it
    except RecursionError:  # pragma: no cover - check_depth refuses such nesting first
        raise SpecError(too_deep(), Location(name)) from None
    except tomllib.TOMLDecodeError as exc:
        line, column = toml_position(str(exc))
        problem = re.sub(r"\s*\(at .*\)$", "", str(exc))
        raise SpecError(Msg.of("malformed TOML: {problem}", problem=toml_problem(problem)),
                        Location(name, line=line, column=column)) from None
    check_entries(name, content, document)
    keys, values = marks(content)
    return to_node(document, name, "", keys, values)


def toml_position(message: str) -> tuple[int | None, int | None]:
    found = re.search(r"at line (\d+), column (\d+)", message)
    return (int(found[1]), int(found[2])) if found else (None, None)


def to_node(value: Any, name: str, path: str, keys: dict[str, Position] | None = None,
            values: dict[str, Position] | None = None) -> Node:
    """`value` as a Node at `path`; `keys` and `values`: where each key and each value was
    written (toml_marks.marks); a table made by a dotted key alone is placed at its key."""
    keys, values = keys or {}, values or {}
    line, column = values.get(path) or keys.get(path) or (None, None)
    where = Location(name, path, line=line, column=column)
    if isinstance(value, dict):
        paths = {key: f"{path}.{key}" if path else key for key in value}
        node = Node({key: to_node(child, name, paths[key], keys, values)
                     for key, child in value.items()}, where)
        for key, at in paths.items():
            line, column = keys.get(at, (None, None))
            node.keys[key] = Location(name, at, line=line, column=column)
        return node
    if isinstance(value, list):
        return Node([to_node(child, name, f"{path}[{i}]", keys, values)
                     for i, child in enumerate(value)], where)
    return Node(value, where, quoted=isinstance(value, str))
