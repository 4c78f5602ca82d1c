"""Fuzzing the spec reader and the whole pipeline: hypothesis writes specs, valid and broken
(missing keys, a wrong type at any key, random nesting and unicode, huge and tiny numbers, masks,
heads, context, positions, the rest of the layer), as YAML, JSON or mangled bytes, and `attn
explain` must end in exit 0, or exit 2 with exactly one line on stderr. Exit 3 (an internal
error) is a bug in attn, whatever the input. Texts hold control, format and invisible characters
and run past the length limit; matrix files are links out of the folder, a link loop, a FIFO
and a link to /dev/zero; no hidden character reaches stdout or stderr raw.

CI runs ATTN_FUZZ_EXAMPLES examples (default 300, well under a minute); for a longer local run:

    ATTN_FUZZ_EXAMPLES=20000 python -m pytest tests/test_fuzz.py
"""

from __future__ import annotations

import json
import os
import re
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import yaml
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from tests.conftest import run

EXAMPLES = int(os.environ.get("ATTN_FUZZ_EXAMPLES", "300"))

SMALL = st.one_of(st.integers(-3, 3), st.floats(-10, 10, allow_nan=False))
NUMBERS = st.one_of(
    SMALL, SMALL, SMALL, SMALL, SMALL, SMALL,
    st.sampled_from([0.0, -0.0, 1e150, -1e150, 1e-300, 5e-324, 1e308, 2**1024, 10**400]),
    st.floats(allow_nan=True, allow_infinity=True),
)
ANY_TEXT = st.text(min_size=1, max_size=6)  # any unicode: markup, control characters, …
PRINTABLE = st.text(st.characters(blacklist_categories=("Cc", "Cs", "Zl", "Zp")), min_size=1,
                    max_size=6)  # still $, \\, [bold], <b>, &, #, Cyrillic, emoji
HIDDEN = st.text(st.characters(whitelist_categories=("Cc", "Cf", "Zl", "Zp"),
                                whitelist_characters="\ufffe\uffff\x1b"), min_size=1, max_size=4)
CONTROL = st.builds(lambda a, b, c: a + b + c, PRINTABLE, HIDDEN, st.text(max_size=2))
LONG = st.builds(lambda k, c: c * k, st.integers(990, 1010), st.sampled_from("xé\x1b"))
WORDS = st.one_of(PRINTABLE, PRINTABLE, PRINTABLE, ANY_TEXT, CONTROL, LONG)
# No hidden character may reach stdout or stderr raw (attncli/i18n/visible.py): what a terminal
# acts on
RAW = re.compile("[\x00-\x09\x0b-\x1f\x7f-\x9f\xad\u200b-\u200f\u2028-\u202e\u2060-\u206f"
                 "\ufeff\ufff9-\ufffb\ufffe\uffff]")
JUNK = st.recursive(
    st.one_of(st.none(), st.booleans(), NUMBERS, WORDS,
              st.sampled_from(["identity", "causal", "none", "sinusoidal", "yes", "off", "1e-3",
                               "sqrt_dk", "scaled_dot", "dot", "zeros", "nan", "error"])),
    lambda inner: st.one_of(st.lists(inner, max_size=4),
                            st.dictionaries(WORDS, inner, max_size=3)),
    max_leaves=12,
)


CELLS = st.one_of(*[SMALL] * 30, NUMBERS)  # one odd number in a matrix is enough


def matrix(rows: int, columns: int) -> st.SearchStrategy[list[list[Any]]]:
    return st.lists(st.lists(CELLS, min_size=columns, max_size=columns),
                    min_size=rows, max_size=rows)


def rarely(one_in: int) -> st.SearchStrategy[bool]:
    """True about once in `one_in` draws (an integer draw would favour its bounds)."""
    return st.sampled_from([False] * (one_in - 1) + [True])


