"""JSON specs are read as JSON (attncli/spec/json_source.py): whatever the json module accepts
(but NaN and Infinity, and lone surrogates) is accepted with the same values, and every problem is
located by line:column, as in YAML."""

from __future__ import annotations

import json
import random

import pytest

from attncli.errors import SpecError
from attncli.spec import loads_spec
from attncli.spec.json_source import parse_json
from attncli.spec.source import Node


def plain(node: Node) -> object:
    """The Node tree as plain Python values, to compare with json.loads."""
    if node.numbers is not None:
        return list(node.numbers)
    value = node.value
    if isinstance(value, dict):
        return {key: plain(child) for key, child in value.items()}
    if isinstance(value, list):
        return [plain(child) for child in value]
    return value


@pytest.mark.parametrize("text", [
    json.dumps({"tokens": ["\U0001f600", "кот"], "embeddings": [[1, 2], [3, 4]]}),  # \ud83d\ude00
    # raw, as JSON allows
    '{"tokens": ["a\x7f", "b\x85", "c\ufffe"], "embeddings": [[1], [2], [3]]}',
    '\n {"a" : [ 1 , -2.5e-3 , 0 ] ,"b":{"c":[true,false,null,"x\\"y\\u0041"]},"d":[]}',
])
def test_what_json_reads_is_read_the_same(text: str) -> None:
    assert plain(parse_json("s.json", text)) == rows_as_floats(json.loads(text))


def rows_as_floats(value: object) -> object:
    """json.loads's values with a list of numbers as floats, as attn keeps a matrix row."""
    if isinstance(value, dict):
        return {key: rows_as_floats(child) for key, child in value.items()}
    if isinstance(value, list):
        if value and all(type(x) in (int, float) for x in value):
            return [float(x) for x in value]
        return [rows_as_floats(child) for child in value]
    return value


def test_random_documents_read_as_the_json_module_reads_them() -> None:
    rng = random.Random(7)

    def value(depth: int) -> object:
        kind = rng.randrange(6 if depth < 4 else 3)
        if kind == 0:
            return rng.choice([rng.randint(-10**20, 10**20), rng.uniform(-1e6, 1e6), 0, -0.0])
        if kind == 1:
            return "".join(chr(rng.choice([rng.randrange(32, 0x2FFF), 0x1F600])) for _ in
                           range(rng.randrange(5)))
        if kind == 2:
            return rng.choice([True, False, None])
        if kind == 3:
            return [rng.uniform(-5, 5) for _ in range(rng.randrange(6))]
        if kind == 4:
            return [value(depth + 1) for _ in range(rng.randrange(4))]
        return {f"k{i}": value(depth + 1) for i in range(rng.randrange(4))}

    for _ in range(200):
        document = {"root": value(0)}
        for indent in (None, 2):
            text = json.dumps(document, indent=indent, ensure_ascii=rng.random() < 0.5)
            assert plain(parse_json("s.json", text)) == rows_as_floats(json.loads(text))


def test_yaml_and_json_give_one_spec() -> None:
    as_json = loads_spec('{"tokens": ["x", "y"], "embeddings": [[1, 2], [3, 4]], '
                         '"display": {"precision": 3}}', "s.json")
    as_yaml = loads_spec("tokens: [x, y]\nembeddings: [[1, 2], [3, 4]]\ndisplay: {precision: 3}\n",
                         "s.yaml")
    assert as_json.queries.tokens == as_yaml.queries.tokens
    assert (as_json.queries.embeddings == as_yaml.queries.embeddings).all()
    assert as_json.display == as_yaml.display


def located(text: str) -> str:
    with pytest.raises(SpecError) as caught:
        parse_json("s.json", text)
    error = caught.value
    assert error.where is not None
    return f"{error.where.prefix()} {error.where.path}"


def test_problems_are_located_by_line_and_column() -> None:
    # line 3, column 3: the second "b" (columns count from 1)
    assert located('{"a": {\n  "b": 1,\n  "b": 2}}') == "s.json:3:3 a.b"
    assert located('{"a": [1,\n [2, NaN]]}') == "s.json:2:6 a[1][1]"
    assert located('{"a": "\\ud800"}') == "s.json:1:7 "
    assert located('{"a": 1,}') == "s.json:1:9 "
    assert located('{"a": 1} x') == "s.json:1:10 "
    # the k-th "[" is at column 6 + k and nests k + 1 deep: the 64th is the first past 64
    assert located('{"a": ' + "[" * 70 + "]" * 70 + "}") == "s.json:1:70 "


