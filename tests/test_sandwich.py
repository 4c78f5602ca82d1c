"""Gemma 2's layer from its own checkpoint folder, and the sandwich norm it needs (`block:
sandwich`, a norm of each sublayer's output before its residual add): Gemma 2's modeling code as
the oracle (layer 0 with its block, layer 1's and layer 2's input and attention, float64), numbers
worked by hand, the backward pass against central differences of the forward pass, and the
refusals."""

from __future__ import annotations

import math
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from attncli import build, load_spec, loads_spec
from attncli.compute.gradients import gradients
from attncli.spec.backward import with_ones
from attncli.spec.model import Spec
from attncli.steps.base import Build, State
from attncli.steps.build import LAYER, compute
from attncli.steps.build import run as run_layer
from tests.conftest import run
from tests.test_checkpoints import needed
from tests.test_model_folder import IDS, TOLERANCE, float64_parts, forward, saved, spec_of

ONE_TOKEN = """\
tokens: [a]
embeddings: [[3.0, 4.0]]
weights: {W_Q: identity, W_K: identity, W_V: identity, W_O: [[1, 0], [0, 1]]}
block: {sandwich: %s}
"""


def steps_of(spec: Spec) -> dict[str, Any]:
    return {step.id: step for step in build(spec).steps}


def test_gemma2_with_its_block_and_later_layers_is_the_models_own(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Layer 0 with `block: true` gives the hidden state that leaves it (post_attention_layernorm
    on the attention's output, the residual add, pre_feedforward_layernorm, GeGLU with the tanh
    GELU, post_feedforward_layernorm, the residual add); layers 1 and 2 read what the layers
    before them give back, through a full (layer 1) and a sliding (layer 2) window. The library
    keeps its RMSNorm, RoPE table, softmax and √d_model embedding scale in float32: run here in
    float64."""
    torch = needed("torch")
    transformers = needed("transformers")
    gemma2 = transformers.models.gemma2.modeling_gemma2
    config = transformers.Gemma2Config(
        hidden_size=8, num_attention_heads=4, num_key_value_heads=2, head_dim=4,
        num_hidden_layers=3, intermediate_size=12, vocab_size=20, query_pre_attn_scalar=6,
        attn_logit_softcapping=2.0, sliding_window=3, attn_implementation="eager")
    assert config.hidden_activation == "gelu_pytorch_tanh"
    assert config.layer_types == ["sliding_attention", "full_attention", "sliding_attention"]
    model = saved(transformers.Gemma2ForCausalLM(config), tmp_path / "gemma2", torch, 8)

    def rms_norm(self: Any, x: Any) -> Any:  # Gemma2RMSNorm without its float32 cast
        return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + self.eps) * (1.0 + self.weight)

    float64_parts(monkeypatch, torch, gemma2, "Gemma2RMSNorm", "Gemma2RotaryEmbedding")
    monkeypatch.setattr(gemma2.Gemma2RMSNorm, "forward", rms_norm)
    with torch.no_grad():  # the scale was made a float32 number before .double()
        model.model.embed_tokens.embed_scale.fill_(math.sqrt(8))
    attentions, outputs, hidden = forward(model, torch, IDS,
                                          [layer.self_attn for layer in model.model.layers])
    folder = tmp_path / "gemma2"
    whole = build(load(spec_of(folder, f"{{ids: {IDS}}}", extra=", block: true")))
    assert [step.id for step in whole.steps][-6:] == [
        "sandwich_1", "residual_1", "norm_2", "ffn", "sandwich_2", "residual_2"]
    assert np.abs(whole.output.values - hidden[1][0].numpy()).max() < TOLERANCE
    for layer in (1, 2):
        later = build(load(spec_of(folder, f"{{ids: {IDS}}}", layer=layer)))
        assert np.abs(later.steps[0].matrices[0].values
                      - hidden[layer][0].numpy()).max() < TOLERANCE
        for h, head in enumerate(later.heads):
            assert np.abs(head.weights.values - attentions[layer][0, h].numpy()).max() \
                < TOLERANCE
        assert np.abs(later.output.values - outputs[layer]).max() < TOLERANCE
        window = later.heads[0].weights.values[4, :2].tolist()  # the last query, first keys
        assert (window == [0.0, 0.0]) == (layer == 2)


def load(path: Path) -> Spec:
    return load_spec(str(path))


def test_a_layer_norm_sandwich_by_hand() -> None:
    """One token: its weight is 1, so O = V = X = [3, 4]. LayerNorm of [3, 4]: μ = 3.5,
    σ = √(0.25 + 10⁻¹²), O′ ≈ [−1, 1]; R₁ = X + O′ ≈ [2, 5]."""
    spec = loads_spec(ONE_TOKEN % "{layer_norm: {eps: 1.0e-12}}")
    steps = steps_of(spec)
    assert steps["sandwich_1"].formula.text == "O′ = LayerNorm(O)"
    assert steps["residual_1"].formula.text == "R₁ = X + O′"
    np.testing.assert_allclose(steps["sandwich_1"].matrices[-1].values, [[-1.0, 1.0]],
                               atol=1e-11)
    np.testing.assert_allclose(steps["residual_1"].matrices[0].values, [[2.0, 5.0]], atol=1e-11)


def test_an_rms_norm_sandwich_with_a_gain_by_hand() -> None:
    """RMS([3, 4]) = √((9 + 16)/2) = √12.5 (ε = 10⁻⁶ beside it); O′ = [3, 4]/RMS·[1, 0.5]."""
    spec = loads_spec(ONE_TOKEN % "{rms_norm: {gain: [1.0, 0.5]}}")
    steps = steps_of(spec)
    rms = math.sqrt(12.5 + 1e-6)
    assert abs(steps["sandwich_1"].matrices[0].values[0, 0] - rms) < 1e-12
    expected = [3.0 + 3.0 / rms, 4.0 + 0.5 * 4.0 / rms]
    np.testing.assert_allclose(steps["residual_1"].matrices[0].values, [expected], atol=1e-12)


GEMMA_LIKE = """\
tokens: [the, cat, sat]
embeddings: [[1.0, 0.0, 1.0, 0.0], [0.2, 1.0, 0.0, 1.0], [0.8, 0.0, 0.3, 0.5]]
heads: 2
weights:
  W_Q: identity
  W_K: identity
  W_V: identity
  W_O: [[1, 0, 1, 0], [0, 1, 0, 1], [1, 0, -1, 0], [0, 1, 0, -1]]
mask: causal
block:
  norm: pre
  rms_norm: [{gain: [1.5, 0.5, 1.0, 1.0]}, {gain: [1.0, 1.2, 0.8, 1.0]}]
  sandwich: {rms_norm: [{gain: [0.5, 1.0, 1.5, 1.0]}, {gain: [1.0, 0.75, 1.25, 1.0]}]}
  ffn:
    activation: geglu_tanh
    W_1: [[0.5, -0.5, 0.0], [0.0, 0.5, -0.5], [-0.5, 0.0, 0.5], [0.5, 0.5, 0.5]]
    W_3: [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0], [0.5, 0.5, 0.5]]
    W_2: [[0.5, 0.0, -0.5, 0.0], [0.0, 0.5, 0.0, -0.5], [0.5, 0.5, 0.5, 0.5]]
