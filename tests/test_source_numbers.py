"""Reading large matrices fast: a row of plain numbers is converted at once, yet every value,
every error's line:column and every Node is what reading cell by cell gives."""

from __future__ import annotations

import gc
import re
from typing import SupportsIndex

import numpy as np
import pytest
import yaml
from hypothesis import given
from hypothesis import strategies as st

from attncli.errors import SpecError
from attncli.i18n import translate
from attncli.spec import json_source, loads_spec
from attncli.spec.source import Node, parse
from attncli.spec.yaml_loader import BaseLoader, Loader

MIXED = "[[1, -2.5, 0.125, +3, -0], [1_000, 017, 0x1f, 1.5e+3, .5]]"


def test_plain_rows_come_converted_and_the_rest_cell_by_cell() -> None:
    root = parse("m.yaml", f"m: {MIXED}\n")
    plain, special = root["m"].value
    assert plain.numbers == (1.0, -2.5, 0.125, 3.0, 0.0)
    assert special.numbers is None  # 017 is octal and 0x1f hex in YAML 1.1: read one by one
    assert [cell.value for cell in special.value] == [1000, 15, 31, 1500.0, 0.5]


def test_a_matrix_reads_as_pyyaml_reads_it() -> None:
    """Every cell as PyYAML reads it, but for a number YAML would read in base 8 (017 is 15):
    a spec refuses that one (tests/bad_inputs/yaml_octal_cell), and 07, 7 in either base, is
    read."""
    matrix = MIXED.replace("017", "07")
    spec = loads_spec(f"tokens: [a, b]\nembeddings: {matrix}\n")
    expected = np.array(yaml.load(matrix, Loader=yaml.SafeLoader), dtype=np.float64)
    np.testing.assert_array_equal(spec.queries.embeddings, expected)
    assert expected[1, 1:3].tolist() == [7.0, 31.0]
    with pytest.raises(SpecError, match="found 017, which YAML reads as the octal number 15"):
        loads_spec(f"tokens: [a, b]\nembeddings: {MIXED}\n")


def test_yaml_1_2_exponents_are_numbers_in_a_plain_row() -> None:
    root = parse("m.yaml", "m: [1e-3, 2E5, -4e+2]\n")
    assert root["m"].numbers == (0.001, 200000.0, -400.0)


def test_the_items_of_a_plain_row_are_nodes_with_their_place_when_asked_for() -> None:
    root = parse("m.yaml", "m:\n  - [1, 2]\n  - [3, 4.5]\n")
    row = root["m"].value[1]
    assert row.numbers == (3.0, 4.5)
    cell = row.value[1]
    assert (cell.value, cell.text, cell.where.path) == (4.5, "4.5", "m[1][1]")
    assert (cell.where.line, cell.where.column) == (3, 9)
    assert row == Node(row.value, row.where)


@pytest.mark.parametrize(("cells", "message"), [
    ("[3, 1e999]", "embeddings[1][1]: expected a finite number, found 1e999"),
    ("[3, x]", "embeddings[1][1]: expected a number, found the text \"x\""),
    ("[3, '4']", "embeddings[1][1]: expected a number, found the text \"4\""),
    ("[3, .inf]", "embeddings[1][1]: expected a finite number, found .inf"),
    ("[3, 1" + "0" * 320 + "]", "embeddings[1][1]: expected a number that fits a 64-bit "
     "float, found 1" + "0" * 19 + "…" + "0" * 10),  # a long text is shortened in the middle
])
def test_a_bad_cell_in_a_matrix_is_named_at_its_line_and_column(cells: str, message: str) -> None:
    with pytest.raises(SpecError) as caught:
        loads_spec(f"tokens: [a, b]\nembeddings: [[1, 2], {cells}]\n", name="s.yaml")
    assert caught.value.where is not None
    assert (caught.value.where.line, caught.value.where.column) == (2, 26)  # the second cell
    assert translate(caught.value.message, "en") == message


@given(st.text(alphabet="0123456789.-+_eE:x", min_size=1, max_size=8))
def test_the_quick_resolver_agrees_with_pyyaml(value: str) -> None:
    loader = Loader("")
    try:
        quick = loader.resolve(yaml.ScalarNode, value, (True, False))
        full = BaseLoader.resolve(loader, yaml.ScalarNode, value, (True, False))
    finally:
        loader.dispose()
    assert quick == full


def test_reading_leaves_the_garbage_collector_as_it_found_it() -> None:
    assert gc.isenabled()
    parse("m.yaml", "m: [[1, 2]]\n")
    assert gc.isenabled()
    gc.disable()
    try:
        parse("m.yaml", "m: [[1, 2]]\n")
        assert not gc.isenabled()
    finally:
        gc.enable()


