"""With a decimal comma, the spec's numbers in formulas and sentences (ALiBi's slopes, α and ℓ,
GELU's constants, YaRN's a, a divisor, a soft cap, a gradient check) are written with the comma
the tables use, in every format; with the decimal point, as they always were. The mark is the
renderer's: `render(w, decimal=...)` of one walkthrough writes either."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import yaml

from attncli import build, load_spec, render
from tests.conftest import run
from tests.test_export_renderers import katex_errors, math_of
from tests.test_latex_pages import overfull, pdflatex

CONFIGS = Path(__file__).resolve().parents[1] / "configs"


def explained(path: Path | str, *args: str) -> list[str]:
    result = run("explain", str(path), "--decimal-comma", "--width", "400", *args)
    assert result.exit_code == 0, result.stderr
    return [line.strip().replace("\u00a0", " ") for line in result.stdout.splitlines()]


@pytest.mark.parametrize(("config", "line"), [
    ("alibi_three_heads", "score bias: ALiBi, slopes 0,0625; 0,00390625; 0,25"),
    ("alibi_three_heads", "ALiBi adds −m·|i − j| to the score of query i and key j, with this "
                          "head's slope m = 0,00390625: the further a key is from the query, "
                          "the more its score is lowered."),
    ("moe_gpt_oss", "gpt-oss's expert: the gate is clamped from above at ℓ = 1,0 and the up "
                    "projection to [−ℓ, ℓ], with α = 1,702; the expert gives E₁ = M·W_2 + b_2. "
                    "Only the tokens routed to it are computed."),
    ("gpt2_layer", "GELU_tanh is GELU's tanh approximation (GPT-2's gelu_new): "
                   "GELU_tanh(x) = 0,5·x·(1 + tanh(√(2/π)·(x + 0,044715·x³)))."),
    ("rope_yarn", "YaRN multiplies cos and sin by the attention factor a = 1,13863: every "
                  "turned query and key is a times as long, and every score a² = 1,29648 times "
                  "what it would be without it."),
    ("rope_yarn", "a = 0,1·ln(4) + 1 = 0,1000·1,3863 + 1,0000 = 1,1386"),
    ("backward_cat_chases_mouse", "Check by finite differences, h = 10⁻⁶: (L(W_Q[d1, d1] + h) − "
                                  "L(W_Q[d1, d1] − h)) / 2h = −0,023083; the gradient "
                                  "dW_Q[d1, d1] is −0,023083."),
])
def test_a_constant_is_written_with_the_comma(config: str, line: str) -> None:
    assert line in explained(CONFIGS / f"{config}.yaml")


def edited(tmp_path: Path, config: str, edit: Callable[[dict[str, Any]], object]) -> Path:
    """The example `config` with one number changed by `edit`, as a JSON spec."""
    spec = yaml.safe_load((CONFIGS / f"{config}.yaml").read_text(encoding="utf-8"))
    edit(spec)
    path = tmp_path / f"{config}.json"
    path.write_text(json.dumps(spec), encoding="utf-8")
    return path


@pytest.mark.parametrize(("config", "edit", "line"), [
    ("sinks_gpt_oss", lambda s: s.update(sinks=[-1.5, 2.0]),
     "A[i, j] = e^(S′ + M)[i, j] / (e^s + Σₖ e^(S′ + M)[i, k]),  s = −1,5"),
    ("sinks_gpt_oss", lambda s: s.update(sinks=[-1.5, 2.0]),
     "The sink logit s = −1,5 joins the softmax of every row as e^s in its denominator, a key "
     "with no value: each row of A sums to less than 1."),
    ("qk_norm_qwen3", lambda s: s["qk_norm"].update(eps=2.5e-6),
     "RMS(x) = √((1/d)·Σᵢ xᵢ² + ε), summed over the d features of x, here ε = 0,0000025: each "
     "query and key is divided by its root mean square, so however large the projection makes "
     "it, the scores cannot grow without bound."),
    ("rms_norm_geglu", lambda s: s["block"]["rms_norm"].update(eps=2.5e-6),
     "Each row x is divided by RMS(x) = √((1/d)·Σᵢ xᵢ² + ε), where d = 4 (the number of "
     "features) and ε = 0,0000025, then multiplied by the gain; unlike LayerNorm, no mean is "
     "subtracted and no bias added."),
    ("decoder_layer", lambda s: s["block"]["layer_norm"].update(eps=2.5e-5),
     "Each row becomes (x − μ) / σ with σ = √(variance + 0,000025), then times the gain plus "
     "the bias."),
    ("rope_half", lambda s: s["positional"]["rope"].update(base=100.5),
     "positional encoding: rotary (RoPE), base 100,5, pairs (i, i + d_k/2)"),
    ("rope_half", lambda s: s["positional"]["rope"].update(base=100.5),
     "At position p, the i-th pair of features turns by the angle p·ωᵢ, where "
     "ωᵢ = 100,5^(−2i/d_k); V is not turned."),
    ("positional_i_am_a_robot", lambda s: s["positional"]["sinusoidal"].update(base=100.5),
     "Row k, columns 2i and 2i+1: sin(k / 100,5^(2i/d)) and cos(k / 100,5^(2i/d)), d = 4."),
    ("kv_cache_decoding", lambda s: s.update(scale=1.5),
     "s₃ = q₃·K[1:3]ᵀ / 1,5,  z₃ = softmax(s₃)·V[1:3]"),
])
def test_a_number_of_the_spec_is_written_with_the_comma(
        tmp_path: Path, config: str, edit: Callable[[dict[str, Any]], object], line: str) -> None:
    lines = explained(edited(tmp_path, config, edit))
    assert line in lines
    assert line.replace(",5", ".5").replace(",000", ".000") not in lines


def test_a_divisor_and_a_soft_cap_in_formulas_and_written_out_cells(tmp_path: Path) -> None:
    spec = tmp_path / "s.json"
    spec.write_text(json.dumps({"tokens": ["a", "b"], "embeddings": [[1, 0], [0, 1]],
                                "scale": 1.5, "softcap": 2.5}), encoding="utf-8")
    lines = explained(spec, "-x", "all")
    assert "S′ = S / 1,5" in lines
    assert "S′[a, a] = S[a, a] / 1,5 = 1,00 / 1,50 = 0,67" in lines
    assert "S″ = c·tanh(S′ / c) = 2,5·tanh(S′ / 2,5)" in lines
    assert "S″[a, a] = 2,5·tanh(S′[a, a] / 2,5) = 2,50·tanh(0,67 / 2,50) = 0,65" in lines


def test_the_mark_is_the_renderers_for_one_walkthrough() -> None:
    """A spec that asks for a comma, rendered with a point, writes its gradient check with a
    point: the check's numbers were once written with the spec's mark when it was built."""
    spec = load_spec(str(CONFIGS / "backward_cat_chases_mouse.yaml"))
    walkthrough = build(spec)
    check = "/ 2h = −0.023083; the gradient"
    assert check in " ".join(render(walkthrough, width=200).split())
    commas = " ".join(render(walkthrough, decimal="comma", width=200).split())
    assert check.replace("0.", "0,") in commas and check not in commas
    assert check in " ".join(render(walkthrough, width=200).split())  # and left it as it was


@pytest.mark.parametrize(("config", "expected"), [
    ("alibi_three_heads", [r"score bias: ALiBi, slopes 0,0625; 0,00390625; 0,25",
                           r"slope $m = 0{,}0625$: the further"]),
    ("moe_gpt_oss", [r"at $\ell$~= $1{,}0$ and the up",
                     r"with $\alpha$~= $1{,}702$; the expert gives"]),
])
def test_latex_compiles_with_the_comma(tmp_path: Path, config: str, expected: list[str]) -> None:
    out = tmp_path / "o.tex"
    result = run("export", str(CONFIGS / f"{config}.yaml"), "--latex", "--standalone",
                 "--decimal-comma", "-o", str(out))
    assert result.exit_code == 0, result.stderr
    source = out.read_text(encoding="utf-8")
    for text in expected:
        assert text in source
    assert "1.702" not in source and "0.0625" not in source
    assert overfull(pdflatex(source, tmp_path / "pdf")) == []


@pytest.mark.parametrize(("config", "math"), [
    ("alibi_three_heads", "m = 0{,}00390625"),
    ("moe_gpt_oss", "1{,}702"),
])
def test_katex_reads_the_comma_in_markdown(config: str, math: str) -> None:
    markdown = render(build(load_spec(str(CONFIGS / f"{config}.yaml"))), "markdown",
                      md_flavor="katex", decimal="comma")
    found = math_of(markdown, "katex")
    assert math in [tex for tex, _ in found]
    assert katex_errors(found) == []


def test_check_reads_back_what_a_comma_page_prints(tmp_path: Path) -> None:
    """A page whose formula says `S′ = S / 1,5` prints S′ with commas too, and `attn check`
    takes that matrix back as the right answer."""
    spec = edited(tmp_path, "kv_cache_decoding", lambda s: s.update(scale=1.5))
    assert "S′ = S / 1,5" in explained(spec)
    printed = run("explain", str(spec), "--matrix", "S′:1", "-f", "text", "--decimal-comma")
    rows = [line.split()[1:] for line in printed.stdout.splitlines()[1:]]
    assert rows[0] == ["0,83", "0,17", "0,00", "0,50"]
    answer = "; ".join(" ".join(row) for row in rows)
    checked = run("check", str(spec), "--step", "scaled", "--head", "1", "--answer", answer)
    assert (checked.exit_code, checked.stderr) == (0, ""), checked.stdout
