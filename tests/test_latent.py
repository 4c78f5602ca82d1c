"""Multi-head latent attention (DeepSeek-V2, V3): the example worked here by hand, the absorbed
scores against the plain ones, the cache sizes per token as a formula, the refusals, and
DeepSeek-V3's own attention module from `transformers` as the oracle."""

from __future__ import annotations

import json
import math
import re
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from attncli import build, load_spec, loads_spec
from attncli.i18n import translate
from tests.conftest import run, run_apart
from tests.test_checkpoints import needed
from tests.test_qk_norm import float64_parts
from tests.test_softcap import rope_table

ROOT = Path(__file__).parent.parent
EXAMPLE = ROOT / "configs" / "mla_deepseek.yaml"
TOLERANCE = 1e-10


def shown(walkthrough: Any, step_id: str, head: int | None) -> dict[str, Any]:
    step = next(s for s in walkthrough.steps if s.id == step_id and s.head == head)
    return {m.symbol.text: m for m in step.matrices}


def test_the_example_by_hand() -> None:
    """x_the = [1, 0, 1, 0, 0.5, 0, 0, 1]; W_DKV takes x1 + x5/2 + x7/2, x2 + x6/2 + x7/2,
    x3 + x5/2 + x8/2, x4 + x6/2 + x8/2; RMSNorm over d_c = 4; K_R = x·W_KR = [x1 + x5, x2 + x7]
    turned by 0 at the first position."""
    walkthrough = build(load_spec(str(EXAMPLE)))
    latent = shown(walkthrough, "latent", None)
    c = [1 + 0.25, 0.0, 1 + 0.25 + 0.5, 0.5]  # the: x1 + x5/2, x2, x3 + x5/2 + x8/2, x8/2
    assert latent["C_KV"].row(0).tolist() == pytest.approx(c, abs=1e-15)
    rms = math.sqrt(sum(x * x for x in c) / 4 + 1e-6)
    assert latent["RMS(C_KV)"].at(0, 0) == pytest.approx(rms, abs=1e-15)
    assert latent["C̃_KV"].row(0).tolist() == pytest.approx([x / rms for x in c], abs=1e-15)
    k_r = shown(walkthrough, "latent_rope", None)["K_R"]
    assert k_r.row(0).tolist() == pytest.approx([1.5, 0.0], abs=1e-15)  # position 0: not turned
    # cat: x·W_KR = [0, 1 + 1] turned by 1 radian (one pair, ω₀ = 1)
    assert k_r.row(1).tolist() == pytest.approx([-2 * math.sin(1), 2 * math.cos(1)], abs=1e-15)
    # head 2's key of "the": its W_UK columns (3 and 4) are [0, 1, 0, 1]ᵀ and [1, 0, −1, 0]ᵀ
    K = shown(walkthrough, "latent_kv", 2)["K"]
    assert K.row(0).tolist() == pytest.approx([(c[1] + c[3]) / rms, (c[0] - c[2]) / rms,
                                               1.5, 0.0], abs=1e-15)


def test_the_absorbed_scores_are_the_plain_ones() -> None:
    """(Q_C·W_UKᵀ)·C̃_KVᵀ + Q_R·K_Rᵀ against S of every head, and the written cell both ways."""
    walkthrough = build(load_spec(str(EXAMPLE)))
    latent = shown(walkthrough, "latent", None)["C̃_KV"].values  # (m, d_c)
    k_r = shown(walkthrough, "latent_rope", None)["K_R"].values  # (m, d_R)
    spec = load_spec(str(EXAMPLE))
    assert spec.latent is not None
    for head in (1, 2):
        q = shown(walkthrough, "latent_q", head)["Q"].values  # (n, d_nope + d_R)
        u = shown(walkthrough, "absorbed", head)["Q_C·W_UKᵀ"].values  # (n, d_c)
        w_uk = spec.latent.W_UK[:, 2 * (head - 1):2 * head]  # (d_c, d_nope)
        assert np.abs(u - q[:, :2] @ w_uk.T).max() < 1e-15
        s = shown(walkthrough, "scores", head)["S"].values  # (n, m)
        assert np.abs(u @ latent.T + q[:, 2:] @ k_r.T - s).max() < 1e-12
    result = run("explain", str(EXAMPLE), "--format", "text", "--steps", "absorbed", "--head",
                 "1", "--no-header")
    assert result.exit_code == 0, result.stderr
    lines = re.sub(r"\n +", " ", result.stdout)
    assert "S[down, the] = q_down·k_the = 1.00·2.72 + 0.00·(−0.45) + (−0.99)·1.50 + 0.14·0.00 ≈ " \
        "1.23" in lines
    assert "S[down, the] = (Q_C·W_UKᵀ)[down, :]·C̃_KV[the, :] + Q_R[down, :]·K_R[the, :] = " \
        "1.00·1.13 + 0.00·0.00 + 1.00·1.59 + 0.00·0.45 + (−0.99)·1.50 + 0.14·0.00 ≈ 1.23" in lines
    assert "Check: every score made this way equals S to 12 decimal places." in lines