def sometimes(valid: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    """Mostly a value of the right kind, sometimes anything at all."""
    return st.one_of(valid, valid, valid, valid, valid, valid, valid, JUNK)


@st.composite
def specs(draw: st.DrawFn) -> dict[str, Any]:
    n = draw(st.integers(1, 4))
    d = draw(st.sampled_from([1, 2, 4]))
    size = st.integers(1, 4)
    spec: dict[str, Any] = {
        "tokens": draw(sometimes(st.lists(WORDS, min_size=n, max_size=n))),
        "embeddings": draw(sometimes(st.one_of(
            matrix(n, d), st.just({"random": {"seed": 1}, "dim": d}),
            st.just({"file": "E.npy"}), st.just({"file": "../outside.npy"}),
            st.sampled_from([{"file": "link.npy"}, {"file": "loop.npy"}, {"file": "fifo.csv"},
                             {"file": "zero.csv"}])))),
    }
    weight = st.one_of(st.just("identity"), size.flatmap(lambda k: matrix(d, k)),
                       st.just({"random": {}}), st.just({"file": "W.npz", "key": "W_Q"}))
    optional: dict[str, st.SearchStrategy[Any]] = {
        "weights": st.dictionaries(st.sampled_from(["W_Q", "W_K", "W_V", "b_Q", "W_O", "b_O"]),
                                   sometimes(weight), max_size=3),
        "heads": st.one_of(st.integers(0, 4), st.lists(st.dictionaries(
            st.sampled_from(["W_Q", "W_K", "W_V"]), weight, max_size=2), max_size=3)),
        "mask": st.one_of(st.sampled_from(["causal", "none"]), matrix(n, n).map(
            lambda m: [[1 if x else 0 for x in row] for row in m]),
            st.just({"padding": [False] * n}), st.builds(lambda w: {"window": w},
                                                         st.integers(-1, 3)),
            st.lists(st.sampled_from(["causal", {"window": 1}, "none"]), max_size=3)),
        "masked_rows": st.sampled_from(["zeros", "nan", "error"]),
        "scale": st.one_of(st.sampled_from(["sqrt_dk", "none"]), NUMBERS),
        "score": st.one_of(st.sampled_from(["scaled_dot", "dot"]),
                           size.map(lambda k: {"general": [[1.0] * k] * k})),
        "context": st.builds(lambda toks, e: {"tokens": toks, "embeddings": e},
                             st.lists(WORDS, min_size=1, max_size=3), matrix(2, d)),
        "positional": st.one_of(st.sampled_from(["sinusoidal", "none"]), matrix(n, d),
                                st.builds(lambda b: {"sinusoidal": {"base": b}}, NUMBERS)),
        "block": st.fixed_dictionaries({}, optional={
            "residual": st.booleans(), "layer_norm": st.one_of(st.booleans(), JUNK),
            "norm": st.sampled_from(["pre", "post"]),
            "ffn": st.builds(lambda a, b: {"W_1": a, "W_2": b}, matrix(d, 2), matrix(2, d))}),
        "display": st.fixed_dictionaries({}, optional={
            "precision": st.integers(-1, 13), "round_intermediates": st.booleans(),
            "decimal": st.sampled_from(["dot", "comma"])}),
        "convention": st.sampled_from(["row", "column"]),
        "title": WORDS,
    }
    for key in draw(st.lists(st.sampled_from(sorted(optional)), max_size=5, unique=True)):
        spec[key] = draw(sometimes(optional[key]))
    if draw(rarely(6)):  # a key missing, or one that does not exist
        spec.pop(draw(st.sampled_from(sorted(spec))))
    if draw(rarely(30)):
        spec[draw(WORDS)] = draw(JUNK)
    return spec


def dump(spec: dict[str, Any], form: str) -> bytes:
    if form == "json":
        return json.dumps(spec, ensure_ascii=False, default=str).encode("utf-8", "replace")
    return yaml.safe_dump(spec, allow_unicode=True).encode("utf-8", "replace")


@st.composite
def documents(draw: st.DrawFn) -> tuple[str, bytes]:
    form = draw(st.sampled_from(["yaml", "json"]))
    data = dump(draw(specs()), form)
    if draw(rarely(5)):  # mangled: a cut, a byte changed or inserted
        at = draw(st.integers(0, len(data)))
        data = data[:at] + draw(st.binary(max_size=3)) + data[at + draw(st.integers(0, 2)):]
    return f"spec.{form}", data


@pytest.fixture(scope="module")
def folder() -> Iterator[Path]:
    with tempfile.TemporaryDirectory() as name:
        root = Path(name)
        (root / "specs").mkdir()
        np.save(root / "specs" / "E.npy", np.eye(4)[:2])
        np.savez(root / "specs" / "W.npz", W_Q=np.eye(2))
        np.save(root / "outside.npy", np.eye(2))
        # links out of the folder, a loop, a FIFO nobody writes and a link to an endless device
        (root / "specs" / "link.npy").symlink_to("../outside.npy")
        (root / "specs" / "loop.npy").symlink_to("loop.npy")
        os.mkfifo(root / "specs" / "fifo.csv")
        (root / "specs" / "zero.csv").symlink_to("/dev/zero")
        yield root / "specs"


@settings(max_examples=EXAMPLES, deadline=None, database=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(document=documents(), fmt=st.sampled_from(["text", "json", "rich"]))
def test_every_spec_ends_in_success_or_one_line(folder: Path, document: tuple[str, bytes],
                                                fmt: str) -> None:
    name, data = document
    path = folder / name
    path.write_bytes(data)
    before = sorted(p.name for p in folder.iterdir())
    result = run("explain", str(path), "--format", fmt)
    event(f"exit {result.exit_code}")
    assert result.exit_code in (0, 2), result.stderr
    assert RAW.search(result.stdout) is None and RAW.search(result.stderr) is None
    if result.exit_code == 2:
        assert result.stdout == ""
        assert result.stderr.count("\n") == 1 and result.stderr.endswith("\n"), result.stderr
        assert "Traceback" not in result.stderr
    else:
        assert result.stdout.endswith("\n") and result.stderr == ""
    assert sorted(p.name for p in folder.iterdir()) == before
