"""The step-by-step pipeline against an independent, one-cell-at-a-time implementation.

The reference below shares no code with attncli: plain Python loops and math.exp, written
straight from softmax(QKᵀ/√d_k + M)V. Random specs go through the real loader and the JSON
renderer, so a mistake anywhere from parsing to printing shows up here.
"""

from __future__ import annotations

import json
import math
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from attncli import build, loads_spec, render

TOL = 1e-10


def reference(spec: dict[str, Any]) -> tuple[list[list[float]], list[list[float]]]:
    """(weights, output) of `spec`, the slow and obvious way."""
    x = spec["embeddings"]
    w = spec["weights"]
    column = spec.get("convention") == "column"

    def proj(row: list[float], mat: list[list[float]], bias: list[float] | None) -> list[float]:
        if column:  # out_c = sum_f W[c][f] x_f
            out = [sum(mat[c][f] * row[f] for f in range(len(row))) for c in range(len(mat))]
        else:  # out_c = sum_f x_f W[f][c]
            out = [sum(row[f] * mat[f][c] for f in range(len(row))) for c in range(len(mat[0]))]
        return out if bias is None else [o + b for o, b in zip(out, bias, strict=True)]

    q = [proj(r, w["W_Q"], w.get("b_Q")) for r in x]
    k = [proj(r, w["W_K"], w.get("b_K")) for r in x]
    v = [proj(r, w["W_V"], w.get("b_V")) for r in x]
    n, d_k = len(x), len(q[0])
    score = spec.get("score", "scaled_dot")
    divisor = {"scaled_dot": math.sqrt(d_k)}.get(score if isinstance(score, str) else "", 1.0)
    if "scale" in spec:
        divisor = math.sqrt(d_k) if spec["scale"] == "sqrt_dk" else (
            1.0 if spec["scale"] == "none" else spec["scale"])

    def sim(i: int, j: int) -> float:
        if isinstance(score, dict):
            g = score["general"]
            return sum(q[i][a] * g[a][b] * k[j][b] for a in range(d_k) for b in range(d_k))
        return sum(q[i][c] * k[j][c] for c in range(d_k))

    def visible(i: int, j: int) -> bool:
        for mask in spec.get("masks_", []):
            if mask == "causal" and j > i:
                return False
            if isinstance(mask, dict) and "window" in mask and (
                    abs(i - j) > mask["window"] or (mask.get("causal") and j > i)):
                return False
            if isinstance(mask, dict) and "padding" in mask and not mask["padding"][j]:
                return False
            if isinstance(mask, list) and mask[i][j] == 0:
                return False
        return True

    weights, output = [], []
    for i in range(n):
        logits = {j: sim(i, j) / divisor for j in range(n) if visible(i, j)}
        row = [0.0] * n
        if logits:
            top = max(logits.values())
            total = sum(math.exp(s - top) for s in logits.values())
            for j, s in logits.items():
                row[j] = math.exp(s - top) / total
        weights.append(row)
        output.append([sum(row[j] * v[j][c] for j in range(n)) for c in range(len(v[0]))])
    return weights, output


floats = st.floats(-3, 3, allow_nan=False, allow_infinity=False)


def mat(rows: int, cols: int) -> st.SearchStrategy[list[list[float]]]:
    return st.lists(st.lists(floats, min_size=cols, max_size=cols), min_size=rows, max_size=rows)


@st.composite
def specs(draw: st.DrawFn) -> dict[str, Any]:
    n = draw(st.integers(1, 6))
    d_model, d_k, d_v = (draw(st.integers(1, 5)) for _ in range(3))
    column = draw(st.booleans())

    def weight(d: int) -> list[list[float]]:
        return draw(mat(d, d_model) if column else mat(d_model, d))

    spec: dict[str, Any] = {
        "tokens": [f"t{i}" for i in range(n)],
        "embeddings": draw(mat(n, d_model)),
        "convention": "column" if column else "row",
        "weights": {"W_Q": weight(d_k), "W_K": weight(d_k), "W_V": weight(d_v)},
    }
    for name, d in (("b_Q", d_k), ("b_K", d_k), ("b_V", d_v)):
        if draw(st.booleans()):
            spec["weights"][name] = draw(st.lists(floats, min_size=d, max_size=d))
    spec["score"] = draw(st.sampled_from(["scaled_dot", "dot", {"general": draw(mat(d_k, d_k))}]))
    if draw(st.booleans()):
        spec["scale"] = draw(st.sampled_from(["sqrt_dk", "none", 0.5, 3.0]))
    masks = draw(st.lists(st.one_of(
        st.just("causal"),
        st.builds(lambda w, c: {"window": w, "causal": c}, st.integers(1, 3), st.booleans()),
        st.builds(lambda p: {"padding": p}, st.lists(st.booleans(), min_size=n, max_size=n)),
        mat(n, n).map(lambda m: [[1 if c > 0 else 0 for c in r] for r in m]),
    ), max_size=3))
    if masks:
        spec["mask"] = masks
    spec["masks_"] = masks
    return spec


def attn_json(spec: dict[str, Any]) -> dict[str, Any]:
    text = json.dumps({key: value for key, value in spec.items() if key != "masks_"})
    doc: dict[str, Any] = json.loads(render(build(loads_spec(text, "random.json")), "json"))
    return doc


def assert_close(actual: list[list[float | None]], expected: list[list[float]]) -> None:
    assert len(actual) == len(expected)
    for got_row, want_row in zip(actual, expected, strict=True):
        assert len(got_row) == len(want_row)
        for got, want in zip(got_row, want_row, strict=True):
            assert got is not None and abs(got - want) <= TOL * max(1.0, abs(want)), (got, want)


@settings(max_examples=200, deadline=None)
@given(specs())
def test_step_by_step_equals_one_shot_reference(spec: dict[str, Any]) -> None:
    doc = attn_json(spec)
    weights, output = reference(spec)
    assert_close(doc["heads"][0]["weights"], weights)
    assert_close(doc["output"], output)
    assert doc["output"] == doc["heads"][0]["context"]


def test_reference_agrees_with_a_hand_computed_case() -> None:
    """The oracle itself, checked once by hand: two tokens, Q = K = I, V = diag(10, 20), no
    scaling. softmax([1, 0]) = [e/(e+1), 1/(e+1)] = [0.7311, 0.2689]."""
    spec = {"tokens": ["a", "b"], "embeddings": [[1, 0], [0, 1]],
            "weights": {"W_Q": [[1, 0], [0, 1]], "W_K": [[1, 0], [0, 1]],
                        "W_V": [[10, 0], [0, 20]]}, "scale": "none"}
    weights, output = reference(spec)
    e = math.e
    assert abs(weights[0][0] - e / (e + 1)) < 1e-15
    assert abs(output[0][0] - 10 * e / (e + 1)) < 1e-12
    assert abs(output[0][1] - 20 / (e + 1)) < 1e-12