def test_the_cache_per_token() -> None:
    """At float16, 2 bytes a number: MLA keeps (d_c + d_R)·2, MHA h·(d_nope + d_R + d_v)·2,
    MQA (d_nope + d_R + d_v)·2 per token per layer."""
    h, d_c, d_rope, d_nope, d_v = 2, 4, 2, 2, 2
    mla, mha, mqa = (d_c + d_rope) * 2, h * (d_nope + d_rope + d_v) * 2, (d_nope + d_rope + d_v) * 2
    result = run("explain", str(EXAMPLE), "--format", "text", "--steps", "latent_cache",
                 "--no-header")
    text = result.stdout.replace("\n   ", " ").replace("\u00a0", " ")
    assert f"({d_c} + {d_rope}) · 2 = {mla} bytes." in text
    assert f"{h} · ({d_nope + d_rope} + {d_v}) · 2 = {mha} bytes." in text
    assert f"({d_nope + d_rope} + {d_v}) · 2 = {mqa} bytes." in text
    for lang, words in (("pl", f"(4 + 2) · 2 = {mla} bajtów"), ("ru", f"(4 + 2) · 2 = {mla} байт")):
        translated = run("explain", str(EXAMPLE), "--format", "text", "--steps", "latent_cache",
                         "--lang", lang)
        assert words in translated.stdout.replace("\u00a0", " ").replace("\n   ", " ")


def test_four_heads_are_cached_beside_gqa_of_two_groups() -> None:
    """h = 4 heads of d_nope = d_R = d_v = 2 over d_c = 4: MLA (4 + 2)·2 = 12 bytes, MHA
    4·(4 + 2)·2 = 48, GQA of 2 groups 2·(4 + 2)·2 = 24, MQA (4 + 2)·2 = 12."""
    def drawn(seed: int, rows: int, columns: int) -> dict[str, Any]:
        return {"random": {"seed": seed}, "shape": [rows, columns]}

    spec = {"tokens": ["a", "b", "c"], "embeddings": {"random": {"seed": 1}, "dim": 8},
            "heads": 4, "latent": {"W_DKV": drawn(2, 8, 4), "W_UK": drawn(3, 4, 8),
                                   "W_UV": drawn(4, 4, 8), "W_KR": drawn(5, 8, 2),
                                   "W_Q": drawn(6, 8, 8), "W_QR": drawn(7, 8, 8)}}
    walkthrough = build(loads_spec(json.dumps(spec), name="four.json"))
    step = next(s for s in walkthrough.steps if s.id == "latent_cache")
    notes = [translate(note, "en").replace("\u00a0", " ") for note in step.notes]
    assert notes[0].endswith("(4 + 2) · 2 = 12 bytes.")
    assert notes[2].endswith("4 · (4 + 2) · 2 = 48 bytes.")
    assert notes[3].endswith("2 · (4 + 2) · 2 = 24 bytes.") and "groups of 2" in notes[3]
    assert notes[4].endswith("(4 + 2) · 2 = 12 bytes.") and "all query heads" in notes[4]


def test_hand_calculation_writes_every_latent_line_exactly() -> None:
    """Rounded as it is written down, each line's printed numbers give its printed result."""
    import yaml

    spec = yaml.safe_load(EXAMPLE.read_text(encoding="utf-8"))
    spec["display"] = {"round_intermediates": True}
    walkthrough = build(loads_spec(json.dumps(spec), name="hand.json"))
    lines = [line for step in walkthrough.steps if step.id in LATENT_STEPS
             for line in step.expansions]
    assert len(lines) == 2 + 1 + 2 * (1 + 2 + 3)  # latent, latent_rope, each head's three steps
    assert all(line.exact for line in lines)
    absorbed = next(s for s in walkthrough.steps if s.id == "absorbed")
    assert absorbed.expansions[0].result == absorbed.expansions[2].result


LATENT_STEPS = ("latent", "latent_rope", "latent_q", "latent_kv", "absorbed")


