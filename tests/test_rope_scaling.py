"""`rope: {scaling: {kind: linear | llama3 | yarn, ...}}`: RoPE's frequencies scaled for a longer
context, against transformers' own `ROPE_INIT_FUNCTIONS` (which compute them in float32), by
hand, and through the walkthrough; bad values are one located line in every language."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from attncli import load_spec
from attncli.compute.rope_scaling import attention_factor, frequencies
from attncli.spec.model import RopeScaling
from attncli.steps.build import compute
from tests.conftest import run
from tests.test_checkpoints import needed

ROOT = Path(__file__).resolve().parent.parent
YARN = ROOT / "configs" / "rope_yarn.yaml"

# (rope_parameters as transformers reads them, head_dim)
CONFIGS: list[tuple[dict[str, Any], int]] = [
    ({"rope_type": "linear", "rope_theta": 10000.0, "factor": 2.5}, 8),
    ({"rope_type": "llama3", "rope_theta": 500000.0, "factor": 8.0, "low_freq_factor": 1.0,
      "high_freq_factor": 4.0, "original_max_position_embeddings": 8192}, 64),  # Llama 3.1
    ({"rope_type": "llama3", "rope_theta": 100.0, "factor": 8.0, "low_freq_factor": 1.0,
      "high_freq_factor": 4.0, "original_max_position_embeddings": 100}, 4),
    ({"rope_type": "llama3", "rope_theta": 10000.0, "factor": 32.0, "low_freq_factor": 2.0,
      "high_freq_factor": 8.0, "original_max_position_embeddings": 512}, 16),
    ({"rope_type": "yarn", "rope_theta": 150000.0, "factor": 32.0, "beta_fast": 32.0,  # gpt-oss
      "beta_slow": 1.0, "original_max_position_embeddings": 4096, "truncate": False}, 64),
    ({"rope_type": "yarn", "rope_theta": 10000.0, "factor": 4.0,
      "original_max_position_embeddings": 2048}, 32),
    ({"rope_type": "yarn", "rope_theta": 100.0, "factor": 4.0, "beta_fast": 32.0,
      "beta_slow": 1.0, "original_max_position_embeddings": 64}, 4),
    ({"rope_type": "yarn", "rope_theta": 1000000.0, "factor": 16.0, "beta_fast": 16.0,
      "beta_slow": 2.0, "original_max_position_embeddings": 1024, "attention_factor": 1.5}, 24),
]


def scaling_of(parameters: dict[str, Any]) -> RopeScaling:
    kind = parameters["rope_type"]
    keys = ("factor", "original_max_position_embeddings", "low_freq_factor", "high_freq_factor",
            "beta_fast", "beta_slow", "truncate", "attention_factor")
    return RopeScaling(kind, **{k: parameters[k] for k in keys if k in parameters})


@pytest.mark.parametrize(("parameters", "head_dim"), CONFIGS,
                         ids=lambda c: c["rope_type"] if isinstance(c, dict) else str(c))
def test_the_frequencies_and_attention_factor_are_transformers_own(
        parameters: dict[str, Any], head_dim: int) -> None:
    needed("torch")
    transformers = needed("transformers")
    from transformers.modeling_rope_utils import ROPE_INIT_FUNCTIONS

    config = transformers.LlamaConfig(hidden_size=4 * head_dim, num_attention_heads=4,
                                      head_dim=head_dim, max_position_embeddings=1 << 17,
                                      rope_parameters=dict(parameters))
    theirs, factor = ROPE_INIT_FUNCTIONS[parameters["rope_type"]](config, "cpu")
    scaling = scaling_of(parameters)
    mine = frequencies(head_dim, parameters["rope_theta"], scaling)  # (head_dim/2,)
    # theirs are float32: each within a few float32 steps of the float64 value
    assert np.allclose(mine, theirs.double().numpy(), rtol=4e-7, atol=0)
    assert attention_factor(scaling) == pytest.approx(factor, rel=1e-15)
    if parameters["rope_type"] != "linear":
        assert not np.allclose(mine, frequencies(head_dim, parameters["rope_theta"], None))


def test_a_llama3_frequency_worked_by_hand() -> None:
    """d_k = 4, base 100: ω = (1, 0.1). Trained on 100 positions, low 1, high 4, factor 8:
    wavelength 2π ≈ 6.28 < 100/4 keeps ω₀ = 1; 2π/0.1 ≈ 62.83 lies between 25 and 100, so
    s = (100/62.8319 − 1)/(4 − 1) = 0.197183 and ω₁ = 0.802817·0.1/8 + 0.197183·0.1
    = 0.0100352 + 0.0197183 = 0.0297535."""
    scaling = RopeScaling("llama3", 8.0, 100, low_freq_factor=1.0, high_freq_factor=4.0)
    omega = frequencies(4, 100.0, scaling)
    assert omega[0] == 1.0
    assert omega[1] == pytest.approx(0.0297535, abs=5e-8)
    assert attention_factor(scaling) == 1.0


def test_yarn_bounds_of_extreme_betas_are_their_logarithms() -> None:
    """beta_fast 1e308 turns 2π·beta into inf (the ratio L / inf = 0 had no logarithm: exit 3);
    taken term by term, pair(β) = d·(ln L − ln β − ln 2π) / (2 ln base): with d = 4, base 100,
    L = 1, β = 1e308: 4·(0 − 709.196 − 1.8379) / 9.2103 = −308.8, floored, then 0 at least;
    β = 1e-308: 4·(709.196 − 1.8379) / 9.2103 = 307.2, ceiled, then d − 1 = 3 at most."""
    from attncli.compute.rope_scaling import yarn_bounds

    scaling = RopeScaling("yarn", 4.0, 1, beta_fast=1e308, beta_slow=1e-308)
    assert yarn_bounds(4, 100.0, scaling) == (0, 3)
    low = 4 * (0 - math.log(1e308) - math.log(2 * math.pi)) / (2 * math.log(100))
    assert low == pytest.approx(-308.79, abs=0.01)
    # base 1e300, d = 1000: β = 1e-308 gives 1000·(709.196 − 1.8379) / 1381.55 = 512.0, ceiled
    high = 1000 * (0 - math.log(1e-308) - math.log(2 * math.pi)) / (2 * math.log(1e300))
    assert high == pytest.approx(512.0, abs=0.05)
    assert yarn_bounds(1000, 1e300, scaling) == (0, math.ceil(high))


def test_the_bundled_yarn_example_is_its_comment() -> None:
    """configs/rope_yarn.yaml: ω = (1, 0.0625), a = 0.1·ln 4 + 1, and Q̂ is a times the turned
    Q: the query of `am` (position 1), (0, 1, 0, 0.5), turns its pair 0 (d1, d3) = (0, 0) and
    its pair 1 (d2, d4) = (1, 0.5) by 0.0625 radians."""
    walkthrough = compute(load_spec(str(YARN)))
    step = next(s for s in walkthrough.steps if s.id == "rope")
    unscaled, omega = step.matrices[0].values[0], step.matrices[1].values[0]
    assert unscaled.tolist() == pytest.approx([1.0, 0.1], rel=1e-15)
    assert omega.tolist() == pytest.approx([1.0, 0.0625], rel=1e-15)
    a = 0.1 * math.log(4) + 1
    q_hat = next(m for m in step.matrices if m.symbol.text == "Q\u0302").values
    c, s = math.cos(0.0625), math.sin(0.0625)
    assert q_hat[1].tolist() == pytest.approx([0.0, a * (c - 0.5 * s), 0.0, a * (s + 0.5 * c)],
                                              abs=1e-12)
    cells = {e.target.text: e for e in step.expansions if e.target is not None}
    assert cells["ω1"].result == pytest.approx(0.0625) and cells["a"].result == pytest.approx(a)


def test_the_header_and_step_name_the_scaling() -> None:
    result = run("explain", str(YARN), "--format", "text", "--width", "200")
    assert result.exit_code == 0
    assert "frequencies scaled by yarn (factor 4)" in result.stdout
    assert "attention factor a = 1.13863" in result.stdout
    assert "ω1 = (1 − r)·100^(−2/4)/4 + r·100^(−2/4) = (1.0000 − 0.5000)·(0.1000 / 4.0000) + " \
           "0.5000·0.1000 = 0.0625" in result.stdout
    assert "a = 0.1·ln(4) + 1 = 0.1000·1.3863 + 1.0000 = 1.1386" in result.stdout


@pytest.mark.parametrize(("change", "lang", "problem"), [
    (("factor: 4,", "factor: -4,"), "en",
     "20:35: positional.rope.scaling.factor: expected a number greater than 0, found -4"),
    (("beta_fast: 32", "beta_fast: 0.5"), "pl",
     "20:87: positional.rope.scaling.beta_fast: oczekiwano liczby większej od beta_slow (1), "
     "otrzymano: 0.5"),
    (("kind: yarn", "kind: ntk"), "ru",
     "20:21: positional.rope.scaling.kind: ожидается одно из значений (linear, llama3, yarn), "
     "получено: текст «ntk»"),
    ((", original_max_position_embeddings: 64", ""), "en",
     "20:14: positional.rope.scaling: the key original_max_position_embeddings is missing"),
    (("beta_slow: 1}", "beta_slow: 1, low_freq_factor: 2}"), "en",
     "21:29: positional.rope.scaling.low_freq_factor: unknown key; expected one of kind, "
     "factor, original_max_position_embeddings, beta_fast, beta_slow, truncate, "
     "attention_factor"),
])
def test_a_bad_scaling_is_one_located_line(change: tuple[str, str], lang: str, problem: str,
                                           tmp_path: Path) -> None:
    spec = tmp_path / "bad.yaml"
    spec.write_text(YARN.read_text(encoding="utf-8").replace(*change), encoding="utf-8")
    result = run("explain", str(spec), "--lang", lang, "--format", "text")
    assert result.exit_code == 2 and result.stdout == ""
    # one line; Polish keeps a short word with the next by a no-break space
    assert result.stderr.replace("\xa0", " ") == f"{spec}:{problem}\n"


def test_llama3_needs_its_high_freq_factor_above_the_low_one(tmp_path: Path) -> None:
    spec = tmp_path / "bad.yaml"
    spec.write_text(YARN.read_text(encoding="utf-8").replace(
        "{kind: yarn, factor: 4, original_max_position_embeddings: 64, beta_fast: 32,\n"
        "              beta_slow: 1}",
        "{kind: llama3, factor: 8, original_max_position_embeddings: 64, low_freq_factor: 4,\n"
        "              high_freq_factor: 1}"), encoding="utf-8")
    result = run("explain", str(spec), "--format", "text")
    assert result.exit_code == 2
    assert result.stderr.strip().endswith(
        "positional.rope.scaling.high_freq_factor: expected a number greater than "
        "low_freq_factor (4), found 1")


@pytest.mark.parametrize("parameters", [
    {"rope_type": "yarn", "rope_theta": 10000.0, "factor": 40.0, "mscale": 1.0,  # DeepSeek
     "mscale_all_dim": 0.707, "beta_fast": 32, "beta_slow": 1,
     "original_max_position_embeddings": 4096},
    {"rope_type": "yarn", "rope_theta": 10000.0, "factor": None,  # max / original = 40
     "original_max_position_embeddings": 4096},
    {"type": "llama3", "factor": 8.0, "low_freq_factor": 1.0, "high_freq_factor": 4.0},
], ids=["mscale", "no-factor", "old-spelling"])
def test_config_json_is_read_as_transformers_reads_it(parameters: dict[str, Any],
                                                      tmp_path: Path) -> None:
    """A model folder's `rope_parameters` into attn's `scaling`, where transformers fills in
    what is left out: DeepSeek's mscale ratio as the attention factor, a factor of
    max_position_embeddings over the original length, `max_position_embeddings` as the
    original length, `type` for `rope_type`."""
    needed("torch")
    transformers = needed("transformers")
    from transformers.modeling_rope_utils import ROPE_INIT_FUNCTIONS

    from attncli.errors import Location
    from attncli.spec.arch_rope import rope
    from attncli.spec.model_folder import config_node, tree
    from attncli.spec.rope_scaling import rope_scaling

    longest = 163840
    config = transformers.LlamaConfig(hidden_size=64, num_attention_heads=4, head_dim=16,
                                      max_position_embeddings=longest, rope_theta=10000.0,
                                      rope_scaling=dict(parameters))
    kind = config.rope_parameters["rope_type"]
    theirs, factor = ROPE_INIT_FUNCTIONS[kind](config, "cpu")
    path = tmp_path / "config.json"
    path.write_text(json.dumps({"max_position_embeddings": longest, "rope_theta": 10000.0,
                                "rope_scaling": parameters}), encoding="utf-8")
    keys = rope(config_node(path, "config.json", 10**6), "config.json")["rope"]
    scaling = rope_scaling(tree(keys["scaling"], Location("config.json", "rope_scaling")))
    assert np.allclose(frequencies(16, keys["base"], scaling), theirs.double().numpy(),
                       rtol=4e-7, atol=0)
    assert attention_factor(scaling) == pytest.approx(factor, rel=1e-15)
