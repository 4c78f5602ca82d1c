"""The backward pass against PyTorch autograd (float64): every gradient of L = Σ dO ⊙ O on random
specs with masks, several heads, biases, W_O, both conventions and the general score."""

from __future__ import annotations

import json

import numpy as np
import pytest

from attncli.compute.gradients import gradients
from attncli.spec import loads_spec
from attncli.spec.model import Spec
from attncli.steps.backward import finite_difference
from attncli.steps.build import build, compute
from attncli.steps.masks import visible_keys
from tests.mha_reference import TOLERANCE, torch_module


def random_spec(seed: int) -> Spec:
    rng = np.random.default_rng(seed)
    n, d_model = int(rng.integers(2, 6)), int(rng.integers(2, 5))
    heads = int(rng.integers(1, 4))
    d_k, d_v = int(rng.integers(1, 4)), int(rng.integers(1, 4))
    column = bool(rng.integers(0, 2))

    def m(rows: int, cols: int) -> list[list[float]]:
        return rng.normal(0, 1, (rows, cols)).tolist()  # type: ignore[no-any-return]

    def w(d: int) -> list[list[float]]:
        return m(d, d_model) if column else m(d_model, d)

    head_list = [{"W_Q": w(d_k), "W_K": w(d_k), "W_V": w(d_v), "b_Q": rng.normal(0, 1, d_k)
                  .tolist(), "b_V": rng.normal(0, 1, d_v).tolist()} for _ in range(heads)]
    spec: dict[str, object] = {"tokens": [f"t{i}" for i in range(n)],
                               "embeddings": m(n, d_model), "heads": head_list,
                               "convention": "column" if column else "row"}
    out = heads * d_v
    block = rng.random() < 0.5
    if block or rng.random() < 0.6:
        spec["weights"] = {"W_O": m(d_model, out) if column else m(out, d_model),
                           "b_O": rng.normal(0, 1, d_model).tolist()}
        out = d_model
    spec["mask"] = ["none", "causal", {"window": 1}, {"padding": [True] * (n - 1) + [False]}][
        int(rng.integers(0, 4))]
    if rng.random() < 0.3:
        spec["score"] = {"general": m(d_k, d_k)}
    if block:
        d_ff = int(rng.integers(1, 5))
        ffn = {"W_1": m(d_ff, d_model) if column else m(d_model, d_ff),
               "b_1": rng.normal(0, 1, d_ff).tolist(),
               "W_2": m(d_model, d_ff) if column else m(d_ff, d_model),
               "b_2": rng.normal(0, 1, d_model).tolist(),
               "activation": str(rng.choice(["relu", "gelu", "gelu_tanh"]))}
        norm = {"gain": (1 + rng.normal(0, 0.3, d_model)).tolist(),
                "bias": rng.normal(0, 0.3, d_model).tolist(), "eps": 1e-5}
        spec["block"] = {"residual": bool(rng.random() < 0.8), "norm": str(rng.choice(
            ["post", "pre"])), "layer_norm": norm if rng.random() < 0.8 else False, "ffn": ffn}
    spec["backward"] = {"dO": m(n, out)}
    return loads_spec(json.dumps(spec), "random.json")


def autograd(spec: Spec) -> dict[str, np.ndarray]:
    """Every gradient, by PyTorch, from a forward pass written here from the formulas."""
    torch = torch_module()
    t = lambda a: torch.tensor(a, dtype=torch.float64, requires_grad=True)  # noqa: E731
    x = t(spec.queries.embeddings)
    row = spec.convention == "row"
    visible = torch.tensor(visible_keys(spec.masks, spec.queries.n, spec.queries.n))
    params: dict[str, object] = {"dX": x}
    outputs = []
    x_in = x
    block = spec.block
    if block is not None and block.norm == "pre" and block.norms is not None:
        x_in = norm(x, block.norms[0], "1", params, t, torch)
    for i, head in enumerate(spec.heads):
        mats = {}
        for name in ("W_Q", "W_K", "W_V", "b_Q", "b_K", "b_V"):
            value = getattr(head, name)
            if value is not None:
                mats[name] = params[f"d{name}{i}"] = t(value)

        def proj(letter: str, mats: dict[str, object] = mats) -> object:
            w = mats[f"W_{letter}"]
            out = x_in @ w if row else x_in @ w.T
            return out + mats[f"b_{letter}"] if f"b_{letter}" in mats else out

        q, k, v = proj("Q"), proj("K"), proj("V")
        s = q @ k.T if spec.score.W is None else q @ torch.tensor(spec.score.W) @ k.T
        if spec.scale.kind == "sqrt_dk":  # the general score is not scaled unless asked
            s = s / np.sqrt(q.shape[1])
        a = torch.softmax(s.masked_fill(~visible, float("-inf")), dim=1)
        outputs.append(a @ v)
    o = torch.cat(outputs, dim=1)
    if spec.W_O is not None:
        w_o, b_o = t(spec.W_O), t(spec.b_O)
        params["dW_O"], params["db_O"] = w_o, b_o
        o = (o @ w_o if row else o @ w_o.T) + b_o
    if spec.block is not None:
        o = layer(spec, x, o, params, t, torch)
    assert spec.backward is not None
    (torch.tensor(spec.backward.dO) * o).sum().backward()
    return {name: p.grad.numpy() for name, p in params.items()}  # type: ignore[attr-defined]


