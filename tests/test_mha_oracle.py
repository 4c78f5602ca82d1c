"""attn's several heads, W_O, biases, masks and cross-attention against PyTorch's
nn.MultiheadAttention: once against its semantics written out in NumPy (mha_reference.py), and
once against torch itself (float64), which CI installs (.ci/run) and must not skip."""

from __future__ import annotations

import json
from dataclasses import dataclass, replace

import numpy as np
import pytest

from attncli import build, loads_spec
from attncli.model import Walkthrough
from tests.mha_reference import TOLERANCE, multi_head_attention, torch_module

CASES = 60


@dataclass
class Case:
    """One random multi-head attention problem, in PyTorch's terms."""

    heads: int
    query: np.ndarray  # (L, E)
    key: np.ndarray  # (S, E): the context for cross-attention, else the query itself
    cross: bool
    in_proj_weight: np.ndarray  # (3E, E)
    in_proj_bias: np.ndarray | None  # (3E,)
    out_weight: np.ndarray  # (E, E)
    out_bias: np.ndarray | None  # (E,)
    causal: bool
    window: tuple[int, bool] | None  # (width, causal)
    padding: np.ndarray | None  # (S,) True = a padding key (hidden)
    convention: str

    def attn_mask(self) -> np.ndarray:
        """(L, S), True where a query may not see a key (torch's bool attn_mask)."""
        rows, cols = self.query.shape[0], self.key.shape[0]
        i = np.arange(rows)[:, None]
        j = np.arange(cols)[None, :]
        hidden = np.zeros((rows, cols), dtype=bool)
        if self.causal:
            hidden |= j > i
        if self.window is not None:
            width, causal = self.window
            hidden |= np.abs(i - j) > width
            if causal:
                hidden |= j > i
        return hidden

    def visible_somewhere(self) -> bool:
        hidden = self.attn_mask()
        if self.padding is not None:
            hidden = hidden | self.padding[None, :]
        return bool((~hidden).any(axis=1).all())


def random_case(seed: int) -> Case:
    rng = np.random.default_rng(seed)
    while True:
        heads = int(rng.integers(1, 9))
        head_dim = int(rng.integers(1, 4))
        embed = heads * head_dim
        n = int(rng.integers(1, 6))
        cross = bool(rng.random() < 0.5)
        m = int(rng.integers(1, 6)) if cross else n
        query = rng.normal(size=(n, embed))
        key = rng.normal(size=(m, embed)) if cross else query
        bias = bool(rng.random() < 0.6)
        case = Case(
            heads=heads, query=query, key=key, cross=cross,
            in_proj_weight=rng.normal(size=(3 * embed, embed)),
            in_proj_bias=rng.normal(size=3 * embed) if bias else None,
            out_weight=rng.normal(size=(embed, embed)),
            out_bias=rng.normal(size=embed) if rng.random() < 0.6 else None,
            causal=n == m and bool(rng.random() < 0.4),
            window=(int(rng.integers(1, 3)), n == m and bool(rng.random() < 0.5))
            if rng.random() < 0.3 else None,
            padding=rng.random(m) < 0.3 if rng.random() < 0.5 else None,
            convention="row" if rng.random() < 0.7 else "column",
        )
        if case.visible_somewhere():
            return case


