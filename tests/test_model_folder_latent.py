"""`model: {path: DIR, layer: 0}` on a DeepSeek-V3 folder (`deepseek_v3`): multi-head latent
attention read from the checkpoint as transformers saves it, against the model's own forward pass
(tests/test_model_folder.py's way: a tiny random model in float64, eager attention, saved with
`save_pretrained`, a spec of two keys; its RMSNorm, RoPE table and softmax, which the library
keeps in float32 even in a float64 model, run in float64 by the same formula)."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import run
from tests.test_checkpoints import needed
from tests.test_model_folder import (
    IDS,
    agree,
    float64_parts,
    forward,
    saved,
    spec_of,
)


def tiny_deepseek(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, seed: int,
                  **more: Any) -> tuple[Any, Any]:
    """Two heads of d_nope 2, d_R 4, d_v 3 over a latent of 4; the first layer dense (SwiGLU),
    the second two experts."""
    torch = needed("torch")
    transformers = needed("transformers")
    sizes = {"hidden_size": 8, "num_attention_heads": 2, "num_key_value_heads": 2,
             "kv_lora_rank": 4, "qk_rope_head_dim": 4, "qk_nope_head_dim": 2, "v_head_dim": 3,
             "num_hidden_layers": 2, "intermediate_size": 12, "moe_intermediate_size": 4,
             "n_routed_experts": 2, "num_experts_per_tok": 1, "n_group": 1, "topk_group": 1,
             "first_k_dense_replace": 1, "vocab_size": 20, "rms_norm_eps": 1e-6}
    config = transformers.DeepseekV3Config(attn_implementation="eager",
                                           experts_implementation="eager", **(sizes | more))
    model = saved(transformers.DeepseekV3ForCausalLM(config), tmp_path / "deepseek", torch, seed)
    float64_parts(monkeypatch, torch, transformers.models.deepseek_v3.modeling_deepseek_v3,
                  "DeepseekV3RMSNorm", "DeepseekV3RotaryEmbedding")
    return torch, model


@pytest.mark.parametrize(("q_lora_rank", "interleave"), [(None, True), (3, True), (None, False)])
def test_a_deepseek_v3_layer_is_the_models_own(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                               q_lora_rank: int | None,
                                               interleave: bool) -> None:
    torch, model = tiny_deepseek(tmp_path, monkeypatch, 17, q_lora_rank=q_lora_rank,
                                 rope_interleave=interleave)
    attentions, outputs, hidden = forward(model, torch, IDS, [model.model.layers[0].self_attn])
    spec = spec_of(tmp_path / "deepseek", f"{{ids: {IDS}}}")
    walkthrough = agree(spec, attentions[0], outputs[0])
    ids = [step.id for step in walkthrough.steps]
    assert {"latent", "latent_rope", "latent_cache", "absorbed"} <= set(ids)
    assert ("query_latent" in ids) == (q_lora_rank is not None)
    # the first layer is dense: with the rest of the layer, the hidden state that leaves it
    whole = agree(spec_of(tmp_path / "deepseek", f"{{ids: {IDS}}}", extra=", block: true"),
                  attentions[0], hidden[1][0].numpy())
    assert any(step.id == "ffn" for step in whole.steps)
    result = run("explain", str(spec), "--format", "text", "--steps", "absorbed")
    assert result.exit_code == 0, result.stderr
    assert "Check: every score made this way equals S to 12 decimal places." in result.stdout


def test_deepseek_v3_with_yarn_and_its_mscale_is_the_models_own(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """YaRN's attention factor on cos and sin, and the softmax scale times mscale², mscale =
    0.1·mscale_all_dim·ln(factor) + 1: the scores divided by √d_k / mscale²."""
    torch, model = tiny_deepseek(tmp_path, monkeypatch, 19, q_lora_rank=None,
                                 max_position_embeddings=64, rope_parameters={
                                     "rope_type": "yarn", "rope_theta": 10000.0, "factor": 4.0,
                                     "original_max_position_embeddings": 16, "beta_fast": 32,
                                     "beta_slow": 1, "mscale": 0.8, "mscale_all_dim": 0.7})
    attentions, outputs, _ = forward(model, torch, IDS, [model.model.layers[0].self_attn])
    walkthrough = agree(spec_of(tmp_path / "deepseek", f"{{ids: {IDS}}}"), attentions[0],
                        outputs[0])
    mscale = 0.1 * 0.7 * math.log(4.0) + 1.0
    assert walkthrough.heads[0].divisor == pytest.approx(math.sqrt(6) / mscale**2, abs=1e-15)
    assert math.isclose(model.model.layers[0].self_attn.scaling, mscale**2 / math.sqrt(6),
                        rel_tol=1e-15)


def test_the_experts_of_a_later_layer_are_refused_beside_block(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    tiny_deepseek(tmp_path, monkeypatch, 23, q_lora_rank=None, first_k_dense_replace=0)
    spec = spec_of(tmp_path / "deepseek", f"{{ids: {IDS}}}", extra=", block: true")
    result = run("explain", str(spec))
    assert (result.exit_code, result.stdout) == (2, "")
    assert result.stderr.endswith("the rest of the layer is not worked out for this model yet "
                                  "(mlp.experts); remove block\n"), result.stderr
    assert result.stderr.count("\n") == 1
