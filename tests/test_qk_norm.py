"""QK-norm: RMSNorm of the queries and keys before RoPE, over each head's d_k (Qwen3) or over the
whole projection (OLMo 2): numbers worked here with math.sqrt, the written-out cells, the
refusals, and the models' own attention modules from `transformers` as the oracle."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from attncli import build, load_spec, loads_spec
from tests.conftest import run
from tests.test_checkpoints import needed
from tests.test_softcap import refused, rope_table

ROOT = Path(__file__).parent.parent
EXAMPLE = ROOT / "configs" / "qk_norm_qwen3.yaml"
TOLERANCE = 1e-10


def step_of(walkthrough: Any, step_id: str, head: int | None) -> Any:
    return next(s for s in walkthrough.steps if s.id == step_id and s.head == head)


def test_the_example_by_hand() -> None:
    """Head 1: Q[the] = [2·2, 0] = [4, 0], RMS = √(16/2 + 10⁻⁶), Q̃ = Q / RMS ⊙ [1, 0.5];
    K[cat] = [1, 1], RMS = √(1 + 10⁻⁶), no gain."""
    walkthrough = build(load_spec(str(EXAMPLE)))
    step = step_of(walkthrough, "qk_norm", 1)
    shown = {m.symbol.text: m for m in step.matrices}
    rms = math.sqrt(16 / 2 + 1e-6)
    assert shown["RMS(Q)"].at(0, 0) == pytest.approx(rms, abs=1e-15)
    assert shown["Q̃"].row(0).tolist() == pytest.approx([4 / rms, 0.0], abs=1e-15)
    q_cat = [2.0, 1.0]  # x_cat = [1, 1, 0, 2], W_Q doubles feature 1
    rms_cat = math.sqrt((4 + 1) / 2 + 1e-6)
    assert shown["Q̃"].row(1).tolist() == pytest.approx(
        [q_cat[0] / rms_cat, q_cat[1] / rms_cat * 0.5], abs=1e-15)
    assert shown["K̃"].row(1).tolist() == pytest.approx([1 / math.sqrt(1 + 1e-6)] * 2, abs=1e-15)
    assert "g_k" not in shown  # no k_gain: all ones, not shown
    # RoPE turns the normalized queries: Q̂[cat] is Q̃[cat] turned by 1 radian
    rope = step_of(walkthrough, "rope", 1)
    turned = next(m for m in rope.matrices if m.symbol.text == "Q̂").row(1)
    a, b = shown["Q̃"].row(1)
    assert turned.tolist() == pytest.approx([a * math.cos(1) - b * math.sin(1),
                                             a * math.sin(1) + b * math.cos(1)], abs=1e-15)


def test_each_normalized_cell_is_written_out() -> None:
    result = run("explain", str(EXAMPLE), "--format", "text", "--steps", "qk_norm", "--head",
                 "1", "-x", "qk_norm:cat")
    assert result.exit_code == 0, result.stderr
    assert "Q̃ = Q / RMS(Q) ⊙ g_q,  K̃ = K / RMS(K) ⊙ g_k" in result.stdout
    # 2 / √2.5 = 1.2649 prints 1.26, but the printed 2.00 / 1.58 = 1.2658 gives 1.27: ≈
    assert "Q̃[cat, d1] = Q[cat, d1] / RMS(q_cat)·g_q[d1] = (2.00 / 1.58)·1.00 ≈ 1.26" \
        in result.stdout
    assert "K̃[cat, d1] = K[cat, d1] / RMS(k_cat) = 1.00 / 1.00 = 1.00" in result.stdout
    for lang, words in (("pl", "Qwen3: przed pomnożeniem przez wzmocnienie g każde zapytanie"),
                        ("ru", "как в Qwen3: до умножения на масштаб g длина")):
        translated = run("explain", str(EXAMPLE), "--format", "text", "--steps", "qk_norm",
                         "--lang", lang)
        assert translated.exit_code == 0
        assert words in translated.stdout.replace("\u00a0", " ").replace("\n   ", " ")


def test_over_the_projection_one_rms_spans_every_head() -> None:
    """Two heads of d_k = 1 over the projection: q = [x·w₁, x·w₂], RMS = √((q₁² + q₂²)/2 + ε),
    the same for both heads; over each head alone RMS(q₁) = |q₁|."""
    base = {"tokens": ["a", "b"], "embeddings": [[3.0, 4.0], [1.0, 0.0]], "heads": 2,
            "weights": {"W_Q": [[1.0, 0.0], [0.0, 1.0]], "W_K": [[1.0, 0.0], [0.0, 1.0]],
                        "W_V": [[1.0, 0.0], [0.0, 1.0]]}}
    spec = dict(base, qk_norm={"over": "projection", "q_gain": [1.0, 2.0], "eps": 0.25})
    walkthrough = build(loads_spec(json.dumps(spec), name="projection.json"))
    rms = math.sqrt((9 + 16) / 2 + 0.25)  # row a: q = [3, 4]
    for head, (q, g) in ((1, (3.0, 1.0)), (2, (4.0, 2.0))):
        shown = {m.symbol.text: m for m in step_of(walkthrough, "qk_norm", head).matrices}
        assert shown["RMS(Q)"].at(0, 0) == pytest.approx(rms, abs=1e-15)
        assert shown["Q̃"].at(0, 0) == pytest.approx(q / rms * g, abs=1e-15)
    per_head = build(loads_spec(json.dumps(dict(base, qk_norm="head")), name="head.json"))
    shown = {m.symbol.text: m for m in step_of(per_head, "qk_norm", 1).matrices}
    assert shown["RMS(Q)"].at(0, 0) == pytest.approx(math.sqrt(9 + 1e-6), abs=1e-15)


@pytest.mark.parametrize(("value", "problem"), [
    ("sideways", '3:10: qk_norm: expected one of head, projection, found the text "sideways"'),
    ("{over: hed}", '3:17: qk_norm.over: expected one of head, projection, found the text "hed"; '
                    "did you mean head?"),
    ("{over: head, q_gain: [1, 2, 3]}", "3:31: qk_norm.q_gain is 3, expected d_k = 2"),
    ("{over: head, eps: 0}", "3:28: qk_norm.eps: expected a positive eps, found 0"),
])
def test_a_bad_qk_norm_is_refused_where_it_is(tmp_path: Path, value: str, problem: str) -> None:
    spec = tmp_path / "bad.yaml"
    spec.write_text("tokens: [a, b]\nembeddings: [[1, 0], [0, 1]]\nqk_norm: " + value + "\n",
                    encoding="utf-8")
    result = run("explain", str(spec))
    assert (result.exit_code, result.stdout, result.stderr) == (2, "", f"{spec}:{problem}\n")


def test_what_does_not_normalize_yet_is_refused_beside_it(tmp_path: Path) -> None:
    spec, result = refused(tmp_path, "qk_norm", "head", "backward: {dO: ones}\n")
    assert (result.exit_code, result.stderr) == (
        2, f"{spec}:3:10: qk_norm: backward does not work with qk_norm yet; remove qk_norm or "
           "backward\n")
    option = run("explain", str(EXAMPLE), "--backward")
    assert (option.exit_code, option.stderr) == (
        2, "attn: --backward: --backward does not work with qk_norm yet; remove qk_norm or "
           "--backward\n")


# --- the oracles: Qwen3's and OLMo 2's attention modules in transformers --------------------


def float64_parts(monkeypatch: pytest.MonkeyPatch, torch: Any, norm_class: Any) -> None:
    """What the library computes in float32 even in a float64 model, run in float64: its
    RMSNorm (the same formula without the cast) and the eager softmax."""
    def rms_norm(self: Any, hidden: Any) -> Any:
        variance = hidden.pow(2).mean(-1, keepdim=True)
        return self.weight * (hidden * torch.rsqrt(variance + self.variance_epsilon))

    softmax = torch.nn.functional.softmax
    monkeypatch.setattr(norm_class, "forward", rms_norm)
    monkeypatch.setattr(torch.nn.functional, "softmax",
                        lambda t, dim, dtype=None: softmax(t, dim=dim, dtype=torch.float64))


def agree(module: Any, torch: Any, over: str, n: int, seed: int) -> None:
    """The module on random inputs against attn's spec of the same weights and gains."""
    rng = np.random.default_rng(seed)
    with torch.no_grad():
        for linear in (module.q_proj, module.k_proj, module.v_proj, module.o_proj):
            linear.weight.copy_(torch.tensor(rng.uniform(-1.5, 1.5, linear.weight.shape)))
        for norm in (module.q_norm, module.k_norm):
            norm.weight.copy_(torch.tensor(rng.uniform(0.5, 1.5, norm.weight.shape)))
    x = rng.uniform(-2.0, 2.0, size=(n, 8))  # (n, d_model)
    causal = np.triu(np.full((n, n), -np.inf), k=1)  # (n, n)
    with torch.no_grad():
        output, weights = module(torch.tensor(x)[None],
                                 rope_table(torch, n, module.head_dim, 10000.0),
                                 torch.tensor(causal)[None, None])
    spec = {
        "tokens": [f"t{i}" for i in range(n)], "embeddings": x.tolist(), "heads": 4,
        "kv_heads": 2,
        "weights": {name: getattr(module, proj).weight.T.tolist() for name, proj in
                    (("W_Q", "q_proj"), ("W_K", "k_proj"), ("W_V", "v_proj"),
                     ("W_O", "o_proj"))},
        "positional": {"rope": {"base": 10000.0, "layout": "half"}}, "mask": "causal",
        "qk_norm": {"over": over, "q_gain": module.q_norm.weight.tolist(),
                    "k_gain": module.k_norm.weight.tolist(),
                    "eps": module.q_norm.variance_epsilon},
    }
    walkthrough = build(loads_spec(json.dumps(spec), name=f"{over}.json"))
    for h, head in enumerate(walkthrough.heads):
        assert np.abs(head.weights.values - weights[0, h].numpy()).max() < TOLERANCE
    assert np.abs(walkthrough.output.values - output[0].numpy()).max() < TOLERANCE
    # the norm matters: without it the same weights give other attention weights
    del spec["qk_norm"]
    plain = build(loads_spec(json.dumps(spec), name="plain.json"))
    assert np.abs(plain.heads[0].weights.values - weights[0, 0].numpy()).max() > 1e-3


