"""What a model folder's layers cost besides their numbers, charged before any layer is read:
each layer worked out before the one shown (its keys, its spec, its build: about 2 ms however few
its tokens) and each expert of a gpt-oss mixture (its matrices read and checked, the router's
score: 0.1 to 0.2 ms however small). 65,536 experts of d_model 2 took 28 s and 567 MB, "valid";
layer 127 of a 128-layer Llama on 758 tokens 1.4 to 2.1 s, within every limit. Each test counts
(layers made, tensors read, tokens labelled), never time."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from attncli import load_spec
from attncli.errors import SpecError
from attncli.spec import arch_rotary
from attncli.spec.arch_keys import Keys
from attncli.spec.arch_rotary import gpt_oss
from attncli.spec.architectures import ARCHITECTURES, Checkpoint
from attncli.spec.costs import EXPERT_CELLS, LAYER_CELLS
from attncli.steps import labels
from attncli.steps.build import build
from tests.conftest import run
from tests.safetensors_file import safetensors
from tests.test_model_layers_cost import last_of_six
from tests.test_read_once import counted, llama_folder

LIMIT = "the limit is 320,000,000, 32 times what --max-cells sets"


def gpt_oss_folder(folder: Path, layers: int, experts: int) -> None:
    """A gpt-oss of d_model 2, one head of 2 and `layers` layers, each a mixture of `experts`
    experts of d_ff 1, its weights drawn from seed 0."""
    rng = np.random.default_rng(0)
    tensors = {"model.embed_tokens.weight": rng.normal(size=(8, 2)),
               "model.norm.weight": np.ones(2)}
    for layer in range(layers):
        at = f"model.layers.{layer}."
        tensors |= {at + "input_layernorm.weight": np.ones(2),
                    at + "post_attention_layernorm.weight": np.ones(2),
                    at + "self_attn.sinks": np.zeros(1),
                    at + "mlp.router.weight": rng.normal(size=(experts, 2)),
                    at + "mlp.router.bias": np.zeros(experts),
                    at + "mlp.experts.gate_up_proj": rng.normal(size=(experts, 2, 2)),
                    at + "mlp.experts.gate_up_proj_bias": np.zeros((experts, 2)),
                    at + "mlp.experts.down_proj": rng.normal(size=(experts, 1, 2)),
                    at + "mlp.experts.down_proj_bias": np.zeros((experts, 2))}
        for part in ("q", "k", "v", "o"):
            tensors[at + f"self_attn.{part}_proj.weight"] = rng.normal(size=(2, 2))
    (folder / "m").mkdir()
    (folder / "m" / "config.json").write_text(json.dumps({
        "model_type": "gpt_oss", "hidden_size": 2, "num_attention_heads": 1,
        "num_key_value_heads": 1, "head_dim": 2, "num_hidden_layers": layers,
        "num_local_experts": experts, "num_experts_per_tok": 1, "intermediate_size": 1,
        "rms_norm_eps": 1e-5, "rope_theta": 10000.0, "max_position_embeddings": 64}))
    (folder / "m" / "model.safetensors").write_bytes(safetensors(tensors, "<f4"))


def layer_spec(folder: Path, layer: int) -> Path:
    spec = folder / "s.yaml"
    spec.write_text(f"model: {{path: m, layer: {layer}, block: true}}\n"
                    "tokens: {ids: [0, 1, 2]}\n")
    return spec


def made_layers(monkeypatch: pytest.MonkeyPatch, model_type: str) -> list[Checkpoint]:
    """The layers whose keys are made from now on, one entry each."""
    made: list[Checkpoint] = []
    architecture = ARCHITECTURES[model_type]

    def keys(layer: Checkpoint) -> Keys:
        made.append(layer)
        return architecture.keys(layer)

    monkeypatch.setitem(ARCHITECTURES, model_type, replace(architecture, keys=keys))
    return made


def test_more_experts_than_any_released_model_are_refused_in_config_json(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # Kimi K2 has 384 experts a layer, DeepSeek-V3 256, gpt-oss-120b and Qwen3 128
    gpt_oss_folder(tmp_path, 1, 513)
    spec = layer_spec(tmp_path, 0)
    made = made_layers(monkeypatch, "gpt_oss")
    reads = counted(monkeypatch, arch_rotary, "experts_of")
    with pytest.raises(SpecError) as refused:
        load_spec(str(spec))
    assert str(refused.value) == ("m/config.json: num_local_experts: expected a whole number "
                                  "from 1 to 512, found 513")
    assert (len(made), reads) == (1, [])  # layer 0's keys begun, not an expert read


def test_the_experts_of_every_layer_are_charged_before_any_layer_is_read(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # layer 15 of 16, each of 250 experts: 15 layers before it and 16 × 250 experts,
    # 15 · 300,000 + 4,000 · 80,000 = 324,500,000 (the walkthroughs' numbers are far fewer).
    # At 40,000 an expert, layer 127 of 128 layers of 55 experts was valid and took 1.3 s
    assert (LAYER_CELLS, EXPERT_CELLS) == (300_000, 80_000)
    gpt_oss_folder(tmp_path, 16, 250)
    layer_spec(tmp_path, 15)
    made = made_layers(monkeypatch, "gpt_oss")
    monkeypatch.chdir(tmp_path)
    result = run("validate", "s.yaml")
    assert (result.exit_code, result.stderr) == (
        2, "s.yaml:1:25: model.layer: the walkthrough of this spec would compute 324,500,000 "
           f"numbers; {LIMIT}\nattn: 1 spec of 1 has errors\n")
    assert made == []
    layer_spec(tmp_path, 14)  # 14 · 300,000 + 3,750 · 80,000 = 304,200,000
    assert run("validate", "s.yaml").exit_code == 0
    assert len(made) == 15


def test_each_expert_tensor_is_read_once_a_layer(tmp_path: Path,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    # the four tensors of 64 experts were read an expert at a time: 256 readings a layer
    gpt_oss_folder(tmp_path, 3, 64)
    reads: list[str] = []
    real = Checkpoint.rows_of

    def rows_of(c: Checkpoint, key: str, rows: list[int]) -> np.ndarray:
        reads.append(key)
        return real(c, key, rows)

    monkeypatch.setattr(Checkpoint, "rows_of", rows_of)
    loaded = load_spec(str(layer_spec(tmp_path, 2)))
    assert len([key for key in reads if ".mlp.experts." in key]) == 3 * 4
    assert loaded.block is not None and loaded.block.moe is not None
    assert len(loaded.block.moe.experts) == 64


def test_the_layers_before_are_charged_for_their_work_before_any_is_made(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # 127 layers before layer 127, however few the tokens: 127 · 300,000 = 38,100,000 numbers,
    # past the 32,000,000 that --max-cells 1,000,000 allows; the 3 tokens' own numbers are a
    # few thousand a layer, so the 127 layers were worked out and the spec was valid
    llama_folder(tmp_path, 128)
    (tmp_path / "s.yaml").write_text("model: {path: m, layer: 127}\ntokens: {ids: [1, 2, 3]}\n")
    made = made_layers(monkeypatch, "llama")
    monkeypatch.chdir(tmp_path)
    result = run("validate", "--max-cells", "1000000", "s.yaml")
    assert (result.exit_code, result.stderr) == (
        2, "s.yaml:1:25: model.layer: the walkthrough of this spec would compute 38,100,000 "
           "numbers; the limit is 32,000,000, 32 times what --max-cells sets\n"
           "attn: 1 spec of 1 has errors\n")
    assert made == []


def test_the_tokens_are_labelled_once_for_every_layer(tmp_path: Path,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    # each of the 6 layers labelled the same 3 tokens twice (queries and keys): 36 tokens
    loaded = load_spec(str(last_of_six(tmp_path)))
    shown = counted(monkeypatch, labels, "visible_label")
    build(loaded)
    assert shown == ["1", "2", "3"]
    build(loaded)  # and again for the next walkthrough of the same tokens
    assert shown == ["1", "2", "3"]


@pytest.fixture(autouse=True)
def fresh_labels() -> None:
    """Tokens labelled by an earlier test are not taken as labelled by this one."""
    labels._texts_labelled.cache_clear()


def test_gpt_oss_reads_as_before(tmp_path: Path) -> None:
    # the keys of one layer of 4 experts, read through the tensors whole: each expert's matrices
    # are its slices of the file's, as they were when each expert was read alone
    gpt_oss_folder(tmp_path, 1, 4)
    loaded = load_spec(str(layer_spec(tmp_path, 0)))
    assert gpt_oss is ARCHITECTURES["gpt_oss"].keys
    assert loaded.block is not None and loaded.block.moe is not None
    rng = np.random.default_rng(0)
    rng.normal(size=(8, 2))  # the embeddings, then the router's and experts' draws
    router = rng.normal(size=(4, 2))
    gate_up = rng.normal(size=(4, 2, 2))
    down = rng.normal(size=(4, 1, 2))
    moe = loaded.block.moe
    assert np.array_equal(moe.W_r, router.astype(np.float32).astype(np.float64))
    for e, expert in enumerate(moe.experts):
        part = gate_up[e].astype(np.float32).astype(np.float64)  # (d_model, 2·d_ff)
        assert np.array_equal(expert.W_1, part[:, ::2].T)
        assert np.array_equal(expert.W_3, part[:, 1::2].T)
        assert np.array_equal(expert.W_2, down[e].astype(np.float32).astype(np.float64).T)
