"""The JSON Schema of the spec: valid itself, accepts every example, refuses broken specs, and
names every key that the spec loader accepts (so it cannot fall behind parse.py)."""

from __future__ import annotations

import json
from typing import Any

import jsonschema
import pytest
from typer.testing import CliRunner

from attncli.cli.app import app
from attncli.i18n import LANGUAGES
from attncli.spec.arrays import EMBEDDINGS_RANDOM_KEYS, RANDOM_KEYS, RANDOM_SHAPE_KEYS
from attncli.spec.backward import BACKWARD_KEYS
from attncli.spec.block import (
    BLOCK_KEYS,
    FFN_KEYS,
    LAYER_NORM_KEYS,
    RMS_NORM_KEYS,
    SANDWICH_KEYS,
)
from attncli.spec.decode import DECODE_KEYS
from attncli.spec.latent import LATENT_KEYS, NORM_KEYS
from attncli.spec.masks import MASK_KEYS
from attncli.spec.model_ffn import ACTIVATIONS
from attncli.spec.model_folder import INPUT_KEYS, MODEL_KEYS
from attncli.spec.moe import EXPERT_KEYS, MOE_KEYS, ROUTER_KEYS
from attncli.spec.parse import DISPLAY_KEYS, TOP_KEYS
from attncli.spec.qk_norm import QK_NORM_KEYS
from attncli.spec.rope_scaling import NEEDED as SCALING_NEEDED
from attncli.spec.rope_scaling import OPTIONAL as SCALING_OPTIONAL
from attncli.spec.schema import SCHEMA_PATH, schema
from attncli.spec.scores import SCORE_KEYS
from attncli.spec.selection import CHECKPOINT_KEYS
from attncli.spec.sequences import (
    CONTEXT_KEYS,
    POSITIONAL_KINDS,
    ROPE_KEYS,
    ROPE_LAYOUTS,
    SINUSOIDAL_KEYS,
)
from attncli.spec.source import Node, parse
from attncli.spec.tiling import TILING_KEYS
from attncli.spec.tokenizer import TOKENIZER_KEYS
from attncli.spec.view import STEP_IDS
from attncli.spec.vit import CLASSIFIER_KEYS, IMAGE_KEYS, PATCH_EMBEDDING_KEYS
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
    "mask: causal\ndecode: {prefill: 1}\n", "tiling: {keys: 1, queries: 2}\n",
    "weights: {W_Q: identity, b_V: [1e-3, 2]}\n", "display: {precision: 3, decimal: comma}\n",
    "heads: 2\nweights: {W_O: {random: {seed: 1}}, b_O: {file: b.csv}}\n",
    "heads: [{W_Q: [[1], [0]], W_K: {file: w.npz, key: K}}, {}]\n",
    "context: {tokens: [c], embeddings: {random: {}, dim: 2}, positional: sinusoidal}\n",
    "positional: {sinusoidal: {base: 100}}\n", "positional: [[0, 1], [1, 0]]\n",
    "positional: rope\n", "positional: {rope: {base: 500, layout: interleaved}}\n",
    "heads: 2\nkv_heads: 1\n", "bias: alibi\n", "bias: [[0, -1], [-1, 0]]\n",
    "bias: [[[0, -1], [-1, 0]], {file: b.npy}]\n",
    "block: {rms_norm: {eps: 1e-6, gain: [1, 2]}, norm: pre, ffn: {W_1: [[1], [0]],"
    " W_3: [[0], [1]], W_2: [[1, 1]], activation: swiglu}}\n",
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
    (GOOD + "positional: {rope: {layout: split}}\n",
     "{'rope': {'layout': 'split'}} is not valid under any of the given schemas"),
    (GOOD + "kv_heads: 0\n", "0 is less than the minimum of 1"),
    (GOOD + "bias: sliding\n", "'sliding' is not valid under any of the given schemas"),
    (GOOD + "block: {rms_norm: {bias: [0, 0]}}\n",
     "{'bias': [0, 0]} is not valid under any of the given schemas"),
])
def test_a_broken_spec_fails(spec: str, problem: str) -> None:
    assert problem in errors(spec)


