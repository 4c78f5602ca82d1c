"""Each catalogued slip, recognised from numbers computed in this file by its own NumPy formula
(not by attn's pipeline): the student's weights or output, rounded to 2 decimals."""

from __future__ import annotations

import numpy as np
import pytest

from attncli.check import check, from_text
from attncli.errors import Location
from attncli.i18n import Msg
from attncli.spec import loads_spec

# 3 tokens, d_model = 3, one head of d_k = 2 (so √d_model, d_k and √d_k all differ), causal
SPEC = """
tokens: [a, b, c]
embeddings: [[1.0, 0.5, -0.3], [0.2, 1.1, 0.7], [-0.6, 0.4, 0.9]]
weights:
  W_Q: [[0.9, -0.4], [0.3, 0.8], [-0.5, 0.6]]
  W_K: [[0.7, 0.2], [-0.3, 0.9], [0.4, -0.6]]
  W_V: [[1.0, 0.1], [0.2, -0.7], [0.5, 0.3]]
mask: causal
"""
X = np.array([[1.0, 0.5, -0.3], [0.2, 1.1, 0.7], [-0.6, 0.4, 0.9]])
WQ = np.array([[0.9, -0.4], [0.3, 0.8], [-0.5, 0.6]])
WK = np.array([[0.7, 0.2], [-0.3, 0.9], [0.4, -0.6]])
WV = np.array([[1.0, 0.1], [0.2, -0.7], [0.5, 0.3]])
SEEN = np.tril(np.ones((3, 3), dtype=bool))


