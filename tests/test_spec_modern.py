"""Spec keys of today's attention (positional: rope, bias, kv_heads, block.rms_norm, gated
feed-forward): what they read, the steps they add, and the one-line error for each mistake."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from attncli import build
from tests.test_spec_layer import HEAD, error, load

W4 = "[[1, 0, 0, 1], [0, 1, 0, 0], [0, 0, 1, 0], [1, 0, 0, 1]]"


@pytest.mark.parametrize(("extra", "expected"), [
    ("positional: {rope: {layout: split}}\n",
     "spec.yaml:6:29: positional.rope.layout: expected one of half, interleaved, found the text "
     '"split"'),
    ("positional: {rope: {}, sinusoidal: {}}\n",
     "spec.yaml:6:13: positional: expected one of sinusoidal and rope, found both"),
    ("positional: rope\nweights: {W_V: [[1], [0], [0], [1]], W_Q: [[1], [0], [0], [1]],"
     " W_K: [[1], [0], [0], [1]]}\n",
     "spec.yaml:6:13: positional: rope turns pairs of features and needs an even d_k; head 1 has "
     "d_k = 1"),
    ("heads: 4\nkv_heads: 3\nweights: {W_K: identity}\n",
     "spec.yaml:7:11: kv_heads: expected a number of key/value heads that divides heads = 4, "
     "found 3"),
    ("heads: 2\nkv_heads: 1\n",
     "spec.yaml:7:11: kv_heads: with kv_heads, weights needs W_K of kv_heads·d_k columns"),
    (f"heads: 2\nkv_heads: 1\nweights: {{W_K: {W4}, W_V: {W4}}}\n",
     "spec.yaml:8:16: weights.W_K is 4 × 4, expected d_model × kv_heads·d_k = 4 × 2"),
    ("heads: [{}]\nkv_heads: 1\n",
     "spec.yaml:7:11: kv_heads: kv_heads needs heads: h (a number of heads), not a list"),
    ("bias: [[0, 1], [1, 0]]\n",
     "spec.yaml:6:7: bias is 2 × 2, expected queries × keys = 3 × 3"),
    ("heads: 2\nbias: [[[0, 0, 0], [0, 0, 0], [0, 0, 0]]]\n",
     "spec.yaml:7:7: bias: expected one matrix per head (2), found 1"),
    ("bias: sliding\n",
     "spec.yaml:6:7: bias: expected none, alibi, a queries × keys matrix or a list of one per "
     'head, found the text "sliding"'),
    ("block: {layer_norm: true, rms_norm: true}\n",
     "spec.yaml:6:37: block.rms_norm: expected layer_norm or rms_norm, found both"),
    ("block: {rms_norm: {bias: [0, 0, 0, 0]}}\n",
     "spec.yaml:6:20: block.rms_norm.bias: unknown key; expected one of gain, eps"),
    ("block: {ffn: {W_1: [[1], [0], [0], [1]], W_2: [[1, 0, 0, 1]], activation: swiglu}}\n",
     "spec.yaml:6:14: block.ffn: the key W_3 is missing"),
    ("block: {ffn: {W_1: [[1], [0], [0], [1]], W_2: [[1, 0, 0, 1]], W_3: [[1], [0], [0], [1]]}}\n",
     "spec.yaml:6:68: block.ffn.W_3: W_3 is the up projection of SwiGLU and GeGLU; the "
     "activation is relu"),
])
def test_errors_name_the_place_and_what_was_expected(tmp_path: Path, extra: str,
                                                     expected: str) -> None:
    assert error(HEAD + extra, tmp_path) == expected


def test_a_head_that_shares_k_and_v_shows_only_its_queries(tmp_path: Path) -> None:
    walkthrough = build(load(HEAD + "heads: 2\nkv_heads: 1\nweights: {W_K: [[1, 0], [0, 1], "
                             "[1, 0], [0, 1]], W_V: [[1, 0], [0, 1], [0, 0], [0, 0]]}\n", tmp_path))
    shown = {(s.head, m.symbol.text) for s in walkthrough.steps if s.id == "projections"
             for m in s.matrices}
    assert shown == {(1, "Q"), (1, "K"), (1, "V"), (2, "Q")}
    first, second = walkthrough.heads
    np.testing.assert_array_equal(first.keys.values, second.keys.values)
    # head 2's queries: columns 3-4 of the identity W_Q, so features 3 and 4 of the embeddings
    np.testing.assert_array_equal(second.queries.values, [[0, 1], [1, 0], [0, 0]])


def test_rms_norm_divides_each_row_by_its_root_mean_square(tmp_path: Path) -> None:
    walkthrough = build(load(HEAD + "block: {residual: false, rms_norm: {gain: [1, 2, 1, 2],"
                             " eps: 1.0e-12}}\n", tmp_path))
    step = next(s for s in walkthrough.steps if s.id == "norm_1")
    z = walkthrough.heads[0].context.values
    rms = np.sqrt((z**2).mean(axis=1))
    np.testing.assert_allclose(step.matrices[0].values[:, 0], rms, atol=1e-12)
    np.testing.assert_allclose(walkthrough.output.values, z / rms[:, None] * [1, 2, 1, 2],
                               atol=1e-9)


def test_alibi_bias_of_a_single_head_is_the_distance_over_256(tmp_path: Path) -> None:
    walkthrough = build(load(HEAD + "bias: alibi\n", tmp_path))
    step = next(s for s in walkthrough.steps if s.id == "bias")
    # one head: slope 2^-8; B[i, j] = -|i - j| / 256
    np.testing.assert_array_equal(step.matrices[0].values * 256,
                                  [[0, -1, -2], [-1, 0, -1], [-2, -1, 0]])
    assert [s.id for s in walkthrough.steps].index("bias") == \
        [s.id for s in walkthrough.steps].index("scaled") + 1
