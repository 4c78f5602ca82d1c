"""Attention sinks: gpt-oss's learned sink logit of each head in the softmax's denominator
(`sinks:`), and StreamingLLM's first keys kept beside a sliding window (`{window: w,
sink_tokens: n}`): numbers worked here by formula, the written-out cells, the readings in three
languages, the refusals, and gpt-oss's own attention module from `transformers` as the oracle."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from attncli import build, load_spec, loads_spec, render
from attncli.compute import ops
from attncli.i18n import translate
from tests.conftest import run
from tests.test_checkpoints import needed
from tests.test_export_renderers import compile_latex

ROOT = Path(__file__).parent.parent
EXAMPLE = ROOT / "configs" / "sinks_gpt_oss.yaml"
TOLERANCE = 1e-10
TWO_TOKENS = {"tokens": ["a", "b"], "embeddings": [[1.0, 0.0], [0.0, 1.0]], "scale": "none",
              "sinks": 0.5}


def steps_of(spec: dict[str, Any]) -> dict[str, Any]:
    walkthrough = build(loads_spec(json.dumps(spec), name="sinks.json"))
    return {step.id: step for step in walkthrough.steps}


def test_two_tokens_by_hand() -> None:
    """Q = K = V = I, no scale: S = I, and the sink s = 0.5 joins each row's denominator.
    Row a: m = max(0.5, 1) = 1, so A[a, a] = e^0 / (e^(0.5 − 1) + e^0 + e^(0 − 1))."""
    steps = steps_of(TWO_TOKENS)
    denominator = math.exp(0.5 - 1) + math.exp(0.0) + math.exp(-1.0)
    worked = {"aa": 1 / denominator, "ab": math.exp(-1.0) / denominator,
              "sink": math.exp(-0.5) / denominator}
    # the same numbers by hand, to four places: e = 2.71828, e^0.5 = 1.64872, Σ = 5.36700
    assert (round(worked["aa"], 4), round(worked["ab"], 4), round(worked["sink"], 4)) == (
        0.5065, 0.1863, 0.3072)
    A = steps["weights"].matrices[0]
    assert A.values.ravel().tolist() == pytest.approx(
        [worked["aa"], worked["ab"], worked["ab"], worked["aa"]], abs=1e-15)
    share = steps["sinks"].matrices[0]
    assert (share.rows, share.columns) == (("a", "b"), ("s",))
    assert share.values[:, 0].tolist() == pytest.approx([worked["sink"]] * 2, abs=1e-15)
    assert share.at(0, 0) == pytest.approx(1 - A.values[0].sum(), abs=1e-15)
    # Z = A·V with V = I: the output row is the row of weights, the sink's share lost
    output = steps["output"].matrices[0]
    assert output.values[0].tolist() == pytest.approx([worked["aa"], worked["ab"]], abs=1e-15)


def test_the_sink_term_and_its_share_are_written_out(tmp_path: Path) -> None:
    spec = tmp_path / "two.json"
    spec.write_text(json.dumps(TWO_TOKENS), encoding="utf-8")
    result = run("explain", str(spec), "--format", "text", "--steps", "weights,sinks",
                 "--expand", "all")
    assert result.exit_code == 0, result.stderr
    out = result.stdout
    assert "A[i, j] = e^S[i, j] / (e^s + Σₖ e^S[i, k]),  s = 0.5" in out
    assert "e^s = e^0.50 = 1.65" in out
    assert "Σ = 2.72 + 1.00 + 1.65 = 5.37" in out
    assert "A[a, a] = 2.72 / 5.37 = 0.51" in out
    # 1 − (0.51 + 0.19) is 0.30 on the printed numbers, the share itself 0.3072: ≈, not =
    assert "A_s[a] = 1 − Σⱼ A[a, j] = 1.00 − (0.51 + 0.19) ≈ 0.31" in out
    assert "The query “a” gives the sink the most: 0.31 of its weight." in out


@pytest.mark.parametrize(("lang", "sentences"), [
    ("en", ("The query “the” gives the sink the most: 0.78 of its weight.",
            "3 queries give the sink more than half of their weight.",
            "“the” sees only itself: it keeps 0.22 there, and the sink takes the rest.")),
    ("pl", ("Najwięcej oddaje ujściu zapytanie „the”: 0.78 swojej wagi.",
            "3 zapytania oddają ujściu ponad połowę swojej wagi.",
            "„the” widzi tylko siebie: na niego samego przypada 0.22, a resztę bierze ujście.")),
    ("ru", ("Больше всего отдаёт стоку запрос «the»: 0.78 своего веса.",
            "3 запроса отдают стоку больше половины своего веса.",
            "«the» видит только себя: на него самого приходится 0.22, а остальное забирает "
            "сток.")),
])
def test_the_example_is_read_in_three_languages(lang: str, sentences: tuple[str, ...]) -> None:
    result = run("explain", str(EXAMPLE), "--format", "text", "--steps", "weights,sinks",
                 "--head", "2", "--lang", lang, "--width", "200")
    assert result.exit_code == 0, result.stderr
    out = result.stdout.replace("\u00a0", " ")
    for sentence in sentences:
        assert sentence in out, out


def test_the_examples_numbers() -> None:
    """Head 2 sees features 3–4: q_the = k_the = [1, 0], so S′[the, the] = 1/√2, and the sink
    s = 2 takes e^2 / (e^2 + e^(1/√2)) of the's weight."""
    walkthrough = build(load_spec(str(EXAMPLE)))
    shares = [s.matrices[0] for s in walkthrough.steps if s.id == "sinks"]
    assert len(shares) == 2
    the = math.exp(2.0) / (math.exp(2.0) + math.exp(1 / math.sqrt(2)))
    assert shares[1].at(0, 0) == pytest.approx(the, abs=1e-15) and round(the, 2) == 0.78
    # head 1, "down": its four scores are 0 and s = −1, so e^−1 / (4 + e^−1) = 0.0842
    down = math.exp(-1.0) / (4 + math.exp(-1.0))
    assert shares[0].values.max() == pytest.approx(down, abs=1e-15) and round(down, 2) == 0.08
    assert int((shares[1].values > 0.5).sum()) == 3


