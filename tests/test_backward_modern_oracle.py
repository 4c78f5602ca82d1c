"""The backward pass through RoPE, grouped- and multi-query attention, ALiBi and matrix biases,
RMSNorm and SwiGLU/GeGLU/SiLU, against PyTorch autograd (float64) on random pre-norm layers in
both conventions: every weight's gradient and dX, to 1e-10. The forward pass is written here
(RoPE with cos/sin of PyTorch tensors, scaled_dot_product_attention with enable_gqa for the
heads, nn.RMSNorm, F.silu, F.gelu); the full W_Q, W_K, W_V are the leaves, so a shared K/V
block's gradient is PyTorch's sum over the heads that read it."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import numpy as np
import pytest

from attncli.compute.gradients import Gradients, gradients
from attncli.spec import load_spec, loads_spec
from attncli.spec.model import Spec
from attncli.steps.backward import finite_difference
from attncli.steps.base import Build, State
from attncli.steps.build import LAYER, build, compute, run
from tests.conftest import CONFIGS
from tests.mha_reference import TOLERANCE, torch_module
from tests.test_modern_oracle import Case, head_biases, random_case, spec_of

CASES = 40


def with_backward(text: str, d_o: np.ndarray) -> Spec:
    import json

    spec = json.loads(text)
    spec["backward"] = {"dO": d_o.tolist()}
    return loads_spec(json.dumps(spec), "random.json")


def turned(torch: Any, x: Any, base: float, layout: str) -> Any:
    """RoPE on a tensor (…, n, d): pair (a, b) of row p -> (a·cos − b·sin, a·sin + b·cos)."""
    n, d = x.shape[-2], x.shape[-1]
    half = d // 2
    first = list(range(half)) if layout == "half" else list(range(0, d, 2))
    second = [i + half for i in first] if layout == "half" else [i + 1 for i in first]
    theta = base ** (-2.0 * torch.arange(half, dtype=torch.float64) / d)  # (d/2,)
    angle = torch.arange(n, dtype=torch.float64)[:, None] * theta  # (n, d/2)
    a, b = x[..., first], x[..., second]
    out = torch.zeros_like(x)
    out[..., first] = a * torch.cos(angle) - b * torch.sin(angle)
    out[..., second] = a * torch.sin(angle) + b * torch.cos(angle)
    return out


def autograd(case: Case, d_o: np.ndarray) -> dict[str, np.ndarray]:
    """dL/d(every weight) and dL/dX for L = Σ dO ⊙ layer(X), by PyTorch."""
    torch = torch_module()
    F = torch.nn.functional
    n = case.x.shape[0]
    leaf = lambda a: torch.tensor(np.ascontiguousarray(a), dtype=torch.float64,  # noqa: E731
                                  requires_grad=True)
    p = {"dX": leaf(case.x), "W_Q": leaf(case.w_q), "W_K": leaf(case.w_k),
         "W_V": leaf(case.w_v), "W_O": leaf(case.w_o), "dgain_1": leaf(case.gains[0]),
         "dgain_2": leaf(case.gains[1])}

    def rms(x: Any, gain: Any) -> Any:
        return x / torch.sqrt((x * x).mean(dim=1, keepdim=True) + case.eps) * gain

    x_in = rms(p["dX"], p["dgain_1"])
    q = (x_in @ p["W_Q"]).reshape(n, case.h, case.d_k).transpose(0, 1)  # (h, n, d_k)
    k = (x_in @ p["W_K"]).reshape(n, case.g, case.d_k).transpose(0, 1)  # (g, n, d_k)
    v = (x_in @ p["W_V"]).reshape(n, case.g, case.d_k).transpose(0, 1)
    if case.rope:
        q, k = turned(torch, q, case.base, case.rope), turned(torch, k, case.base, case.rope)
    mask = torch.tensor(head_biases(case), dtype=torch.float64)  # (h, n, n)
    if case.causal:
        mask = mask.masked_fill(~torch.ones(n, n, dtype=torch.bool).tril(), float("-inf"))
    z = F.scaled_dot_product_attention(q[None], k[None], v[None], attn_mask=mask[None],
                                       enable_gqa=True)[0]  # (h, n, d_k)
    r = p["dX"] + z.transpose(0, 1).reshape(n, case.h * case.d_k) @ p["W_O"]
    out = r
    if case.ffn is not None:
        p.update({"dW_1": leaf(case.w_1), "dW_2": leaf(case.w_2)})
        y = rms(r, p["dgain_2"])
        gate = y @ p["dW_1"]
        if case.ffn == "silu":
            hidden = F.silu(gate)
        else:
            p["dW_3"] = leaf(case.w_3)
            act = F.silu(gate) if case.ffn == "swiglu" else F.gelu(gate)
            hidden = act * (y @ p["dW_3"])
        out = r + hidden @ p["dW_2"]
    (torch.tensor(d_o) * out).sum().backward()
    if case.ffn is None:  # the second RMSNorm is then never used
        del p["dgain_2"]
    return {name: t.grad.numpy() for name, t in p.items()}


def ours(spec: Spec) -> Gradients:
    """The gradients as the walkthrough's backward family computes them, from X and O."""
    state = run(Build(replace(spec, backward=None)), State(), LAYER, [])
    assert state.attention is not None
    return gradients(spec, state.heads, state.x, state.attention.whole())