def spec_text(case: Case) -> str:
    """The case as an attn spec (JSON): PyTorch's (out, in) weights are attn's column
    convention as they are, and their transposes in the row convention."""
    embed = case.query.shape[1]
    w_q, w_k, w_v = np.split(case.in_proj_weight, 3)

    def weight(w: np.ndarray) -> list[list[float]]:
        return (w if case.convention == "column" else w.T).tolist()

    weights: dict[str, object] = {
        "W_Q": weight(w_q), "W_K": weight(w_k), "W_V": weight(w_v), "W_O": weight(case.out_weight),
    }
    if case.in_proj_bias is not None:
        for name, b in zip(("b_Q", "b_K", "b_V"), np.split(case.in_proj_bias, 3), strict=True):
            weights[name] = b.tolist()
    if case.out_bias is not None:
        weights["b_O"] = case.out_bias.tolist()
    masks: list[object] = []
    if case.causal:
        masks.append("causal")
    if case.window is not None:
        masks.append({"window": case.window[0], "causal": case.window[1]})
    if case.padding is not None:
        masks.append({"padding": [not bool(p) for p in case.padding]})
    spec: dict[str, object] = {
        "tokens": [f"q{i}" for i in range(case.query.shape[0])],
        "embeddings": case.query.tolist(),
        "convention": case.convention,
        "heads": case.heads,
        "weights": weights,
        "mask": masks or "none",
    }
    if case.cross:
        spec["context"] = {"tokens": [f"k{j}" for j in range(case.key.shape[0])],
                           "embeddings": case.key.tolist()}
    assert embed == case.heads * (embed // case.heads)
    return json.dumps(spec)


def walkthrough(case: Case) -> Walkthrough:
    return build(loads_spec(spec_text(case), name="case.json"))


def reference(case: Case) -> tuple[np.ndarray, np.ndarray]:
    return multi_head_attention(
        case.query, case.key, case.heads, case.in_proj_weight, case.in_proj_bias,
        case.out_weight, case.out_bias, case.attn_mask(), case.padding,
    )


def assert_agrees(result: Walkthrough, output: np.ndarray, weights: np.ndarray) -> None:
    assert len(result.heads) == weights.shape[0]
    np.testing.assert_allclose(result.output.values, output, rtol=0, atol=TOLERANCE)
    for head, expected in zip(result.heads, weights, strict=True):
        np.testing.assert_allclose(head.weights.values, expected, rtol=0, atol=TOLERANCE)


def test_the_random_cases_cover_what_they_claim() -> None:
    cases = [random_case(seed) for seed in range(CASES)]
    assert {c.heads for c in cases} == set(range(1, 9))
    assert any(c.cross for c in cases) and any(not c.cross for c in cases)
    assert any(c.causal for c in cases) and any(c.window for c in cases)
    assert any(c.padding is not None and c.padding.any() for c in cases)
    assert any(c.in_proj_bias is None for c in cases) and any(c.out_bias is not None for c in cases)
    assert {c.convention for c in cases} == {"row", "column"}


@pytest.mark.parametrize("seed", range(CASES))
def test_agrees_with_multihead_attention_written_out(seed: int) -> None:
    case = random_case(seed)
    output, weights = reference(case)
    assert_agrees(walkthrough(case), output, weights)


def torch_compatible(case: Case) -> Case:
    """torch has b_O exactly when it has the in_proj bias (`bias=`)."""
    if case.in_proj_bias is None:
        return replace(case, out_bias=None)
    if case.out_bias is None:
        return replace(case, out_bias=np.zeros(case.query.shape[1]))
    return case


def test_agrees_with_torch_multihead_attention() -> None:
    torch = torch_module()
    for seed in range(CASES):
        case = torch_compatible(random_case(seed))
        embed = case.query.shape[1]
        mha = torch.nn.MultiheadAttention(
            embed, case.heads, bias=case.in_proj_bias is not None, batch_first=True,
            dtype=torch.float64,
        )
        with torch.no_grad():
            mha.in_proj_weight.copy_(torch.from_numpy(case.in_proj_weight))
            mha.out_proj.weight.copy_(torch.from_numpy(case.out_weight))
            if case.in_proj_bias is not None:
                mha.in_proj_bias.copy_(torch.from_numpy(case.in_proj_bias))
            if case.out_bias is not None:
                mha.out_proj.bias.copy_(torch.from_numpy(case.out_bias))
        query = torch.from_numpy(case.query)[None]
        key = torch.from_numpy(case.key)[None]
        padding = None if case.padding is None else torch.from_numpy(case.padding)[None]
        with torch.no_grad():
            output, weights = mha(query, key, key, key_padding_mask=padding,
                                  attn_mask=torch.from_numpy(case.attn_mask()),
                                  need_weights=True, average_attn_weights=False)
        assert_agrees(walkthrough(case), output[0].numpy(), weights[0].numpy())


def test_without_w_o_the_output_is_the_heads_side_by_side() -> None:
    case = random_case(3)
    spec = json.loads(spec_text(case))
    del spec["weights"]["W_O"]
    spec["weights"].pop("b_O", None)
    result = build(loads_spec(json.dumps(spec)))
    expected = np.concatenate([head.context.values for head in result.heads], axis=1)
    assert case.heads > 1 and result.output.shape == (case.query.shape[0], case.query.shape[1])
    np.testing.assert_array_equal(result.output.values, expected)
    assert result.steps[-1].id == "concat"
    assert "out_projection" not in {step.id for step in result.steps}