def test_a_query_that_sees_no_key_gives_the_sink_everything() -> None:
    """gpt-oss's softmax always has the sink: a row whose keys are all hidden is A = 0 and
    A_s = 1, where a plain softmax would need masked_rows."""
    spec = dict(TWO_TOKENS, mask=[[0, 0], [1, 1]], masked_rows="error")
    steps = steps_of(spec)
    assert steps["weights"].matrices[0].values[0].tolist() == [0.0, 0.0]
    assert steps["sinks"].matrices[0].at(0, 0) == 1.0


def test_json_and_the_spreadsheet_carry_the_sink(tmp_path: Path) -> None:
    result = run("export", str(EXAMPLE), "--json", "--steps", "sinks")
    assert result.exit_code == 0, result.stderr
    steps = result.json()["steps"]
    assert [s["id"] for s in steps] == ["sinks", "sinks"]
    openpyxl = needed("openpyxl")
    out = tmp_path / "sinks.xlsx"
    made = run("export", str(EXAMPLE), "--xlsx", "-o", str(out))
    assert made.exit_code == 0, made.stderr
    formulas = [c.value for sheet in openpyxl.load_workbook(out).worksheets
                for row in sheet.iter_rows() for c in row if isinstance(c.value, str)]
    # tests/test_xlsx.py recalculates this file in LibreOffice against attn's numbers
    assert any(f.startswith("=MAX(") and f.endswith(",2.0)") for f in formulas)
    assert any("+IF(2.0/2-" in f and ",EXP(2.0-" in f for f in formulas)
    assert any("+IF(-1.0/2-" in f and ",EXP(-1.0-" in f for f in formulas)
    assert any(f.startswith("=1-SUM(") for f in formulas)


# --- StreamingLLM: the first keys beside a sliding window -------------------------------------


