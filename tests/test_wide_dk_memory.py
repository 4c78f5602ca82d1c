"""A wide d_k within the cell limit costs its matrices and little more: the labels of its
features are written when read, and no step copies Q or K to look at them."""

from __future__ import annotations

import tracemalloc

import pytest

from attncli import build, loads_spec, render
from attncli.model import FeatureLabels

WIDE = """\
tokens: [a, b, c]
embeddings: [[1, 0], [0, 1], [1, 1]]
weights:
  W_Q: {{random: {{seed: 1}}, shape: [2, {d}]}}
  W_K: {{random: {{seed: 2}}, shape: [2, {d}]}}
  W_V: {{random: {{seed: 3}}, shape: [2, 1]}}
display: {{steps: [weights]}}
"""


def weights_table(d_k: int) -> str:
    spec = loads_spec(WIDE.format(d=d_k), "s.yaml")
    return render(build(spec, expand="none", summary=True), "text")


def test_wide_d_k_holds_its_matrices_and_little_more() -> None:
    """d_k = 200,000: W_Q and W_K are 2 x d_k numbers each, Q and K 3 x d_k, 8 bytes a number:
    10·d_k·8 = 16 MB. The peak stays under 1.25 times that (it was 33 MB: the labels d1 … d_k
    held as strings, 12.7 MB, and a copy of Q's magnitudes to bound the scores, 4.8 MB)."""
    d_k = 200_000
    weights_table(3)  # every module imported and every cache warm before counting
    tracemalloc.start()
    try:
        text = weights_table(d_k)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    matrices = (2 * d_k + 2 * d_k + 3 * d_k + 3 * d_k) * 8
    assert "A  (3 × 3)" in text
    assert peak < 1.25 * matrices, (peak, matrices)


def test_feature_labels_read_as_a_tuple_of_them() -> None:
    labels = FeatureLabels(2_400_000)
    assert len(labels) == 2_400_000
    assert (labels[0], labels[9], labels[-1]) == ("d1", "d10", "d2400000")
    assert labels[1:4] == ("d2", "d3", "d4")
    assert labels.index("d2400000") == 2_399_999
    assert labels.positions()["d17"] == 16
    assert "d0" not in labels and "d2400001" not in labels and "d07" not in labels
    assert FeatureLabels(3) == ("d1", "d2", "d3") and FeatureLabels(3) != ("d1", "d2")
    assert ("x", *FeatureLabels(2)) == ("x", "d1", "d2")
    with pytest.raises(IndexError):
        labels[2_400_000]
    with pytest.raises(ValueError):
        labels.index("d2400001")
