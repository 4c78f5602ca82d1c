"""The rest of the layer (residual adds, LayerNorm, feed-forward; post- and pre-norm) against
nn.TransformerEncoderLayer: written out in NumPy (mha_reference.py) and, in CI, torch itself."""

from __future__ import annotations

import json
from dataclasses import dataclass

import numpy as np
import pytest

from attncli import build, loads_spec
from tests.mha_reference import TOLERANCE, encoder_layer, multi_head_attention, torch_module

CASES = 24
EPS = 1e-5


@dataclass
class LayerCase:
    heads: int
    x: np.ndarray  # (n, E)
    in_proj_weight: np.ndarray  # (3E, E)
    in_proj_bias: np.ndarray  # (3E,)
    out_weight: np.ndarray  # (E, E)
    out_bias: np.ndarray  # (E,)
    linear1: tuple[np.ndarray, np.ndarray]  # (d_ff, E), (d_ff,)
    linear2: tuple[np.ndarray, np.ndarray]  # (E, d_ff), (E,)
    norm1: tuple[np.ndarray, np.ndarray]  # gain, bias: (E,), (E,)
    norm2: tuple[np.ndarray, np.ndarray]
    activation: str
    norm_first: bool
    causal: bool


def random_layer(seed: int) -> LayerCase:
    rng = np.random.default_rng(1000 + seed)
    heads = int(rng.integers(1, 5))
    embed = heads * int(rng.integers(1, 4))
    d_ff = int(rng.integers(1, 9))
    n = int(rng.integers(1, 6))
    return LayerCase(
        heads=heads, x=rng.normal(size=(n, embed)),
        in_proj_weight=rng.normal(size=(3 * embed, embed)), in_proj_bias=rng.normal(size=3 * embed),
        out_weight=rng.normal(size=(embed, embed)), out_bias=rng.normal(size=embed),
        linear1=(rng.normal(size=(d_ff, embed)), rng.normal(size=d_ff)),
        linear2=(rng.normal(size=(embed, d_ff)), rng.normal(size=embed)),
        norm1=(rng.normal(size=embed), rng.normal(size=embed)),
        norm2=(rng.normal(size=embed), rng.normal(size=embed)),
        activation="relu" if seed % 2 == 0 else "gelu",
        norm_first=seed % 4 >= 2, causal=seed % 3 == 0,
    )


def layer_spec(case: LayerCase) -> str:
    """In the row convention: attn's W is the transpose of torch's Linear weight."""
    w_q, w_k, w_v = np.split(case.in_proj_weight, 3)
    b_q, b_k, b_v = np.split(case.in_proj_bias, 3)
    spec = {
        "tokens": [f"t{i}" for i in range(case.x.shape[0])],
        "embeddings": case.x.tolist(),
        "heads": case.heads,
        "weights": {"W_Q": w_q.T.tolist(), "W_K": w_k.T.tolist(), "W_V": w_v.T.tolist(),
                    "b_Q": b_q.tolist(), "b_K": b_k.tolist(), "b_V": b_v.tolist(),
                    "W_O": case.out_weight.T.tolist(), "b_O": case.out_bias.tolist()},
        "mask": "causal" if case.causal else "none",
        "block": {
            "residual": True,
            "norm": "pre" if case.norm_first else "post",
            "layer_norm": [{"gain": g.tolist(), "bias": b.tolist(), "eps": EPS}
                           for g, b in (case.norm1, case.norm2)],
            "ffn": {"W_1": case.linear1[0].T.tolist(), "b_1": case.linear1[1].tolist(),
                    "W_2": case.linear2[0].T.tolist(), "b_2": case.linear2[1].tolist(),
                    "activation": case.activation},
        },
    }
    return json.dumps(spec)


def causal_mask(n: int) -> np.ndarray:
    return np.triu(np.ones((n, n), dtype=bool), k=1)  # True above the diagonal: hidden


def reference(case: LayerCase) -> np.ndarray:
    mask = causal_mask(case.x.shape[0]) if case.causal else None

    def attend(y: np.ndarray) -> np.ndarray:
        return multi_head_attention(y, y, case.heads, case.in_proj_weight, case.in_proj_bias,
                                    case.out_weight, case.out_bias, mask)[0]

    return encoder_layer(case.x, attend, case.linear1, case.linear2, case.norm1, case.norm2,
                         case.activation, case.norm_first, EPS)


@pytest.mark.parametrize("seed", range(CASES))
def test_layer_agrees_with_encoder_layer_written_out(seed: int) -> None:
    case = random_layer(seed)
    result = build(loads_spec(layer_spec(case)))
    np.testing.assert_allclose(result.output.values, reference(case), rtol=0, atol=TOLERANCE)


def test_layer_steps_in_order() -> None:
    post = build(loads_spec(layer_spec(random_layer(0))))
    pre = build(loads_spec(layer_spec(random_layer(2))))
    tail = ["residual_1", "norm_1", "ffn", "residual_2", "norm_2"]
    assert [s.id for s in post.steps if s.head is None][-5:] == tail
    assert [s.id for s in pre.steps if s.head is None and s.id != "concat"] == [
        "embeddings", "norm_1", "out_projection", "residual_1", "norm_2", "ffn", "residual_2"]
    projections = next(s for s in pre.steps if s.id == "projections")
    assert projections.formula is not None
    assert projections.formula.text.startswith("Q = X̃·W_Q + b_Q,  K = X̃·W_K + b_K")


def test_layer_agrees_with_torch_encoder_layer() -> None:
    torch = torch_module()
    for seed in range(CASES):
        case = random_layer(seed)
        embed = case.x.shape[1]
        layer = torch.nn.TransformerEncoderLayer(
            embed, case.heads, dim_feedforward=case.linear1[0].shape[0], dropout=0.0,
            activation=case.activation, layer_norm_eps=EPS, batch_first=True,
            norm_first=case.norm_first, dtype=torch.float64,
        )
        params = {
            "self_attn.in_proj_weight": case.in_proj_weight,
            "self_attn.in_proj_bias": case.in_proj_bias,
            "self_attn.out_proj.weight": case.out_weight, "self_attn.out_proj.bias": case.out_bias,
            "linear1.weight": case.linear1[0], "linear1.bias": case.linear1[1],
            "linear2.weight": case.linear2[0], "linear2.bias": case.linear2[1],
            "norm1.weight": case.norm1[0], "norm1.bias": case.norm1[1],
            "norm2.weight": case.norm2[0], "norm2.bias": case.norm2[1],
        }
        layer.load_state_dict({k: torch.from_numpy(v) for k, v in params.items()})
        n = case.x.shape[0]
        mask = torch.from_numpy(causal_mask(n)) if case.causal else None
        with torch.no_grad():
            expected = layer(torch.from_numpy(case.x)[None], src_mask=mask)[0].numpy()
        result = build(loads_spec(layer_spec(case)))
        np.testing.assert_allclose(result.output.values, expected, rtol=0, atol=TOLERANCE)