def test_window_with_sink_tokens_by_hand() -> None:
    """5 tokens, a causal window of 1 and 2 sink tokens: query i sees i − 1, i, and keys 0 and 1
    when they are not ahead of it."""
    expected = np.array([[1, 0, 0, 0, 0],
                         [1, 1, 0, 0, 0],
                         [1, 1, 1, 0, 0],
                         [1, 1, 1, 1, 0],
                         [1, 1, 0, 1, 1]], dtype=bool)
    assert (ops.window(5, 5, 1, True, 2) == expected).all()
    both_ways = np.array([[1, 1, 0, 0], [1, 1, 1, 0], [1, 1, 1, 1], [1, 0, 1, 1]], dtype=bool)
    assert (ops.window(4, 4, 1, False, 1) == both_ways).all()
    spec = {"tokens": list("abcde"), "embeddings": np.eye(5).tolist(),
            "mask": {"window": 1, "causal": True, "sink_tokens": 2}}
    masked = steps_of(spec)["masked"].matrices[0].values
    assert (np.isfinite(masked) == expected).all()


def header_mask(sink_tokens: int) -> dict[str, str]:
    """The header's mask with a causal window of 1 and `sink_tokens`, in each language."""
    spec = {"tokens": list("abcdefghijklmnopqrstuvwxyz"), "embeddings": np.eye(26).tolist(),
            "mask": {"window": 1, "causal": True, "sink_tokens": sink_tokens}}
    walkthrough = build(loads_spec(json.dumps(spec), name="s.json"))
    return {lang: translate(walkthrough.header.mask, lang).replace("\u00a0", " ")
            for lang in ("en", "pl", "ru")}


def test_the_header_names_the_sink_tokens() -> None:
    """One key is "the first key", with no numeral; 2, 5, 21 and 22 take their plural forms."""
    assert header_mask(1) == {"en": "causal window of 1 and the first key",
                              "pl": "przyczynowe okno o szerokości 1 i pierwszy klucz",
                              "ru": "каузальное окно шириной 1 и первый ключ"}
    assert header_mask(2) == {"en": "causal window of 1 and the first 2 keys",
                              "pl": "przyczynowe okno o szerokości 1 i 2 pierwsze klucze",
                              "ru": "каузальное окно шириной 1 и первые 2 ключа"}
    assert header_mask(5)["pl"].endswith(" i 5 pierwszych kluczy")
    assert header_mask(5)["ru"].endswith(" и первые 5 ключей")
    assert header_mask(21)["ru"].endswith(" и первые 21 ключ")
    assert header_mask(22)["pl"].endswith(" i 22 pierwsze klucze")


# --- bad input -------------------------------------------------------------------------------


def explain(tmp_path: Path, text: str, *more: str) -> tuple[Path, Any]:
    spec = tmp_path / "spec.yaml"
    spec.write_text(text, encoding="utf-8")
    out = tmp_path / "out.tex"
    result = run("export", str(spec), "--latex", "-o", str(out), *more)
    assert not out.exists()
    return spec, result


TWO_HEADS = "tokens: [a, b]\nembeddings: [[1, 0], [0, 1]]\nheads: 2\n"


@pytest.mark.parametrize(("line", "where", "problem"), [
    ("sinks: [1.0]", "4:8", "sinks: has 1 sink logit, expected one per head (2)"),
    ("sinks: [1, 2, 3]", "4:8", "sinks: has 3 sink logits, expected one per head (2)"),
    ("sinks: 1.5", "4:8", "sinks: expected a list of 2 sink logits, one per head, found the "
                          "number 1.5"),
    ("sinks: [1, big]", "4:12", "sinks[1]: expected a number, found the text \"big\""),
    ("sinks: []", "4:8", "sinks: expected a list of 2 sink logits, one per head, found an empty "
                         "list"),
    ("sinks: [1, .inf]", "4:12", "sinks[1]: expected a finite number, found .inf"),
])
def test_a_bad_sinks_list_is_one_line_with_its_place(tmp_path: Path, line: str, where: str,
                                                     problem: str) -> None:
    spec, result = explain(tmp_path, TWO_HEADS + line + "\n")
    assert (result.exit_code, result.stdout, result.stderr) == (2, "", f"{spec}:{where}: "
                                                                         f"{problem}\n")


