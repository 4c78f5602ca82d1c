"""What reading a spec at its limits costs, counted in work, not time: a spec within the default
limits (150,000 values, 50,000 texts, 20,000 keys, 4,800,000 bytes) is read, and refused at an
unknown key, in under a second and 200 MB. Before, 150,000 empty lists took 1.24 s, 49,990
mappings of one key 1.19 s, 99,980 texts with 149,980 values 1.4 s, and a 39 MB spec (99,980
texts of 385 characters; one number of 39 million digits) 2.1 s and 269 MB, 1.3 s and 211 MB
(docs/limits.md has the numbers measured after)."""

from __future__ import annotations

import gc
from pathlib import Path
from typing import Any

import pytest
import yaml

from attncli.errors import SpecError
from attncli.i18n import translate
from attncli.spec import bounds, json_source, yaml_tree
from attncli.spec.limits import (
    DEFAULT_MAX_CELLS,
    max_bytes,
    max_spec_bytes,
    max_texts,
    max_written,
)
from attncli.spec.source import parse
from attncli.spec.spec_text import read_text
from attncli.spec.yaml_loader import Loader


def counted(monkeypatch: pytest.MonkeyPatch, owner: Any, name: str) -> list[int]:
    """A counter of the calls of `owner.name`, which still does what it did."""
    calls = [0]
    original = getattr(owner, name)

    def counting(*args: Any, **kwargs: Any) -> Any:
        calls[0] += 1
        return original(*args, **kwargs)

    monkeypatch.setattr(owner, name, counting)
    return calls


def test_a_spec_file_may_hold_what_its_values_need_and_no_more() -> None:
    # 32 bytes for each value a spec may write: 150,000 by default, 4,800,000 bytes; a
    # .csv keeps 4 bytes a cell (40,000,000)
    assert max_spec_bytes(DEFAULT_MAX_CELLS) == 32 * 150_000 == 4_800_000
    assert max_bytes(DEFAULT_MAX_CELLS) == 40_000_000
    assert max_spec_bytes(10) == 2**20  # never below 1 MiB: comments cost nothing
    assert max_spec_bytes(10**8) == 32 * 1_000_000  # a hundredth of max-cells written
    # the longest float64 and its separator, for every value the spec may write, fits
    longest = "-1.2345678901234567e-300, "
    assert len(longest) * max_written(DEFAULT_MAX_CELLS) <= max_spec_bytes(DEFAULT_MAX_CELLS)


def test_a_spec_past_its_byte_limit_is_refused_unread(tmp_path: Path) -> None:
    """A 39 MB spec of one number was read (211 MB) before its 39 million digits were refused;
    4,800,001 bytes are now refused from the file's size."""
    spec = tmp_path / "s.yaml"
    spec.write_text("embeddings: [[" + "1" * (4_800_001 - 17) + "]]\n", encoding="ascii")
    assert spec.stat().st_size == 4_800_001
    with pytest.raises(SpecError) as caught:
        read_text(str(spec))
    assert translate(caught.value.message, "en") == (
        "the spec has 4,800,001 bytes; the limit is 4,800,000 bytes, which --max-cells sets")
    spec.write_text("embeddings: [[" + "1" * (4_800_000 - 17) + "]]\n", encoding="ascii")
    assert len(read_text(str(spec))[1]) == 4_800_000


def test_a_spec_without_aliases_is_not_walked_again(monkeypatch: pytest.MonkeyPatch) -> None:
    """Measure walked every node a second time to expand aliases a document cannot hold when it
    has no `*`: a sixth of the time of reading 150,000 empty lists."""
    calls = counted(monkeypatch, bounds.Measure, "measure")
    root = parse("s.yaml", "a: [[], {}, [1, 2]]\nb: {c: x}\n")
    assert calls[0] == 0
    assert [len(item.value) for item in root["a"].value] == [0, 0, 2]
    parse("s.yaml", "a: &x [1, 2]\nb: *x\n")  # an alias: measured, node by node
    assert calls[0] == 3  # the mapping and its two values, the same list (measured once)


def test_a_spec_of_texts_past_max_cells_is_still_measured(
        monkeypatch: pytest.MonkeyPatch) -> None:
    # a mapping, a list and 3 text values (the keys aside) under --max-cells 4: the texts count
    # as values here
    calls = counted(monkeypatch, bounds.Measure, "measure")
    with pytest.raises(SpecError) as caught:
        parse("s.yaml", "a: [x, y]\nb: z\n", max_cells=4)
    assert calls[0] > 0
    assert translate(caught.value.message, "en") == ("the spec holds 5 values once its aliases "
                                                     "are expanded; the limit is 4, which "
                                                     "--max-cells sets")


