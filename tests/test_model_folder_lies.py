"""Model folders whose config.json or tensors lie, written here byte by byte (a safetensors
file is an 8-byte header length, a JSON header and the numbers): a size far past any model's is
refused at its field before attn lists the rows it names, and an experts tensor saved with one
dimension too few is refused at the spec's `block`, never indexed as it is."""

from __future__ import annotations

import json
import math
import os
import struct
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from tests.conftest import run
from tests.safetensors_file import safetensors


def folder(tmp_path: Path, config: dict[str, Any], tensors: dict[str, np.ndarray],
           spec: str) -> Path:
    (tmp_path / "m").mkdir()
    (tmp_path / "m" / "config.json").write_text(json.dumps(config), encoding="utf-8")
    (tmp_path / "m" / "model.safetensors").write_bytes(safetensors(tensors))
    (tmp_path / "spec.yaml").write_text(spec, encoding="utf-8")
    return tmp_path / "spec.yaml"


def refused(spec: Path) -> str:
    result = run("explain", str(spec), "--format", "text")
    assert result.exit_code == 2, result.stderr
    assert result.stdout == ""
    lines = result.stderr.splitlines()
    assert len(lines) == 1
    return lines[0]


def test_a_deepseek_head_size_past_any_models_is_refused_at_its_field(tmp_path: Path) -> None:
    # 2 heads: a head's sizes at most 65,536 / 2 = 32,768; 2^40 made attn list 2^40 rows
    # (MemoryError, exit 3)
    config = {"model_type": "deepseek_v3", "hidden_size": 8, "num_attention_heads": 2,
              "kv_lora_rank": 4, "qk_rope_head_dim": 2 ** 40, "qk_nope_head_dim": 2,
              "v_head_dim": 3, "num_hidden_layers": 1}
    spec = folder(tmp_path, config, {"model.embed_tokens.weight": np.zeros((4, 8))},
                  "model: {path: m, layer: 0}\ntokens: {ids: [1, 2]}\n")
    assert refused(spec).endswith(
        "config.json: qk_rope_head_dim: expected a whole number from 1 to 32768, "
        "found 1099511627776")


def test_an_experts_tensor_of_two_dimensions_is_refused_at_block(tmp_path: Path) -> None:
    # gate_up_proj must be (experts, d_model, 2·d_ff): saved as 3 x 5, expert 0's part is a
    # row of 5, which was indexed as a matrix (IndexError, exit 3)
    config = {"model_type": "gpt_oss", "hidden_size": 4, "num_attention_heads": 1,
              "num_key_value_heads": 1, "head_dim": 4, "num_hidden_layers": 1,
              "num_local_experts": 3, "num_experts_per_tok": 1, "intermediate_size": 2,
              "rms_norm_eps": 1e-5, "rope_theta": 10000.0}
    at = "model.layers.0."
    tensors = {"model.embed_tokens.weight": np.ones((4, 4)),
               at + "input_layernorm.weight": np.ones(4),
               at + "post_attention_layernorm.weight": np.ones(4),
               at + "self_attn.sinks": np.zeros(1),
               at + "mlp.router.weight": np.ones((3, 4)), at + "mlp.router.bias": np.zeros(3),
               at + "mlp.experts.gate_up_proj": np.ones((3, 5)),
               at + "mlp.experts.gate_up_proj_bias": np.zeros((3, 4)),
               at + "mlp.experts.down_proj": np.ones((3, 2, 4)),
               at + "mlp.experts.down_proj_bias": np.zeros((3, 4))}
    for name in ("q", "k", "v", "o"):
        tensors[at + f"self_attn.{name}_proj.weight"] = np.eye(4)
        tensors[at + f"self_attn.{name}_proj.bias"] = np.zeros(4)
    spec = folder(tmp_path, config, tensors,
                  "model: {path: m, layer: 0, block: true}\ntokens: {ids: [1, 2]}\n")
    assert refused(spec) == (
        f"{spec}:1:35: model.block: model.layers.0.mlp.experts.gate_up_proj[0] holds an array "
        "of shape 5, expected a matrix (2 dimensions)")


