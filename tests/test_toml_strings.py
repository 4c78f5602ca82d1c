"""The manifest's scan (snippets/toml_depth.py) reads TOML's strings as tomllib does: each
string it skips whole is one that tomllib reads as a string, from its first quote to its last.
A multi-line string ended one quote early (`'''a''''` is the text `a'`) made the fourth quote
open a one-line string that hid the rest of its line from the value count and the depth."""

from __future__ import annotations

import sys

from hypothesis import given, settings
from hypothesis import strategies as st

from attncli.snippets.toml_depth import tokens

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - exercised on Python 3.10 only
    import tomli as tomllib

# the characters that end, escape or open something in TOML, and a few that do not
TEXT = st.text(alphabet=st.sampled_from(list("a '\"\\\n\t,=[{}].#")), max_size=10)


def basic(text: str, draw: st.DrawFn) -> str:
    written = {"\\": "\\\\", "\n": "\\n", '"': draw(st.sampled_from(['\\"', "\\u0022"]))}
    return '"' + "".join(written.get(char, char) for char in text) + '"'


def literal(text: str, draw: st.DrawFn) -> str | None:
    return None if "'" in text or "\n" in text else f"'{text}'"


def multiline_basic(text: str, draw: st.DrawFn) -> str:
    """Quotes left bare where TOML lets them be (up to two in a row, and up to two before the
    closing three), and line continuations before characters that are not white space."""
    out = ['"""', "\n" if text.startswith("\n") or draw(st.booleans()) else ""]
    bare = 0  # quotes in a row, not escaped, just written
    for char in text:
        if char not in " \t\n" and draw(st.booleans()):
            out.append("\\" + draw(st.sampled_from(["\n", " \n  ", "\n\n\t"])))
            bare = 0
        if char == '"' and bare < 2 and draw(st.booleans()):
            out.append('"')
            bare += 1
            continue
        out.append({"\\": "\\\\", '"': '\\"'}.get(char, char))
        bare = 0
    return "".join(out) + '"""'


def multiline_literal(text: str, draw: st.DrawFn) -> str | None:
    if "'''" in text:
        return None
    return "'''" + ("\n" if text.startswith("\n") or draw(st.booleans()) else "") + text + "'''"


FORMS = [basic, literal, multiline_basic, multiline_literal]


@st.composite
def manifests(draw: st.DrawFn) -> tuple[str, dict[str, object], list[tuple[int, int]]]:
    """A manifest of strings in every form TOML writes them (keys, values, in arrays and inline
    tables, beside comments that hold quotes), what tomllib should read, and where each
    string was written."""
    parts: list[str] = []
    spans: list[tuple[int, int]] = []
    expected: dict[str, object] = {}

    def put(written: str, is_string: bool = False) -> None:
        at = sum(map(len, parts))
        if is_string:
            spans.append((at, at + len(written)))
        parts.append(written)

    def string() -> str:
        while True:
            text = draw(TEXT)
            written = draw(st.sampled_from(FORMS))(text, draw)
            if written is not None:
                put(written, True)
                return text

    for index in range(draw(st.integers(1, 6))):
        key = f"k{index}"
        if draw(st.booleans()):
            put(draw(st.sampled_from([f'"{key}"', f"'{key}'"])), True)
        else:
            put(key)
        put(" = ")
        shape = draw(st.sampled_from(["string", "array", "table"]))
        if shape == "string":
            expected[key] = string()
        elif shape == "array":
            put("[")
            items = []
            for item in range(draw(st.integers(0, 3))):
                put(draw(st.sampled_from([",", ",\n", ", # \"'' ,[\n"])) if item else "")
                items.append(string())
            put("]")
            expected[key] = items
        else:
            put("{")
            table = {}
            for item in range(draw(st.integers(0, 3))):
                put(", " if item else "")
                put(f"t{item} = ")
                table[f"t{item}"] = string()
            put("}")
            expected[key] = table
        put(draw(st.sampled_from(["\n", " # '''a'''' \"x\n", "  #\"\"\"\n"])))
    return "".join(parts), expected, spans


@settings(max_examples=400, deadline=None)
@given(manifests())
def test_the_scan_skips_each_string_from_its_first_quote_to_its_last(
        manifest: tuple[str, dict[str, object], list[tuple[int, int]]]) -> None:
    content, expected, spans = manifest
    assert tomllib.loads(content) == expected  # the manifest is written as TOML writes it
    skipped = [token.span() for token in tokens(content) if token.group()[0] in "\"'"]
    assert skipped == spans


def test_a_multi_line_string_keeps_up_to_two_quotes_of_the_run_that_ends_it() -> None:
    content = "a = '''x''''\nb = \"\"\"y\"\"\"\"\"\nc = [\"\"\"\\\"\"\"\", 1]\n"
    assert tomllib.loads(content) == {"a": "x'", "b": 'y""', "c": ['"', 1]}
    assert [content[slice(*token.span())] for token in tokens(content)
            if token.group()[0] in "\"'"] == ["'''x''''", '"""y"""""', '"""\\""""']