def spec_text(**latent: Any) -> str:
    """Two tokens, d_model 2, one head of d_nope = d_R = d_v = 1 and d_c = 1, with `latent`."""
    keys = {"W_DKV": [[1.0], [0.0]], "W_UK": [[1.0]], "W_UV": [[1.0]], "W_KR": [[0.0], [1.0]],
            "W_Q": [[1.0], [0.0]], "W_QR": [[0.0], [1.0]], **latent}
    return json.dumps({"tokens": ["a", "b"], "embeddings": [[1.0, 2.0], [3.0, 4.0]],
                       "latent": keys})


def test_a_head_of_one_feature_each_by_hand() -> None:
    """c = x·[1, 0]ᵀ = x1, k = [c, x2], v = c, q = [x1, x2]: S = [[1 + 4, 3 + 8], [3 + 8,
    9 + 16]] / √2 before the softmax; without RoPE nothing turns."""
    walkthrough = build(loads_spec(spec_text(), name="one.json"))
    s = shown(walkthrough, "scores", None)["S"].values
    assert s.tolist() == [[5.0, 11.0], [11.0, 25.0]]
    assert shown(walkthrough, "latent_kv", None)["V"].values.tolist() == [[1.0], [3.0]]
    assert walkthrough.heads[0].divisor == pytest.approx(math.sqrt(2), abs=1e-15)


@pytest.mark.parametrize(("extra", "problem"), [
    ({"W_UK": [[1.0, 2.0, 3.0]]}, "latent.W_UK: cannot split W_UK = 3 of the weights into 2 equal "
                                  "heads"),
    ({"W_Q": [[1.0], [0.0]]}, "latent.W_Q is 2 × 1, expected d_model × heads·d_nope = 2 × 2"),
    ({"norm": {"eps": 0}}, "latent.norm.eps: expected a positive eps, found 0"),
    ({"norm": {"q_gain": [1.0]}}, "latent.norm.q_gain: q_gain needs W_DQ beside it in latent"),
])
def test_a_bad_latent_is_refused_where_it_is(tmp_path: Path, extra: dict[str, Any],
                                             problem: str) -> None:
    spec = tmp_path / "bad.json"
    keys = {"W_DKV": [[1.0], [0.0]], "W_UK": [[1.0, 1.0]], "W_UV": [[1.0, 1.0]],
            "W_KR": [[0.0], [1.0]], "W_Q": [[1.0, 0.0], [0.0, 1.0]],
            "W_QR": [[0.0, 1.0], [1.0, 0.0]], **extra}
    spec.write_text(json.dumps({"tokens": ["a", "b"], "embeddings": [[1.0, 2.0], [3.0, 4.0]],
                                "heads": 2, "latent": keys}), encoding="utf-8")
    result = run("explain", str(spec))
    assert (result.exit_code, result.stdout) == (2, "")
    assert result.stderr.startswith(f"{spec}:") and result.stderr.endswith(f": {problem}\n"), \
        result.stderr


@pytest.mark.parametrize(("beside", "problem"), [
    ("decode: {prefill: 1}\nmask: causal\n",
     "latent: decode does not work with latent yet; remove latent or decode"),
    ("backward: {dO: ones}\n", "latent: backward does not work with latent yet; remove latent or "
                               "backward"),
    ("dtype: float16\n", "latent: expected no latent with dtype: float16 (low precision is worked "
                         "out without it), found one; remove it or use dtype: float64"),
    ("kv_heads: 1\n", "kv_heads: kv_heads does not work with latent yet; remove latent or "
                      "kv_heads"),
    ("weights: {W_Q: identity}\n", "weights.W_Q: unknown key; expected one of W_O, b_O"),
])
def test_what_latent_does_not_work_with_is_refused(tmp_path: Path, beside: str,
                                                   problem: str) -> None:
    spec = tmp_path / "spec.yaml"
    latent = json.loads(spec_text())["latent"]
    spec.write_text("tokens: [a, b]\nembeddings: [[1, 2], [3, 4]]\nlatent: "
                    + json.dumps(latent) + "\n" + beside, encoding="utf-8")
    result = run("explain", str(spec))
    assert (result.exit_code, result.stdout) == (2, ""), result.stderr
    assert problem in result.stderr, result.stderr
    assert result.stderr.count("\n") == 1


