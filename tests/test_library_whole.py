"""What the library hands back whole is bounded before it is built, and the caller's arrays are
copied only once the spec is checked and charged.

`walkthrough_of` of 4,096 tokens (X of 4,096 × 64) took 9 s and 444 MB to build every matrix
whole, where `attn validate` on the same spec builds a summary in 0.7 s: a walkthrough the
library hands back holds every number, as `attn explain --full` prints every number, so it is
held to the same bound (attncli/steps/budget.py: a twentieth of max_cells, 500,000 numbers by
default). And X of 3 × 3,333,333 was copied twice (261 MB at the peak, the array 102 MB) before
the identity W_Q of 3,333,333² its width asks for was refused.
"""

from __future__ import annotations

import tracemalloc

import numpy as np
import pytest

import attncli
import attncli.steps.build
from attncli import UsageError


def tokens(n: int) -> list[str]:
    return [f"t{i}" for i in range(n)]


def numbers(n: int, d: int = 64) -> int:
    """What one head of identity weights on n tokens of d features holds whole, by hand: X·W_Q,
    K and V (n·d, 2·n·d), S, S′, S′ + M and A (4·n²), Z, the heads side by side and the output
    (3·n·d)."""
    return n * d + 2 * n * d + 4 * n * n + 3 * n * d


@pytest.fixture
def builds(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The sizes (tokens) of the walkthroughs built, counted at the builder."""
    made: list[int] = []
    real = attncli.steps.build.build

    def counted(spec, *args, **keys):  # type: ignore[no-untyped-def]
        made.append(spec.queries.n)
        return real(spec, *args, **keys)

    monkeypatch.setattr(attncli.steps.build, "build", counted)
    return made


def test_4096_tokens_are_refused_before_any_step_is_built(builds: list[int]) -> None:
    assert numbers(4096) == 68_681_728
    X = np.random.default_rng(0).random((4096, 64))
    with pytest.raises(UsageError) as error:
        attncli.walkthrough_of(tokens=tokens(4096), X=X)
    assert str(error.value) == (
        "walkthrough_of: this walkthrough would hold every matrix whole, about 68,681,728 "
        "numbers; the limit is 500,000, which max_cells sets")
    assert builds == []


def test_the_bound_falls_between_300_and_310_tokens(builds: list[int]) -> None:
    assert (numbers(300), numbers(310)) == (475_200, 503_440)
    w = attncli.walkthrough_of(tokens=tokens(300), X=np.eye(300, 64))
    assert w["A"].shape == (300, 300)
    with pytest.raises(UsageError, match="about 503,440 numbers; the limit is 500,000"):
        attncli.walkthrough_of(tokens=tokens(310), X=np.eye(310, 64))
    # a larger max_cells raises the bound: 20,000,000 allows 1,000,000 numbers
    assert attncli.walkthrough_of(tokens=tokens(310), X=np.eye(310, 64),
                                  max_cells=20_000_000)["A"].shape == (310, 310)
    assert builds == [300, 310]


@pytest.mark.parametrize("lang", ["pl", "ru"])
def test_the_refusal_speaks_the_language_asked_for(lang: str) -> None:
    with pytest.raises(UsageError) as error:
        attncli.walkthrough_of(tokens=tokens(310), X=np.eye(310, 64), lang=lang)
    said = str(error.value).replace("\u00a0", " ")
    assert said == {
        "pl": "walkthrough_of: te obliczenia przechowywałyby każdą macierz w całości, łącznie "
              "około 503 440 liczb; limit to 500 000 (ustawia go max_cells)",
        "ru": "walkthrough_of: в этом разборе все матрицы хранились бы целиком, а это примерно "
              "503 440 чисел; предел — 500 000 (его задаёт max_cells)"}[lang]


def test_build_whole_is_bounded_and_a_summary_is_not(builds: list[int]) -> None:
    spec = attncli.spec_of(tokens=tokens(310), embeddings=np.eye(310, 64))
    with pytest.raises(UsageError) as error:
        attncli.build(spec)
    assert str(error.value).startswith("build: this walkthrough would hold every matrix whole, "
                                       "about 503,440 numbers")
    summary = attncli.build(spec, summary=True)  # what `attn explain --format text` builds
    kept = summary.matrix("A").kept
    assert kept is not None and 0 < len(kept) < 310
    assert attncli.build(spec, max_cells=20_000_000).matrix("A").kept is None
    assert builds == [310, 310]


def test_an_identity_too_large_is_refused_before_x_is_copied() -> None:
    X = np.ones((3, 1_000_000))  # 24 MB; its identity W_Q would be 10¹² numbers
    tracemalloc.start()
    try:
        with pytest.raises(attncli.SpecError, match="the identity W_Q of 1,000,000 × 1,000,000 "
                                                    "is too large"):
            attncli.walkthrough_of(tokens=["a", "b", "c"], X=X)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    # two float64 copies of X (48 MB) were made before; what is left is the finiteness check's
    # one byte a number (3 MB) and the nodes of three rows
    assert peak < X.nbytes // 4


def test_the_spec_and_the_walkthrough_keep_copies_of_their_own() -> None:
    X = np.array([[1.0, 0.0], [0.2, 1.0], [0.8, 0.0]])
    W = np.array([[1.0, 2.0], [3.0, 4.0]])
    spec = attncli.spec_of(tokens=["a", "b", "c"], embeddings=X, weights={"W_Q": W},
                           convention="column")
    w = attncli.walkthrough_of(tokens=["a", "b", "c"], X=X, W_Q=W, convention="column")
    X[0, 0], W[0, 1] = 99.0, 99.0  # the caller changes their arrays afterwards
    assert spec.queries.embeddings[0].tolist() == [1.0, 0.0]
    assert spec.queries.embeddings.flags.writeable
    assert not np.shares_memory(spec.heads[0].W_Q, W)
    assert w["X"][0].tolist() == [1.0, 0.0]
    assert w["Q"][0].tolist() == [1.0, 3.0]  # x₁·W_Qᵀ with W_Q as given: [1·1 + 0·2, 1·3 + 0·4]
