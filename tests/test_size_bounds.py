"""Hostile sizes a pull request can put in the files a spec reads, refused before attn pays for
them: one located line, exit 2, nothing written. (Their time and memory are measured in
benchmarks/, never here.)"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from attncli import load_spec
from attncli.spec.checkpoint import header_values
from attncli.spec.limits import MAX_HEADER_VALUES
from tests.conftest import run


def values_in(found: object) -> int:
    """The JSON values of a parsed document, keys aside, walked one by one (the oracle of
    header_values)."""
    if isinstance(found, dict):
        return 1 + sum(values_in(value) for value in found.values())
    if isinstance(found, list):
        return 1 + sum(values_in(value) for value in found)
    return 1


def safetensors(path: Path, entries: dict[str, dict[str, object]], data: bytes) -> None:
    header = json.dumps(entries).encode()
    path.write_bytes(len(header).to_bytes(8, "little") + header + data)


def entry(shape: list[int], begin: int) -> dict[str, object]:
    end = begin + 8 * int(np.prod(shape))
    return {"dtype": "F64", "shape": shape, "data_offsets": [begin, end]}


def test_the_count_of_header_values_bounds_the_parsed_values() -> None:
    header = {"W": entry([2, 3], 0), "b": entry([3], 48), "__metadata__": {"format": "pt"}}
    data = json.dumps(header).encode()
    # by hand: the outer object 1; W 1 + dtype 1 + shape 3 + data_offsets 3; b 1 + 1 + 2 + 3;
    # __metadata__ 1 + 1
    assert values_in(header) == 1 + 8 + 7 + 2
    assert header_values(data) == values_in(header)
    assert header_values(b'{"a": "x,y,z"}') == 4  # commas in a text only raise the bound
    assert header_values(b'{"a": [], "b": {}}') == 5 > values_in({"a": [], "b": {}}) == 3


def test_a_header_of_too_many_entries_is_refused_before_it_is_parsed(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """560,000 one-number tensors made 400 MB of Python objects before any entry was checked;
    the count of values refuses them unparsed."""
    entries = {f"t{i}": entry([1], 0) for i in range(MAX_HEADER_VALUES // 7 + 1)}  # 7 values each
    entries["W"] = entry([2, 2], 0)
    safetensors(tmp_path / "m.safetensors", entries, np.eye(2).tobytes())
    (tmp_path / "spec.yaml").write_text("tokens: [a, b]\nembeddings: {file: m.safetensors, "
                                        "key: W}\n", encoding="utf-8")
    count = header_values(json.dumps(entries).encode())
    assert count > MAX_HEADER_VALUES
    monkeypatch.chdir(tmp_path)
    before = sorted(p.name for p in tmp_path.iterdir())
    result = run("export", "spec.yaml", "--latex", "-o", "out.tex")
    assert (result.exit_code, result.stdout) == (2, "")
    assert result.stderr == (
        f"spec.yaml:2:20: embeddings.file: m.safetensors: the header holds up to {count:,} JSON "
        f"values; the limit is {MAX_HEADER_VALUES:,}\n")  # counts grouped as English writes them
    assert sorted(p.name for p in tmp_path.iterdir()) == before
    pl = run("explain", "spec.yaml", "--lang", "pl")
    assert (pl.exit_code, pl.stderr.split(": ", 3)[-1]) == (
        2, f"nagłówek może zawierać nawet {polish(count)} wartości JSON; limit to "
        f"{polish(MAX_HEADER_VALUES)}\n")


def polish(count: int) -> str:
    """A count as Polish writes it: groups of three parted by no-break spaces (262 144)."""
    return f"{count:,}".replace(",", "\u00a0")


def test_a_header_within_the_count_is_read(tmp_path: Path) -> None:
    # W's 4 numbers first, then one number of each t, each tensor with bytes of its own
    count = MAX_HEADER_VALUES // 8 - 10
    entries = {f"t{i}": entry([1], 32 + 8 * i) for i in range(count)}
    entries["W"] = entry([2, 2], 0)
    assert header_values(json.dumps(entries).encode()) <= MAX_HEADER_VALUES
    safetensors(tmp_path / "m.safetensors", entries,
                np.array([[1.0, 2.0], [3.0, 4.0]]).tobytes() + bytes(8 * count))
    (tmp_path / "spec.yaml").write_text("tokens: [a, b]\nembeddings: {file: m.safetensors, "
                                        "key: W}\n", encoding="utf-8")
    embeddings = load_spec(str(tmp_path / "spec.yaml")).queries.embeddings
    assert np.array_equal(embeddings, [[1.0, 2.0], [3.0, 4.0]])