def test_the_column_convention_takes_each_matrix_out_by_in() -> None:
    """Each latent matrix written as PyTorch's Linear keeps it (out × in) with convention: column
    gives the example's very weights and output."""
    import yaml

    spec = yaml.safe_load(EXAMPLE.read_text(encoding="utf-8"))
    row = build(loads_spec(json.dumps(spec), name="row.json"))
    spec["latent"] = {key: np.array(value).T.tolist() if key.startswith("W_") else value
                      for key, value in spec["latent"].items()}
    column = build(loads_spec(json.dumps(dict(spec, convention="column")), name="column.json"))
    for a, b in zip(row.heads, column.heads, strict=True):
        assert np.abs(a.weights.values - b.weights.values).max() == 0.0
    assert np.abs(row.output.values - column.output.values).max() == 0.0
    wrong = dict(spec, convention="row")
    result = run("explain", "-", input=json.dumps(wrong))
    assert result.exit_code == 2
    assert "latent.W_DKV is 4 × 8, expected d_model × d_c = 8 × 8" in result.stderr, result.stderr


def test_backward_and_the_spreadsheet_are_refused_in_one_line(tmp_path: Path) -> None:
    option = run("explain", str(EXAMPLE), "--backward")
    assert (option.exit_code, option.stderr) == (
        2, "attn: --backward: --backward does not work with latent yet; remove latent or "
           "--backward\n")
    book = run("export", str(EXAMPLE), "--xlsx", "-o", str(tmp_path / "out.xlsx"))
    assert (book.exit_code, book.stderr) == (
        2, "attn: --xlsx does not write multi-head latent attention yet; use another format for "
           "a spec with latent\n")
    assert not (tmp_path / "out.xlsx").exists()


def test_an_odd_rope_part_is_refused(tmp_path: Path) -> None:
    spec = tmp_path / "odd.json"
    spec.write_text(json.dumps(dict(json.loads(spec_text()), positional="rope")),
                    encoding="utf-8")
    result = run("explain", str(spec))
    assert result.exit_code == 2
    assert result.stderr.endswith("latent.W_KR: rope turns pairs of features and needs an even "
                                  "d_R; found d_R = 1\n"), result.stderr


# --- the oracle: DeepSeek-V3's attention module in transformers ------------------------------


def latent_keys(module: Any, config: Any) -> dict[str, Any]:
    """attn's `latent` of the module's weights: DeepSeek lays each head's outputs side by side,
    [k_nope | v] in kv_b_proj and [q_nope | q_rope] in q_proj (or q_b_proj)."""
    h, dn, dr, dv = (config.num_attention_heads, config.qk_nope_head_dim,
                     config.qk_rope_head_dim, config.v_head_dim)
    d_c = config.kv_lora_rank
    kv_a = module.kv_a_proj_with_mqa.weight.detach().numpy()  # (d_c + d_R, d_model)
    kv_b = module.kv_b_proj.weight.detach().numpy().reshape(h, dn + dv, d_c)
    q_proj = module.q_proj if module.q_proj is not None else module.q_b_proj
    q = q_proj.weight.detach().numpy().reshape(h, dn + dr, -1)  # (h, d_k, d_q)
    keys: dict[str, Any] = {
        "W_DKV": kv_a[:d_c].T.tolist(), "W_KR": kv_a[d_c:].T.tolist(),
        "W_UK": np.concatenate(kv_b[:, :dn], axis=0).T.tolist(),
        "W_UV": np.concatenate(kv_b[:, dn:], axis=0).T.tolist(),
        "W_Q": np.concatenate(q[:, :dn], axis=0).T.tolist(),
        "W_QR": np.concatenate(q[:, dn:], axis=0).T.tolist(),
        "norm": {"eps": module.kv_a_layernorm.variance_epsilon,
                 "kv_gain": module.kv_a_layernorm.weight.tolist()},
    }
    if module.q_a_proj is not None:
        keys["W_DQ"] = module.q_a_proj.weight.detach().numpy().T.tolist()
        keys["norm"]["q_gain"] = module.q_a_layernorm.weight.tolist()
    return keys


@pytest.mark.parametrize(("q_lora_rank", "interleave", "seed"),
                         [(None, True, 1), (None, False, 2), (3, True, 3)])
