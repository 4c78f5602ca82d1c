"""Hand-calculation mode: every intermediate carried rounded, half up, as a person does."""

from __future__ import annotations

import json
from dataclasses import replace

import numpy as np
import pytest

from attncli import build, loads_spec
from attncli.arithmetic.handcalc import written
from attncli.render import render
from attncli.spec import load_spec
from attncli.spec.examples import example_path

SEED_000 = example_path("cat_chases_mouse")


def by_hand(spec_path: str = str(SEED_000), precision: int = 2):  # type: ignore[no-untyped-def]
    spec = load_spec(spec_path)
    display = replace(spec.display, round_intermediates=True, precision=precision)
    return build(replace(spec, display=display))


@pytest.mark.parametrize(("value", "precision", "expected"), [
    (0.125, 2, 0.13),  # a tie goes up, where numpy's round-half-even gives 0.12
    (2.675, 2, 2.68),  # written 2.675; the nearest binary float is below it (round(): 2.67)
    (-0.125, 2, -0.13),  # half away from zero, as on paper
    (0.7355339, 2, 0.74),
    (1.4142135623730951, 3, 1.414),
    (0.5, 0, 1.0),
])
def test_written_rounds_half_up_on_the_decimal_as_written(
        value: float, precision: int, expected: float) -> None:
    assert written(value, precision) == expected


def test_binary_rounding_would_round_those_ties_differently() -> None:
    assert np.round(0.125, 2) == 0.12 and round(2.675, 2) == 2.67


def test_seed_000_weights_and_output_come_out_exactly_by_hand() -> None:
    walkthrough = by_hand()
    head = walkthrough.heads[0]
    assert head.weights.values.tolist() == [[1.0, 0.0, 0.0], [0.35, 0.65, 0.0],
                                            [0.40, 0.25, 0.35]]
    assert walkthrough.output.values.tolist() == [[1.0, 0.0], [0.48, 0.65], [0.73, 0.25]]
    # the seed's scaled scores, carried as written
    scaled = next(s for s in walkthrough.steps if s.id == "scaled").matrices[0].values
    assert scaled.tolist() == [[0.71, 0.14, 0.57], [0.14, 0.74, 0.11], [0.57, 0.11, 0.45]]
    assert head.divisor == 1.41


def test_seed_000_at_full_precision_gives_036_064() -> None:
    walkthrough = build(load_spec(str(SEED_000)))
    weights = walkthrough.heads[0].weights.values
    assert [written(float(x), 2) for x in weights[1]] == [0.36, 0.64, 0.0]
    assert walkthrough.drift is None


def test_every_seed_000_intermediate_is_a_two_decimal_number() -> None:
    for step in by_hand().steps:
        for matrix in step.matrices:
            for x in matrix.values[np.isfinite(matrix.values)]:
                assert float(f"{x:.2f}") == x, (step.id, x)


def test_the_drift_says_where_and_by_how_much() -> None:
    drift = by_hand().drift
    assert drift is not None
    cells = {(d.matrix, d.row, d.column): (d.rounded, d.full) for d in drift}
    assert set(cells) == {("A", "chases", "cat"), ("A", "chases", "chases"),
                          ("Z", "chases", "d2")}
    rounded, full = cells[("A", "chases", "cat")]
    # full precision, worked out: 1 / (1 + e^((1.04 - 0.2)/√2)) = 0.35572...
    assert rounded == 0.35 and full == pytest.approx(1 / (1 + np.exp(0.84 / np.sqrt(2))))
    text = render(by_hand(), "text")
    assert "A[chases, cat]: 0.35 by hand, 0.3557 at full precision (0.0057 apart)" in text


def test_json_in_hand_mode_holds_the_rounded_numbers_used() -> None:
    doc = json.loads(render(by_hand(), "json"))
    assert doc["round_intermediates"] is True
    assert doc["heads"][0]["weights"][1] == [0.35, 0.65, 0.0]
    assert doc["output"][1] == [0.48, 0.65]
    scaled = next(s for s in doc["steps"] if s["id"] == "scaled")
    assert scaled["matrices"][0]["values"][1] == [0.14, 0.74, 0.11]
    assert {"matrix": "A", "head": None, "row": "chases", "column": "cat", "rounded": 0.35,
            "full": pytest.approx(0.3557245)} in doc["drift"]


TIE = """
tokens: [a, b]
embeddings: [[0.5, 0.25], [1, 0]]
weights:
  W_Q: [[0.25], [0]]
  W_K: [[1], [0]]
  W_V: identity
scale: none
display: {round_intermediates: true}
"""


