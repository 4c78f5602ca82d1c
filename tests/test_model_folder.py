"""`model: {path: DIR, layer: L}`: a layer of a model folder as its own library saves it, against
that library's forward pass.

Each test builds a tiny random model with `transformers` in float64 (eager attention), saves it
with `save_pretrained`, writes a spec of two keys and compares attn's attention weights of every
head with the model's `output_attentions`, and the layer's output where the library gives it.
What the library computes in float32 even in a float64 model (its RMSNorm, its RoPE table, the
eager softmax) is run in float64 here, by the same formula without the cast."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from attncli import load_spec
from attncli.i18n import translate
from attncli.steps.build import compute
from tests.conftest import run
from tests.test_checkpoints import maker, needed

TOLERANCE = 1e-9
IDS = [3, 7, 1, 12, 5]


def float64_parts(monkeypatch: pytest.MonkeyPatch, torch: Any, module: Any, norm: str,
                  rotary: str | None, halves: bool = False) -> None:
    """The library's float32 parts, run in float64: RMSNorm, the RoPE table (base 10000, or the
    scaled frequencies of the library's own function; each angle twice for rotate_half, or once
    when the model turns the two halves itself, as gpt-oss does) and the softmax."""
    def rms_norm(self: Any, hidden: Any) -> Any:
        variance = hidden.pow(2).mean(-1, keepdim=True)
        return self.weight * (hidden * torch.rsqrt(variance + self.variance_epsilon))

    def rope_table(self: Any, x: Any, position_ids: Any) -> Any:
        d = 2 * self.inv_freq.shape[0]
        theta = 10000.0 ** (-torch.arange(0, d, 2, dtype=torch.float64) / d)  # (d/2,)
        if self.rope_type != "default":  # the library's own scaled frequencies, in float64
            theta = scaled_in_float64(torch, self.rope_type, self.config)  # (d/2,)
        angles = position_ids[..., None].double() * theta  # (1, n, d/2)
        emb = angles if halves else torch.cat((angles, angles), dim=-1)  # (1, n, d)
        return emb.cos() * self.attention_scaling, emb.sin() * self.attention_scaling

    softmax = torch.nn.functional.softmax
    monkeypatch.setattr(getattr(module, norm), "forward", rms_norm)
    if rotary is not None:
        monkeypatch.setattr(getattr(module, rotary), "forward", rope_table)
    monkeypatch.setattr(torch.nn.functional, "softmax",
                        lambda t, dim, dtype=None: softmax(t, dim=dim, dtype=torch.float64))


def scaled_in_float64(torch: Any, kind: str, config: Any) -> Any:
    """transformers' `ROPE_INIT_FUNCTIONS[kind]` run as it is written, with its `torch.float`
    and `torch.float32` (the dtypes it computes the frequencies and YaRN's ramp in) float64."""
    from transformers import modeling_rope_utils

    class Float64Torch:
        def __getattr__(self, name: str) -> Any:
            return torch.float64 if name in ("float", "float32") else getattr(torch, name)

    real = modeling_rope_utils.torch
    modeling_rope_utils.torch = Float64Torch()
    try:
        theta, _ = modeling_rope_utils.ROPE_INIT_FUNCTIONS[kind](config, None)
    finally:
        modeling_rope_utils.torch = real
    assert theta.dtype == torch.float64
    return theta


def saved(model: Any, folder: Path, torch: Any, seed: int) -> Any:
    """`model` in float64 with every parameter drawn afresh (norm gains too, so that a gain read
    from the wrong tensor shows), saved to `folder`."""
    model = model.double().eval()
    generator = torch.Generator().manual_seed(seed)
    with torch.no_grad():
        for parameter in model.parameters():
            parameter.copy_(torch.rand(parameter.shape, generator=generator,
                                       dtype=torch.float64) * 1.6 - 0.8)
    model.save_pretrained(str(folder))
    return model


def spec_of(folder: Path, tokens: str, layer: int = 0, extra: str = "") -> Path:
    spec = folder.parent / f"spec{layer}.yaml"
    spec.write_text(f"model: {{path: {folder.name}, layer: {layer}{extra}}}\ntokens: {tokens}\n",
                    encoding="utf-8")
    return spec


def forward(model: Any, torch: Any, ids: list[int], attention: list[Any]) -> tuple[Any, Any, Any]:
    """The model's attention weights of every layer, what each module of `attention` returns
    (the attention's output of each layer), and the hidden states after each layer."""
    caught: list[Any] = []
    def keep(_m: Any, _a: Any, out: Any) -> None:
        caught.append((out[0] if isinstance(out, tuple) else out)[0].numpy())

    hooks = [module.register_forward_hook(keep) for module in attention]
    with torch.no_grad():
        out = model(torch.tensor([ids]), output_attentions=True, output_hidden_states=True)
    for hook in hooks:
        hook.remove()
    return out.attentions, caught, out.hidden_states


def agree(spec: Path, weights: Any, output: Any | None) -> Any:
    walkthrough = compute(load_spec(str(spec)))
    assert len(walkthrough.heads) == weights.shape[1]
    for h, head in enumerate(walkthrough.heads):
        assert np.abs(head.weights.values - weights[0, h].numpy()).max() < TOLERANCE
    if output is not None:
        assert np.abs(walkthrough.output.values - output).max() < TOLERANCE
    return walkthrough


LLAMAS = {
    "llama": ("LlamaConfig", "LlamaForCausalLM", "modeling_llama", "Llama", {}),
    "mistral": ("MistralConfig", "MistralForCausalLM", "modeling_mistral", "Mistral",
                {"sliding_window": 3}),
    "qwen3": ("Qwen3Config", "Qwen3ForCausalLM", "modeling_qwen3", "Qwen3", {"head_dim": 4}),
}


def llama_like(name: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Any, Any]:
    torch = needed("torch")
    transformers = needed("transformers")
    config_name, model_name, modeling, prefix, extra = LLAMAS[name]
    config = getattr(transformers, config_name)(
        hidden_size=8, num_attention_heads=4, num_key_value_heads=2, num_hidden_layers=2,
        intermediate_size=12, vocab_size=20, rms_norm_eps=1e-6, **extra)
    config._attn_implementation = "eager"
    model = saved(getattr(transformers, model_name)(config), tmp_path / name, torch, 5)
    module = getattr(transformers.models, name).__dict__[modeling]
    float64_parts(monkeypatch, torch, module, f"{prefix}RMSNorm", f"{prefix}RotaryEmbedding")
    return torch, model


@pytest.mark.parametrize("name", sorted(LLAMAS))
def test_a_llama_like_layer_is_the_models_own(name: str, tmp_path: Path,
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    torch, model = llama_like(name, tmp_path, monkeypatch)
    attentions, outputs, hidden = forward(model, torch, IDS,
                                          [layer.self_attn for layer in model.model.layers])
    walkthrough = agree(spec_of(tmp_path / name, f"{{ids: {IDS}}}"), attentions[0], outputs[0])
    assert walkthrough.heads[0].weights.rows == tuple(str(i) for i in IDS)
    if name == "mistral":  # a window of 3: the query sees itself and the 2 keys before it
        assert walkthrough.heads[0].weights.values[4, :2].tolist() == [0.0, 0.0]
        assert walkthrough.heads[0].weights.values[4, 2] > 0
    if name == "qwen3":
        assert any(step.id == "qk_norm" for step in walkthrough.steps)
    # with the rest of the layer: the hidden state that leaves layer 0
    whole = agree(spec_of(tmp_path / name, f"{{ids: {IDS}}}", extra=", block: true"),
                  attentions[0], hidden[1][0].numpy())
    assert any(step.id == "ffn" for step in whole.steps)
    # layer 1 reads what the whole layer 0 gives back
    second = agree(spec_of(tmp_path / name, f"{{ids: {IDS}}}", layer=1), attentions[1],
                   outputs[1])
    assert np.abs(second.steps[0].matrices[0].values - hidden[1][0].numpy()).max() < TOLERANCE


def test_gpt2_from_a_text_is_the_models_own(tmp_path: Path) -> None:
    """Learned positions, LayerNorm before attention, c_attn's thirds; the folder's tokenizer;
    with `block: true` the pre-norm rest of the layer (residual, ln_2, c_fc, gelu_new as attn's
    gelu_tanh, c_proj, residual), and layer 1 from what the whole layer 0 gives back."""
    torch = needed("torch")
    transformers = needed("transformers")
    config = transformers.GPT2Config(vocab_size=14, n_positions=16, n_embd=8, n_layer=2,
                                     n_head=2, attn_implementation="eager")
    assert config.activation_function == "gelu_new"
    model = saved(transformers.GPT2LMHeadModel(config), tmp_path / "gpt2", torch, 6)
    maker().tokenizer(False).save(str(tmp_path / "gpt2" / "tokenizer.json"))
    ids = [4, 5, 6, 7, 8]  # the cat chases a mouse
    blocks = model.transformer.h
    # the hooks fire as each module ends: attention 0, layer 0, attention 1, layer 1
    attentions, caught, hidden = forward(model, torch, ids, [
        blocks[0].attn, blocks[1].attn, blocks[0], blocks[1]])
    text = '{text: "the cat chases a mouse"}'
    walkthrough = agree(spec_of(tmp_path / "gpt2", text), attentions[0], caught[0])
    assert walkthrough.heads[0].weights.rows == ("the", "cat", "chases", "a", "mouse")
    # the hidden state that leaves layer 0 (no ln_f: it follows the last layer only)
    whole = agree(spec_of(tmp_path / "gpt2", text, extra=", block: true"), attentions[0],
                  caught[1])
    assert np.abs(caught[1] - hidden[1][0].numpy()).max() == 0.0
    assert any(step.id == "ffn" for step in whole.steps)
    # layer 1: its input is what the whole layer 0 gives back; then the whole layer 1
    second = agree(spec_of(tmp_path / "gpt2", text, layer=1), attentions[1], caught[2])
    assert np.abs(second.steps[0].matrices[0].values - hidden[1][0].numpy()).max() < TOLERANCE
    agree(spec_of(tmp_path / "gpt2", text, layer=1, extra=", block: true"), attentions[1],
          caught[3])


def test_bert_from_a_text_is_the_models_own(tmp_path: Path) -> None:
    """Word, position and token-type embeddings, the embeddings' LayerNorm, [CLS] … [SEP]; with
    `block: true` the post-norm rest of the layer (residual, LayerNorm, the GELU feed-forward in
    its erf form, residual, LayerNorm), and layer 1 from what the whole layer 0 gives back."""
    torch = needed("torch")
    transformers = needed("transformers")
    config = transformers.BertConfig(vocab_size=14, hidden_size=8, num_hidden_layers=2,
                                     num_attention_heads=2, intermediate_size=16,
                                     max_position_embeddings=16, attn_implementation="eager")
    assert config.hidden_act == "gelu"  # the erf form, attn's gelu
    model = saved(transformers.BertModel(config), tmp_path / "bert", torch, 7)
    maker().tokenizer(True).save(str(tmp_path / "bert" / "tokenizer.json"))
    ids = [1, 4, 9, 10, 7, 11, 2]  # [CLS] the dog sees a bird [SEP]
    attentions, outputs, hidden = forward(
        model, torch, ids, [layer.attention.output.dense for layer in model.encoder.layer])
    text = '{text: "the dog sees a bird"}'
    walkthrough = agree(spec_of(tmp_path / "bert", text), attentions[0], outputs[0])
    assert walkthrough.heads[0].weights.rows[0] == "[CLS]"
    # the hidden state that leaves layer 0, from the embeddings LayerNorm-ed on reading
    whole = agree(spec_of(tmp_path / "bert", text, extra=", block: true"), attentions[0],
                  hidden[1][0].numpy())
    assert np.abs(whole.steps[0].matrices[0].values - hidden[0][0].numpy()).max() < TOLERANCE
    assert [step.id for step in whole.steps if step.id.startswith(("norm", "residual"))] == [
        "residual_1", "norm_1", "residual_2", "norm_2"]
    # layer 1: its input is what the whole layer 0 gives back; then the whole layer 1
    second = agree(spec_of(tmp_path / "bert", text, layer=1), attentions[1], outputs[1])
    assert np.abs(second.steps[0].matrices[0].values - hidden[1][0].numpy()).max() < TOLERANCE
    agree(spec_of(tmp_path / "bert", text, layer=1, extra=", block: true"), attentions[1],
          hidden[2][0].numpy())


# --- refusals: one line, where the spec says it, exit 2 ---------------------------------------


def folder_with(tmp_path: Path, config: str, weights: bool = True) -> Path:
    folder = tmp_path / "m"
    folder.mkdir()
    (folder / "config.json").write_text(config, encoding="utf-8")
    if weights:
        (folder / "model.safetensors").write_bytes(b"\x02\0\0\0\0\0\0\0{}")
    return folder


LLAMA_CONFIG = '{"model_type": "llama", "num_hidden_layers": 2, "num_attention_heads": 2}'


@pytest.mark.parametrize(("config", "spec", "problem"), [
    ('{"model_type": "t5"}', "model: {path: m, layer: 0}\ntokens: {ids: [1]}",
     "1:15: model.path: model_type t5 is not supported; the supported ones are bert, "
     "deepseek_v3, gemma2, gpt2, gpt_oss, llama, mistral, qwen3, vit"),
    (LLAMA_CONFIG, "model: {path: m, layer: 2}\ntokens: {ids: [1]}",
     "1:25: model.layer: expected a whole number from 0 to 1, found 2"),
    (LLAMA_CONFIG, "model: {path: nowhere, layer: 0}\ntokens: {ids: [1]}",
     "1:15: model.path: nowhere: expected a folder saved by the model's library"),
    (LLAMA_CONFIG, "model: {path: .., layer: 0}\ntokens: {ids: [1]}",
     "1:15: model.path: .. is outside the spec's folder; only files in that folder or below it "
     "are read"),
    (LLAMA_CONFIG, "model: {path: m, layer: 0}\ntokens: [a, b]",
     '2:9: tokens: expected {text: "..."} or {ids: [...]}, found a list of 2 items'),
    (LLAMA_CONFIG, "model: {path: m, layer: 0}\ntokens: {ids: [1]}\nheads: 2",
     "3:1: heads: heads comes from the model folder; remove it or model"),
])
def test_a_model_folder_is_refused_where_the_spec_names_it(tmp_path: Path, config: str,
                                                           spec: str, problem: str) -> None:
    folder_with(tmp_path, config)
    path = tmp_path / "spec.yaml"
    path.write_text(spec + "\n", encoding="utf-8")
    result = run("explain", str(path))
    assert (result.exit_code, result.stdout, result.stderr) == (2, "", f"{path}:{problem}\n")


def test_a_config_claiming_more_layers_than_tensors_is_refused_at_once(tmp_path: Path) -> None:
    # 10¹² layers in config.json and layer 999,999 asked for: the layers before it were laid out
    # one by one (over 120 s); a checkpoint of one tensor holds one layer at most
    folder = folder_with(tmp_path, '{"model_type": "llama", "num_hidden_layers": 1000000000000, '
                         '"num_attention_heads": 2}', weights=False)
    header = b'{"embed_tokens.weight": {"dtype": "F32", "shape": [1], "data_offsets": [0, 4]}}'
    (folder / "model.safetensors").write_bytes(len(header).to_bytes(8, "little") + header
                                               + bytes(4))
    path = tmp_path / "spec.yaml"
    path.write_text("model: {path: m, layer: 999999}\ntokens: {ids: [0]}\n", encoding="utf-8")
    result = run("explain", str(path))
    assert (result.exit_code, result.stderr) == (
        2, f"{path}:1:25: model.layer: expected a whole number from 0 to 0, found 999999\n")


@pytest.mark.parametrize(("model", "key"), [("bert", "layer_norm_eps"),
                                            ("gpt2", "layer_norm_epsilon"),
                                            ("llama", "rms_norm_eps")])
def test_a_norm_eps_that_is_not_positive_is_refused_in_config_json(tmp_path: Path, model: str,
                                                                   key: str) -> None:
    # BERT's embeddings are LayerNorm-ed as the folder is read: eps -1 took a square root of a
    # negative number, and NumPy's RuntimeWarning reached the terminal before the refusal
    folder_with(tmp_path, f'{{"model_type": "{model}", "num_hidden_layers": 1, '
                f'"n_layer": 1, "num_attention_heads": 1, "n_head": 1, "n_embd": 2, "{key}": -1}}')
    path = tmp_path / "spec.yaml"
    path.write_text("model: {path: m, layer: 0, block: true}\ntokens: {ids: [0]}\n",
                    encoding="utf-8")
    result = run("explain", str(path))
    assert (result.exit_code, result.stdout, result.stderr) == (
        2, "", f"m/config.json: {key}: expected a positive eps, found -1\n")


def test_a_folder_without_weights_or_config_is_refused(tmp_path: Path) -> None:
    folder = folder_with(tmp_path, LLAMA_CONFIG, weights=False)
    path = tmp_path / "spec.yaml"
    path.write_text("model: {path: m, layer: 0}\ntokens: {ids: [1]}\n", encoding="utf-8")
    result = run("explain", str(path))
    assert result.stderr == (f"{path}:1:15: model.path: m: expected model.safetensors or "
                             "model.safetensors.index.json, found neither\n")
    (folder / "config.json").unlink()
    result = run("explain", str(path), "--lang", "pl")
    assert (result.exit_code, result.stderr) == (
        2, f"{path}:1:15: model.path: m/config.json: nie ma takiego pliku\n")


@pytest.mark.parametrize(("lang", "problem"), [
    ("pl", "model.path: model_type t5 nie jest obsługiwany; obsługiwane są: bert, deepseek_v3, "
           "gemma2, gpt2, gpt_oss, llama, mistral, qwen3, vit"),
    ("ru", "model.path: неподдерживаемое значение model_type: t5; поддерживаются: bert, "
           "deepseek_v3, gemma2, gpt2, gpt_oss, llama, mistral, qwen3, vit"),
])
def test_an_unknown_architecture_is_named_in_every_language(tmp_path: Path, lang: str,
                                                            problem: str) -> None:
    folder_with(tmp_path, '{"model_type": "t5"}')
    path = tmp_path / "spec.yaml"
    path.write_text("model: {path: m, layer: 0}\ntokens: {ids: [1]}\n", encoding="utf-8")
    result = run("explain", str(path), "--lang", lang)
    assert (result.exit_code, result.stderr.replace("\u00a0", " ")) == (
        2, f"{path}:1:15: {problem}\n")


def test_the_schema_takes_a_model_spec_and_needs_its_layer() -> None:
    from tests.test_schema import errors

    assert errors("model: {path: m, layer: 0}\ntokens: {ids: [1, 2]}\n") == []
    assert errors("model: {path: m}\ntokens: {text: the cat}\n") == [
        "'layer' is a required property"]
    assert errors("tokens: {ids: [1]}\n") == ["'embeddings' is a required property"]


def test_gemma2_is_the_models_own(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """√d_model times the embeddings, RMSNorm's gain 1 + w, √query_pre_attn_scalar, the soft cap
    and a sliding window in layer 0 (`layer_types`), a full one in layer 1."""
    torch = needed("torch")
    transformers = needed("transformers")
    gemma2 = transformers.models.gemma2.modeling_gemma2
    config = transformers.Gemma2Config(
        hidden_size=8, num_attention_heads=4, num_key_value_heads=2, head_dim=4,
        num_hidden_layers=2, intermediate_size=12, vocab_size=20, query_pre_attn_scalar=6,
        attn_logit_softcapping=2.0, sliding_window=3, attn_implementation="eager")
    model = saved(transformers.Gemma2ForCausalLM(config), tmp_path / "gemma2", torch, 8)

    def rms_norm(self: Any, x: Any) -> Any:  # Gemma2RMSNorm without its float32 cast
        return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + self.eps) * (1.0 + self.weight)

    float64_parts(monkeypatch, torch, gemma2, "Gemma2RMSNorm", "Gemma2RotaryEmbedding")
    monkeypatch.setattr(gemma2.Gemma2RMSNorm, "forward", rms_norm)
    attentions, outputs, _ = forward(model, torch, IDS, [model.model.layers[0].self_attn])
    walkthrough = agree(spec_of(tmp_path / "gemma2", f"{{ids: {IDS}}}"), attentions[0],
                        outputs[0])
    assert walkthrough.heads[0].weights.values[4, :2].tolist() == [0.0, 0.0]  # the window
    assert any(step.id == "softcap" for step in walkthrough.steps)


def tiny_gpt_oss(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, torch: Any, seed: int,
                 **sizes: Any) -> Any:
    """A tiny gpt-oss (two experts, one per token, a window of 3, eager attention and experts)
    saved as a user would, its RMSNorm and RoPE table run in float64."""
    transformers = needed("transformers")
    config = transformers.GptOssConfig(
        intermediate_size=8, vocab_size=20, num_local_experts=2, num_experts_per_tok=1,
        sliding_window=3, attn_implementation="eager", experts_implementation="eager", **sizes)
    model = saved(transformers.GptOssForCausalLM(config), tmp_path / "gpt_oss", torch, seed)
    float64_parts(monkeypatch, torch, transformers.models.gpt_oss.modeling_gpt_oss,
                  "GptOssRMSNorm", "GptOssRotaryEmbedding", halves=True)
    return model


def test_gpt_oss_is_the_models_own(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Each head's learned sink logit in the softmax's denominator, biases on every projection,
    and layer 0's sliding window (`layer_types`)."""
    torch = needed("torch")
    model = tiny_gpt_oss(tmp_path, monkeypatch, torch, 9, hidden_size=8, num_attention_heads=4,
                         num_key_value_heads=2, head_dim=4, num_hidden_layers=2,
                         rope_parameters={"rope_type": "default", "rope_theta": 10000.0})
    attentions, outputs, _ = forward(model, torch, IDS, [model.model.layers[0].self_attn])
    walkthrough = agree(spec_of(tmp_path / "gpt_oss", f"{{ids: {IDS}}}"), attentions[0],
                        outputs[0])
    assert walkthrough.heads[0].weights.values.sum(axis=1).max() < 1.0  # the sink takes a share
    assert walkthrough.heads[0].weights.values[4, :2].tolist() == [0.0, 0.0]


@pytest.mark.parametrize(("model", "lang", "problem"), [
    ("bert", "en", "the activation quick_gelu is not worked out yet; expected one of gelu, "
                   "gelu_new, gelu_pytorch_tanh, relu, silu"),
    ("bert", "ru", "функция активации quick_gelu пока не поддерживается; ожидается одна из: "
                   "gelu, gelu_new, gelu_pytorch_tanh, relu, silu"),
    ("llama", "pl", "funkcja aktywacji quick_gelu nie jest jeszcze obsługiwana; oczekiwano "
                    "jednej z funkcji: gelu, silu"),
])
def test_an_activation_attn_does_not_compute_is_refused_in_config_json(
        tmp_path: Path, model: str, lang: str, problem: str) -> None:
    """Layer 1 needs the whole layer 0, its feed-forward too, even without `block`: an
    activation attn does not compute is named where config.json says it, in the language (a
    Llama's gate takes SiLU or GELU: SwiGLU or GeGLU)."""
    folder_with(tmp_path, f'{{"model_type": "{model}", "num_hidden_layers": 2, '
                '"num_attention_heads": 2, "hidden_act": "quick_gelu"}')
    path = tmp_path / "spec.yaml"
    path.write_text("model: {path: m, layer: 1}\ntokens: {ids: [1]}\n", encoding="utf-8")
    result = run("explain", str(path), "--lang", lang)
    assert (result.exit_code, result.stdout, result.stderr.replace("\u00a0", " ")) == (
        2, "", f"m/config.json: hidden_act: {problem}\n")


def test_a_llama_whose_gate_takes_gelu_is_a_geglu_layer(tmp_path: Path,
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    """hidden_act: gelu makes LlamaMLP down(gelu(gate(x)) ⊙ up(x)) with the exact GELU: attn's
    geglu, in layer 0's whole output and in the input of layer 1."""
    torch = needed("torch")
    transformers = needed("transformers")
    config = transformers.LlamaConfig(
        hidden_size=8, num_attention_heads=4, num_key_value_heads=2, num_hidden_layers=2,
        intermediate_size=12, vocab_size=20, rms_norm_eps=1e-6, hidden_act="gelu")
    config._attn_implementation = "eager"
    model = saved(transformers.LlamaForCausalLM(config), tmp_path / "llama", torch, 5)
    float64_parts(monkeypatch, torch, transformers.models.llama.modeling_llama, "LlamaRMSNorm",
                  "LlamaRotaryEmbedding")
    attentions, outputs, hidden = forward(model, torch, IDS,
                                          [layer.self_attn for layer in model.model.layers])
    whole = agree(spec_of(tmp_path / "llama", f"{{ids: {IDS}}}", extra=", block: true"),
                  attentions[0], hidden[1][0].numpy())
    ffn = next(step for step in whole.steps if step.id == "ffn")
    assert ffn.formula is not None and ffn.formula.text.startswith("gᵢ = GELU(W_1·xᵢ),  uᵢ = ")
    second = agree(spec_of(tmp_path / "llama", f"{{ids: {IDS}}}", layer=1), attentions[1],
                   outputs[1])
    assert np.abs(second.steps[0].matrices[0].values - hidden[1][0].numpy()).max() < TOLERANCE


def rope_step(walkthrough: Any) -> Any:
    return next(step for step in walkthrough.steps if step.id == "rope")


def test_a_llama_with_llama3_scaling_is_the_models_own(tmp_path: Path,
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    """Llama 3.1's `rope_type: llama3` (here trained on 16 positions, so that the four pairs of
    a head of 8 are kept, blended and divided), read from `rope_parameters` as transformers 5
    saves it and from the older `rope_scaling` beside `rope_theta`: the same weights."""
    torch = needed("torch")
    transformers = needed("transformers")
    parameters = {"rope_type": "llama3", "rope_theta": 100.0, "factor": 8.0,
                  "low_freq_factor": 1.0, "high_freq_factor": 4.0,
                  "original_max_position_embeddings": 16}
    config = transformers.LlamaConfig(
        hidden_size=16, num_attention_heads=2, num_key_value_heads=1, head_dim=8,
        num_hidden_layers=1, intermediate_size=12, vocab_size=20, rms_norm_eps=1e-6,
        max_position_embeddings=64, rope_parameters=dict(parameters))
    config._attn_implementation = "eager"
    model = saved(transformers.LlamaForCausalLM(config), tmp_path / "llama", torch, 11)
    float64_parts(monkeypatch, torch, transformers.models.llama.modeling_llama, "LlamaRMSNorm",
                  "LlamaRotaryEmbedding")
    attentions, outputs, _ = forward(model, torch, IDS, [model.model.layers[0].self_attn])
    walkthrough = agree(spec_of(tmp_path / "llama", f"{{ids: {IDS}}}"), attentions[0],
                        outputs[0])
    omega = rope_step(walkthrough).matrices[1].values[0]  # (4,): the scaled ωᵢ
    theirs = scaled_in_float64(torch, "llama3", model.config).numpy()
    assert np.abs(omega - theirs).max() < 1e-15
    assert np.abs(omega - rope_step(walkthrough).matrices[0].values[0]).max() > 0.05
    # the older spelling: rope_scaling, its kind under `type`, rope_theta beside it
    path = tmp_path / "llama" / "config.json"
    written = json.loads(path.read_text(encoding="utf-8"))
    old = written.pop("rope_parameters")
    written["rope_theta"] = old.pop("rope_theta")
    written["rope_scaling"] = {**old, "type": old.pop("rope_type")}
    path.write_text(json.dumps(written), encoding="utf-8")
    agree(spec_of(tmp_path / "llama", f"{{ids: {IDS}}}"), attentions[0], outputs[0])


def test_gpt_oss_with_yarn_as_released_is_the_models_own(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """gpt-oss's own RoPE (GptOssConfig's default, as the released checkpoints: YaRN, factor 32,
    beta 32 and 1, trained on 4096 positions, truncate: false, base 150000): the blended
    frequencies and cos and sin times the attention factor 0.1·ln 32 + 1."""
    torch = needed("torch")
    model = tiny_gpt_oss(tmp_path, monkeypatch, torch, 13, hidden_size=16, num_attention_heads=2,
                         num_key_value_heads=1, head_dim=8, num_hidden_layers=1)
    assert model.config.rope_parameters == {
        "rope_type": "yarn", "factor": 32.0, "beta_fast": 32.0, "beta_slow": 1.0,
        "truncate": False, "original_max_position_embeddings": 4096, "rope_theta": 150000.0}
    attentions, outputs, _ = forward(model, torch, IDS, [model.model.layers[0].self_attn])
    walkthrough = agree(spec_of(tmp_path / "gpt_oss", f"{{ids: {IDS}}}"), attentions[0],
                        outputs[0])
    step = rope_step(walkthrough)
    theirs = scaled_in_float64(torch, "yarn", model.config).numpy()
    assert np.abs(step.matrices[1].values[0] - theirs).max() < 1e-15
    factor = model.model.rotary_emb.attention_scaling
    assert factor == pytest.approx(0.1 * math.log(32) + 1, rel=1e-15)
    assert any(f"a = {factor:.6g}:" in translate(note, "en") for note in step.notes)


@pytest.mark.parametrize(("lang", "problem"), [
    ("en", "the RoPE scaling dynamic is not worked out yet; expected one of default, linear, "
           "llama3, yarn"),
    ("ru", "масштабирование RoPE dynamic пока не поддерживается; ожидается одно из: default, "
           "linear, llama3, yarn"),
])
def test_a_rope_scaling_attn_does_not_compute_is_refused_in_config_json(
        tmp_path: Path, lang: str, problem: str) -> None:
    folder_with(tmp_path, '{"model_type": "llama", "num_hidden_layers": 2, '
                '"num_attention_heads": 2, "rope_theta": 10000, '
                '"rope_scaling": {"rope_type": "dynamic", "factor": 2.0}}')
    path = tmp_path / "spec.yaml"
    path.write_text("model: {path: m, layer: 0}\ntokens: {ids: [1]}\n", encoding="utf-8")
    result = run("explain", str(path), "--lang", lang)
    assert (result.exit_code, result.stdout) == (2, "")
    assert result.stderr == f"m/config.json: rope_scaling.rope_type: {problem}\n"


@pytest.mark.parametrize(("lang", "problem"), [
    ("en", "config.json gives no model_type; the supported ones are "),
    ("pl", "w config.json brakuje klucza model_type; obsługiwane są: "),
    ("ru", "в config.json нет model_type; поддерживаются: "),
])
def test_a_config_json_with_no_model_type_says_so(tmp_path: Path, lang: str, problem: str) -> None:
    # it read "model_type — is not supported", the dash standing for the missing value
    folder_with(tmp_path, '{"num_hidden_layers": 2}')
    path = tmp_path / "spec.yaml"
    path.write_text("model: {path: m, layer: 0}\ntokens: {ids: [1]}\n", encoding="utf-8")
    result = run("explain", str(path), "--lang", lang)
    assert (result.exit_code, result.stderr.replace("\u00a0", " ")) == (
        2, f"{path}:1:15: model.path: {problem}bert, deepseek_v3, gemma2, gpt2, gpt_oss, llama, "
           "mistral, qwen3, vit\n")
