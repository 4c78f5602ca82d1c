"""Model folders whose config.json or tensors lie, written here byte by byte (a safetensors
file is an 8-byte header length, a JSON header and the numbers): a size far past any model's is
refused at its field before attn lists the rows it names, and an experts tensor saved with one
dimension too few is refused at the spec's `block`, never indexed as it is."""

from __future__ import annotations

import json
import struct
from pathlib import Path
from typing import Any

import numpy as np

from tests.conftest import run


def safetensors(tensors: dict[str, np.ndarray]) -> bytes:
    header: dict[str, Any] = {}
    data = b""
    for name, array in tensors.items():
        raw = np.ascontiguousarray(array, dtype="<f8").tobytes()
        header[name] = {"dtype": "F64", "shape": list(array.shape),
                        "data_offsets": [len(data), len(data) + len(raw)]}
        data += raw
    text = json.dumps(header).encode()
    return struct.pack("<Q", len(text)) + text + data


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