def llama_like(model_type: str = "llama", **config: Any) -> tuple[dict[str, Any],
                                                                   dict[str, np.ndarray]]:
    """A two-layer folder of 2 query heads of 2 features over d_model = 4, one key/value head
    (q_proj 4 x 4, k_proj and v_proj 2 x 4), with Gemma 2's extra norms."""
    made = {"model_type": model_type, "hidden_size": 4, "num_attention_heads": 2,
            "num_key_value_heads": 1, "num_hidden_layers": 2, "rms_norm_eps": 1e-6,
            "rope_theta": 10000.0, "sliding_window": 4, **config}
    tensors = {"model.embed_tokens.weight": np.ones((4, 4))}
    for layer in (0, 1):
        at = f"model.layers.{layer}."
        for name in ("input_layernorm", "post_attention_layernorm", "pre_feedforward_layernorm",
                     "post_feedforward_layernorm"):
            tensors[at + name + ".weight"] = np.zeros(4)
        for name, rows in (("q", 4), ("k", 2), ("v", 2), ("o", 4)):
            tensors[at + f"self_attn.{name}_proj.weight"] = np.eye(4)[:rows]
    return made, tensors


@pytest.mark.parametrize(("model_type", "config", "said"), [
    # a layer past the list was read as a sliding one: a window where the model has none
    ("gemma2", {"layer_types": ["full_attention"]},
     "layer_types: has 1 entry, expected one per layer (2)"),
    ("gemma2", {"layer_types": ["sliding_attention", "banana"]},
     "layer_types: expected one of sliding_attention, full_attention, found the text "
     '"banana"'),
    ("gpt_oss", {"layer_types": "sliding_attention"},
     'layer_types: expected a list of layer kinds, found the text "sliding_attention"'),
    # q_proj has 4 rows over 2 heads: head_dim 2; a lying one was read past
    ("gemma2", {"head_dim": 3},
     "head_dim: expected the rows of model.layers.0.self_attn.q_proj.weight over the heads, "
     "4 / 2 = 2, found 3"),
    ("llama", {"head_dim": 4},
     "head_dim: expected the rows of model.layers.0.self_attn.q_proj.weight over the heads, "
     "4 / 2 = 2, found 4"),
    # a list was read as no scaling at all
    ("llama", {"rope_parameters": [1, 2]},
     "rope_parameters: expected a mapping, found a list of 2 items"),
    # one RoPE per layer kind (Gemma 3's form) was read as default RoPE, its theta unread
    ("llama", {"rope_parameters": {"full_attention": {"rope_type": "default",
                                                      "rope_theta": 500000.0}}},
     "rope_parameters: expected the parameters of one RoPE (rope_type, rope_theta, …), found "
     "a mapping of them for full_attention"),
    # √−4 was a complex number, named as a text in the refusal
    ("gemma2", {"query_pre_attn_scalar": -4},
     "query_pre_attn_scalar: expected a number greater than 0, found -4"),
    # YaRN's attention factor (0.1·m·ln f + 1) / (0.1·m_all·ln f + 1): with f = e, m_all = -10
    # divides by 0 (an internal error); m = -10 makes it 0
    ("llama", {"rope_parameters": {"rope_type": "yarn", "factor": math.e, "mscale": 1.0,
                                   "mscale_all_dim": -10.0,
                                   "original_max_position_embeddings": 16}},
     "rope_parameters.mscale_all_dim: expected a number greater than -10, found -10"),
    ("llama", {"rope_scaling": {"type": "yarn", "factor": math.e, "mscale": -12.5,
                                "mscale_all_dim": 1.0,
                                "original_max_position_embeddings": 16}},
     "rope_scaling.mscale: expected a number greater than -10, found -12.5"),
])
def test_a_config_json_that_lies_about_its_layers_is_refused_at_its_field(
        tmp_path: Path, model_type: str, config: dict[str, Any], said: str) -> None:
    made, tensors = llama_like(model_type, **config)
    spec = folder(tmp_path, made, tensors, "model: {path: m, layer: 1}\ntokens: {ids: [1, 2]}\n")
    assert refused(spec) == f"m/config.json: {said}"


def test_a_gemma2_folder_whose_config_tells_the_truth_is_read(tmp_path: Path) -> None:
    made, tensors = llama_like("gemma2", head_dim=2, query_pre_attn_scalar=2,
                               layer_types=["sliding_attention", "full_attention"])
    spec = folder(tmp_path, made, tensors, "model: {path: m, layer: 0}\ntokens: {ids: [1, 2]}\n")
    result = run("explain", str(spec), "--format", "json")
    assert (result.exit_code, result.stderr) == (0, "")