# Every object of the schema that lists properties, by its place in the schema, and the keys
# the loader's section module declares for it: the schema is derived from nothing and the loader
# from nothing, so this table is what ties them; a `properties` object missing here fails.
DECLARED: dict[str, tuple[str, ...]] = {
    "": TOP_KEYS,
    "properties/weights": WEIGHT_KEYS,
    "properties/score/oneOf/1": SCORE_KEYS,
    "properties/display": DISPLAY_KEYS,
    "properties/context": CONTEXT_KEYS,
    "properties/block": BLOCK_KEYS,
    "properties/block/properties/ffn": FFN_KEYS,
    "properties/block/properties/sandwich": SANDWICH_KEYS,
    "properties/block/properties/moe": MOE_KEYS,
    "properties/block/properties/moe/properties/router": ROUTER_KEYS,
    "properties/block/properties/moe/properties/experts/items": EXPERT_KEYS,
    "properties/decode": DECODE_KEYS,
    "properties/tiling": TILING_KEYS,
    "properties/qk_norm/oneOf/1": QK_NORM_KEYS,
    "properties/latent": LATENT_KEYS,
    "properties/latent/properties/norm": NORM_KEYS,
    "$defs/localized/oneOf/1": LANGUAGES,
    "$defs/file": CHECKPOINT_KEYS,  # .npy/.npz/.csv take file and key; a checkpoint rows, columns
    "properties/backward": BACKWARD_KEYS,
    "properties/tokens": (*TOKENIZER_KEYS, *INPUT_KEYS),
    "properties/model": MODEL_KEYS,
    "properties/image": IMAGE_KEYS,
    "properties/patch_embedding": PATCH_EMBEDDING_KEYS,
    "properties/classifier": CLASSIFIER_KEYS,
    "$defs/randomOptions": RANDOM_KEYS,
    "$defs/random": RANDOM_SHAPE_KEYS,
    "$defs/embeddings/else/oneOf/1": (*RANDOM_SHAPE_KEYS, *EMBEDDINGS_RANDOM_KEYS),
    "$defs/head": PROJECTION_KEYS,
    "$defs/positional/oneOf/1": ("sinusoidal",),
    "$defs/positional/oneOf/1/properties/sinusoidal": SINUSOIDAL_KEYS,
    "$defs/positional/oneOf/2": ("rope",),
    "$defs/positional/oneOf/2/properties/rope": ROPE_KEYS,
    "$defs/positional/oneOf/2/properties/rope/properties/scaling": tuple(
        {key for keys in (*SCALING_NEEDED.values(), *SCALING_OPTIONAL.values()) for key in keys}),
    "$defs/layerNorm": LAYER_NORM_KEYS,
    "$defs/rmsNorm": RMS_NORM_KEYS,
}


def objects(node: Any, path: str = "") -> dict[str, set[str]]:
    """Every `properties` object under `node`, by its path, with its keys (the mask's options
    are one union: the loader reads them as one mapping)."""
    found: dict[str, set[str]] = {}
    if isinstance(node, dict):
        if isinstance(node.get("properties"), dict) and not path.startswith("$defs/mask/"):
            found[path] = set(node["properties"])
        for key, child in node.items():
            found.update(objects(child, f"{path}/{key}".lstrip("/")))
    elif isinstance(node, list):
        for index, child in enumerate(node):
            found.update(objects(child, f"{path}/{index}"))
    return found


def test_the_schema_names_exactly_the_keys_the_loader_accepts() -> None:
    assert objects(schema()) == {path: set(keys) for path, keys in DECLARED.items()}
    mask_keys = set().union(*(set(option.get("properties", {}))
                              for option in schema()["$defs"]["mask"]["oneOf"]))
    assert mask_keys == set(MASK_KEYS)
    positional = schema()["$defs"]["positional"]["oneOf"]
    assert positional[0]["enum"] == ["none", *POSITIONAL_KINDS]
    assert positional[2]["properties"]["rope"]["properties"]["layout"]["enum"] == list(
        ROPE_LAYOUTS)
    ffn = schema()["properties"]["block"]["properties"]["ffn"]["properties"]
    assert tuple(ffn["activation"]["enum"]) == ACTIVATIONS
    steps = schema()["properties"]["display"]["properties"]["steps"]["oneOf"]
    assert tuple(steps[1]["enum"]) == tuple(steps[2]["items"]["enum"]) == STEP_IDS


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
    printed = json.loads(result.stdout)
    # tokens and embeddings, unless a model folder or an image gives them
    assert "required" not in printed
    assert (printed["if"], printed["then"]) == (
        {"not": {"anyOf": [{"required": ["model"]}, {"required": ["image"]}]}},
        {"required": ["tokens", "embeddings"]})