@pytest.mark.parametrize("levels", [65, 100_000])
def test_nesting_past_the_limit_is_refused_where_it_starts(levels: int) -> None:
    # composing stops at level 65, before the C composer recurses any deeper; the event walk
    # then names the place
    with pytest.raises(SpecError) as caught:
        parse("deep.yaml", "m: " + "[" * levels + "]" * levels + "\n")
    assert translate(caught.value.message, "en") == \
        "the spec nests lists and mappings more than 64 levels deep"
    assert caught.value.where is not None
    assert (caught.value.where.line, caught.value.where.column) == (1, 4 + 63)


def test_a_spec_past_the_cell_limit_is_refused_at_the_value_that_passes_it() -> None:
    with pytest.raises(SpecError) as caught:
        parse("big.yaml", "m: [[1, 2, 3], [4, 5, 6]]\n", max_cells=7)
    assert translate(caught.value.message, "en") == \
        "the spec holds more than 7 values, the limit that --max-cells sets"
    assert caught.value.where is not None
    # the 8th value: the mapping, the outer list, the first row, 1, 2, 3, the second row, then 4
    # (the key m is a text, which the text limit counts)
    assert (caught.value.where.line, caught.value.where.column) == (1, 17)


def test_aliases_past_the_limit_are_named_as_the_values_written() -> None:
    # 4 values are composed (the keys are texts), but with the 3 aliases 7 are written: past 6,
    # as the event walk says
    with pytest.raises(SpecError) as caught:
        parse("alias.yaml", "a: &x [1]\nb: [*x, *x, *x]\n", max_cells=6)
    assert translate(caught.value.message, "en") == \
        "the spec holds more than 6 values, the limit that --max-cells sets"
    with pytest.raises(SpecError) as caught:
        parse("alias.yaml", "a: &x [1, 2, 3]\nb: [*x, *x]\n", max_cells=10)
    assert translate(caught.value.message, "en") == "the spec holds 14 values once its aliases " \
        "are expanded; the limit is 10, which --max-cells sets"


@pytest.mark.parametrize(("text", "where"), [
    ("tokens: [" + ", ".join(["a"] * 1_000_000) + "]\n", (1, 10 + 3 * 49_999)),  # "tokens": text 1
    ("tokens:\n" + "- a\n" * 1_000_000, (50_001, 3)),
    ("t: [" + ", ".join(['"1"'] * 200_000) + "]\n", (1, 5 + 5 * 49_999)),  # quoted: texts
])
def test_a_million_texts_are_refused_before_they_are_composed(
        monkeypatch: pytest.MonkeyPatch, text: str, where: tuple[int, int]) -> None:
    """The text limit (50,000) was checked on the composed document: a 2 MB spec of a million
    one-letter tokens cost 3 s and 375 MB before its refusal. The text past the limit (the key
    is the first text) now stops composing, and the place is the same as before."""
    import attncli.spec.source

    def composed(*_: object) -> None:
        raise AssertionError("the whole document was composed")

    monkeypatch.setattr(attncli.spec.source, "_build", composed)
    with pytest.raises(SpecError) as caught:
        parse("big.yaml", text)
    assert translate(caught.value.message, "en") == (
        "the spec holds more than 50,000 texts (keys and text values, with aliases expanded), "
        "the limit that --max-cells sets")
    assert caught.value.where is not None
    assert (caught.value.where.line, caught.value.where.column) == where


def test_numbers_are_no_texts_for_the_early_count(monkeypatch: pytest.MonkeyPatch) -> None:
    """90,000 plain numbers in a list of mixed items are no texts: with the text limit at
    1,000, the spec passes it and is read."""
    from attncli.spec import limits

    monkeypatch.setattr(limits, "MIN_TEXTS", 1_000)
    numbers = ", ".join(["1", "2.5", "1e-3", ".inf", "0x1f"] * 18_000)
    node = parse("m.yaml", f"m: [{numbers}, a]\n")
    assert node.value["m"].value[-1].value == "a"


