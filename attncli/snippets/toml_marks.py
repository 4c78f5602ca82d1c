"""Where each key and each value of a TOML manifest was written: tomllib gives the values alone,
so the text, once tomllib has read it without error, is scanned again for the line and column of
every key and value, by the key path that toml_tree.to_node gives it (`snippets[0].specs`,
`snippets[1].formats[1]`), so that an unknown key and a wrong value are named at their line and
column, as in a YAML manifest. A table written as a header (`[[snippets]]`) is placed at its
header. The nesting was checked by toml_depth first, so the recursion here is at most MAX_DEPTH
deep."""

from __future__ import annotations

import bisect
import contextlib
import re
import sys

from attncli.snippets.toml_depth import STRING

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - exercised on Python 3.10 only
    import tomli as tomllib

Position = tuple[int, int]  # 1-based line and column

_STRING = re.compile(STRING, re.S)
_BARE_KEY = re.compile(r"[A-Za-z0-9_-]+")
_BLANK = re.compile(r"(?:[ \t\r\n]|#[^\n]*)*")  # spaces, line ends and comments
_SPACE = re.compile(r"[ \t]*")
_SCALAR_END = re.compile(r"[,\]}\n#]|$")


class _Stop(Exception):
    """The text is not as this scanner reads TOML (tomllib read it, so this is a gap here)."""


class _Scanner:
    def __init__(self, content: str) -> None:
        self.text = content
        self.at = 0
        self.line_starts = [0] + [m.end() for m in re.finditer("\n", content)]
        self.keys: dict[str, Position] = {}
        self.values: dict[str, Position] = {"": (1, 1)}  # the document, a table from its start

    def position(self, at: int) -> Position:
        line = bisect.bisect_right(self.line_starts, at)
        return line, at - self.line_starts[line - 1] + 1

    def skip(self, pattern: re.Pattern[str]) -> None:
        found = pattern.match(self.text, self.at)
        assert found is not None  # each pattern matches the empty text
        self.at = found.end()

    def peek(self, size: int = 1) -> str:
        return self.text[self.at:self.at + size]

    def document(self) -> None:
        prefix = ""
        tables: dict[str, int] = {}  # array-of-tables path -> entries so far
        while True:
            self.skip(_BLANK)
            if self.at >= len(self.text):
                return
            start = self.at
            if self.peek(2) == "[[":
                self.at += 2
                parent, _, last = self.dotted().rpartition(".")
                name = f"{resolve(parent, tables)}.{last}" if parent else last
                index = tables.get(name, 0)
                tables[name] = index + 1
                self.note(name, start)
                prefix = f"{name}[{index}]"
                self.values.setdefault(prefix, self.position(start))
                self.expect("]]")
            elif self.peek() == "[":
                self.at += 1
                prefix = resolve(self.dotted(), tables)
                self.note(prefix, start)
                self.values.setdefault(prefix, self.position(start))
                self.expect("]")
            else:
                self.pair(prefix)

    def note(self, path: str, start: int, first: int = 0) -> None:
        """`path` and each key it passes through from index `first` on (`tool` of `tool.x`)
        were written at `start`, unless an earlier line wrote them."""
        for end in [i for i in range(first, len(path)) if path[i] == "."] + [len(path)]:
            self.keys.setdefault(path[:end], self.position(start))

    def expect(self, token: str) -> None:
        self.skip(_SPACE)
        if self.peek(len(token)) != token:
            raise _Stop
        self.at += len(token)

    def dotted(self) -> str:
        """A key, bare or quoted, with its dotted parts joined by `.` as to_node joins them."""
        parts = []
        while True:
            self.skip(_SPACE)
            found = _STRING.match(self.text, self.at) or _BARE_KEY.match(self.text, self.at)
            if found is None:
                raise _Stop
            written = found.group()
            parts.append(tomllib.loads(f"k = {written}")["k"] if written[0] in "\"'"
                         else written)
            self.at = found.end()
            self.skip(_SPACE)
            if self.peek() != ".":
                return ".".join(parts)
            self.at += 1

    def pair(self, prefix: str) -> None:
        start = self.at
        key = self.dotted()
        path = f"{prefix}.{key}" if prefix else key
        self.note(path, start, len(prefix) + 1 if prefix else 0)
        self.expect("=")
        self.skip(_SPACE)
        self.value(path)

    def value(self, path: str) -> None:
        self.values[path] = self.position(self.at)
        first = self.peek()
        if first == "[":
            self.array(path)
        elif first == "{":
            self.inline_table(path)
        elif (found := _STRING.match(self.text, self.at)) is not None:
            self.at = found.end()
        else:
            end = _SCALAR_END.search(self.text, self.at)
            assert end is not None  # `$` always matches
            self.at = end.start()

    def array(self, path: str) -> None:
        self.at += 1
        index = 0
        while True:
            self.skip(_BLANK)
            if self.peek() == "]":
                self.at += 1
                return
            self.value(f"{path}[{index}]")
            index += 1
            self.skip(_BLANK)
            if self.peek() == ",":
                self.at += 1
            elif self.peek() != "]":
                raise _Stop

    def inline_table(self, path: str) -> None:
        self.at += 1
        while True:
            self.skip(_SPACE)
            if self.peek() == "}":
                self.at += 1
                return
            self.pair(path)
            self.skip(_SPACE)
            if self.peek() == ",":
                self.at += 1
            elif self.peek() != "}":
                raise _Stop


def resolve(name: str, tables: dict[str, int]) -> str:
    """A header's dotted name as a key path: a part that names an array of tables means its
    latest entry (`[snippets.x]` after `[[snippets]]` is `snippets[0].x`)."""
    path = ""
    for part in name.split(".") if name else ():
        path = f"{path}.{part}" if path else part
        if path in tables:
            path = f"{path}[{tables[path] - 1}]"
    return path


def marks(content: str) -> tuple[dict[str, Position], dict[str, Position]]:
    """Where each key and where each value was written, by key path, for a text that tomllib
    has read; what the scanner cannot follow keeps no position."""
    scanner = _Scanner(content)
    with contextlib.suppress(_Stop):
        scanner.document()
    return scanner.keys, scanner.values
