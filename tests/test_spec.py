"""Reading specs: what a number is, defaults, YAML and JSON giving the same Spec."""

from __future__ import annotations

import json

import numpy as np

from attncli import build, loads_spec
from attncli.spec.model import CausalMask, PaddingMask, WindowMask


def test_numbers_people_write_are_numbers() -> None:
    # YAML 1.1 reads 1e-3 and +.5 as text; a reader means numbers.
    spec = loads_spec("tokens: [a]\nembeddings: [[1e-3, +.5, -2E+2, 7, 0.25]]\n", "s.yaml")
    assert spec.queries.embeddings.tolist() == [[0.001, 0.5, -200.0, 7.0, 0.25]]
    assert spec.queries.embeddings.dtype == np.float64


def test_yaml_and_json_give_the_same_spec() -> None:
    yaml_text = ("tokens: [x, y]\nembeddings: [[1, 2], [3, 4]]\nmask: causal\n"
                 "weights: {W_V: [[1, 0, 1], [0, 1, 1]]}\nscale: 2\n")
    as_json = json.dumps({"tokens": ["x", "y"], "embeddings": [[1, 2], [3, 4]], "mask": "causal",
                          "weights": {"W_V": [[1, 0, 1], [0, 1, 1]]}, "scale": 2})
    a, b = loads_spec(yaml_text, "s.yaml"), loads_spec(as_json, "s.json")
    assert a.queries.tokens == b.queries.tokens
    np.testing.assert_array_equal(a.heads[0].W_V, b.heads[0].W_V)
    assert a.masks == b.masks == (CausalMask(),)
    assert a.scale == b.scale
    assert build(a).output.values.tolist() == build(b).output.values.tolist()


def test_defaults() -> None:
    spec = loads_spec("tokens: [a, b]\nembeddings: [[1, 2], [3, 4]]\n", "s.yaml")
    assert spec.convention == "row"
    assert spec.heads[0].identity == frozenset({"W_Q", "W_K", "W_V"})
    np.testing.assert_array_equal(spec.heads[0].W_Q, np.eye(2))
    assert spec.scale.kind == "sqrt_dk"
    assert spec.masks == ()
    assert spec.masked_rows == "zeros"
    assert spec.display.precision == 2
    dot = loads_spec("tokens: [a]\nembeddings: [[1]]\nscore: dot\n", "s.yaml")
    assert dot.scale.kind == "none"  # `dot` means q·k, unscaled


def test_mask_lists_and_forms() -> None:
    spec = loads_spec("tokens: [a, b, c]\nembeddings: [[1], [2], [3]]\n"
                      "mask: [causal, {window: 1, causal: true}, {padding: [true, false, true]}]\n",
                      "s.yaml")
    assert spec.masks == (CausalMask(), WindowMask(1, True), PaddingMask((True, False, True)))
    matrix = loads_spec("tokens: [a, b]\nembeddings: [[1], [2]]\nmask: [[1, 0], [1, 1]]\n", "s")
    assert matrix.masks[0].visible.tolist() == [[True, False], [True, True]]  # type: ignore[union-attr]


def test_quoted_yaml_words_are_tokens_and_repeats_are_labelled() -> None:
    spec = loads_spec('tokens: ["on", "3", the, the]\nembeddings: [[1], [2], [3], [4]]\n', "s")
    assert spec.queries.tokens == ("on", "3", "the", "the")
    assert build(spec).heads[0].weights.rows == ("on", "3", "the₁", "the₂")
