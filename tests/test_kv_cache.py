"""Decoding with a KV cache (`decode: {prefill: p}`): every decode row equals the same row of full
causal attention, written here in NumPy, and the output of PyTorch (float64) run token by token
with a cache this test builds; the cache-size table worked by hand."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest

from attncli import build, loads_spec
from attncli.i18n import translate
from attncli.model import Step, Walkthrough
from attncli.steps.decode import gqa_groups
from tests.conftest import run
from tests.mha_reference import torch_module

CASES = 40


def random_spec(seed: int) -> tuple[dict[str, object], int]:
    """A random causal spec with a decode section, as data, and its prefill."""
    rng = np.random.default_rng(seed)
    n = int(rng.integers(2, 8))
    heads = int(rng.integers(1, 4))
    d_head = int(rng.integers(1, 4))
    d_model = heads * d_head
    prefill = int(rng.integers(1, n))
    spec: dict[str, object] = {
        "tokens": [f"t{i}" for i in range(n)],
        "embeddings": rng.normal(size=(n, d_model)).tolist(),
        "heads": heads,
        "weights": {name: rng.normal(size=(d_model, d_model)).tolist()
                    for name in ("W_Q", "W_K", "W_V")},
        "mask": "causal",
        "decode": {"prefill": prefill},
    }
    if rng.random() < 0.3:
        spec["scale"] = float(rng.uniform(0.5, 3.0))
    return spec, prefill


def walkthrough(spec: dict[str, object]) -> Walkthrough:
    return build(loads_spec(json.dumps(spec), "spec.json"))


def decode_steps(w: Walkthrough, head: int) -> list[Step]:
    return [s for s in w.steps if s.id == "decode" and (s.head or 1) == head]


def full_causal(q: np.ndarray, k: np.ndarray, v: np.ndarray, divisor: float) -> np.ndarray:
    """softmax(Q·Kᵀ / divisor + M)·V with the causal mask, written out here."""
    n = q.shape[0]
    s = q @ k.T / divisor  # (n, n)
    s[np.triu(np.ones((n, n), dtype=bool), 1)] = -np.inf
    e = np.exp(s - s.max(axis=1, keepdims=True))  # (n, n)
    return (e / e.sum(axis=1, keepdims=True)) @ v  # (n, d_v)


def divisor_of(spec: dict[str, object], d_head: int) -> float:
    scale = spec.get("scale")
    return float(scale) if isinstance(scale, float) else math.sqrt(d_head)


@pytest.mark.parametrize("seed", range(CASES))
def test_every_decode_row_equals_full_causal_attention(seed: int) -> None:
    spec, prefill = random_spec(seed)
    w = walkthrough(spec)
    x = np.array(spec["embeddings"])
    weights = spec["weights"]
    assert isinstance(weights, dict)
    h = len(w.heads)
    d_head = x.shape[1] // h
    n = x.shape[0]
    for head in range(h):
        cols = slice(head * d_head, (head + 1) * d_head)
        q, k, v = (x @ np.array(weights[name])[:, cols] for name in ("W_Q", "W_K", "W_V"))
        expected = full_causal(q, k, v, divisor_of(spec, d_head))  # (n, d_head)
        steps = decode_steps(w, head + 1)
        assert len(steps) == n - prefill
        for t, step in zip(range(prefill, n), steps, strict=True):
            z = step.matrices[-1]
            assert z.symbol.text.startswith("z") and z.rows == (f"t{t}",)
            np.testing.assert_allclose(z.values[0], expected[t], rtol=0, atol=1e-12)
            keys = step.matrices[1]
            assert keys.rows == tuple(f"t{j}" for j in range(t + 1))  # the cache, t appended
            assert "equals" in translate(step.notes[-1], "en")


@pytest.mark.parametrize("seed", range(0, CASES, 4))
def test_decode_rows_equal_pytorch_with_a_cache(seed: int) -> None:
    """torch (float64): prefill fills a K, V cache; each later token appends its k, v with
    torch.cat and attends to the cache alone with scaled_dot_product_attention."""
    torch = torch_module()
    spec, prefill = random_spec(seed)
    w = walkthrough(spec)
    x = torch.tensor(spec["embeddings"], dtype=torch.float64)
    weights = spec["weights"]
    assert isinstance(weights, dict)
    h = len(w.heads)
    d_head = x.shape[1] // h
    scale = 1.0 / divisor_of(spec, d_head)
    for head in range(h):
        cols = slice(head * d_head, (head + 1) * d_head)
        w_q, w_k, w_v = (torch.tensor(weights[name], dtype=torch.float64)[:, cols]
                         for name in ("W_Q", "W_K", "W_V"))
        k_cache, v_cache = x[:prefill] @ w_k, x[:prefill] @ w_v  # (p, d_head)
        for t, step in zip(range(prefill, x.shape[0]), decode_steps(w, head + 1), strict=True):
            token = x[t:t + 1]  # (1, d_model)
            k_cache = torch.cat([k_cache, token @ w_k])  # (t+1, d_head)
            v_cache = torch.cat([v_cache, token @ w_v])
            z = torch.nn.functional.scaled_dot_product_attention(
                token @ w_q, k_cache, v_cache, scale=scale)  # (1, d_head)
            np.testing.assert_allclose(step.matrices[-1].values, z.numpy(), rtol=0, atol=1e-12)


def test_the_example_cache_sizes_worked_by_hand() -> None:
    """configs/kv_cache_decoding.yaml: 2 heads, d_k = d_v = 2, float16 (2 bytes): per token
    and layer 2·(2 + 2)·2 = 16 bytes; MQA keeps one head: (2 + 2)·2 = 8 bytes."""
    result = run("explain", "configs/kv_cache_decoding.yaml", "--format", "text",
                 "--steps", "kv_cache")
    assert result.exit_code == 0
    out = " ".join(result.stdout.split())
    assert "This spec: 2 · (2 + 2) · 2 = 16 bytes per token per layer." in out
    assert "every query head: 2 · (2 + 2) · 2 = 16 bytes." in out
    assert "(MQA), one key-value head for both query heads: (2 + 2) · 2 = 8 bytes." in out
    assert "(GQA): 2 heads cannot be split" in out


@pytest.mark.parametrize(("heads", "groups"), [(1, None), (2, None), (3, None), (4, 2), (6, 3),
                                               (8, 4), (12, 6), (32, 16), (7, None)])
def test_gqa_groups(heads: int, groups: int | None) -> None:
    assert gqa_groups(heads) == groups


def test_the_cache_sizes_in_polish_and_russian_use_plural_forms() -> None:
    """16 bytes: `16 bajtów`, `16 байт`; 2 heads (GQA): `2 głowice nie dają się` (the subject,
    so the digit is read `dwie`), `2 головы` (accusative)."""
    pl = run("explain", "configs/kv_cache_decoding.yaml", "--format", "text", "--lang", "pl",
             "--steps", "kv_cache")
    ru = run("explain", "configs/kv_cache_decoding.yaml", "--format", "text", "--lang", "ru",
             "--steps", "kv_cache")
    assert "= 16 bajtów na token i warstwę" in " ".join(pl.stdout.split())
    assert "(GQA): 2 głowice nie dają się" in " ".join(pl.stdout.split())
    assert "= 16 байт на токен и слой" in " ".join(ru.stdout.split())
    assert "(GQA): 2 головы нельзя" in " ".join(ru.stdout.split())
    # two heads are "both": `obu głowic`, `обе головы`
    assert "jedna głowica KV dla obu głowic zapytań: (2 + 2) · 2 = 8 bajtów." in " ".join(
        pl.stdout.split())
    assert "одна KV-голова на обе головы запросов: (2 + 2) · 2 = 8 байт." in " ".join(
        ru.stdout.split())


def test_shared_key_value_heads_shrink_the_cache() -> None:
    """configs/multi_query.yaml (2 heads, kv_heads: 1, d_k = d_v = 2) decoded after 1 token: the
    cache holds one key-value head, 1·(2 + 2)·2 = 8 bytes, and every decode row still equals
    full causal attention."""
    from pathlib import Path

    text = Path("configs/multi_query.yaml").read_text("utf-8") + "decode: {prefill: 1}\n"
    w = build(loads_spec(text, "multi_query.yaml"))
    sizes = next(s for s in w.steps if s.id == "kv_cache")
    assert "= 8 bytes per token per layer" in translate(sizes.notes[1], "en")
    checks = [translate(s.notes[-1], "en") for s in w.steps if s.id == "decode"]
    assert len(checks) == 4 and all(c.startswith("Check: z") for c in checks)
