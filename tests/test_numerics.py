"""Numbers at the edges of float64: every expected value is worked out by hand in the comment
beside it. Each spec is built in full precision and in hand calculation and written in every
format with warnings turned into errors, so an overflow, a division by zero or an invalid
operation anywhere in the pipeline (NumPy warns on each) fails the test."""

from __future__ import annotations

import math
import warnings
from dataclasses import replace

import numpy as np
import pytest

from attncli.model import Walkthrough
from attncli.render import FORMATS, render
from attncli.spec import loads_spec
from attncli.steps.build import build


def walkthroughs(text: str) -> list[Walkthrough]:
    """The spec built in full precision and by hand, each rendered in every format."""
    built = []
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        spec = loads_spec(text)
        for by_hand in (False, True):
            walkthrough = build(replace(spec, display=replace(spec.display,
                                                              round_intermediates=by_hand)))
            for fmt in FORMATS:
                assert render(walkthrough, fmt, "en")
            built.append(walkthrough)
    return built


def weights(walkthrough: Walkthrough) -> np.ndarray:
    return walkthrough.heads[0].weights.values


def test_scores_of_plus_minus_1e300_give_one_hot_weights() -> None:
    # E = [1e150; -1e150], identity weights, no scaling: S = [[1e300, -1e300], [-1e300, 1e300]];
    # e^(-2e300) is 0, so each query takes all of its own key: A = I, Z = V = E
    for w in walkthroughs("tokens: [a, b]\nembeddings: [[1e150], [-1e150]]\nscale: none\n"):
        np.testing.assert_array_equal(weights(w), [[1.0, 0.0], [0.0, 1.0]])
        np.testing.assert_array_equal(w.heads[0].context.values, [[1e150], [-1e150]])


def test_all_equal_scores_give_equal_weights() -> None:
    # every score is 1·1 / √1 = 1: each of the 3 keys gets 1/3
    for w in walkthroughs("tokens: [a, b, c]\nembeddings: [[1], [1], [1]]\n"):
        np.testing.assert_allclose(weights(w), np.full((3, 3), 1 / 3), rtol=0, atol=0.005)
        assert np.allclose(weights(w).sum(axis=1), 1.0, atol=0.01)


def test_a_single_token_attends_to_itself() -> None:
    # one key: its weight is 1 whatever the score, Z = V = E
    for w in walkthroughs("tokens: [a]\nembeddings: [[0.5, 2]]\n"):
        np.testing.assert_array_equal(weights(w), [[1.0]])
        np.testing.assert_array_equal(w.heads[0].context.values, [[0.5, 2.0]])


def test_a_single_context_key_takes_all_the_weight() -> None:
    # cross-attention to one context token x with C = [3]: A = [[1], [1]], Z = [[3], [3]]
    for w in walkthroughs("tokens: [a, b]\nembeddings: [[1], [2]]\n"
                          "context: {tokens: [x], embeddings: [[3]]}\n"):
        np.testing.assert_array_equal(weights(w), [[1.0], [1.0]])
        np.testing.assert_array_equal(w.heads[0].context.values, [[3.0], [3.0]])


def test_d_k_of_one() -> None:
    # Q = X·[1; 0] = [1; 3], K = X·[0; 1] = [2; 4], S = Q·Kᵀ = [[2, 4], [6, 12]], √d_k = 1:
    # row a: softmax(2, 4) = (1, e²)/(1 + e²); row b: softmax(6, 12) = (1, e⁶)/(1 + e⁶)
    full, hand = walkthroughs("tokens: [a, b]\nembeddings: [[1, 2], [3, 4]]\n"
                              "weights: {W_Q: [[1], [0]], W_K: [[0], [1]], W_V: [[1], [1]]}\n")
    e2, e6 = math.exp(2), math.exp(6)
    expected = [[1 / (1 + e2), e2 / (1 + e2)], [1 / (1 + e6), e6 / (1 + e6)]]
    np.testing.assert_allclose(weights(full), expected, rtol=1e-15)
    np.testing.assert_allclose(weights(hand), [[0.12, 0.88], [0.0, 1.0]], atol=1e-12)


HIDDEN = "tokens: [a, b]\nembeddings: [[1], [2]]\nmask: {padding: [false, false]}\n"


def test_all_keys_hidden_zeros_policy() -> None:
    # no visible key: the weights and the output of both rows are 0 (masked_rows: zeros)
    for w in walkthroughs(HIDDEN):
        np.testing.assert_array_equal(weights(w), np.zeros((2, 2)))
        np.testing.assert_array_equal(w.heads[0].context.values, np.zeros((2, 1)))