def test_deepseek_v3_attention_module_agrees(monkeypatch: pytest.MonkeyPatch,
                                             q_lora_rank: int | None, interleave: bool,
                                             seed: int) -> None:
    torch = needed("torch")
    deepseek = needed("transformers.models.deepseek_v3.modeling_deepseek_v3")
    from transformers import DeepseekV3Config

    config = DeepseekV3Config(hidden_size=8, num_attention_heads=2, num_key_value_heads=2,
                              q_lora_rank=q_lora_rank, kv_lora_rank=4, qk_rope_head_dim=4,
                              qk_nope_head_dim=2, v_head_dim=3, num_hidden_layers=1,
                              intermediate_size=16, moe_intermediate_size=8, vocab_size=32,
                              rope_interleave=interleave, attention_bias=False)
    config._attn_implementation = "eager"
    module = deepseek.DeepseekV3Attention(config, layer_idx=0).double().eval()
    rng = np.random.default_rng(seed)
    with torch.no_grad():
        for parameter in module.parameters():
            parameter.copy_(torch.tensor(rng.uniform(-1.0, 1.0, parameter.shape)))
    # the RMSNorm and the eager softmax the library keeps in float32, run in float64
    float64_parts(monkeypatch, torch, deepseek.DeepseekV3RMSNorm)
    n = 5
    x = rng.uniform(-2.0, 2.0, size=(n, 8))  # (n, d_model)
    causal = np.triu(np.full((n, n), -np.inf), k=1)  # (n, n)
    with torch.no_grad():
        output, weights = module(torch.tensor(x)[None],
                                 rope_table(torch, n, config.qk_rope_head_dim, 10000.0),
                                 torch.tensor(causal)[None, None])
    spec = {
        "tokens": [f"t{i}" for i in range(n)], "embeddings": x.tolist(), "heads": 2,
        "latent": latent_keys(module, config),
        "weights": {"W_O": module.o_proj.weight.detach().numpy().T.tolist()},
        "positional": {"rope": {"base": 10000.0,
                                "layout": "interleaved" if interleave else "half"}},
        "mask": "causal",
    }
    walkthrough = build(loads_spec(json.dumps(spec), name="deepseek.json"))
    for h, head in enumerate(walkthrough.heads):
        assert np.abs(head.weights.values - weights[0, h].numpy()).max() < TOLERANCE
    assert np.abs(walkthrough.output.values - output[0].numpy()).max() < TOLERANCE
    # the layout matters: the other pairing of d_R = 4 gives other weights
    spec["positional"] = {"rope": {"base": 10000.0,
                                   "layout": "half" if interleave else "interleaved"}}
    other = build(loads_spec(json.dumps(spec), name="other.json"))
    assert np.abs(other.heads[0].weights.values - weights[0, 0].numpy()).max() > 1e-4


def test_attn_check_takes_the_heads_q_k_and_v_made_from_the_latent() -> None:
    """Q of head 1 as printed is right; a K with one cell off is one wrong number; the latent
    itself is checked as C̃_KV, the step's result."""
    q = "1.5 0 1 0; 0 1.5 -1.14 1.92; 1 1 -1.78 0.29; 1 0 -0.99 0.14"
    right = run("check", str(EXAMPLE), "--step", "Q", "--head", "1", "--answer", q)
    assert (right.exit_code, right.stdout) == (
        0, "Q (head 1): right to your precision (all 16 numbers).\n"), right.stderr
    k = "2.72 -0.45 1.5 0; 0.45 0.45 -1.68 1.08; 1.66 1.11 -1.78 0.29; 2.04 -1.13 -0.99 0.5"
    wrong = run("check", str(EXAMPLE), "--step", "K", "--head", "1", "--answer", k)
    assert wrong.exit_code == 1
    assert ("1 of 16 numbers differs:\n   K[down, d4]: you wrote 0.5, the right value is 0.1 "
            "(0.141)") in wrong.stdout
    latent = run("check", str(EXAMPLE), "--step", "latent", "--answer",
                 "1.13 0 1.59 0.45; 0.45 1.59 0 1.13; 1.39 1.39 0.28 0.28; 0.45 0 1.59 1.13")
    assert latent.exit_code == 0, latent.stdout + latent.stderr


def test_latent_weights_whose_product_overflows_give_the_one_line(tmp_path: Path) -> None:
    """W_DKV·W_UK past float64 (a head's keys as one map of x): NumPy's English warning and
    attn's own source line came before the refusal."""
    (tmp_path / "s.yaml").write_text(
        "tokens: [a, b]\nembeddings: [[1.0, 0.0], [0.0, 1.0]]\nlatent:\n"
        "  W_DKV: [[2.0], [1.0]]\n  W_UK: [[1.0e308]]\n  W_UV: [[1.0]]\n"
        "  W_KR: [[1.0, 0.0], [0.0, 1.0]]\n  W_Q: [[1.0], [0.0]]\n"
        "  W_QR: [[1.0, 0.0], [0.0, 1.0]]\n"
        "positional: {rope: {base: 10000, layout: interleaved}}\n")
    done = run_apart(tmp_path, "validate", "s.yaml")
    assert done.returncode == 2
    assert done.stderr.splitlines() == [
        "s.yaml: K[a, d1] is too large for a 64-bit float; scale the inputs down",
        "attn: 1 spec of 1 has errors"]
