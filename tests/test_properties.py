"""Properties every attention matrix has, whatever the numbers: rows sum to 1, hidden keys get
exactly 0, and scores far beyond exp's range neither overflow nor turn into NaN."""

from __future__ import annotations

import itertools
import math
import warnings

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from attncli.compute import ops

sizes = st.tuples(st.integers(1, 7), st.integers(1, 7))


@st.composite
def logits_and_mask(draw: st.DrawFn, bound: float) -> tuple[np.ndarray, np.ndarray]:
    n, m = draw(sizes)
    scores = draw(arrays(np.float64, (n, m), elements=st.floats(-bound, bound)))
    visible = draw(arrays(np.bool_, (n, m)))
    return scores, visible


@settings(max_examples=300, deadline=None)
@given(logits_and_mask(1e300))
def test_rows_sum_to_one_and_hidden_keys_get_zero(case: tuple[np.ndarray, np.ndarray]) -> None:
    scores, visible = case
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # an overflow or invalid-value warning fails the test
        weights, empty = ops.softmax(ops.apply_mask(scores, visible))
    assert np.isfinite(weights).all()
    assert (weights[~visible] == 0.0).all()
    assert (empty == ~visible.any(axis=1)).all()
    sums = weights.sum(axis=1)
    np.testing.assert_allclose(sums[~empty], 1.0, rtol=0, atol=1e-12)
    assert (sums[empty] == 0.0).all()
    assert (weights >= 0).all()


@settings(max_examples=200, deadline=None)
@given(logits_and_mask(50.0))
def test_softmax_matches_the_textbook_formula_where_exp_is_safe(
        case: tuple[np.ndarray, np.ndarray]) -> None:
    scores, visible = case
    weights, empty = ops.softmax(ops.apply_mask(scores, visible))
    for i in range(scores.shape[0]):
        if empty[i]:
            continue
        e = [math.exp(s) if v else 0.0 for s, v in zip(scores[i], visible[i], strict=True)]
        np.testing.assert_allclose(weights[i], np.array(e) / sum(e), rtol=1e-12, atol=1e-300)


def test_huge_scores_give_the_exact_limit() -> None:
    """±1e4 and ±1e300 are far outside exp's range; the max-subtracted form still gives the
    limits a person would write: one key takes everything, or equal scores share equally."""
    weights, _ = ops.softmax(np.array([[1e4, -1e4, 1e4 - 1], [1e300, 1e300, -1e300]]))
    e1 = math.exp(-1)
    np.testing.assert_allclose(weights[0], [1 / (1 + e1), 0.0, e1 / (1 + e1)], rtol=1e-15)
    assert weights[1].tolist() == [0.5, 0.5, 0.0]


def test_masks() -> None:
    assert ops.causal(3, 3).astype(int).tolist() == [[1, 0, 0], [1, 1, 0], [1, 1, 1]]
    assert ops.window(4, 4, 1, False).astype(int).tolist() == [
        [1, 1, 0, 0], [1, 1, 1, 0], [0, 1, 1, 1], [0, 0, 1, 1]]
    assert ops.window(4, 4, 1, True).astype(int).tolist() == [
        [1, 0, 0, 0], [1, 1, 0, 0], [0, 1, 1, 0], [0, 0, 1, 1]]
    assert ops.padding(2, [True, False, True]).astype(int).tolist() == [[1, 0, 1], [1, 0, 1]]


def test_window_mask_is_the_offsets_definition_in_every_corner() -> None:
    """ops.window, built from two triangles, against |i − j| <= width or j < sink_tokens (and
    j <= i when causal) worked from the offsets, for every small shape, width and first row."""
    for n, m, width, causal_only, sinks, first in itertools.product(
            (1, 3, 7), (1, 4, 9), (0, 1, 2, 12, 2**63, 10**30), (False, True), (0, 1, 3, 12),
            (0, 2, 5)):
        i = np.arange(first, first + n)[:, None]
        j = np.arange(m)[None, :]
        expected = (np.abs(j - i) <= min(width, 10**6)) | (j < sinks)  # 2⁶³: wider than all
        if causal_only:
            expected &= j <= i
        got = ops.window(n, m, width, causal_only, sinks, first)
        assert got.shape == (n, m) and (got == expected).all(), (n, m, width, causal_only,
                                                                 sinks, first)