@pytest.mark.parametrize("name", ["big.yaml", "big.json"])
def test_a_million_numbers_are_refused_before_they_are_composed(
        monkeypatch: pytest.MonkeyPatch, name: str) -> None:
    """Numbers written in a spec were all composed before the first was checked, and 10 million
    were allowed: 3 million in a 6 MB file took 18.7 s and 2.2 GB. The value past 150,000 (at least
    a hundredth of the cell limit) now stops the reading: in YAML, composing stops at it; in JSON,
    a row of numbers is refused before its pattern is matched."""
    import attncli.spec.json_source
    import attncli.spec.source

    def composed(*_: object) -> None:
        raise AssertionError("the whole document was composed")

    row = attncli.spec.json_source._ROW

    class Unmatched:
        """The pattern of a row, which must not be run on the mask's (a million numbers)."""

        def match(self, text: str, start: int) -> object:
            assert not text.startswith("[0, 0", start), "the mask's row was matched"
            return row.match(text, start)

    monkeypatch.setattr(attncli.spec.source, "_build", composed)
    monkeypatch.setattr(attncli.spec.json_source, "_ROW", Unmatched())
    head = 'tokens: [a, b]\nembeddings: [[1, 0], [0, 1]]\nmask: ['
    if name.endswith(".json"):
        head = '{"tokens": ["a", "b"], "embeddings": [[1, 0], [0, 1]], "mask": ['
    text = head + ", ".join(["0"] * 1_000_000) + ("]}" if name.endswith(".json") else "]\n")
    with pytest.raises(SpecError) as caught:
        parse(name, text)
    assert translate(caught.value.message, "en") == \
        "the spec holds more than 150,000 values, the limit that --max-cells sets"
    assert caught.value.where is not None
    where = (caught.value.where.line, caught.value.where.column)
    # values before the mask's: the mapping, the tokens' list, the embeddings' list, 2 rows and
    # 4 numbers (9; keys and tokens are texts). YAML names the value that passes 100,000: the
    # mask's list is the 10th, so its number 99,991 (each takes 3 columns, from column 8);
    # JSON names the row that passes it
    assert where == ((3, 8 + 3 * 149_990) if name.endswith(".yaml") else (1, 64))


SPACES = " " * 20_000_000


class Tries:
    """A module's patterns, each place one is tried at counted: one for a match at a place,
    every place from there to the text's end for a search (findall, finditer, sub)."""

    def __init__(self, pattern: re.Pattern[str], tried: list[int]) -> None:
        self.pattern, self.tried = pattern, tried

    def __getattr__(self, name: str) -> object:
        found = getattr(self.pattern, name)
        if not callable(found):
            return found

        def counted(text: str, pos: int = 0, *rest: object) -> object:
            anchored = name in ("match", "fullmatch")
            self.tried[0] += 1 if anchored else len(text) - pos + 1
            return found(text, pos, *rest)
        return counted


def test_spaces_in_a_json_row_are_stepped_over_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """A row of plain numbers read at once was taken apart by a number pattern tried at each of
    its characters: 38 MB of spaces inside a row (within the byte limit) took 1.4 s, eight
    times the spaces between two rows."""
    text = '{"tokens": ["a", "b"], "embeddings": [[1,' + SPACES + "0], [0, 1]]}"
    tried = [0]
    for name, value in vars(json_source).items():
        if isinstance(value, re.Pattern):
            monkeypatch.setattr(json_source, name, Tries(value, tried))
    node = parse("s.json", text)
    assert [row.numbers for row in node.value["embeddings"].value] == [(1.0, 0.0), (0.0, 1.0)]
    # the spaces are stepped over by one match that starts before them, no pattern is tried
    # at each of them: the tries are at most the characters that are not those spaces
    assert tried[0] <= len(text) - len(SPACES)


class Looked(str):
    """A text that counts the characters its find looks at (up to what it finds) and its
    slices copy."""

    looked = 0

    def find(self, sub: str, start: SupportsIndex | None = None,  # type: ignore[override]
             end: SupportsIndex | None = None) -> int:
        first = 0 if start is None else int(start)
        last = len(self) if end is None else min(int(end), len(self))
        found = super().find(sub, start, end)
        Looked.looked += max(0, (found + len(sub) if found >= 0 else last) - first)
        return found

    def __getitem__(self, key: SupportsIndex | slice) -> str:  # type: ignore[override]
        piece = super().__getitem__(key)
        Looked.looked += len(piece)
        return piece


def test_nested_json_lists_look_for_their_end_once() -> None:
    """Each list looked for the `]` that ends its row by copying the text up to it: 63 lists
    nested around 38 MB of spaces copied it 63 times (2 s), twelve times the spaces between two
    rows, before the 64th was refused."""
    text = '{"m": ' + "[" * 63 + SPACES + "1" + "]" * 63 + "}"
    Looked.looked = 0
    inner = json_source.parse_json("s.json", Looked(text)).value["m"]
    # the spaces looked at a few times in all (for the `]`, for each of `[`, `{` and `"`, and
    # a copy of the innermost row's numbers), not once or twice for each of the 63 lists
    assert Looked.looked <= 5 * len(text)
    for _ in range(62):
        (inner,) = inner.value
    assert inner.numbers == (1.0,)
    with pytest.raises(SpecError) as caught:
        parse("s.json", '{"m": ' + "[" * 64 + SPACES + "1" + "]" * 64 + "}")
    assert caught.value.where is not None
    assert (caught.value.where.line, caught.value.where.column) == (1, 7 + 63)