def assembled(grads: Gradients, column: bool) -> dict[str, np.ndarray]:
    """Our gradients as PyTorch's leaves, row convention: the heads' dW_Q blocks side by side,
    each shared group's dW_K and dW_V blocks side by side."""
    def t(a: np.ndarray) -> np.ndarray:
        return a.T if column else a

    assert grads.dW_O is not None and grads.block is not None
    kv = grads.groups or grads.heads  # kv_heads = heads: every head has its own K and V
    found = {"dX": grads.dX, "W_O": t(grads.dW_O),
             "W_Q": np.concatenate([t(h.dW["dW_Q"]) for h in grads.heads], axis=1),
             "W_K": np.concatenate([t(g.dW["dW_K"]) for g in kv], axis=1),
             "W_V": np.concatenate([t(g.dW["dW_V"]) for g in kv], axis=1)}
    for name, value in grads.block.named.items():
        if name != "dY":
            found[name] = t(value) if name.startswith("dW_") else value
    return found


@pytest.mark.parametrize("seed", range(CASES))
def test_modern_gradients_match_autograd(seed: int) -> None:
    case = random_case(seed)
    column = seed % 4 == 3
    d_o = np.random.default_rng(seed).normal(size=case.x.shape)
    grads = ours(with_backward(spec_of(case, column), d_o))
    if case.g < case.h:  # a shared K/V's gradient is given once, with its group's
        assert all("dW_K" not in h.dW and "dW_V" not in h.dW for h in grads.heads)
        assert [g.sharing for g in grads.groups] == [
            tuple(range(i * case.h // case.g + 1, (i + 1) * case.h // case.g + 1))
            for i in range(case.g)]
    else:
        assert grads.groups == ()
    found, expected = assembled(grads, column), autograd(case, d_o)
    assert set(found) == set(expected)
    for name, value in expected.items():
        assert np.max(np.abs(found[name] - value)) < TOLERANCE, (seed, name)


def case_of(spec: Spec) -> Case:
    """The Case of a row-convention pre-norm spec with RoPE, kv_heads, RMSNorm and an FFN."""
    block, positional = spec.block, spec.queries.positional
    assert block is not None and block.ffn is not None and block.norms is not None
    assert positional is not None and spec.W_O is not None and spec.kv_heads is not None
    firsts = [next(h for h in spec.heads if h.group == g) for g in range(spec.kv_heads)]
    gains = tuple(norm.gain if norm.gain is not None else np.ones(spec.queries.d_model)
                  for norm in block.norms)
    ffn = block.ffn
    return Case(x=spec.queries.embeddings, h=len(spec.heads), g=spec.kv_heads,
                d_k=spec.heads[0].d_k("row"),
                w_q=np.concatenate([h.W_Q for h in spec.heads], axis=1),
                w_k=np.concatenate([h.W_K for h in firsts], axis=1),
                w_v=np.concatenate([h.W_V for h in firsts], axis=1), w_o=spec.W_O,
                rope=positional.layout, base=positional.base, bias=None,
                biases=np.zeros((len(spec.heads), spec.queries.n, spec.queries.n)), causal=True,
                ffn=ffn.activation, w_1=ffn.W_1, w_3=ffn.W_3 if ffn.W_3 is not None else ffn.W_1,
                w_2=ffn.W_2, gains=(gains[0], gains[1]), eps=block.norms[0].eps)


def test_llama_style_backward_matches_autograd_and_finite_differences() -> None:
    spec = load_spec(str(CONFIGS / "backward_llama_style.yaml"))  # RoPE, GQA, RMSNorm, SwiGLU
    assert spec.backward is not None and spec.convention == "row"
    grads = ours(spec)
    found, expected = assembled(grads, False), autograd(case_of(spec), spec.backward.dO)
    assert set(found) == set(expected)
    for name, value in expected.items():
        assert np.max(np.abs(found[name] - value)) < TOLERANCE, name
    # the check line of the walkthrough: a central difference of L in W_Q[d1, d1] of head 1
    assert abs(finite_difference(spec, compute) - grads.heads[0].dW["dW_Q"][0, 0]) < 1e-7
    steps = [s.id for s in build(spec).steps]
    assert steps.count("grad_rope") == 4 and steps.count("grad_shared") == 1
    assert steps[-1] == "grad_input"
