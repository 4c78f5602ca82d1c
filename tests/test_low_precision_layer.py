"""Low precision beyond one head: the rest of the layer, ALiBi and decoding, each step against
PyTorch (CPU) in the same format from attn's own inputs to that step.

Bit for bit: the residual adds, RMSNorm (PyTorch works it in float32 and rounds once; attn in
float64 and rounds once), ReLU, SiLU and the gate product. LayerNorm: within 1 ulp (PyTorch's
float32 mean and variance against attn's float64 ones move a halfway case, 1 cell in ~3000).
A matrix product: within 1 ulp, as in tests/test_low_precision.py. GELU: PyTorch computes
0.5·x·(1 + erf(x/√2)) in float32, and for x below about −3, 1 + erf(x/√2) cancels: its value
is off by up to 2⁻²⁴·|x| (−5.67 gives 0 where the exact −4.1·10⁻⁸ rounds to −6.0·10⁻⁸); attn's
float64 GELU is the exact one rounded, so the bound is 1 ulp plus 2⁻²²·|x|.
"""

from __future__ import annotations

import json
from typing import Any

import numpy as np
import pytest

from attncli import build, loads_spec
from attncli.compute.lowprec import LowPrecision
from attncli.i18n import translate
from attncli.model import Step, Walkthrough
from tests.conftest import run
from tests.mha_reference import torch_module
from tests.test_low_precision import ulp, ulps

CASES = 16
ACTIVATIONS = ("relu", "gelu", "silu", "swiglu")


def layer_spec(seed: int, dtype: str) -> dict[str, Any]:
    rng = np.random.default_rng(seed)
    n, d, d_ff = int(rng.integers(2, 6)), int(rng.integers(2, 6)), int(rng.integers(2, 7))
    activation = ACTIVATIONS[seed % len(ACTIVATIONS)]
    ffn: dict[str, Any] = {"activation": activation,
                           "W_1": rng.normal(size=(d, d_ff)).tolist(),
                           "b_1": rng.normal(size=d_ff).tolist(),
                           "W_2": rng.normal(size=(d_ff, d)).tolist(),
                           "b_2": rng.normal(size=d).tolist()}
    if activation == "swiglu":
        ffn["W_3"] = rng.normal(size=(d, d_ff)).tolist()
    block: dict[str, Any] = {"ffn": ffn, "norm": "post" if seed % 3 else "pre"}
    if seed % 2:
        block["rms_norm"] = {"gain": rng.normal(size=d).tolist()}
    else:
        block["layer_norm"] = {"gain": rng.normal(size=d).tolist(),
                               "bias": rng.normal(size=d).tolist()}
    return {
        "tokens": [f"t{i}" for i in range(n)],
        "embeddings": (rng.normal(size=(n, d)) * 2).tolist(),
        "weights": {name: rng.normal(size=(d, d)).tolist() for name in ("W_Q", "W_K", "W_V")},
        "mask": "causal",
        "block": block,
        "dtype": dtype,
    }


def walkthrough(spec: dict[str, Any]) -> Walkthrough:
    return build(loads_spec(json.dumps(spec), "spec.json"))


def matrix(step: Step, symbol: str) -> np.ndarray:
    return next(m.values for m in step.matrices if m.symbol.text == symbol)


def normed(torch: Any, x: Any, spec: dict[str, Any]) -> Any:
    block = spec["block"]
    d = x.shape[1]
    if "rms_norm" in block:
        gain = torch.tensor(block["rms_norm"]["gain"]).to(x.dtype)
        return torch.nn.functional.rms_norm(x, (d,), gain, 1e-6)
    ln = block["layer_norm"]
    return torch.nn.functional.layer_norm(x, (d,), torch.tensor(ln["gain"]).to(x.dtype),
                                          torch.tensor(ln["bias"]).to(x.dtype), 1e-5)