def test_empty_lists_are_not_read_for_numbers(monkeypatch: pytest.MonkeyPatch) -> None:
    """Each empty list was looked at for a row of numbers and remembered by its id."""
    calls = counted(monkeypatch, yaml_tree, "plain_numbers")
    root = parse("s.yaml", "a: [[], [], [], [1, 2]]\n")
    assert calls[0] == 2  # the outer list and the row [1, 2] (each empty list too: 5)
    assert [item.value for item in root["a"].value[:3]] == [[], [], []]
    assert root["a"].value[3].numbers == (1.0, 2.0)


def test_texts_are_not_given_to_the_constructor(monkeypatch: pytest.MonkeyPatch) -> None:
    """A text is its value as written: PyYAML's constructor, 1.5 µs a text, is asked only for
    what it reads otherwise (a date, a boolean, 0x1f)."""
    calls = counted(monkeypatch, Loader, "construct_object")
    root = parse("s.yaml", "a: [x, 'y', \"z\", on, 0x1f]\n")
    assert [item.value for item in root["a"].value] == ["x", "y", "z", True, 31]
    assert calls[0] == 2  # on, 0x1f


def test_lists_and_mappings_take_the_default_tag_at_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """PyYAML's resolver was called for each list and mapping to name the tag it always gives
    one (attn has no path resolvers)."""
    calls = counted(monkeypatch, yaml.resolver.BaseResolver, "resolve")
    root = parse("s.yaml", "a: [[], {}, [[]]]\n")
    assert calls[0] == 1  # the key a, a text
    assert [item.value for item in root["a"].value] == [[], {}, [root["a"].value[2].value[0]]]
    assert root["a"].value[1].value == {}


def test_a_key_is_located_once(monkeypatch: pytest.MonkeyPatch) -> None:
    calls = counted(monkeypatch, yaml_tree.TreeBuilder, "where")
    root = parse("s.yaml", "a: {b: 1, c: 2}\n")
    # the root and a's mapping, each of a, b, c once, and the numbers 1 and 2: 7 (was 12)
    assert calls[0] == 7
    assert (root["a"].keys["c"].path, root["a"].keys["c"].column) == ("a.c", 11)


def test_a_json_text_and_an_empty_list_are_located_once(monkeypatch: pytest.MonkeyPatch) -> None:
    calls = counted(monkeypatch, json_source._Reader, "where")
    rows = counted(monkeypatch, json_source._Reader, "row_within_limit")
    root = parse("s.json", '{"t": ["a", "b"], "e": [[], [ ]]}')
    # the root, the keys t and e, each list (4) and each text (2): 9 (was 15)
    assert calls[0] == 9
    assert rows[0] == 2  # ["a", "b"] and e's list; the empty lists are no rows (was 4)
    assert [item.value for item in root["e"].value] == [[], []]
    assert root["e"].value[1].where.column == 29


def test_a_json_empty_list_at_the_value_limit_is_one_value() -> None:
    """An empty list was counted as two values when it was looked at as a row (its `]` and
    one value); it is one, as in YAML: a spec of exactly the limit's values is read."""
    most = max_written(DEFAULT_MAX_CELLS)
    # the mapping, its list and most - 2 empty lists: `most` values; one more is past it
    fits = '{"notes": [' + ", ".join(["[]"] * (most - 2)) + "]}"
    assert len(parse("s.json", fits)["notes"].value) == most - 2
    with pytest.raises(SpecError) as caught:
        parse("s.json", '{"notes": [' + ", ".join(["[]"] * (most - 1)) + "]}")
    assert translate(caught.value.message, "en") == (
        "the spec holds more than 150,000 values, the limit that --max-cells sets")


def test_the_objects_read_are_set_aside_from_the_collector() -> None:
    """With the collector back on, the next allocation walked every object the spec made (0.11 s
    for 150,000 lists); they are kept until the command ends, so they are frozen instead."""
    from attncli.spec.scope import ONE_RUN_PROCESS, scoped

    gc.collect()
    with scoped(ONE_RUN_PROCESS, True):  # as the command line runs a command
        parse("s.yaml", "a: [" + ", ".join(["[]"] * 20_000) + "]\n")
    assert gc.get_count()[0] < 1_000  # the 20,000 lists are not young objects to walk
    assert gc.get_freeze_count() >= 20_000
    gc.unfreeze()


def test_a_program_that_imports_attn_keeps_its_collector_as_it_was() -> None:
    """A notebook's kernel outlives its specs: nothing it made is set aside for good."""
    gc.unfreeze()  # what an in-process command of another test in this worker set aside
    gc.collect()
    parse("s.yaml", "a: [" + ", ".join(["[]"] * 20_000) + "]\n")
    assert gc.get_freeze_count() == 0


def test_texts_and_keys_have_the_tighter_limits() -> None:
    assert max_texts(DEFAULT_MAX_CELLS) == 50_000
    assert max_texts(10**8) == 500_000  # a two-hundredth of a larger --max-cells
    from attncli.spec.limits import MAX_ALL_KEYS

    assert MAX_ALL_KEYS == 20_000