def test_qwen3_attention_module_agrees(monkeypatch: pytest.MonkeyPatch) -> None:
    torch = needed("torch")
    qwen3 = needed("transformers.models.qwen3.modeling_qwen3")
    from transformers import Qwen3Config

    config = Qwen3Config(hidden_size=8, num_attention_heads=4, num_key_value_heads=2,
                         head_dim=4, num_hidden_layers=1, intermediate_size=16, vocab_size=32,
                         rms_norm_eps=1e-6, attention_bias=False)
    config._attn_implementation = "eager"
    module = qwen3.Qwen3Attention(config, layer_idx=0).double().eval()
    assert tuple(module.q_norm.weight.shape) == (4,)  # per head: d_k
    float64_parts(monkeypatch, torch, qwen3.Qwen3RMSNorm)
    agree(module, torch, "head", 5, 3)


def test_olmo2_attention_module_agrees(monkeypatch: pytest.MonkeyPatch) -> None:
    torch = needed("torch")
    olmo2 = needed("transformers.models.olmo2.modeling_olmo2")
    from transformers import Olmo2Config

    config = Olmo2Config(hidden_size=8, num_attention_heads=4, num_key_value_heads=2,
                         num_hidden_layers=1, intermediate_size=16, vocab_size=32,
                         rms_norm_eps=1e-6, attention_bias=False)
    config._attn_implementation = "eager"
    module = olmo2.Olmo2Attention(config, layer_idx=0).double().eval()
    # the whole projection: heads·d_k for q, kv_heads·d_k for k (head_dim 8 / 4 = 2)
    assert tuple(module.q_norm.weight.shape) == (8,) and tuple(module.k_norm.weight.shape) == (4,)
    float64_parts(monkeypatch, torch, olmo2.Olmo2RMSNorm)
    agree(module, torch, "projection", 5, 4)