@pytest.mark.parametrize(("make", "said"), [
    # a link out of the spec's folder was an internal error (exit 3)
    (lambda m: (m.parent.parent / "out.safetensors").write_bytes(b"") or os.symlink(
        "../../out.safetensors", m / "model.safetensors"),
     "m/model.safetensors is outside the spec's folder; only files in that folder or below "
     "it are read"),
    # a FIFO, a folder: "expected model.safetensors or model.safetensors.index.json, found
    # neither", though one was there
    (lambda m: os.mkfifo(m / "model.safetensors"),
     "m/model.safetensors: this is a named pipe (FIFO), expected a regular file"),
    (lambda m: os.mkdir(m / "model.safetensors"),
     "m/model.safetensors: this is a folder, expected a regular file"),
    # a link to itself was an internal error (exit 3, OSError ELOOP)
    (lambda m: os.symlink("model.safetensors", m / "model.safetensors"),
     "m/model.safetensors: the symbolic links lead in a loop"),
])
def test_a_weights_file_that_is_no_file_is_one_located_line(
        tmp_path: Path, make: Any, said: str) -> None:
    made, _ = llama_like()
    (tmp_path / "sub" / "m").mkdir(parents=True)
    (tmp_path / "sub" / "m" / "config.json").write_text(json.dumps(made), encoding="utf-8")
    make(tmp_path / "sub" / "m")
    spec = tmp_path / "sub" / "spec.yaml"
    spec.write_text("model: {path: m, layer: 0}\ntokens: {ids: [1, 2]}\n", encoding="utf-8")
    assert refused(spec) == f"{spec}:1:15: model.path: {said}"


@pytest.mark.parametrize(("labels", "said"), [
    # a label of 100,000 characters took 7 s to lay out; a spec's own is held to 1,000
    ({"0": "x" * 100_000, "1": "b"},
     "id2label.0: expected a text of at most 1,000 characters, found 100,000"),
    ({str(i): f"l{i}" for i in range(5)}, "id2label: has 5 labels, expected one per class (2)"),
    # refused at the spec's model.labels as "expected a token", not where config.json has it
    ({"0": "a", "1": ""}, "id2label.1: expected a class's name, found an empty text"),
])
def test_a_vit_config_whose_labels_lie_is_refused_at_id2label(
        tmp_path: Path, labels: dict[str, str], said: str) -> None:
    config = {"model_type": "vit", "hidden_size": 2, "num_attention_heads": 1,
              "num_hidden_layers": 1, "patch_size": 1, "id2label": labels}
    tensors = {"embeddings.patch_embeddings.projection.weight": np.ones((2, 1, 1, 1)),
               "embeddings.patch_embeddings.projection.bias": np.zeros(2),
               "embeddings.cls_token": np.zeros((1, 1, 2)),
               "embeddings.position_embeddings": np.zeros((1, 2, 2)),
               "classifier.weight": np.ones((2, 2)), "classifier.bias": np.zeros(2),
               "layernorm.weight": np.ones(2), "layernorm.bias": np.zeros(2)}
    at = "encoder.layer.0."
    for name in ("attention.attention.query", "attention.attention.key",
                 "attention.attention.value", "attention.output.dense", "intermediate.dense",
                 "output.dense"):
        tensors[at + name + ".weight"] = np.eye(2)
        tensors[at + name + ".bias"] = np.zeros(2)
    for name in ("layernorm_before", "layernorm_after"):
        tensors[at + name + ".weight"] = np.ones(2)
        tensors[at + name + ".bias"] = np.zeros(2)
    spec = folder(tmp_path, config, tensors,
                  "model: {path: m, layer: 0, block: true}\nimage: {pixels: [[0.5]]}\n")
    assert refused(spec) == f"m/config.json: {said}"


def test_token_ids_written_whole_are_read_from_their_numbers(tmp_path: Path) -> None:
    # 100,000 ids made a Node each (1.2 s CPU); a list of whole numbers is read from its
    # numbers, and a list with any other item is read item by item, refused at the item
    from attncli import load_spec

    made, tensors = llama_like()
    tensors["model.embed_tokens.weight"] = np.arange(16.0).reshape(4, 4)
    spec = folder(tmp_path, made, tensors, "model: {path: m, layer: 0}\ntokens: {ids: [3, 0, 3]}\n")
    loaded = load_spec(str(spec))
    assert loaded.queries.embeddings[:, 0].tolist() == [12.0, 0.0, 12.0]  # rows 3, 0, 3
    spec.write_text("model: {path: m, layer: 0}\ntokens: {ids: [3, 0.5]}\n", encoding="utf-8")
    assert refused(spec) == (f"{spec}:2:19: tokens.ids[1]: expected a whole number, found the "
                             "number 0.5")


