"""The layers worked out before a model folder's layer are charged with it, one at a time, before
any is paid for, and each costs the work asked of it: its checkpoint file opened once for the
spec, no worked example made for a layer no one reads. Each test counts (files opened, layers
made, examples worked), never time."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from attncli.errors import SpecError
from attncli.spec import checkpoint, opened
from attncli.spec.arch_keys import Keys
from attncli.spec.arch_rotary import llama
from attncli.spec.architectures import ARCHITECTURES, LLAMA, Checkpoint
from attncli.spec.loading import load_spec  # as the command line loads a spec
from attncli.steps import rope
from attncli.steps.build import build
from tests.test_read_once import counted, llama_folder


def test_the_layers_before_share_the_spec_s_limit_and_are_made_one_at_a_time(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # 4,096 tokens, 2 heads: each layer's walkthrough computes over 134 million numbers (4 n x n
    # arrays a head), within the 320 million a spec may compute, so each of the 12 layers was
    # read on its own budget and worked out (1.1 GB for layer 5); together they pass it at the
    # third layer, which is refused before the fourth is made
    llama_folder(tmp_path, 12)
    ids = ", ".join(str(i % 8) for i in range(4096))
    spec = tmp_path / "s.yaml"
    spec.write_text(f"model: {{path: m, layer: 11}}\ntokens: {{ids: [{ids}]}}\n")
    made: list[Checkpoint] = []

    def keys(layer: Checkpoint) -> Keys:
        made.append(layer)
        return llama(layer)

    monkeypatch.setitem(ARCHITECTURES, "llama", replace(LLAMA, keys=keys))
    with pytest.raises(SpecError) as refused:
        load_spec(str(spec))
    assert str(refused.value).startswith(f"{spec}:1:1: the walkthrough of this spec would "
                                         "compute ")
    assert str(refused.value).endswith(" numbers; the limit is 320,000,000, 32 times what "
                                       "--max-cells sets")
    assert len(made) == 3


def last_of_six(folder: Path) -> Path:
    """A spec of layer 5 of a 6-layer Llama, with its block, on 3 token ids."""
    llama_folder(folder, 6)
    spec = folder / "s.yaml"
    spec.write_text("model: {path: m, layer: 5, block: true}\ntokens: {ids: [1, 2, 3]}\n")
    return spec


def test_a_model_folders_checkpoint_is_opened_once_for_its_tensors(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # layer 5 of 6 reads the 9 tensors of each layer and the embeddings' rows (60 readings):
    # each opened the file (62 openings); now its header is read (two) and the file kept open
    spec = last_of_six(tmp_path)
    by_header = counted(monkeypatch, checkpoint, "open_regular")
    by_tensor = counted(monkeypatch, opened, "open_regular")
    load_spec(str(spec))
    weights = [p for p in by_header + by_tensor if Path(str(p)).name == "model.safetensors"]
    assert len(weights) == 3


def test_a_layer_before_the_one_shown_works_no_example(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # RoPE's worked example (the same score at positions (1, 0) and (2, 1)) is made for the
    # two heads of the layer shown, not for the 2 × 5 heads of the layers before it
    loaded = load_spec(str(last_of_six(tmp_path)))
    examples = counted(monkeypatch, rope, "relative")
    walkthrough = build(loaded)
    assert len(examples) == 2
    assert len([s for s in walkthrough.steps if s.id == "rope"]) == 2


def test_a_layer_past_the_128th_is_refused_before_any_is_laid_out(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # each layer before the one asked for is worked out in full (about 2 ms for 3 tokens):
    # layer 999 of a 1,000-layer folder took 1.7 to 2.1 s; the deepest open models have 126
    llama_folder(tmp_path, 200)
    spec = tmp_path / "s.yaml"
    made: list[Checkpoint] = []

    def keys(layer: Checkpoint) -> Keys:
        made.append(layer)
        return llama(layer)

    monkeypatch.setitem(ARCHITECTURES, "llama", replace(LLAMA, keys=keys))
    spec.write_text("model: {path: m, layer: 128}\ntokens: {ids: [1, 2, 3]}\n")
    with pytest.raises(SpecError) as refused:
        load_spec(str(spec))
    assert str(refused.value) == (f"{spec}:1:25: model.layer: expected a whole number from 0 "
                                  "to 127, found 128")
    assert made == []
    spec.write_text("model: {path: m, layer: 127}\ntokens: {ids: [1, 2, 3]}\n")
    load_spec(str(spec))
    assert len(made) == 128
