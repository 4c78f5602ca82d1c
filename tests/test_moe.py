"""gpt-oss's mixture of experts (`block.moe`): the model's own code as the oracle (layer 0 with
its block, layers 1 and 2 from what the layers before them give back, float64), a case worked by
hand (the top k, the softmax over the chosen experts, the clamps), and the refusals."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest

from attncli import build, load_spec, loads_spec
from tests.conftest import run
from tests.test_checkpoints import needed
from tests.test_model_folder import IDS, TOLERANCE, float64_parts, forward, saved, spec_of

ONE_TOKEN = """\
tokens: [a]
embeddings: [[1.0, 0.0]]
weights: {W_Q: identity, W_K: identity, W_V: identity, W_O: [[1, 0], [0, 1]]}
block:
  residual: false
  moe:
    top_k: 2
    alpha: 1.0
    limit: 2.0
    router: {W: [[2.0, 0.0, 1.0], [0.0, 0.0, 0.0]]}
    experts:
      - {W_1: [[3.0], [0.0]], W_3: [[-5.0], [0.0]], W_2: [[1.0, 1.0]]}
      - {W_1: [[1.0], [0.0]], W_3: [[1.0], [0.0]], W_2: [[9.0, 9.0]]}
      - {W_1: [[1.0], [0.0]], W_3: [[1.0], [0.0]], W_2: [[1.0, -1.0]]}
"""


def sigma(x: float) -> float:
    return 1.0 / (1.0 + math.exp(-x))


def test_a_mixture_by_hand() -> None:
    """One token, so O = X = [1, 0], and with no residual nor norm the experts read O.
    Logits [2, 0, 1]: the top 2 are experts 1 and 3, weights softmax([2, 1]) =
    [e/(e + 1), 1/(e + 1)]; expert 2 gets 0 and is not computed. Expert 1: gate 3 clamped to 2,
    up −5 clipped to −2, M = (−2 + 1)·2·σ(2); expert 3: M = 2·1·σ(1)."""
    walkthrough = build(loads_spec(ONE_TOKEN))
    steps = [step for step in walkthrough.steps if step.id in ("router", "expert", "moe")]
    assert [step.id for step in steps] == ["router", "expert", "expert", "moe"]
    assert [step.title.params for step in steps[1:3]] == [(("index", 1),), (("index", 3),)]
    weights = steps[0].matrices[-1].values
    e = math.e
    np.testing.assert_allclose(weights, [[e / (e + 1), 0.0, 1 / (e + 1)]], atol=1e-15)
    first = {m.symbol.text: m.values for m in steps[1].matrices}
    assert first["G"].tolist() == [[2.0]] and first["U"].tolist() == [[-2.0]]
    m_1, m_3 = -2.0 * sigma(2.0), 2.0 * sigma(1.0)
    np.testing.assert_allclose(first["E₁"], [[m_1, m_1]], atol=1e-15)
    f = [e / (e + 1) * m_1 + m_3 / (e + 1), e / (e + 1) * m_1 - m_3 / (e + 1)]
    np.testing.assert_allclose(walkthrough.output.values, [f], atol=1e-15)
    assert steps[1].formula is not None and steps[1].formula.text == (
        "G = min(O·W_1, ℓ),  U = clip(O·W_3, ±ℓ),  M = (U + 1) ⊙ G·σ(α·G)")
    note = steps[1].notes[0]
    assert dict(note.params)["limit"] == "2.0" and dict(note.params)["alpha"] == "1.0"
    # one unit in a sentence: no line of the text view ends inside it
    assert dict(note.params)["output"] == "E₁\u00a0=\u00a0M·W_2"


def test_gpt_oss_with_its_block_and_later_layers_is_the_models_own(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Four experts, two per token, a limit of 0.5 that clamps: layer 0 with `block: true`
    gives the hidden state that leaves it; layers 1 (full) and 2 (sliding) read what the layers
    before them give back. RMSNorm and the RoPE table are run in float64; the experts eagerly."""
    torch = needed("torch")
    transformers = needed("transformers")
    config = transformers.GptOssConfig(
        hidden_size=8, num_attention_heads=4, num_key_value_heads=2, head_dim=4,
        num_hidden_layers=3, intermediate_size=6, vocab_size=20, num_local_experts=4,
        num_experts_per_tok=2, swiglu_limit=0.5, sliding_window=3,
        rope_parameters={"rope_type": "default", "rope_theta": 10000.0},
        attn_implementation="eager", experts_implementation="eager")
    model = saved(transformers.GptOssForCausalLM(config), tmp_path / "gpt_oss", torch, 9)
    float64_parts(monkeypatch, torch, transformers.models.gpt_oss.modeling_gpt_oss,
                  "GptOssRMSNorm", "GptOssRotaryEmbedding", halves=True)
    attentions, outputs, hidden = forward(model, torch, IDS,
                                          [layer.self_attn for layer in model.model.layers])
    folder = tmp_path / "gpt_oss"
    whole = build(load_spec(str(spec_of(folder, f"{{ids: {IDS}}}", extra=", block: true"))))
    assert np.abs(whole.output.values - hidden[1][0].numpy()).max() < TOLERANCE
    ids = [step.id for step in whole.steps]
    assert ids[ids.index("router"):] == ["router", *["expert"] * ids.count("expert"), "moe",
                                         "residual_2"]
    router = next(step for step in whole.steps if step.id == "router")
    assert ((router.matrices[-1].values > 0).sum(axis=1) == 2).all()  # two experts a token
    clamped = [m.values for step in whole.steps if step.id == "expert" for m in step.matrices
               if m.symbol.text in ("G", "U")]
    assert any((np.abs(values) == 0.5).any() for values in clamped)  # the limit is reached
    for layer in (1, 2):
        later = build(load_spec(str(spec_of(folder, f"{{ids: {IDS}}}", layer=layer))))
        assert np.abs(later.steps[0].matrices[0].values
                      - hidden[layer][0].numpy()).max() < TOLERANCE
        for h, head in enumerate(later.heads):
            assert np.abs(head.weights.values - attentions[layer][0, h].numpy()).max() \
                < TOLERANCE
        assert np.abs(later.output.values - outputs[layer]).max() < TOLERANCE


