"""serde's "invalid type" in a tokenizer.json placed at the value it is about, not where serde
stopped. A part of the file named by its `type` (a pre-tokenizer, a model) is read whole before
its fields are, so serde's place is that part's closing brace, and its message names no key:

    invalid type: string "no", expected a boolean at line 14 column 3

The value is looked for inside the part that ends there (or is the value serde read last, as
for an added token's `id`): the one value of the kind and value serde names. Where there are
several (an integer 3 beside a vocabulary's id 3) or none (serde wrote it otherwise), serde's
place is kept."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from typing import Any

from attncli.errors import Location
from attncli.i18n import Msg
from attncli.spec.node import Node
from attncli.spec.tokenizer_written import Path, skip
from attncli.spec.values import describe

PLACE = re.compile(r"(?P<said>.*) at line (?P<line>[0-9]+) column (?P<column>[0-9]+)", re.DOTALL)
WRONG_TYPE = re.compile(r"invalid type: (?P<found>.*), expected (?P<expected>.*)")
FOUND = re.compile(r'string "(?P<string>.*)"|integer `(?P<integer>-?[0-9]+)`|'
                   r"floating point `(?P<float>[^`]*)`|boolean `(?P<boolean>true|false)`|"
                   r"(?P<null>null|unit value)|(?P<list>sequence)|(?P<map>map)", re.DOTALL)
# What serde expected, as attn names a kind of value (the rest: the generic sentence)
EXPECTED = [(re.compile(p), m) for p, m in [
    (r"f32|f64", Msg.of("a number")),
    (r"[ui](?:8|16|32|64|128|size)", Msg.of("a whole number")),
    (r"a boolean", Msg.of("true or false")),
    (r"a string|a borrowed string|a character", Msg.of("text")),
    (r"a sequence|a tuple.*|.*array.*", Msg.of("a list")),
    (r"a map|struct .*", Msg.of("a mapping")),
]]
SPACES = " \t\n\r"
BULK = frozenset({"vocab", "merges"})
SCAN = json.scanner.make_scanner(json.JSONDecoder())  # type: ignore[attr-defined]


def wrong_type(text: str, config: Any, said: str) -> tuple[Path, Msg] | None:
    """The path of the value serde's `said` is about, and what was expected and found there;
    None where it is not one value found for sure."""
    place = PLACE.fullmatch(said)
    if place is None:
        return None
    line, column = int(place["line"]), int(place["column"])
    typed = WRONG_TYPE.fullmatch(place["said"])
    found = FOUND.fullmatch(typed["found"]) if typed is not None else None
    if typed is None or found is None:
        return None
    at = offset_at(text, line, column)
    placed = next(((part, begins, path) for part, begins in reversed(
        ending_at(text, at) if at is not None else []) if (
        path := the_value(config, part, found)) is not None), None)
    if placed is None:
        return None
    part, begins, path = placed
    at = start_of(text, begins, path[len(part):])
    value = value_at(config, path)
    written = text[at:SCAN(text, at)[1]] if not isinstance(value, (dict, list)) else None
    expected = next((m for p, m in EXPECTED if p.fullmatch(typed["expected"])), None)
    if expected is None:
        return path, Msg.of("a value of the wrong kind (text, number, list or mapping) for its "
                            "key")
    return path, Msg.of("expected {expected}, found {found}", expected=expected,
                        found=describe(Node(value, Location(""), text=written)))


def the_value(config: Any, part: Path, found: re.Match[str]) -> Path | None:
    """The path of the one value inside `part` that is what serde found; None for none or
    several. The part serde read whole before it met the value is not the value; a
    vocabulary's ids and scores, and the merges, are looked at only where nothing else is it
    (each is many)."""
    try:
        inside = value_at(config, part)
    except (KeyError, IndexError, TypeError):  # a key written twice: Python's reader kept one
        return None
    for bulk in (False, True):
        candidates = [path for path, value in leaves(inside, part, bulk) if same(value, found)
                      and (path != part or not isinstance(value, (dict, list)))]
        if candidates:
            return candidates[0] if len(candidates) == 1 else None
    return None


def value_at(config: Any, path: Path) -> Any:
    for step in path:
        config = config[step]
    return config


def offset_at(text: str, line: int, column: int) -> int | None:
    """The offset in `text` of serde's line and column (1-based, in bytes): where the value
    serde read last ends (a part read whole: its closing brace)."""
    before = text.split("\n", line - 1)
    if len(before) < line:
        return None
    start = len(text) - len(before[-1])
    end = text.find("\n", start)
    row = text[start:end if end >= 0 else len(text)]
    return start + len(row.encode("utf-8")[:max(column - 1, 0)].decode("utf-8", "ignore"))


def ending_at(text: str, at: int) -> list[tuple[Path, int]]:
    """The path and start of each value that ends at `at` (before it, or with the character
    at it: a part's closing brace), outer first: down from the top, through the one value at
    each level that holds `at`. Only the values up to it at each level are scanned (a
    vocabulary after it never is)."""
    path: list[str | int] = []
    start, end = skip(text, 0), len(text.rstrip())
    found = []
    while True:
        if end in (at, at + 1):
            found.append((tuple(path), start))
        if text[start] not in "{[" or (end == at + 1 and text[at - 1] in SPACES):
            return found  # `at` is its closing brace, after a space: no value in it ends there
        for step, begins, ends in children(text, start):
            if begins <= at <= ends:
                path.append(step)
                start, end = begins, ends
                break
            if begins > at:
                return found
        else:
            return found


def start_of(text: str, at: int, path: Path) -> int:
    """Where the value at `path` below the value at `at` begins (the first of a key written
    twice: serde refuses a second)."""
    for step in path:
        closing = "}" if text[at] == "{" else "]"
        at, place = skip(text, at + 1), 0
        while True:  # to the step, scanning only the values before it
            if closing == "}":
                key, at = json.decoder.scanstring(text, at + 1)  # type: ignore[attr-defined]
                at = skip(text, skip(text, at) + 1)  # past the colon
            else:
                key, place = place, place + 1
            if key == step:
                break
            at = skip(text, skip(text, SCAN(text, at)[1]) + 1)  # past the value and its comma
    return at


def children(text: str, at: int) -> Iterator[tuple[str | int, int, int]]:
    """The key (or place) of each value of the object (or list) at `at`, where it begins and
    where it ends."""
    closing = "}" if text[at] == "{" else "]"
    at = skip(text, at + 1)
    place = 0
    while text[at] != closing:
        if closing == "}":
            key, at = json.decoder.scanstring(text, at + 1)  # type: ignore[attr-defined]
            at = skip(text, skip(text, at) + 1)  # past the colon
        else:
            key, place = place, place + 1
        end = SCAN(text, at)[1]
        yield key, at, end
        at = skip(text, end)
        if text[at] == ",":
            at = skip(text, at + 1)


def leaves(value: Any, path: Path, bulk: bool) -> Iterator[tuple[Path, Any]]:
    """Every value under `value` (itself too), with its path, in the file's order; under a
    key of BULK only with `bulk`."""
    stack: list[tuple[Path, Any]] = [(path, value)]
    while stack:
        path, value = stack.pop()
        yield path, value
        if path and path[-1] in BULK and not bulk:
            continue
        if isinstance(value, dict):
            stack.extend(reversed([((*path, key), item) for key, item in value.items()]))
        elif isinstance(value, list):
            stack.extend(reversed([((*path, k), item) for k, item in enumerate(value)]))


def same(value: Any, found: re.Match[str]) -> bool:
    """Whether `value` (as Python's reader read it) is what serde's words name."""
    if found["string"] is not None:
        return isinstance(value, str) and debug(value) == found["string"]
    if found["integer"] is not None:
        return type(value) is int and value == int(found["integer"])
    if found["float"] is not None:
        try:
            return type(value) is float and value == float(found["float"])
        except ValueError:
            return False
    if found["boolean"] is not None:
        return value is (found["boolean"] == "true")
    if found["null"] is not None:
        return value is None
    return isinstance(value, list) if found["list"] is not None else isinstance(value, dict)


def debug(text: str) -> str:
    """`text` as Rust's Debug writes a string between its quotes (serde's message)."""
    out = []
    for char in text:
        if char in "\\\"":
            out.append("\\" + char)
        elif char in "\n\t\r\0":
            out.append({"\n": "\\n", "\t": "\\t", "\r": "\\r", "\0": "\\0"}[char])
        elif ord(char) < 0x20 or ord(char) == 0x7F:
            out.append(f"\\u{{{ord(char):x}}}")
        else:
            out.append(char)
    return "".join(out)
