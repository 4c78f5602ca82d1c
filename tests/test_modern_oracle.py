"""RoPE (both layouts), ALiBi and matrix score biases, grouped- and multi-query attention,
RMSNorm and SwiGLU/GeGLU/SiLU on random specs, against PyTorch: scaled_dot_product_attention
with enable_gqa=True (the biases through attn_mask), nn.RMSNorm, F.silu and F.gelu. RoPE is
checked against an implementation written here from the formula with complex numbers, which
shares no code with attncli.compute.ops."""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from typing import Any

import numpy as np
import pytest

from attncli import build, loads_spec
from attncli.compute.ops import alibi_slopes
from tests.mha_reference import TOLERANCE, torch_module

CASES = 40


def paper_slopes(h: int) -> list[float]:
    """ALiBi's slopes as the paper's code (ofirpress/attention_with_linear_biases) writes them."""
    def power_of_2(count: int) -> list[float]:
        start = 2 ** (-(2 ** -(math.log2(count) - 3)))
        return [start * start**i for i in range(count)]

    if math.log2(h).is_integer():
        return power_of_2(h)
    closest = 2 ** math.floor(math.log2(h))
    return power_of_2(closest) + paper_slopes(2 * closest)[0::2][: h - closest]


def rotate(x: np.ndarray, base: float, layout: str) -> np.ndarray:
    """RoPE from the formula: pair j of row p, read as the complex number a + ib, times
    e^(i·p·θⱼ), θⱼ = base^(−2j/d)."""
    n, d = x.shape
    out = np.zeros_like(x)
    for p in range(n):
        for j in range(d // 2):
            a, b = (j, j + d // 2) if layout == "half" else (2 * j, 2 * j + 1)
            turned = complex(x[p, a], x[p, b]) * np.exp(1j * p * base ** (-2 * j / d))
            out[p, a], out[p, b] = turned.real, turned.imag
    return out


@dataclass
class Case:
    x: np.ndarray  # (n, d)
    h: int
    g: int
    d_k: int
    w_q: np.ndarray  # (d, h·d_k)
    w_k: np.ndarray  # (d, g·d_k)
    w_v: np.ndarray  # (d, g·d_k)
    w_o: np.ndarray  # (h·d_k, d)
    rope: str | None  # layout
    base: float
    bias: str | None  # alibi, matrix, per_head
    biases: np.ndarray  # (h, n, n)
    causal: bool
    ffn: str | None  # swiglu, geglu, silu
    w_1: np.ndarray  # (d, d_ff)
    w_3: np.ndarray
    w_2: np.ndarray  # (d_ff, d)
    gains: tuple[np.ndarray, np.ndarray]
    eps: float


def random_case(seed: int) -> Case:
    rng = np.random.default_rng(4000 + seed)
    h = int(rng.choice([1, 2, 3, 4, 6, 8]))
    g = int(rng.choice([c for c in range(1, h + 1) if h % c == 0]))
    d_k = 2 * int(rng.integers(1, 4))
    d = int(rng.integers(2, 9))
    n = int(rng.integers(1, 7))
    d_ff = int(rng.integers(1, 7))
    return Case(
        x=rng.normal(size=(n, d)), h=h, g=g, d_k=d_k,
        w_q=rng.normal(size=(d, h * d_k)), w_k=rng.normal(size=(d, g * d_k)),
        w_v=rng.normal(size=(d, g * d_k)), w_o=rng.normal(size=(h * d_k, d)),
        rope=[None, "half", "interleaved"][seed % 3], base=float(rng.choice([100.0, 10000.0])),
        bias=[None, "alibi", "matrix", "per_head"][seed % 4], biases=rng.normal(size=(h, n, n)),
        causal=seed % 5 != 0, ffn=["swiglu", "geglu", "silu", None][(seed // 2) % 4],
        w_1=rng.normal(size=(d, d_ff)), w_3=rng.normal(size=(d, d_ff)),
        w_2=rng.normal(size=(d_ff, d)), gains=(rng.normal(size=d), rng.normal(size=d)),
        eps=float(rng.choice([1e-6, 1e-5, 0.1])),
    )


def spec_of(case: Case, column: bool = False) -> str:
    """In the row convention, or with every weight transposed in the column convention."""
    n = case.x.shape[0]

    def w(a: np.ndarray) -> Any:
        return (a.T if column else a).tolist()

    spec: dict[str, Any] = {
        "tokens": [f"t{i}" for i in range(n)], "embeddings": case.x.tolist(),
        "heads": case.h, "kv_heads": case.g, "convention": "column" if column else "row",
        "weights": {"W_Q": w(case.w_q), "W_K": w(case.w_k), "W_V": w(case.w_v),
                    "W_O": w(case.w_o)},
        "mask": "causal" if case.causal else "none",
        "block": {"norm": "pre", "rms_norm": [{"gain": gain.tolist(), "eps": case.eps}
                                              for gain in case.gains]},
    }
    if case.rope:
        spec["positional"] = {"rope": {"base": case.base, "layout": case.rope}}
    if case.bias == "alibi":
        spec["bias"] = "alibi"
    elif case.bias == "matrix":
        spec["bias"] = case.biases[0].tolist()
    elif case.bias == "per_head":
        spec["bias"] = case.biases.tolist()
    if case.ffn:
        spec["block"]["ffn"] = {"activation": case.ffn, "W_1": w(case.w_1), "W_2": w(case.w_2)}
        if case.ffn != "silu":
            spec["block"]["ffn"]["W_3"] = w(case.w_3)
    return json.dumps(spec)


def head_biases(case: Case) -> np.ndarray:
    """B of every head (h, n, n): ALiBi's −m·|i − j|, or the given matrices."""
    n = case.x.shape[0]
    if case.bias == "alibi":
        distance = np.abs(np.subtract.outer(np.arange(n), np.arange(n)))
        return np.stack([-m * distance for m in paper_slopes(case.h)])
    if case.bias == "matrix":
        return np.broadcast_to(case.biases[0], case.biases.shape)
    if case.bias == "per_head":
        return case.biases
    return np.zeros_like(case.biases)


def torch_layer(case: Case) -> tuple[np.ndarray, np.ndarray]:
    """(the heads' outputs side by side (n, h·d_k), the layer's output (n, d)) by PyTorch."""
    torch = torch_module()
    F = torch.nn.functional
    n, d = case.x.shape
    t = lambda a: torch.tensor(np.ascontiguousarray(a), dtype=torch.float64)  # noqa: E731
    x = t(case.x)

    def rms(i: int, values: Any) -> Any:
        norm = torch.nn.RMSNorm(d, eps=case.eps, dtype=torch.float64)
        with torch.no_grad():
            norm.weight.copy_(t(case.gains[i]))
            return norm(values)

    x_in = rms(0, x)
    q = (x_in @ t(case.w_q)).reshape(n, case.h, case.d_k).transpose(0, 1)  # (h, n, d_k)
    k = (x_in @ t(case.w_k)).reshape(n, case.g, case.d_k).transpose(0, 1)  # (g, n, d_k)
    v = (x_in @ t(case.w_v)).reshape(n, case.g, case.d_k).transpose(0, 1)
    if case.rope:
        q = t(np.stack([rotate(head, case.base, case.rope) for head in q.numpy()]))
        k = t(np.stack([rotate(head, case.base, case.rope) for head in k.numpy()]))
    mask = t(head_biases(case))  # (h, n, n)
    if case.causal:
        mask = mask.masked_fill(~torch.ones(n, n, dtype=torch.bool).tril(), float("-inf"))
    with torch.no_grad():
        z = F.scaled_dot_product_attention(q[None], k[None], v[None], attn_mask=mask[None],
                                           enable_gqa=True)[0]  # (h, n, d_k)
    z = z.transpose(0, 1).reshape(n, case.h * case.d_k)
    r = x + z @ t(case.w_o)
    if case.ffn is None:
        return z.numpy(), r.numpy()
    y = rms(1, r)
    gate = y @ t(case.w_1)
    if case.ffn == "swiglu":
        hidden = F.silu(gate) * (y @ t(case.w_3))
    elif case.ffn == "geglu":
        hidden = F.gelu(gate) * (y @ t(case.w_3))
    else:
        hidden = F.silu(gate)
    return z.numpy(), (r + hidden @ t(case.w_2)).numpy()


@pytest.mark.parametrize("seed", range(CASES))
def test_random_layers_agree_with_pytorch(seed: int) -> None:
    case = random_case(seed)
    walkthrough = build(loads_spec(spec_of(case, column=seed % 4 == 3)))
    z, out = torch_layer(case)
    ours = np.concatenate([head.context.values for head in walkthrough.heads], axis=1)
    assert np.max(np.abs(ours - z)) < TOLERANCE
    assert np.max(np.abs(walkthrough.output.values - out)) < TOLERANCE


@pytest.mark.parametrize("layout", ["half", "interleaved"])
@pytest.mark.parametrize("seed", range(8))
def test_rope_matches_the_formula_written_with_complex_numbers(layout: str, seed: int) -> None:
    rng = np.random.default_rng(seed)
    n, d = int(rng.integers(1, 8)), 2 * int(rng.integers(1, 5))
    x = rng.normal(size=(n, d))
    spec = {"tokens": [f"t{i}" for i in range(n)], "embeddings": x.tolist(),
            "positional": {"rope": {"base": 500, "layout": layout}}}
    rope = next(s for s in build(loads_spec(json.dumps(spec))).steps if s.id == "rope")
    q_hat = next(m for m in rope.matrices if m.symbol.latex == r"\hat{Q}")
    assert np.max(np.abs(q_hat.values - rotate(x, 500.0, layout))) < TOLERANCE


def test_the_two_layouts_differ_and_rope_keeps_only_the_offset() -> None:
    x = np.array([[1.0, 2.0, 3.0, 4.0]])
    assert not np.allclose(rotate(np.vstack([x, x]), 10.0, "half")[1],
                           rotate(np.vstack([x, x]), 10.0, "interleaved")[1])
    spec = {"tokens": ["a", "b"], "embeddings": [[1, 2, 3, 4], [0.5, -1, 2, 0]],
            "positional": "rope", "display": {"precision": 6}}
    rope = next(s for s in build(loads_spec(json.dumps(spec))).steps if s.id == "rope")
    first, second = (line.result for line in rope.expansions)
    assert isinstance(first, float) and isinstance(second, float)
    assert abs(first - second) < 1e-12
    # q = k = (1, 2, 3, 4) at positions 1 and 0: pair (1, 3) and pair (2, 4), by hand
    q1 = rotate(np.vstack([x, x]), 10000.0, "half")[1]
    assert abs(first - float(q1 @ x[0])) < 1e-12


@pytest.mark.parametrize("h", [1, 2, 3, 5, 6, 8, 12, 16])
def test_alibi_slopes_are_the_papers(h: int) -> None:
    assert np.max(np.abs(alibi_slopes(h) - np.array(paper_slopes(h)))) < 1e-15
    assert alibi_slopes(8)[0] == 0.5 and alibi_slopes(8)[-1] == 2.0**-8