@pytest.mark.parametrize(("lang", "problem"), [
    ("en", "backward does not work with moe yet; remove moe or backward"),
    ("pl", "backward nie działa jeszcze razem z moe; usuń moe albo backward"),
])
def test_the_backward_pass_is_refused_beside_a_mixture(tmp_path: Path, lang: str,
                                                      problem: str) -> None:
    """No gradient through the router's top k and the experts yet: the spec's key and the
    --backward option are refused, each where it is written."""
    path = tmp_path / "spec.yaml"
    path.write_text(ONE_TOKEN + "backward: {dO: ones}\n", encoding="utf-8")
    result = run("explain", str(path), "--lang", lang)
    assert (result.exit_code, result.stdout, result.stderr.replace("\u00a0", " ")) == (
        2, "", f"{path}:7:5: block.moe: {problem}\n")
    plain = tmp_path / "plain.yaml"
    plain.write_text(ONE_TOKEN, encoding="utf-8")
    option = run("explain", str(plain), "--backward")
    assert (option.exit_code, option.stdout) == (2, "")
    assert "--backward does not work with moe yet; remove moe or --backward" in option.stderr


def test_a_block_takes_ffn_or_moe(tmp_path: Path) -> None:
    path = tmp_path / "spec.yaml"
    path.write_text(ONE_TOKEN.replace("  residual: false\n",
                                      "  ffn: {W_1: [[1.0], [0.0]], W_2: [[1.0, 0.0]]}\n"),
                    encoding="utf-8")
    result = run("explain", str(path))
    assert (result.exit_code, result.stderr) == (
        2, f"{path}:7:5: block.moe: expected ffn or moe, found both\n")


def test_top_1_routing_gives_the_chosen_expert_weight_1_and_says_so() -> None:
    """top_k: 1 (Switch-style routing, as some MoE models route): logits [2, 0, 1], expert 1
    alone, its weight softmax([2]) = 1; the router's note says the weight is 1 in a sentence of
    its own rather than "the 1 expert ... runs over it alone"."""
    walkthrough = build(loads_spec(ONE_TOKEN.replace("top_k: 2", "top_k: 1")))
    router = next(step for step in walkthrough.steps if step.id == "router")
    assert router.matrices[-1].values.tolist() == [[1.0, 0.0, 0.0]]
    assert [step.title.params for step in walkthrough.steps if step.id == "expert"] == [
        (("index", 1),)]
    assert router.notes[0].msgid.startswith(
        "Each token goes to the one expert with the largest logit, with weight 1:")
    m_1 = -2.0 * sigma(2.0)  # gate 3 clamped to 2, up −5 clipped to −2
    np.testing.assert_allclose(walkthrough.output.values, [[m_1, m_1]], atol=1e-15)