def rowsoftmax(s: np.ndarray) -> np.ndarray:
    e = np.exp(s - s.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


def weights(divisor: float = np.sqrt(2), seen: np.ndarray = SEEN, q: np.ndarray | None = None,
            k: np.ndarray | None = None) -> np.ndarray:
    q = X @ WQ if q is None else q
    k = X @ WK if k is None else k
    s = q @ k.T / divisor
    return rowsoftmax(np.where(seen, s, -np.inf))


def unmasked() -> np.ndarray:
    return rowsoftmax((X @ WQ) @ (X @ WK).T / np.sqrt(2))


def text(m: np.ndarray) -> str:
    return "; ".join(" ".join(f"{x:.2f}" for x in row) for row in m)


CASES = {
    "no scaling": (weights(1.0), Msg.of("the scores not divided by √d_k (no scaling)")),
    "sqrt d_model": (weights(np.sqrt(3)), Msg.of(
        "the scores divided by √d_model = √{d_model} instead of √d_k", d_model=3)),
    "d_k": (weights(2.0), Msg.of("the scores divided by d_k = {d_k} instead of √d_k", d_k=2)),
    "columns": (np.where(SEEN, (lambda s: np.exp(s) / np.where(SEEN, np.exp(s), 0).sum(
        axis=0, keepdims=True))((X @ WQ) @ (X @ WK).T / np.sqrt(2)), 0.0),
        Msg.of("softmax over columns")),
    "0/1 added": (rowsoftmax((X @ WQ) @ (X @ WK).T / np.sqrt(2) + SEEN),
                  Msg.of("the mask added as 0/1 (1 where a key is seen) instead of 0/−∞")),
    "after, as is": (np.where(SEEN, unmasked(), 0.0), Msg.of(
        "the mask applied after softmax, without summing the rows back to 1")),
    "K not transposed": (rowsoftmax(np.where(SEEN, ((X @ WK) @ (X @ WQ).T) / np.sqrt(2),
                                             -np.inf)),
                         Msg.of("Kᵀ forgotten: the scores transposed, S[i, j] = k_i·q_j")),
    "causal reversed": (weights(seen=SEEN.T), Msg.of(
        "the causal mask the wrong way round: each query sees the keys after it")),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_each_slip_is_named_from_independent_numbers(case: str) -> None:
    numbers, name = CASES[case]
    verdict = check(loads_spec(SPEC), from_text(text(numbers), "weights", Location("t")))
    assert not verdict.ok
    named = [s.name for s in verdict.slips if s.whole]
    assert name in named, (case, [s.name for s in verdict.slips])


def test_weights_transposed_is_named_in_the_output() -> None:
    spec = SPEC.replace("W_Q: [[0.9, -0.4], [0.3, 0.8], [-0.5, 0.6]]",
                        "W_Q: [[0.9, -0.4, 0.1], [0.3, 0.8, 0.2], [-0.5, 0.6, 0.3]]")
    spec = spec.replace("W_K: [[0.7, 0.2], [-0.3, 0.9], [0.4, -0.6]]",
                        "W_K: [[0.7, 0.2, 0.5], [-0.3, 0.9, 0.1], [0.4, -0.6, 0.2]]")
    wq = np.array([[0.9, -0.4, 0.1], [0.3, 0.8, 0.2], [-0.5, 0.6, 0.3]])
    wk = np.array([[0.7, 0.2, 0.5], [-0.3, 0.9, 0.1], [0.4, -0.6, 0.2]])
    a = rowsoftmax(np.where(SEEN, (X @ wq.T) @ (X @ wk.T).T / np.sqrt(3), -np.inf))
    verdict = check(loads_spec(spec), from_text(text(a), "weights", Location("t")))
    assert Msg.of("the weights transposed: W·x instead of x·W") in [s.name for s in verdict.slips
                                                                     if s.whole]


def test_wrong_slice_of_a_fused_head_is_named() -> None:
    spec = """
tokens: [a, b, c]
embeddings: [[1.0, 0.5, -0.3, 0.2], [0.2, 1.1, 0.7, -0.4], [-0.6, 0.4, 0.9, 0.3]]
heads: 2
weights:
  W_Q: [[0.9, -0.4, 0.1, 0.3], [0.3, 0.8, 0.2, -0.2], [-0.5, 0.6, 0.3, 0.7], [0.2, 0.1, -0.8, 0.4]]
  W_K: identity
  W_V: identity
"""
    x = np.array([[1.0, 0.5, -0.3, 0.2], [0.2, 1.1, 0.7, -0.4], [-0.6, 0.4, 0.9, 0.3]])
    wq = np.array([[0.9, -0.4, 0.1, 0.3], [0.3, 0.8, 0.2, -0.2], [-0.5, 0.6, 0.3, 0.7],
                   [0.2, 0.1, -0.8, 0.4]])
    # head 2 computed with head 1's columns 1-2 of W_Q (and of the identity W_K, W_V)
    q, k, v = x @ wq[:, :2], x[:, :2], x[:, :2]
    z = rowsoftmax(q @ k.T / np.sqrt(2)) @ v
    verdict = check(loads_spec(spec), from_text(text(z), "output", Location("t"), head=2))
    named = [s.name for s in verdict.slips if s.whole]
    assert Msg.of("head {head} given the columns of head {other} of W_Q, W_K and W_V",
                  head=2, other=1) in named


def test_masking_after_softmax_and_renormalising_is_no_slip() -> None:
    """Zeroing the hidden weights and summing each row back to 1 is softmax over the visible keys:
    the right answer, so the catalogue has no such slip."""
    renormalised = np.where(SEEN, unmasked(), 0.0)
    renormalised /= renormalised.sum(axis=1, keepdims=True)
    assert check(loads_spec(SPEC), from_text(text(renormalised), "weights", Location("t"))).ok


def test_rounding_early_gives_the_blog_numbers() -> None:
    """The classic hand-worked "cat chases mouse" (seed 000): 0.35 and 0.65 where full
    precision gives 0.3557 and 0.6443."""
    spec = "tokens: [cat, chases, mouse]\nembeddings: [[1.0, 0.0], [0.2, 1.0], [0.8, 0.0]]\n" \
        "mask: causal\n"
    verdict = check(loads_spec(spec), from_text("1 0 0; 0.35 0.65 0; 0.40 0.25 0.35", "weights",
                                                Location("t")))
    assert verdict.wrong == ((1, 0), (1, 1))
    assert [s.name for s in verdict.slips if s.whole] == [Msg.plural_of(
        "every intermediate rounded to {count} decimal along the way",
        "every intermediate rounded to {count} decimals along the way", 2)]