def test_a_row_of_numbers_past_the_cell_limit_is_refused_where_it_starts() -> None:
    with pytest.raises(SpecError) as caught:
        parse_json("s.json", '{"a":\n [1, 2, 3, 4, 5]}', max_cells=4)
    assert caught.value.where is not None
    assert caught.value.where.prefix() == "s.json:2:2"


@pytest.mark.parametrize(("text", "said"), [
    # the string opens at column 18: the json module says where it starts, "starting at"
    ('{"tokens": ["a", "b', "s.json:1:18: malformed JSON: a string that is never closed "
                           "starts here"),
    # a control character is named where it is, column 15 (U+0001 after "a")
    ('{"tokens": ["a\x01b"]}', "s.json:1:15: malformed JSON: a control character inside a "
                               "string; write it as an escape such as \\n"),
])
def test_a_broken_string_is_said_in_attn_words(text: str, said: str) -> None:
    # "Unterminated string starting at" was taken for "… at" followed by a character, and
    # quoted in English as "Unterminated string starting U+0022"
    with pytest.raises(SpecError) as caught:
        parse_json("s.json", text)
    assert str(caught.value) == said


@pytest.mark.parametrize("seed", range(5))
def test_every_place_is_the_line_and_column_counted_by_hand(seed: int) -> None:
    """Line and column of every offset of texts of random lines (blank ones, long ones past a
    block of 512 characters, a last line without a newline), against a count from the start."""
    from attncli.spec.json_source import _Reader

    rng = random.Random(seed)
    text = "".join(rng.choice(["", "\n", "ab", "é\n", "x" * 700, "\n\n\n", "ы" * 520 + "\n"])
                   for _ in range(400))
    reader = _Reader("s.json", text, 10)
    for offset in [*range(0, len(text) + 1, 7), len(text)]:
        line = text.count("\n", 0, offset) + 1
        column = offset - (text.rfind("\n", 0, offset) + 1) + 1
        place = reader.where(offset, "")
        assert (place.line, place.column) == (line, column), offset


def test_a_spec_of_millions_of_newlines_keeps_no_list_of_them() -> None:
    """40 MB of newlines after a spec (within the byte limit) took 1.6 GB: a Python list of every
    newline's place. 4,000,000 of them now take a list per block of 512 characters."""
    import tracemalloc

    from attncli.spec.json_source import _Reader

    text = '{"tokens": ["a"]}' + "\n" * 4_000_000
    tracemalloc.start()
    try:
        reader = _Reader("s.json", text, 10)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 4_000_000  # bytes: a place per newline was 144 MB
    assert (reader.where(len(text), "").line, reader.where(17, "").column) == (4_000_001, 18)


def test_a_list_that_is_no_row_fails_as_a_row_where_its_whitespace_ends() -> None:
    """A list whose first item, or an item after a number, is no number (display.expand's texts,
    a title's mappings, a text in a row) was tried as a row of numbers with its whitespace given
    back one place at a time: 38 MB of spaces before a text took 1.1 s CPU to validate, twice a
    row of numbers with the same spaces. The row's whitespace is taken possessively now, so the
    pattern fails where it ends; what it reads is read as json reads it."""
    import re

    from attncli.spec.json_source import _ROW

    # every run of whitespace in the pattern is possessive: none is given back
    assert re.findall(r"\[ \\t\\n\\r\]\*(?!\+)", _ROW.pattern) == []
    rng = random.Random(20)
    spaces = [" ", "\t", "\n", "\r", "\r\n", "  \n\t"]
    for _ in range(300):
        items = [rng.choice([str(rng.randint(-9, 9)), repr(rng.uniform(-5, 5)), "1e-3", "-0.0",
                             '"x"', "[1]", "{}", "null"]) for _ in range(rng.randrange(1, 5))]
        gap = lambda: "".join(rng.choice(spaces) for _ in range(rng.randrange(3)))  # noqa: E731
        text = '{"a": [' + gap() + ("," + gap()).join(item + gap() for item in items) + "]}"
        assert plain(parse_json("s.json", text)) == rows_as_floats(json.loads(text)), text