def test_token_ids_are_held_to_what_a_tokenizer_gives(tmp_path: Path) -> None:
    # a tokenized text is held to 4,096 tokens; 200,000 ids written whole took 1.4 s of
    # processor time before the walkthrough's cost refused them
    from attncli import load_spec

    made, tensors = llama_like()
    def ids(count: int) -> str:
        return "model: {path: m, layer: 0}\ntokens: {ids: [" + ", ".join(["1"] * count) + "]}\n"

    spec = folder(tmp_path, made, tensors, ids(4096))
    assert load_spec(str(spec)).queries.embeddings.shape[0] == 4096
    spec.write_text(ids(4097), encoding="utf-8")
    assert refused(spec) == (f"{spec}:2:15: tokens.ids: expected at most 4,096 token ids, as a "
                             "tokenizer gives at most, found 4,097")


def test_tensors_whose_bytes_overlap_are_refused_naming_both(tmp_path: Path) -> None:
    # as the safetensors library refuses them: k_proj moved 8 bytes back into q_proj, so each
    # would be read with some of the other's numbers. F64: the embeddings (4 x 4) are bytes
    # [0, 128], layer 0's four norms [128, 256], q_proj (4 x 4) [256, 384], k_proj (2 x 4) 64
    made, tensors = llama_like()
    spec = folder(tmp_path, made, tensors, "model: {path: m, layer: 1}\ntokens: {ids: [1, 2]}\n")
    path = tmp_path / "m" / "model.safetensors"
    raw = path.read_bytes()
    length = struct.unpack("<Q", raw[:8])[0]
    header = json.loads(raw[8:8 + length])
    assert header["model.layers.0.self_attn.q_proj.weight"]["data_offsets"] == [256, 384]
    header["model.layers.0.self_attn.k_proj.weight"]["data_offsets"] = [376, 440]
    text = json.dumps(header).encode()
    path.write_bytes(struct.pack("<Q", len(text)) + text + raw[8 + length:])
    assert refused(spec).endswith(
        "model.safetensors: the tensors model.layers.0.self_attn.q_proj.weight and "
        "model.layers.0.self_attn.k_proj.weight overlap: expected data_offsets apart, found "
        "[256, 384] and [376, 440]")


def test_a_model_type_that_is_a_list_is_named_as_one(tmp_path: Path) -> None:
    # ["llama"] was looked up among the architectures as it is (unhashable: exit 3)
    spec = folder(tmp_path, {"model_type": ["llama"], "num_hidden_layers": 1},
                  {"model.embed_tokens.weight": np.zeros((4, 8))},
                  "model: {path: m, layer: 0}\ntokens: {ids: [1]}\n")
    assert refused(spec).endswith(
        "spec.yaml:1:15: model.path: config.json: model_type: expected one of bert, deepseek_v3, "
        "gemma2, gpt2, gpt_oss, llama, mistral, qwen3, vit, found a list of 1 item")


@pytest.mark.parametrize("depth", [65, 500, 900])
def test_a_config_nested_past_the_limit_is_refused_as_a_spec_is(tmp_path: Path,
                                                                depth: int) -> None:
    # rope_scaling.factor as lists in lists: JSON reads up to about 990 levels, and the walk
    # that makes config.json's fields ran out of Python's stack past about 330 (exit 3)
    nested: Any = []
    for _ in range(depth - 3):  # depth - 2 lists, in rope_scaling, in the top object
        nested = [nested]
    made, tensors = llama_like(rope_scaling={"rope_type": "linear", "factor": nested})
    spec = folder(tmp_path, made, tensors, "model: {path: m, layer: 1}\ntokens: {ids: [1, 2]}\n")
    assert refused(spec) == ("attn: m/config.json: the file nests lists and objects more than "
                             "64 levels deep")


def test_a_config_nested_64_levels_is_read(tmp_path: Path) -> None:
    nested: Any = []
    for _ in range(61):  # 62 lists, in the key's object, in the top object: 64 levels
        nested = [nested]
    made, tensors = llama_like(quantization_config={"x": nested})
    spec = folder(tmp_path, made, tensors, "model: {path: m, layer: 0}\ntokens: {ids: [1, 2]}\n")
    result = run("explain", str(spec), "--format", "text")
    assert result.exit_code == 0, result.stderr
