"""The worked numbers of the seed texts, as literal expectations."""

from __future__ import annotations

import math

import numpy as np

from attncli import build, load_spec
from tests.conftest import CONFIGS


def rounded(rows: object, places: int = 2) -> list[list[float]]:
    return [[round(float(x), places) for x in row] for row in np.asarray(rows)]


def test_cat_chases_mouse_full_precision() -> None:
    """Seed 000 at full precision: 0.36/0.64 (the seed's 0.35/0.65 come from rounding early)."""
    w = build(load_spec(str(CONFIGS / "cat_chases_mouse.yaml")))
    head = w.heads[0]
    assert rounded(head.scores.values[:, :1]) == [[0.71], [0.14], [0.57]]
    assert rounded(head.weights.values) == [
        [1.00, 0.00, 0.00],
        [0.36, 0.64, 0.00],
        [0.40, 0.25, 0.35],
    ]
    assert rounded(w.output.values) == [[1.00, 0.00], [0.48, 0.64], [0.73, 0.25]]
    # S[chases, chases] = 0.2·0.2 + 1·1 = 1.04, and 1.04/√2 = 0.7354
    scores = next(s for s in w.steps if s.id == "scores").matrices[0].values
    assert math.isclose(scores[1, 1], 1.04, abs_tol=1e-15)
    assert math.isclose(head.scores.values[1, 1], 1.04 / math.sqrt(2), abs_tol=1e-15)
    # hidden keys: -inf before softmax, weight exactly 0 after
    assert head.scores.values[0, 1] == -math.inf
    assert head.weights.values[0, 1] == 0.0


def test_two_tokens_unscaled() -> None:
    """Seed 003: Q = K = I, V = diag(10, 20), softmax(QKᵀ) without scaling: 0.73/0.27."""
    w = build(load_spec(str(CONFIGS / "two_tokens_unscaled.yaml")))
    assert rounded(w.heads[0].weights.values) == [[0.73, 0.27], [0.27, 0.73]]
    assert rounded(w.output.values) == [[7.31, 5.38], [2.69, 14.62]]
    e = math.e
    assert math.isclose(w.output.values[0, 0], 10 * e / (e + 1), rel_tol=1e-14)


def test_column_convention_matches_one_vector_at_a_time() -> None:
    """Seed 002's convention: q_i = W_q·x_i for each token; d_v (5) differs from d_k (3)."""
    spec = load_spec(str(CONFIGS / "column_convention.yaml"))
    w = build(spec)
    head = spec.heads[0]
    x = spec.queries.embeddings
    q = [head.W_Q @ x[i] for i in range(3)]
    k = [head.W_K @ x[i] for i in range(3)]
    v = [head.W_V @ x[i] for i in range(3)]
    assert w.heads[0].values.shape == (3, 5)
    for i in range(3):
        omega = [float(q[i] @ k[j]) for j in range(3)]
        top = max(omega)
        e = [math.exp((o - top) / math.sqrt(3)) for o in omega]
        alpha = [x / sum(e) for x in e]
        z = sum(a * vj for a, vj in zip(alpha, v, strict=True))
        np.testing.assert_allclose(w.heads[0].weights.values[i], alpha, rtol=1e-13)
        np.testing.assert_allclose(w.output.values[i], z, rtol=1e-13)