"""


def rms(x: np.ndarray, gain: list[float]) -> np.ndarray:
    return x / np.sqrt((x**2).mean(axis=1, keepdims=True) + 1e-6) * np.array(gain)


def test_the_feed_forward_sandwich_follows_the_gated_tanh_network() -> None:
    """Y = R₁ + RMSNorm(F) with F = (GELU_tanh(Ỹ·W_1) ⊙ Ỹ·W_3)·W_2, Ỹ = RMSNorm(R₁), the
    formula written here from attn's R₁."""
    spec = loads_spec(GEMMA_LIKE)
    steps = steps_of(spec)
    r1 = steps["residual_1"].matrices[0].values
    x = rms(r1, [1.0, 1.2, 0.8, 1.0])
    a = x @ np.array([[0.5, -0.5, 0.0], [0.0, 0.5, -0.5], [-0.5, 0.0, 0.5], [0.5, 0.5, 0.5]])
    gate = 0.5 * a * (1 + np.tanh(math.sqrt(2 / math.pi) * (a + 0.044715 * a**3)))
    up = x @ np.array([[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0], [0.5, 0.5, 0.5]])
    f = (gate * up) @ np.array([[0.5, 0.0, -0.5, 0.0], [0.0, 0.5, 0.0, -0.5],
                                [0.5, 0.5, 0.5, 0.5]])
    y = r1 + rms(f, [1.0, 0.75, 1.25, 1.0])
    assert np.abs(steps["residual_2"].matrices[0].values - y).max() < 1e-12
    assert steps["ffn"].formula.text.startswith("G = GELU_tanh(Ỹ·W_1),  U = Ỹ·W_3")
    assert steps["sandwich_2"].formula.text == "F′ = RMSNorm(F)"