@pytest.mark.parametrize(("lang", "problem"), [
    ("pl", "sinks: ma 3 logity ujścia, oczekiwano jednego na głowicę (2)"),
    ("ru", "sinks: задано 3 логита стока, а ожидается по одному на голову (2)"),
])
def test_a_wrong_length_is_refused_in_each_language(tmp_path: Path, lang: str,
                                                    problem: str) -> None:
    spec, result = explain(tmp_path, TWO_HEADS + "sinks: [1, 2, 3]\n", "--lang", lang)
    assert (result.exit_code, result.stderr.replace("\u00a0", " ")) == (
        2, f"{spec}:4:8: {problem}\n")


@pytest.mark.parametrize(("more", "key"), [
    ("mask: causal\ndecode: {prefill: 1}\n", "decode"),
    ("backward: {dO: ones}\n", "backward"),
    ("tiling: {keys: 1}\n", "tiling"),
])
def test_what_does_not_add_a_sink_yet_is_refused_beside_it(tmp_path: Path, more: str,
                                                           key: str) -> None:
    spec, result = explain(tmp_path, "tokens: [a, b]\nembeddings: [[1, 0], [0, 1]]\nsinks: 1\n"
                           + more)
    assert (result.exit_code, result.stderr) == (
        2, f"{spec}:3:8: sinks: {key} does not work with sinks yet; remove sinks or {key}\n")


def test_backward_option_and_low_precision_are_refused(tmp_path: Path) -> None:
    option = run("explain", str(EXAMPLE), "--backward")
    assert option.exit_code == 2
    assert option.stderr.endswith("--backward does not work with sinks yet; remove sinks or "
                                  "--backward\n")
    spec, result = explain(tmp_path, "tokens: [a, b]\nembeddings: [[1, 0], [0, 1]]\nsinks: 1\n"
                           "dtype: bfloat16\n")
    assert (result.exit_code, result.stderr) == (
        2, f"{spec}:3:8: sinks: expected no sinks with dtype: bfloat16 (low precision is "
           "worked out without it), found one; remove it or use dtype: float64\n")


@pytest.mark.parametrize(("mask", "where", "problem"), [
    ("{sink_tokens: 1}", "3:21", "mask.sink_tokens: sink_tokens keeps the first keys beside a "
                                 "window; add window: w"),
    ("{window: 1, sink_tokens: -1}", "3:32", "mask.sink_tokens: expected a whole number of at "
                                             "least 0, found -1"),
    ("{window: 1, sink_token: 1}", "3:19", "mask.sink_token: unknown key; did you mean "
                                           "sink_tokens?"),
])
def test_a_bad_sink_tokens_is_refused_where_it_is(tmp_path: Path, mask: str, where: str,
                                                  problem: str) -> None:
    spec, result = explain(tmp_path, f"tokens: [a, b]\nembeddings: [[1, 0], [0, 1]]\nmask: "
                           f"{mask}\n")
    assert (result.exit_code, result.stderr) == (2, f"{spec}:{where}: {problem}\n")


# --- the oracle: gpt-oss's attention module in transformers -----------------------------------


def gpt_oss_attention(torch: Any, seed: int) -> Any:
    """A tiny random GptOssAttention: 4 query heads sharing 2 key/value heads, head_dim 4,
    d_model 8, with biases (as gpt-oss has), eager attention, float64."""
    gpt_oss = needed("transformers.models.gpt_oss.modeling_gpt_oss")
    from transformers import GptOssConfig

    config = GptOssConfig(hidden_size=8, num_attention_heads=4, num_key_value_heads=2,
                          head_dim=4, num_hidden_layers=2, intermediate_size=16, vocab_size=32,
                          num_local_experts=2, num_experts_per_tok=1, sliding_window=3,
                          attention_bias=True)
    config._attn_implementation = "eager"
    torch.manual_seed(seed)
    module = gpt_oss.GptOssAttention(config, layer_idx=1).double().eval()
    for linear in (module.q_proj, module.k_proj, module.v_proj, module.o_proj):
        torch.nn.init.uniform_(linear.weight, -1.0, 1.0)
        torch.nn.init.uniform_(linear.bias, -0.5, 0.5)
    torch.nn.init.uniform_(module.sinks, -1.0, 3.0)  # some sinks above the scores, some below
    return module