@pytest.mark.parametrize("dtype", ("float16", "bfloat16"))
@pytest.mark.parametrize("seed", range(CASES))
def test_the_rest_of_the_layer_equals_pytorch(seed: int, dtype: str) -> None:
    torch = torch_module()
    tdtype = getattr(torch, dtype)
    spec = layer_spec(seed, dtype)
    w = walkthrough(spec)
    steps = {s.id: s for s in w.steps}
    t = lambda a: torch.tensor(a).to(tdtype)  # noqa: E731
    back = lambda a: a.double().numpy()  # noqa: E731
    rms = "rms_norm" in spec["block"]
    for step_id in ("norm_1", "norm_2"):  # Y = norm(its input), from attn's input
        given = {"norm_1": ("X" if spec["block"]["norm"] == "pre" else "R₁"),
                 "norm_2": "R₂" if spec["block"]["norm"] == "post" else "R₁"}[step_id]
        source = next(m.values for s in w.steps for m in s.matrices if m.symbol.text == given)
        ours = steps[step_id].matrices[-1].values
        theirs = back(normed(torch, t(source), spec))
        if rms:
            np.testing.assert_array_equal(ours, theirs)
        else:
            assert (ulps(ours, theirs, dtype) <= 1.0).all()
    ffn = steps["ffn"]
    given = steps["norm_2" if spec["block"]["norm"] == "pre" else "norm_1"].matrices[-1].values
    f = spec["block"]["ffn"]
    calc = LowPrecision(dtype)  # type: ignore[arg-type]
    pre = calc.project(given, matrix(ffn, "W_1"), matrix(ffn, "b_1")[0], "row")  # attn's
    assert (ulps(pre, back(t(given) @ t(matrix(ffn, "W_1")) + t(matrix(ffn, "b_1")[0])),
                 dtype) <= 1.0).all()
    act = {"relu": torch.relu, "gelu": torch.nn.functional.gelu,
           "silu": torch.nn.functional.silu, "swiglu": torch.nn.functional.silu}
    gate = back(act[f["activation"]](t(pre)))
    ours_gate = matrix(ffn, "G") if "W_3" in f else matrix(ffn, "H")
    if f["activation"] == "gelu":  # PyTorch's float32 cancellation below x ≈ −3
        bound = ulp(np.maximum(np.abs(ours_gate), np.abs(gate)), dtype) + 2.0**-22 * np.abs(pre)
        assert (np.abs(ours_gate - gate) <= bound).all()
    else:
        np.testing.assert_array_equal(ours_gate, gate)
    if "W_3" in f:
        up = matrix(ffn, "U")
        np.testing.assert_array_equal(matrix(ffn, "H"), back(t(ours_gate) * t(up)))
    hidden = matrix(ffn, "H")
    out = back(t(hidden) @ t(matrix(ffn, "W_2")) + t(matrix(ffn, "b_2")[0]))
    assert (ulps(matrix(ffn, "F"), out, dtype) <= 1.0).all()
    r2 = steps["residual_2"].matrices[0].values
    h = next(m.values for s in w.steps for m in s.matrices
             if m.symbol.text == ("R₁" if spec["block"]["norm"] == "pre" else "Y₁"))
    np.testing.assert_array_equal(r2, back(t(h) + t(matrix(ffn, "F"))))


def test_alibi_in_float16_rounds_the_bias_first() -> None:
    """Three heads: the slopes 2^(−8/3·…) are not float16 numbers; B is rounded to float16
    first, then S′ + B is rounded, as PyTorch adds two float16 tensors."""
    torch = torch_module()
    rng = np.random.default_rng(5)
    spec = {"tokens": ["a", "b", "c", "d"], "embeddings": rng.normal(size=(4, 3)).tolist(),
            "heads": 3, "weights": {k: rng.normal(size=(3, 3)).tolist()
                                    for k in ("W_Q", "W_K", "W_V")},
            "bias": "alibi", "mask": "causal", "dtype": "float16"}
    w = walkthrough(spec)
    for step in (s for s in w.steps if s.id == "bias"):
        bias, total = step.matrices[0].values, step.matrices[1].values
        scaled = next(s for s in w.steps if s.id == "scaled" and s.head == step.head)
        s = torch.tensor(scaled.matrices[0].values).half()
        b = torch.tensor(np.where(np.isfinite(bias), bias, 0.0)).half()
        assert (torch.tensor(bias).half().double().numpy() == bias).all()  # B is float16
        np.testing.assert_array_equal(total, (s + b).double().numpy())


def test_decoding_in_float16_gives_full_attention_row_for_row() -> None:
    """Each decode row is computed by the same float16 steps as its row of full causal
    attention, so it equals it exactly."""
    spec = json.loads(json.dumps({
        "tokens": ["the", "cat", "sat", "down"],
        "embeddings": [[1.1, 0.0, 0.5], [0.2, 1.3, 0.0], [0.0, 0.4, 1.7], [0.6, 0.1, 0.2]],
        "weights": {"W_Q": "identity", "W_K": "identity", "W_V": "identity"},
        "mask": "causal", "decode": {"prefill": 2}, "dtype": "float16"}))
    w = walkthrough(spec)
    z = next(s for s in w.steps if s.id == "output").matrices[0].values
    decodes = [s for s in w.steps if s.id == "decode"]
    assert len(decodes) == 2
    for t, step in zip((2, 3), decodes, strict=True):
        np.testing.assert_array_equal(step.matrices[-1].values[0], z[t])
        assert "equals row" in translate(step.notes[1], "en")


@pytest.mark.parametrize(("option", "message"), [
    ("--backward", "attn: --backward: expected no --backward with dtype: float16"),
    ("--round-intermediates", "attn: --round-intermediates: hand calculation works on decimals "
     "as written; it cannot be combined with dtype: float16"),
])
def test_options_that_low_precision_leaves_out_are_refused(option: str, message: str) -> None:
    result = run("explain", "configs/low_precision_float16.yaml", option)
    assert result.exit_code == 2 and result.stdout == ""
    assert result.stderr.startswith(message) and result.stderr.count("\n") == 1