def norm(h: object, ln: object, name: str, params: dict[str, object], t: object,
         torch: object) -> object:
    """nn.LayerNorm's formula, its gain and bias leaves whose gradients are checked."""
    gain, bias = t(ln.gain), t(ln.bias)  # type: ignore[attr-defined, operator]
    params[f"dgain_{name}"], params[f"dbias_{name}"] = gain, bias
    mean = h.mean(dim=1, keepdim=True)  # type: ignore[attr-defined]
    var = ((h - mean) ** 2).mean(dim=1, keepdim=True)  # type: ignore[operator]
    return (h - mean) / torch.sqrt(var + ln.eps) * gain + bias  # type: ignore[attr-defined, operator]


def layer(spec: Spec, x: object, o: object, params: dict[str, object], t: object,
          torch: object) -> object:
    """The rest of the layer, post-norm or pre-norm, as PyTorch's TransformerEncoderLayer."""
    block = spec.block
    assert block is not None and block.ffn is not None
    ffn, row = block.ffn, spec.convention == "row"
    norms = block.norms
    h = x + o if block.residual else o  # type: ignore[operator]
    post = block.norm == "post" and norms is not None
    if post:
        h = norm(h, norms[0], "1", params, t, torch)  # type: ignore[index]
    ffn_in = h
    if block.norm == "pre" and norms is not None:
        ffn_in = norm(h, norms[1], "2", params, t, torch)
    w1, b1, w2, b2 = t(ffn.W_1), t(ffn.b_1), t(ffn.W_2), t(ffn.b_2)  # type: ignore[operator]
    params.update({"dW_1": w1, "db_1": b1, "dW_2": w2, "db_2": b2})
    a = (ffn_in @ w1 if row else ffn_in @ w1.T) + b1  # type: ignore[operator]
    act = torch.relu(a) if ffn.activation == "relu" else torch.nn.functional.gelu(  # type: ignore[attr-defined]
        a, approximate="tanh" if ffn.activation == "gelu_tanh" else "none")
    f = (act @ w2 if row else act @ w2.T) + b2
    out = h + f if block.residual else f
    if post:
        out = norm(out, norms[1], "2", params, t, torch)  # type: ignore[index]
    return out


@pytest.mark.parametrize("seed", range(30))
def test_gradients_match_autograd(seed: int) -> None:
    spec = random_spec(seed)
    grads = forward_gradients(spec)
    expected = autograd(spec)
    found = {"dX": grads.dX}
    if grads.dW_O is not None:
        found["dW_O"], found["db_O"] = grads.dW_O, grads.db_O  # type: ignore[assignment]
    for i, head in enumerate(grads.heads):
        found.update({f"{name}{i}": value for name, value in head.dW.items()})
    if grads.block is not None:
        found.update({k: v for k, v in grads.block.named.items() if k != "dY"})
    assert set(found) == set(expected)
    for name, value in expected.items():
        assert np.allclose(found[name], value, rtol=0, atol=TOLERANCE), (seed, name)


def forward_gradients(spec: Spec):  # type: ignore[no-untyped-def]
    """The gradients as the walkthrough's backward family computes them, from X and O."""
    from dataclasses import replace

    from attncli.steps.base import Build, State
    from attncli.steps.build import LAYER, run

    state = run(Build(replace(spec, backward=None)), State(), LAYER, [])
    assert state.attention is not None
    return gradients(spec, state.heads, state.x, state.attention.whole())


def test_finite_difference_agrees_with_the_gradient() -> None:
    spec = random_spec(3)
    grads = forward_gradients(spec)
    assert abs(finite_difference(spec, compute) - grads.heads[0].dW["dW_Q"][0, 0]) < 1e-6


def test_walkthrough_shows_the_gradient_steps_after_the_forward_ones() -> None:
    spec = loads_spec("tokens: [cat, chases, mouse]\nembeddings: [[1, 0], [0.2, 1], [0.8, 0]]\n"
                      "mask: causal\nbackward: {dO: ones}\n")
    ids = [step.id for step in build(spec).steps]
    assert ids[ids.index("output") + 1:] == ["grad_output", "grad_values", "grad_softmax",
                                             "grad_scores", "grad_projections", "grad_weights",
                                             "grad_input"]
    # with dO all ones, dV[j] = Σ_i A[i, j] in every column: column sums of A, by hand
    a = np.array([[1, 0, 0], [0.35572454, 0.64427546, 0], [0.39540796, 0.25148157, 0.35311047]])
    dv = build(spec).steps[ids.index("grad_values")].matrices[1].values
    assert np.allclose(dv, np.repeat(a.sum(axis=0)[:, None], 2, axis=1), atol=1e-8)