def rope_table(torch: Any, n: int, d: int, base: float) -> tuple[Any, Any]:
    """cos and sin of p·θᵢ, θᵢ = base^(−2i/d), as GptOssRotaryEmbedding lays them out (each
    angle once, for the two halves), worked in float64."""
    theta = base ** (-np.arange(0, d, 2) / d)  # (d/2,)
    angles = np.arange(n)[:, None] * theta[None, :]  # (n, d/2)
    return torch.tensor(np.cos(angles))[None], torch.tensor(np.sin(angles))[None]


MASKS: dict[str, Any] = {
    "causal": "causal",
    # gpt-oss's sliding layers: a query sees itself and the sliding_window − 1 keys before it
    "sliding": {"window": 2, "causal": True},
    "streaming": {"window": 1, "causal": True, "sink_tokens": 2},
}


@pytest.mark.parametrize("mask", sorted(MASKS))
def test_gpt_oss_attention_module_agrees(mask: str) -> None:
    torch = needed("torch")
    module = gpt_oss_attention(torch, seed=len(mask))
    n = 6
    rng = np.random.default_rng(len(mask))
    x = rng.uniform(-2.0, 2.0, size=(n, 8))  # (n, d_model)
    spec = {
        "tokens": [f"t{i}" for i in range(n)], "embeddings": x.tolist(),
        "heads": 4, "kv_heads": 2,
        "weights": {"W_Q": module.q_proj.weight.T.tolist(), "W_K": module.k_proj.weight.T.tolist(),
                    "W_V": module.v_proj.weight.T.tolist(), "W_O": module.o_proj.weight.T.tolist(),
                    "b_Q": module.q_proj.bias.tolist(), "b_K": module.k_proj.bias.tolist(),
                    "b_V": module.v_proj.bias.tolist(), "b_O": module.o_proj.bias.tolist()},
        "positional": {"rope": {"base": 10000.0, "layout": "half"}},
        "sinks": module.sinks.tolist(), "mask": MASKS[mask],
    }
    walkthrough = build(loads_spec(json.dumps(spec), name="gpt_oss.json"))
    visible = np.isfinite(walkthrough.heads[0].scores.values)  # (n, n): attn's own mask
    additive = np.where(visible, 0.0, -np.inf)  # (n, n), handed to the module as it is
    with torch.no_grad():
        output, weights = module(torch.tensor(x)[None], rope_table(torch, n, 4, 10000.0),
                                 torch.tensor(additive)[None, None])
    for h, head in enumerate(walkthrough.heads):
        assert np.abs(head.weights.values - weights[0, h].numpy()).max() < TOLERANCE
        assert head.weights.values.sum(axis=1).max() < 1.0  # every row lost some to the sink
    assert np.abs(walkthrough.output.values - output[0].numpy()).max() < TOLERANCE
    shares = [s.matrices[0].values[:, 0] for s in walkthrough.steps if s.id == "sinks"]
    lost = 1 - weights[0].numpy().sum(axis=-1)  # (heads, n): what the module gave the sinks
    assert np.abs(np.array(shares) - lost).max() < TOLERANCE
    assert np.array(shares).max() > 0.1  # the sinks took enough to be seen if left out


@pytest.mark.parametrize("fmt", ["latex", "beamer"])
def test_a_negative_sink_compiles_with_its_sign(fmt: str, tmp_path: Path) -> None:
    """Head 1's sink is −1: the formula's TeX writes `s = -1` (pdflatex stops at a Unicode minus
    in math, and without -halt-on-error prints `s = 1`), the text keeps the true minus."""
    walkthrough = build(load_spec(str(EXAMPLE)))
    formulas = [s.formula for s in walkthrough.steps if s.id == "weights" and s.formula]
    assert [f.latex.rsplit("s = ", 1)[1] for f in formulas] == ["-1", "2"]
    assert [f.text.rsplit("s = ", 1)[1] for f in formulas] == ["−1", "2"]
    options = {"standalone": True} if fmt == "latex" else {}
    text = compile_latex(render(walkthrough, fmt, "en", **options), tmp_path)
    assert "s = −1" in text or "s = -1" in text
