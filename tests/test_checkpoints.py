"""Checkpoints: attn reads `.safetensors` tensors (and sharded ones through their index) and a
tokenizer.json, and reproduces a saved BERT's and GPT-2's own attention to 1e-10.

The models are tiny and random; configs/data/checkpoints/make.py builds them, and this test
builds them again in a temporary folder: `transformers` (eager attention, float64) is the
oracle for the weights and the heads' outputs, `safetensors`' own NumPy/PyTorch readers the
oracle for the tensors."""

from __future__ import annotations

import importlib.util
import json
import os
import shutil
from pathlib import Path
from types import ModuleType
from typing import Any

import numpy as np
import pytest

from attncli import load_spec
from attncli.steps.build import compute

ROOT = Path(__file__).parent.parent
CONFIGS = ROOT / "configs"
TOLERANCE = 1e-10


def needed(name: str) -> ModuleType:
    """`name`, or a skip outside CI; under CI=true (the test extra installs it) a failure."""
    if os.environ.get("CI") == "true":
        return importlib.import_module(name)
    return pytest.importorskip(name)


def maker() -> ModuleType:
    spec = importlib.util.spec_from_file_location("make", CONFIGS / "data/checkpoints/make.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """configs/gpt2_head.yaml and bert_head.yaml beside checkpoints made afresh."""
    needed("torch"), needed("transformers"), needed("tokenizers")
    folder = tmp_path_factory.mktemp("configs")
    maker().make(folder / "data" / "checkpoints")
    for name in ("gpt2_head.yaml", "bert_head.yaml"):
        shutil.copy(CONFIGS / name, folder / name)
    return folder


def test_the_committed_checkpoints_are_what_make_py_makes(built: Path) -> None:
    for model in ("gpt2", "bert"):
        for name in ("model.safetensors", "tokenizer.json"):
            made = built / "data/checkpoints" / model / name
            committed = CONFIGS / "data/checkpoints" / model / name
            assert made.read_bytes() == committed.read_bytes(), f"{model}/{name}"


def heads_of(spec_path: Path) -> tuple[tuple[str, ...], list[tuple[np.ndarray, np.ndarray]]]:
    walkthrough = compute(load_spec(str(spec_path)))
    heads = [(h.weights.whole(), h.context.whole()) for h in walkthrough.heads]
    return walkthrough.heads[0].weights.rows, heads


def attention_of(model: Any, module: Any, ids: list[int], context_of: str) -> tuple[Any, Any]:
    """The model's own weights (batch, heads, n, n) and the heads' outputs side by side
    (n, heads·d_head), caught by a hook on the attention module."""
    import torch

    caught: list[Any] = []
    if context_of == "input":  # GPT-2: what enters c_proj is the heads' outputs side by side
        hook = module.register_forward_pre_hook(lambda _m, args: caught.append(args[0]))
    else:  # BERT: the self-attention module returns them
        hook = module.register_forward_hook(lambda _m, _a, out: caught.append(out[0]))
    with torch.no_grad():
        out = model(torch.tensor([ids]), output_attentions=True)
    hook.remove()
    return out.attentions[0][0].numpy(), caught[0][0].numpy()


def test_gpt2_head_reproduces_the_model(built: Path) -> None:
    from tokenizers import Tokenizer

    make = maker()
    model = make.gpt2()
    tokens = Tokenizer.from_file(str(built / "data/checkpoints/gpt2/tokenizer.json"))
    encoding = tokens.encode("the cat chases a mouse")
    weights, context = attention_of(model, model.transformer.h[0].attn.c_proj,
                                     encoding.ids, "input")
    rows, heads = heads_of(built / "gpt2_head.yaml")
    assert rows == tuple(encoding.tokens) == ("the", "cat", "chases", "a", "mouse")
    assert len(heads) == 2
    for h, (A, Z) in enumerate(heads):
        assert np.abs(A - weights[h]).max() < TOLERANCE
        assert np.abs(Z - context[:, 4 * h: 4 * h + 4]).max() < TOLERANCE
    assert np.allclose(np.triu(weights[0], 1), 0)  # causal: the mask is the model's too


def test_bert_head_reproduces_the_model(built: Path) -> None:
    from tokenizers import Tokenizer

    model = maker().bert()
    tokens = Tokenizer.from_file(str(built / "data/checkpoints/bert/tokenizer.json"))
    encoding = tokens.encode("the dog sees a bird")
    weights, context = attention_of(model, model.encoder.layer[0].attention.self,
                                    encoding.ids, "output")
    rows, heads = heads_of(built / "bert_head.yaml")
    assert rows[0] == "[CLS]" and rows[-1] == "[SEP]" and len(rows) == 7
    for h, (A, Z) in enumerate(heads):
        assert np.abs(A - weights[h]).max() < TOLERANCE
        assert np.abs(Z - context[:, 4 * h: 4 * h + 4]).max() < TOLERANCE


def write_spec(folder: Path, tensor: str, extra: str = "") -> Path:
    spec = folder / "spec.yaml"
    spec.write_text(f"tokens: [a, b]\nembeddings: {tensor}\n{extra}", encoding="utf-8")
    return spec


@pytest.mark.parametrize("dtype", ["float16", "bfloat16", "float32", "float64"])
def test_every_float_type_reads_as_its_float64_value(tmp_path: Path, dtype: str) -> None:
    torch = needed("torch")
    safetensors_torch = needed("safetensors.torch")
    generator = torch.Generator().manual_seed(3)
    table = torch.randn(6, 5, generator=generator, dtype=torch.float64).to(getattr(torch, dtype))
    safetensors_torch.save_file({"emb": table}, str(tmp_path / "m.safetensors"))
    spec = write_spec(tmp_path, '{file: m.safetensors, key: emb, rows: [4, 1], '
                                'columns: "1:4"}')
    got = load_spec(str(spec)).queries.embeddings
    expected = table.to(torch.float64).numpy()[[4, 1]][:, 1:4]
    assert got.dtype == np.float64 and got.shape == (2, 3)
    assert np.array_equal(got, expected)


def test_a_sharded_checkpoint_is_read_through_its_index(tmp_path: Path) -> None:
    safetensors_numpy = needed("safetensors.numpy")
    rng = np.random.default_rng(4)
    first, second = rng.normal(size=(3, 4)), rng.normal(size=(2, 4))
    safetensors_numpy.save_file({"a": first}, str(tmp_path / "model-1-of-2.safetensors"))
    safetensors_numpy.save_file({"b": second}, str(tmp_path / "model-2-of-2.safetensors"))
    index = {"metadata": {}, "weight_map": {"a": "model-1-of-2.safetensors",
                                            "b": "model-2-of-2.safetensors"}}
    (tmp_path / "model.safetensors.index.json").write_text(json.dumps(index))
    spec = write_spec(tmp_path, "{file: model.safetensors.index.json, key: b}")
    assert np.array_equal(load_spec(str(spec)).queries.embeddings, second)
    spec = write_spec(tmp_path, '{file: model.safetensors.index.json, key: a, rows: "1:3"}')
    assert np.array_equal(load_spec(str(spec)).queries.embeddings, first[1:3])


def test_a_header_past_the_byte_limit_is_refused_unread(tmp_path: Path) -> None:
    """The limit of a .safetensors header is the byte limit of a spec (attncli.spec.limits)."""
    from attncli.errors import SpecError
    from attncli.i18n import translate
    from attncli.spec.limits import max_bytes

    header = json.dumps({"W": {"dtype": "F64", "shape": [2, 2], "data_offsets": [0, 32]}})
    header += " " * (max_bytes(1000) + 1 - len(header))  # JSON may end in spaces
    (tmp_path / "m.safetensors").write_bytes(
        len(header).to_bytes(8, "little") + header.encode() + np.eye(2).tobytes())
    spec = write_spec(tmp_path, "{file: m.safetensors, key: W}")
    with pytest.raises(SpecError) as refused:
        load_spec(str(spec), max_cells=1000)
    assert (f"the header has {len(header):,} bytes; the limit is {max_bytes(1000):,} bytes"
            in translate(refused.value.message, "en"))
    assert np.array_equal(load_spec(str(spec)).queries.embeddings, np.eye(2))


@pytest.mark.parametrize("name", ["gpt2_head.yaml", "bert_head.yaml"])
def test_the_examples_tokens_and_ids_are_what_their_tokenizer_gives(name: str,
                                                                    tmp_path: Path) -> None:
    """The examples run on the quickstart install, without the tokenizers package: they write
    out the tokens and the ids their tokenizer.json gives, which their comment names. Read with
    the tokenizer instead, the spec gives the same tokens and the same embedding rows."""
    needed("tokenizers")
    text = (CONFIGS / name).read_text(encoding="utf-8")
    with_tokenizer = next(line.removeprefix("#").strip() for line in text.splitlines()
                          if line.startswith("#   tokens: {tokenizer:"))
    lines = [with_tokenizer if line.startswith("tokens: [") else line
             for line in text.splitlines()]
    rewritten = "\n".join(lines)
    ids = rewritten[rewritten.index("rows: [", rewritten.index("key: ")):].split("]")[0] + "]"
    rewritten = rewritten.replace(ids, "rows: tokens", 1)
    assert "rows: tokens" in rewritten and "{tokenizer:" in rewritten
    shutil.copytree(CONFIGS / "data", tmp_path / "data")
    (tmp_path / name).write_text(rewritten, encoding="utf-8")
    written, read = load_spec(str(CONFIGS / name)), load_spec(str(tmp_path / name))
    assert written.queries.tokens == read.queries.tokens
    assert len(written.queries.tokens) == (5 if name.startswith("gpt2") else 7)
    assert np.array_equal(written.queries.embeddings, read.queries.embeddings)
