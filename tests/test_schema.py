"""The JSON Schema of the spec: valid itself, accepts every example, refuses broken specs, and
names every key that the spec loader accepts (so it cannot fall behind parse.py)."""

from __future__ import annotations

import json
from typing import Any

import jsonschema
import pytest
from typer.testing import CliRunner

from attncli.cli import app
from attncli.i18n import LANGUAGES
from attncli.schema import SCHEMA_PATH, schema
from attncli.spec.arrays import RANDOM_KEYS
from attncli.spec.block import BLOCK_KEYS, FFN_KEYS
from attncli.spec.masks import MASK_KEYS
from attncli.spec.parse import DISPLAY_KEYS, TOP_KEYS
from attncli.spec.scores import SCORE_KEYS
from attncli.spec.source import Node, parse
from attncli.spec.weights import PROJECTION_KEYS, WEIGHT_KEYS
from tests.conftest import EXAMPLES

VALIDATOR = jsonschema.Draft202012Validator(schema())


def plain(node: Node) -> Any:
    """The document as plain data, read the way attn reads it (`1e-3` is a number)."""
    if isinstance(node.value, dict):
        return {key: plain(child) for key, child in node.value.items()}
    if isinstance(node.value, list):
        return [plain(child) for child in node.value]
    return node.value


def errors(text: str) -> list[str]:
    return [error.message for error in VALIDATOR.iter_errors(plain(parse("spec.yaml", text)))]


def test_the_schema_is_a_valid_draft_2020_12_schema() -> None:
    jsonschema.Draft202012Validator.check_schema(schema())


@pytest.mark.parametrize("spec", EXAMPLES, ids=[p.stem for p in EXAMPLES])
def test_every_example_is_valid(spec: Any) -> None:
    assert errors(spec.read_text("utf-8")) == []


GOOD = "tokens: [a, b]\nembeddings: [[1, 0], [0, 1]]\n"


@pytest.mark.parametrize("extra", [
    "", "mask: causal\n", "mask: [causal, {window: 1}]\n", "mask: [[1, 0], [1, 1]]\n",
    "mask: {padding: [true, false]}\n", "mask: {causal: true}\n", "scale: 2.5\n",
    "score: {general: [[1, 0], [0, 1]]}\n", "title: {en: A, pl: B}\n",
    "weights: {W_Q: identity, b_V: [1e-3, 2]}\n", "display: {precision: 3, decimal: comma}\n",
    "heads: 2\nweights: {W_O: {random: {seed: 1}}, b_O: {file: b.csv}}\n",
    "heads: [{W_Q: [[1], [0]], W_K: {file: w.npz, key: K}}, {}]\n",
    "context: {tokens: [c], embeddings: {random: {}, dim: 2}, positional: sinusoidal}\n",
    "positional: {sinusoidal: {base: 100}}\n", "positional: [[0, 1], [1, 0]]\n",
    "block: {residual: true, layer_norm: [{eps: 1e-6}, {gain: [1, 1]}], norm: pre,"
    " ffn: {W_1: {random: {seed: 1, distribution: uniform, low: -1}, shape: [2, 4]},"
    " W_2: {random: {seed: 2}}, activation: gelu}}\n",
])
def test_specs_attn_accepts_are_valid(extra: str) -> None:
    assert errors(GOOD + extra) == []


@pytest.mark.parametrize(("spec", "problem"), [
    ("tokens: [a, b]\n", "'embeddings' is a required property"),
    (GOOD + "colour: red\n", "Additional properties are not allowed ('colour' was unexpected)"),
    (GOOD + "weights: {W_q: identity}\n",
     "Additional properties are not allowed ('W_q' was unexpected)"),
    ("tokens: [a, b]\nembeddings: [[1, x], [0, 1]]\n", "'x' is not of type 'number'"),
    (GOOD + "display: {precision: 13}\n", "13 is greater than the maximum of 12"),
    (GOOD + "scale: 0\n", "0 is not valid under any of the given schemas"),
    (GOOD + "mask: diagonal\n", "'diagonal' is not valid under any of the given schemas"),
    (GOOD + "mask: [[1, 2], [1, 1]]\n", "[[1, 2], [1, 1]] is not valid under any of the given "
     "schemas"),
    (GOOD + "convention: rows\n", "'rows' is not one of ['row', 'column']"),
    (GOOD + "title: {de: Achtung}\n", "{'de': 'Achtung'} is not valid under any of the given "
     "schemas"),
    ("tokens: [a, ' ']\nembeddings: [[1], [0]]\n", "' ' does not match '\\\\S'"),
    (GOOD + "heads: 0\n", "0 is not valid under any of the given schemas"),
    (GOOD + "positional: cosine\n", "'cosine' is not valid under any of the given schemas"),
    (GOOD + "block: {ffn: {W_1: [[1]]}}\n", "'W_2' is a required property"),
])
def test_a_broken_spec_fails(spec: str, problem: str) -> None:
    assert problem in errors(spec)


def properties(*path: str) -> set[str]:
    node = schema()
    for key in path:
        node = node[key]
    return set(node["properties"])


def test_the_schema_names_exactly_the_keys_the_loader_accepts() -> None:
    assert properties() == set(TOP_KEYS)
    assert properties("properties", "weights") == set(WEIGHT_KEYS)
    assert properties("properties", "display") == set(DISPLAY_KEYS)
    assert properties("properties", "score", "oneOf", 1) == set(SCORE_KEYS)
    mask_keys = set().union(*(set(option.get("properties", {}))
                              for option in schema()["$defs"]["mask"]["oneOf"]))
    assert mask_keys == set(MASK_KEYS)
    assert properties("$defs", "localized", "oneOf", 1) == set(LANGUAGES)
    assert properties("$defs", "head") == set(PROJECTION_KEYS)
    assert properties("properties", "block") == set(BLOCK_KEYS)
    assert properties("properties", "block", "properties", "ffn") == set(FFN_KEYS)
    assert properties("$defs", "randomOptions") == set(RANDOM_KEYS)
    assert properties("properties", "context") == {"tokens", "embeddings", "positional"}


def test_every_key_has_a_description() -> None:
    top = schema()["properties"]
    assert [key for key, value in top.items() if not value.get("description")] == []
    for section in ("weights", "display"):
        assert [key for key, value in top[section]["properties"].items()
                if not value.get("description")] == []


def test_attn_schema_prints_the_schema() -> None:
    result = CliRunner().invoke(app, ["schema"])
    assert result.exit_code == 0
    assert result.stdout == SCHEMA_PATH.read_text("utf-8")
    assert json.loads(result.stdout)["required"] == ["tokens", "embeddings"]