LAYER_NORMED = GEMMA_LIKE.replace("norm: pre", "norm: post").replace(
    "sandwich: {rms_norm: [{gain: [0.5, 1.0, 1.5, 1.0]}, {gain: [1.0, 0.75, 1.25, 1.0]}]}",
    "sandwich: {layer_norm: {gain: [0.5, 1.0, 1.5, 1.0], bias: [0.1, 0.0, 0.0, -0.1]}}")


@pytest.mark.parametrize("text", [GEMMA_LIKE, LAYER_NORMED], ids=["pre_rms", "post_layer_norm"])
def test_the_backward_pass_through_the_sandwich_agrees_with_central_differences(
        text: str) -> None:
    """dX, dW_2 and the gains of both sandwich norms, each against (L(θ + h) − L(θ − h)) / 2h of
    the forward pass, L = Σ Y: Gemma 2's pre-norm RMSNorm order, and a post-norm layer with one
    LayerNorm for both sandwich places (its gain's gradient the sum of the two)."""
    assert text.count("sandwich") == 1
    spec = loads_spec(text)
    with_b = with_ones(spec)  # dY all ones: L = Σ Y
    state = run_layer(Build(spec), State(), LAYER, [])
    assert state.attention is not None and spec.block is not None
    g = gradients(with_b, state.heads, state.x, state.attention.whole())
    assert g.block is not None

    def loss(s: Spec) -> float:
        return float(compute(s).output.values.sum())

    def central(make: Any, base: np.ndarray) -> np.ndarray:
        found = np.zeros_like(base)
        for at in np.ndindex(base.shape):
            step = np.zeros_like(base)
            step[at] = 1e-6
            found[at] = (loss(make(base + step)) - loss(make(base - step))) / 2e-6
        return found

    block = spec.block
    assert block.sandwich is not None and block.ffn is not None

    def with_gain(i: int) -> Any:
        def make(gain: np.ndarray) -> Spec:
            norms = list(block.sandwich or ())
            norms[i] = replace(norms[i], gain=gain)
            return replace(spec, block=replace(block, sandwich=(norms[0], norms[1])))
        return make

    if block.sandwich[0] is block.sandwich[1]:  # one norm in both places: both change together
        gain = block.sandwich[0].gain
        assert gain is not None
        both = g.block.named["dgain_s1"] + g.block.named["dgain_s2"]
        assert np.abs(central(lambda w: replace(spec, block=replace(block, sandwich=(
            replace(block.sandwich[0], gain=w),) * 2)), gain) - both).max() < 1e-7
    else:
        for i, name in ((0, "dgain_s1"), (1, "dgain_s2")):
            gain = block.sandwich[i].gain
            assert gain is not None
            assert np.abs(central(with_gain(i), gain) - g.block.named[name]).max() < 1e-7
    x = spec.queries.embeddings
    assert np.abs(central(lambda e: replace(spec, queries=replace(spec.queries, embeddings=e)),
                          x) - g.dX).max() < 1e-7
    w_2 = block.ffn.W_2
    assert np.abs(central(lambda w: replace(spec, block=replace(block, ffn=replace(
        block.ffn, W_2=w))), w_2) - g.block.named["dW_2"]).max() < 1e-7
    notes = [str(note) for step in build(with_b).steps if step.id == "grad_block"
             for note in step.notes]
    assert any("sandwich" in note for note in notes)


@pytest.mark.parametrize(("sandwich", "lang", "problem"), [
    ("{}", "en", "1:19: block.sandwich: expected layer_norm or rms_norm, found neither"),
    ("{}", "pl", "1:19: block.sandwich: oczekiwano layer_norm albo rms_norm, ale nie podano "
                 "żadnego z nich"),
    ("{rms_norm: true, layer_norm: true}", "ru",
     "1:30: block.sandwich.rms_norm: ожидается layer_norm или rms_norm, получено: оба"),
])
def test_a_sandwich_names_one_kind_of_norm(tmp_path: Path, sandwich: str, lang: str,
                                           problem: str) -> None:
    path = tmp_path / "spec.yaml"
    path.write_text(f"block: {{sandwich: {sandwich}}}\n" + "\n".join(
        ONE_TOKEN.splitlines()[:3]) + "\n", encoding="utf-8")
    result = run("explain", str(path), "--lang", lang)
    assert (result.exit_code, result.stdout) == (2, "")
    assert result.stderr.replace("\u00a0", " ") == f"{path}:{problem}\n"