def test_all_keys_hidden_nan_policy_gives_the_nan_asked_for() -> None:
    for w in walkthroughs(HIDDEN + "masked_rows: nan\n"):
        assert np.isnan(weights(w)).all()
        assert np.isnan(w.heads[0].context.values).all()


@pytest.mark.parametrize(("scale", "expected"), [
    # S = [[1, 2], [2, 4]] / 1e-300 = [[1e300, 2e300], [2e300, 4e300]]: the larger score wins
    # outright (e^(-1e300) = 0)
    ("1e-300", [[0.0, 1.0], [0.0, 1.0]]),
    # S / 1e300 is about 1e-300: e^x of it is exactly 1.0 in float64, so the keys share equally
    ("1e300", [[0.5, 0.5], [0.5, 0.5]]),
])
def test_tiny_and_huge_scales(scale: str, expected: list[list[float]]) -> None:
    for w in walkthroughs(f"tokens: [a, b]\nembeddings: [[1], [2]]\nscale: {scale}\n"):
        np.testing.assert_array_equal(weights(w), expected)


def test_negative_zero_is_zero_and_never_printed_with_a_sign() -> None:
    # every score is ±0: the two keys share equally; -0.00 is written 0.00
    for w in walkthroughs("tokens: [a, b]\nembeddings: [[-0.0, 0.0], [0.0, -0.0]]\n"):
        np.testing.assert_array_equal(weights(w), [[0.5, 0.5], [0.5, 0.5]])
        assert "-0.00" not in render(w, "text", "en")


def test_subnormal_inputs() -> None:
    # the scores (products of numbers below 1e-300) underflow to 0: equal weights; the output
    # stays between the two values, finite
    for w in walkthroughs("tokens: [a, b]\nembeddings: [[5e-324, 1e-310], [-5e-324, 2.2e-308]]\n"):
        np.testing.assert_array_equal(weights(w), [[0.5, 0.5], [0.5, 0.5]])
        assert np.isfinite(w.heads[0].context.values).all()


def test_weights_sum_to_one_for_every_edge_case_with_a_visible_key() -> None:
    for text in ("tokens: [a, b, c]\nembeddings: [[1e150], [0], [-1e150]]\nscale: none\n",
                 "tokens: [a, b]\nembeddings: [[5e-324], [1e-310]]\nscale: 5e-300\n",
                 "tokens: [a, b, c]\nembeddings: [[1], [2], [3]]\nmask: causal\nscale: 1e-300\n"):
        full, _ = walkthroughs(text)
        np.testing.assert_allclose(weights(full).sum(axis=1), 1.0, rtol=1e-15)


@pytest.mark.parametrize("mask", ["causal", "window", "causal window with a sink", "padding",
                                  "none"])
@pytest.mark.parametrize("n, m", [(1, 1), (63, 63), (64, 64), (65, 130), (300, 300), (200, 50)])
def test_softmax_of_a_masked_row_block_gives_the_plain_formulas_bits(mask: str, n: int,
                                                                     m: int) -> None:
    """ops.softmax takes e^x only between the first and the last key a band of rows sees; what
    it writes is bit for bit the textbook formula, e^(x − max) / Σ e^(x − max) over every key,
    with e^−∞ = 0 for a hidden one."""
    from attncli.compute import ops

    rng = np.random.default_rng(n * 1000 + m)
    i, j = np.arange(n)[:, None], np.arange(m)[None, :]  # (n, 1), (1, m)
    visible = {"causal": j <= i, "window": abs(i * m // n - j) <= 7,
               "causal window with a sink": ((i - j >= 0) & (i - j <= 3)) | (j == 0),
               "padding": (j % 3 != 0) | (j == 0), "none": j >= 0}[mask] & (j >= 0) & (i >= 0)
    assert visible.any(axis=1).all()  # (a query that sees no key takes the other path)
    logits = np.where(visible, rng.standard_normal((n, m)) * 5, -np.inf)  # (n, m)
    with np.errstate(under="ignore"):
        e = np.exp(logits - logits.max(axis=1, keepdims=True))  # (n, m)
    expected = e / e.sum(axis=1, keepdims=True)  # (n, m)
    weights, empty = ops.softmax(logits.copy())
    in_place = logits.copy()
    ops.softmax(in_place, out=in_place)
    assert not empty.any()
    assert weights.tobytes() == expected.tobytes()
    assert in_place.tobytes() == expected.tobytes()