def test_a_real_tie_in_the_pipeline_rounds_up() -> None:
    # Q[a] = 0.5·0.25 = 0.125 exactly: a person writes 0.13, numpy's rounding would say 0.12
    walkthrough = build(loads_spec(TIE))
    assert walkthrough.heads[0].queries.values[0, 0] == 0.13
    # S[a, a] = 0.13·0.5 = 0.065 -> 0.07 (half up again), S[a, b] = 0.13·1 = 0.13
    assert walkthrough.heads[0].scores.values[0].tolist() == [0.07, 0.13]


def test_many_decimals_by_hand_agree_with_full_precision() -> None:
    spec_path = str(example_path("column_convention"))
    hand = by_hand(spec_path, precision=12)
    full = build(load_spec(spec_path))
    np.testing.assert_allclose(hand.output.values, full.output.values, atol=5e-11)
    assert hand.drift is not None  # the 12th decimal may move, by a few units at most
    assert all(abs(d.rounded - d.full) < 5e-12 for d in hand.drift)


def test_a_large_score_is_shifted_by_its_row_maximum_by_hand() -> None:
    spec = loads_spec("tokens: [a, b]\nembeddings: [[4, 0], [3, 1]]\nscale: none\n"
                      "display: {round_intermediates: true}\n")
    # S[a] = [16, 12]: e^16 would be 8886110.52, so e^(x - 16): e^0 = 1, e^-4 = 0.02
    walkthrough = build(spec)
    assert walkthrough.heads[0].weights.values[0].tolist() == [0.98, 0.02]


def test_a_row_whose_largest_e_x_rounds_to_0_is_shifted_so_that_it_is_1() -> None:
    """With no decimals S′[a, a] = -3/3 = -1 is left unshifted (it lies in [-1, ln 10^4]), and
    e^-1 = 0.37 would be written 0: a row that sees a key would have nothing to divide by. Its
    largest score is subtracted instead: e^0 = 1, so A[a, a] = 1 / 1 = 1."""
    spec = loads_spec("tokens: [a, b]\nembeddings: [[1, 0], [0, 0]]\n"
                      "weights: {W_K: [[-3, 0], [0, 0]]}\nscale: 3\nmask: causal\n"
                      "display: {precision: 0, round_intermediates: true}\n")
    walkthrough = build(spec)
    head = walkthrough.heads[0]
    assert head.scores.values.tolist()[0][0] == -1.0  # q_a·k_a / 3 = 1·(1·-3) / 3
    assert head.weights.values.tolist() == [[1.0, 0.0], [1.0, 1.0]]  # 1/2 = 0.5 is written 1
    text = render(walkthrough, "text")
    assert "sees no key" not in text and "sink" not in text
    assert "“a” sees only itself, so all its weight (1) stays there." in text


def test_by_hand_every_number_of_the_layer_is_carried_rounded() -> None:
    """Positions, residual adds, LayerNorm (with μ, σ), GELU and W_O too: a person writes every
    intermediate down at the display precision, so every number the walkthrough holds has at
    most that many decimals."""

    spec = loads_spec(
        "tokens: [I, am, here]\nembeddings: [[0.1, 0.2], [0.3, 0.4], [-0.5, 0.25]]\n"
        "positional: sinusoidal\nmask: causal\ndisplay: {round_intermediates: true}\n"
        "heads: 2\nweights: {W_O: [[1, 0.5], [0, 1]], b_O: [0.1, 0]}\n"
        "block: {residual: true, layer_norm: true, ffn: {W_1: [[1, -1, 0.5], [0, 1, 2]], "
        "W_2: [[1, 0], [0, 1], [0.5, 0.5]], activation: gelu}}\n", "layer.yaml")
    doc = json.loads(render(build(spec), "json"))
    checked = 0
    for step in doc["steps"]:
        for matrix in step["matrices"]:
            for value in (v for row in matrix["values"] for v in row if v is not None):
                assert abs(value * 100 - round(value * 100)) < 1e-9, (step["id"], value)
                checked += 1
    ids = {step["id"] for step in doc["steps"]}
    assert {"positional", "residual_1", "norm_1", "ffn", "residual_2", "norm_2",
            "out_projection"} <= ids
    assert checked > 100


def test_a_hidden_key_of_a_row_of_very_low_scores_is_0_not_an_overflow() -> None:
    """Row a sees only itself, at −6.4·10⁶: its hidden key was e^(0 + 6.4·10⁶) before it was
    masked, past the decimal context (exit 3 in every command)."""
    from attncli.arithmetic.handcalc import HandCalculation

    logits = np.array([[-6_400_000.0, -np.inf], [0.0, 0.0]])
    shift, e, total, weights = HandCalculation(2).softmax_parts(logits)
    assert shift.tolist() == [-6_400_000.0, 0.0]
    assert e.tolist() == [[1.0, 0.0], [1.0, 1.0]]
    assert total.tolist() == [1.0, 2.0]
    assert weights.tolist() == [[1.0, 0.0], [0.5, 0.5]]
