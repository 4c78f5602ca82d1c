"""Logit soft-capping (Gemma 2), S″ = c·tanh(S′ / c) after the scale and before the mask:
numbers worked here with math.tanh, the written-out cells and their `=`, the refusals, and
Gemma 2's own attention module from `transformers` as the oracle."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from attncli import build, load_spec, loads_spec
from attncli.arithmetic.exactness import exact
from attncli.model import Num, Product, Quotient, Tanh
from tests.conftest import run
from tests.test_checkpoints import needed
from tests.test_latex_pages import overfull, pdflatex

ROOT = Path(__file__).parent.parent
EXAMPLE = ROOT / "configs" / "softcap_gemma2.yaml"
TOLERANCE = 1e-10


def steps_of(spec_path: Path | str, **more: Any) -> dict[str, Any]:
    walkthrough = build(load_spec(str(spec_path)), **more)
    return {step.id: step for step in walkthrough.steps}


def test_the_example_by_hand() -> None:
    """E = [[4,0,0,0], [1,1,0,0], [4,0,0,1]], W_Q = W_K = W_V = I: S′ = E·Eᵀ / 2, then
    S″ = 5·tanh(S′ / 5)."""
    steps = steps_of(EXAMPLE)
    capped = steps["softcap"].matrices[0]
    assert capped.symbol.text == "S″"
    worked = {("fast", "dogs"): 5 * math.tanh(8.0 / 5), ("fast", "run"): 5 * math.tanh(2.0 / 5),
              ("fast", "fast"): 5 * math.tanh(8.5 / 5), ("run", "run"): 5 * math.tanh(1.0 / 5)}
    rows, columns = capped.rows, capped.columns
    for (row, column), value in worked.items():
        assert capped.at(rows.index(row), columns.index(column)) == pytest.approx(value, abs=1e-15)
    assert round(worked["fast", "dogs"], 2) == 4.61 and round(worked["fast", "fast"], 2) == 4.68
    # the mask comes after the cap: the masked scores are S″ with −∞ above the diagonal
    masked = steps["masked"].matrices[0]
    assert masked.symbol.text == "S″ + M"
    assert masked.at(0, 1) == -math.inf and masked.at(2, 0) == capped.at(2, 0)
    # fast's weights from the capped scores, worked with math.exp
    e = [math.exp(worked["fast", "dogs"]), math.exp(worked["fast", "run"]),
         math.exp(worked["fast", "fast"])]
    weights = steps["weights"].matrices[0].row(2)
    assert weights.tolist() == pytest.approx([x / sum(e) for x in e], abs=1e-15)
    uncapped = [math.exp(8.0), math.exp(2.0), math.exp(8.5)]  # what the weights were without it
    assert round(uncapped[2] / sum(uncapped), 2) == 0.62 and round(weights[2], 2) == 0.50


def test_each_capped_score_is_written_out_and_read() -> None:
    result = run("explain", str(EXAMPLE), "--format", "text", "--steps", "softcap")
    assert result.exit_code == 0, result.stderr
    assert "S″ = c·tanh(S′ / c) = 5·tanh(S′ / 5)" in result.stdout
    assert ("S″[fast, dogs] = 5·tanh(S′[fast, dogs] / 5) = 5.00·tanh(8.00 / 5.00) = 4.61"
            in result.stdout)
    assert "The cap bends S′[fast, fast] most: from 8.50 to 4.68." in result.stdout
    for lang, words in (("pl", "Najbardziej zmienia się S′[fast, fast]: z 8.50 na 4.68."),
                        ("ru", "Сильнее всего ограничение меняет оценку S′[fast, fast]: "
                               "с 8.50 до 4.68.")):
        translated = run("explain", str(EXAMPLE), "--format", "text", "--steps", "softcap",
                         "--lang", lang)
        # Polish keeps a one-letter word with the next one (a no-break space after `z`)
        assert translated.exit_code == 0
        assert words in translated.stdout.replace("\u00a0", " "), translated.stdout


def test_a_move_too_small_for_the_printed_digits_is_written_with_the_digits_it_needs(
        tmp_path: Path) -> None:
    """c = 10⁶ moves fast's 8.5 by about 8.5³ / (3·10¹²) = 2.0×10⁻¹⁰: at two decimals both
    numbers print 8.50, so the sentence writes the ten decimals that show the move; a c that
    moves no score at all says so (a c of 1.8×10³⁰⁸ gives back 2.0 as 1.9999999999999998 in
    float64, and says so)."""
    text = EXAMPLE.read_text(encoding="utf-8").replace("softcap: 5.0", "softcap: 1000000")
    spec = tmp_path / "spec.yaml"
    spec.write_text(text, encoding="utf-8")
    after = 1e6 * math.tanh(8.5 / 1e6)
    assert 1e-10 <= 8.5 - after < 1e-9  # its first digit is the tenth decimal
    assert f"{after:.10f}" == "8.4999999998"
    result = run("explain", str(spec), "--format", "text", "--steps", "softcap")
    assert result.exit_code == 0, result.stderr
    assert ("The cap bends S′[fast, fast] most: from 8.5000000000 to 8.4999999998."
            in " ".join(result.stdout.split())), result.stdout
    # c = 2¹⁰⁰⁰: S′ / c and c·tanh(S′ / c) are exact in float64 for every score here
    spec.write_text(text.replace("softcap: 1000000", "softcap: 1.0715086071862673e301"),
                    encoding="utf-8")
    assert all(2.0**1000 * math.tanh(x / 2.0**1000) == x for x in (8.0, 2.0, 8.5, 1.0, 0.5))
    for lang, words in (("en", "The cap moves no score: each capped score equals the score it "
                               "was given."),
                        ("pl", "Ograniczenie nie zmienia tu żadnego wyniku: każdy wynik po "
                               "ograniczeniu jest równy wynikowi sprzed ograniczenia."),
                        ("ru", "Ограничение не меняет ни одной оценки: каждая оценка после "
                               "ограничения равна исходной.")):
        said = run("explain", str(spec), "--format", "text", "--steps", "softcap", "--lang", lang)
        assert said.exit_code == 0, said.stderr
        assert words in " ".join(said.stdout.replace("\u00a0", " ").split()), said.stdout


def test_a_written_out_cap_says_equal_only_when_the_printed_numbers_give_it() -> None:
    line = Product((Num(5.0), Tanh(Quotient(Num(8.0), Num(5.0)))))
    assert 5 * math.tanh(1.6) == pytest.approx(4.6083, abs=1e-4)
    assert exact(line, 4.6083, 2)  # 4.61 as printed
    assert not exact(line, 4.62, 2)
    # 1.234 prints 1.23: 5·tanh(1.23 / 5) = 1.2054 prints 1.21, the true 5·tanh(1.234 / 5) too
    assert exact(Product((Num(5.0), Tanh(Quotient(Num(1.234), Num(5.0))))),
                 5 * math.tanh(1.234 / 5), 2)


def test_hand_calculation_carries_the_rounded_cap() -> None:
    """By hand, S″ is one calculator entry on S′ as written: 5·tanh(4.75 / 5) = 3.70."""
    spec = {"tokens": ["a", "b"], "embeddings": [[3.0, 1.5], [1.5, 1.0]], "scale": "none",
            "softcap": 5.0, "display": {"round_intermediates": True, "precision": 2}}
    walkthrough = build(loads_spec(json.dumps(spec), name="hand.json"))
    capped = next(s for s in walkthrough.steps if s.id == "softcap")
    s = [[11.25, 6.0], [6.0, 3.25]]  # E·Eᵀ
    assert capped.matrices[0].values.tolist() == [
        [round(5 * math.tanh(x / 5), 2) for x in row] for row in s]
    assert all(line.exact for line in capped.expansions)


def test_json_writes_the_tanh_of_a_cell() -> None:
    result = run("export", str(EXAMPLE), "--json", "--steps", "softcap")
    assert result.exit_code == 0, result.stderr
    step = result.json()["steps"][0]
    expression = step["expansions"][0]["expression"]
    assert expression == {"op": "product", "args": [
        {"num": 5.0}, {"op": "tanh", "args": [{"op": "quotient", "args": [
            {"num": 8.0}, {"num": 5.0}]}]}]}


@pytest.mark.parametrize(("value", "problem"), [
    ("0", "expected a positive cap c of c·tanh(s / c), found 0"),
    ("-50", "expected a positive cap c of c·tanh(s / c), found -50"),
    ("big", "expected a number, found the text \"big\""),
])
def test_a_cap_that_is_not_a_positive_number_is_refused_where_it_is(
        tmp_path: Path, value: str, problem: str) -> None:
    spec = tmp_path / "bad.yaml"
    spec.write_text(f"tokens: [a, b]\nembeddings: [[1, 0], [0, 1]]\nsoftcap: {value}\n",
                    encoding="utf-8")
    out = tmp_path / "out.tex"
    result = run("export", str(spec), "--latex", "-o", str(out))
    assert (result.exit_code, result.stdout, result.stderr) == (
        2, "", f"{spec}:3:10: softcap: {problem}\n")
    assert not out.exists()


@pytest.mark.parametrize(("more", "key"), [
    ("mask: causal\ndecode: {prefill: 1}\n", "decode"),
    ("backward: {dO: ones}\n", "backward"),
])
def test_what_does_not_cap_yet_is_refused_beside_it(tmp_path: Path, more: str, key: str) -> None:
    spec = tmp_path / "both.yaml"
    spec.write_text("tokens: [a, b]\nembeddings: [[1, 0], [0, 1]]\nsoftcap: 5\n" + more,
                    encoding="utf-8")
    result = run("explain", str(spec))
    assert (result.exit_code, result.stderr) == (
        2, f"{spec}:3:10: softcap: {key} does not work with softcap yet; remove softcap or "
           f"{key}\n")
    option = run("explain", str(EXAMPLE), "--backward")
    assert option.exit_code == 2 and "--backward does not work with softcap" in option.stderr


def refused(tmp_path: Path, key: str, value: str, beside: str) -> tuple[Path, Any]:
    """`attn explain` on a two-token spec with `key: value` on line 3 and `beside` after it."""
    spec = tmp_path / "spec.yaml"
    spec.write_text(f"tokens: [a, b]\nembeddings: [[1, 0], [0, 1]]\n{key}: {value}\n{beside}",
                    encoding="utf-8")
    return spec, run("explain", str(spec))


@pytest.mark.parametrize(("key", "value"), [("softcap", "5"), ("qk_norm", "head")])
def test_a_low_precision_is_refused_beside_them(tmp_path: Path, key: str, value: str) -> None:
    spec, result = refused(tmp_path, key, value, "dtype: float16\n")
    assert (result.exit_code, result.stderr) == (
        2, f"{spec}:3:10: {key}: expected no {key} with dtype: float16 (low precision is "
           "worked out without it), found one; remove it or use dtype: float64\n")


# --- the oracle: Gemma 2's attention module in transformers --------------------------------


def gemma2_attention(torch: Any, cap: float, scalar: int) -> Any:
    """A tiny random Gemma2Attention: 4 query heads sharing 2 key/value heads, head_dim 4,
    d_model 8, eager attention, float64; layer 1 is a full (not sliding) attention layer."""
    gemma2 = needed("transformers.models.gemma2.modeling_gemma2")
    from transformers import Gemma2Config

    config = Gemma2Config(hidden_size=8, num_attention_heads=4, num_key_value_heads=2,
                          head_dim=4, query_pre_attn_scalar=scalar, attn_logit_softcapping=cap,
                          num_hidden_layers=2, intermediate_size=16, vocab_size=32,
                          sliding_window=64, attention_bias=False)
    config._attn_implementation = "eager"
    torch.manual_seed(34)
    module = gemma2.Gemma2Attention(config, layer_idx=1).double().eval()
    for linear in (module.q_proj, module.k_proj, module.v_proj, module.o_proj):
        torch.nn.init.uniform_(linear.weight, -1.0, 1.0)  # scores large enough for the cap
    return module


def rope_table(torch: Any, n: int, d: int, base: float) -> tuple[Any, Any]:
    """cos and sin of p·θᵢ, θᵢ = base^(−2i/d), as Gemma2RotaryEmbedding lays them out (each angle
    twice, for rotate_half), worked in float64: the library computes its table in float32 even
    in a float64 model."""
    theta = base ** (-np.arange(0, d, 2) / d)  # (d/2,)
    angles = np.arange(n)[:, None] * theta[None, :]  # (n, d/2)
    emb = np.concatenate([angles, angles], axis=1)  # (n, d)
    return (torch.tensor(np.cos(emb))[None], torch.tensor(np.sin(emb))[None])


@pytest.mark.parametrize(("cap", "scalar"), [(2.0, 4), (3.5, 6)])
def test_gemma2_attention_module_agrees(monkeypatch: pytest.MonkeyPatch, cap: float,
                                        scalar: int) -> None:
    torch = needed("torch")
    module = gemma2_attention(torch, cap, scalar)
    n = 5
    rng = np.random.default_rng(int(cap * 10))
    x = rng.uniform(-2.0, 2.0, size=(n, 8))  # (n, d_model)
    causal = np.triu(np.full((n, n), -np.inf), k=1)  # (n, n): 0 where a key is visible
    softmax_inputs: list[Any] = []
    softmax = torch.nn.functional.softmax

    def softmax_in_float64(t: Any, dim: int, dtype: Any = None) -> Any:
        # eager attention upcasts its softmax to float32 even in a float64 model; here it runs
        # in float64, and its input (the capped, masked scores) is kept for the comparison
        softmax_inputs.append(t.detach().clone())
        return softmax(t, dim=dim, dtype=torch.float64)

    monkeypatch.setattr(torch.nn.functional, "softmax", softmax_in_float64)
    with torch.no_grad():
        output, weights = module(torch.tensor(x)[None], rope_table(torch, n, 4, 10000.0),
                                 torch.tensor(causal)[None, None])
    spec = {
        "tokens": [f"t{i}" for i in range(n)], "embeddings": x.tolist(),
        "heads": 4, "kv_heads": 2,
        "weights": {"W_Q": module.q_proj.weight.T.tolist(), "W_K": module.k_proj.weight.T.tolist(),
                    "W_V": module.v_proj.weight.T.tolist(),
                    "W_O": module.o_proj.weight.T.tolist()},
        "positional": {"rope": {"base": 10000.0, "layout": "half"}},
        "scale": math.sqrt(scalar), "softcap": cap, "mask": "causal",
    }
    walkthrough = build(loads_spec(json.dumps(spec), name="gemma2.json"))
    (logits,) = softmax_inputs
    for h, head in enumerate(walkthrough.heads):
        mine = head.scores.values  # (n, n): S″ + M
        theirs = logits[0, h].numpy()  # (n, n): capped scores + the additive mask
        visible = np.isfinite(mine)
        assert (visible == np.isfinite(theirs)).all()
        assert np.abs(mine[visible] - theirs[visible]).max() < TOLERANCE
        assert np.abs(head.weights.values - weights[0, h].numpy()).max() < TOLERANCE
    assert np.abs(walkthrough.output.values - output[0].numpy()).max() < TOLERANCE
    # the cap bent some score by more than 0.1: the test would see a cap left out
    scaled = [s.matrices[0].values for s in walkthrough.steps if s.id == "scaled"]
    capped = [s.matrices[0].values for s in walkthrough.steps if s.id == "softcap"]
    assert max(np.abs(a - b).max() for a, b in zip(scaled, capped, strict=True)) > 0.1


@pytest.mark.parametrize(("example", "marker"), [
    (EXAMPLE, r"\tanh("), (ROOT / "configs" / "qk_norm_qwen3.yaml", r"\tilde{Q}[")])
def test_the_written_out_cells_render_in_katex_and_mathjax(tmp_path: Path, example: Path,
                                                           marker: str) -> None:
    """The soft-capping and QK-norm examples' Markdown in every flavour and pipeline, all three
    languages on one page, in headless Chromium: no error, every formula read back as attn wrote
    it (the written-out lines of the new steps among them), and every matrix a grid in its
    brackets."""
    from attncli.i18n import LANGUAGES
    from tests.test_markdown_render import (
        ALL,
        PIPELINES,
        check_grids,
        expected_matrices,
        jobs_for,
        markdown,
        run_pages,
        source_math,
    )

    pages = run_pages(jobs_for(example, "softcap"), tmp_path)
    expected_grids = [m for lang in LANGUAGES for m in expected_matrices(example, lang)]
    for flavor, pipelines in PIPELINES.items():
        text = markdown(example, ALL, flavor)
        written = [tex for tex, _ in source_math(text, flavor) if marker in tex]
        assert len(written) >= 3 * 2  # written-out cells in each language
        for pipeline in pipelines:
            name = f"softcap/{flavor}/{pipeline}"
            page = pages[name]
            assert page["errors"] == [], (name, page["errors"][:2])
            read = sorted(" ".join(m["tex"].split()) for m in page["tex"])
            want = sorted(" ".join(tex.split()) for tex, _ in source_math(text, flavor))
            assert read == want, name
            assert check_grids(page, text, flavor, expected_grids, name) > 0


@pytest.mark.parametrize(("cap", "given"), [
    ("123456789.12345679", ("123456789.12345679", "123456789.12345679")),
    ("1.7976931348623157e308", ("1.7976931348623157×10³⁰⁸", r"1.7976931348623157 \times 10^{308}")),
])
def test_a_cap_of_many_digits_is_written_once_and_fits_the_page(
        tmp_path: Path, cap: str, given: tuple[str, str]) -> None:
    """c was written twice with its 17 digits: a LaTeX page 39.0 pt too wide for
    123456789.12345679, 55.0 pt for 1.7976931348623157e308; a Beamer frame of the Gemma 2 layer
    17.9 and 34.9 pt."""
    spec = tmp_path / "s.yaml"
    spec.write_text(EXAMPLE.read_text(encoding="utf-8").replace("softcap: 5.0", f"softcap: {cap}"),
                    encoding="utf-8")
    result = run("explain", str(spec), "--format", "text", "--steps", "softcap")
    assert result.exit_code == 0, result.stderr
    assert f"S″ = c·tanh(S′ / c),  c = {given[0]}\n" in result.stdout
    layer = tmp_path / "layer.yaml"
    text = (ROOT / "configs" / "gemma2_layer.yaml").read_text(encoding="utf-8")
    layer.write_text(text.replace("softcap: 5.0", f"softcap: {cap}"), encoding="utf-8")
    for source, args in ((spec, ["--latex", "--standalone"]), (layer, ["--beamer"])):
        out = tmp_path / f"{source.stem}.tex"
        result = run("export", str(source), *args, "-o", str(out))
        assert result.exit_code == 0, result.stderr
        tex = out.read_text(encoding="utf-8")
        assert rf"S'' = c \tanh(S' / c),\quad c = {given[1]}" in tex
        assert overfull(pdflatex(tex, tmp_path / source.stem)) == []


@pytest.mark.parametrize(("cap", "line"), [
    # a c of seven significant digits was written to six (123456) before the substituted
    # 123456.50 it is: named by its letter, as the formula above writes it once
    ("123456.5", "S″[fast, dogs] = c·tanh(S′[fast, dogs] / c) = 123456.50·tanh(8.00 / 123456.50)"
                 " = 8.00"),
    ("5", "S″[fast, dogs] = 5·tanh(S′[fast, dogs] / 5) = 5.00·tanh(8.00 / 5.00) = 4.61"),
])
def test_a_written_out_cell_never_rounds_the_cap(cap: str, line: str, tmp_path: Path) -> None:
    spec = tmp_path / "s.yaml"
    spec.write_text(EXAMPLE.read_text(encoding="utf-8").replace("softcap: 5.0", f"softcap: {cap}")
                    , encoding="utf-8")
    result = run("explain", str(spec), "--format", "text", "--steps", "softcap", "--width", "200")
    assert result.exit_code == 0, result.stderr
    assert line in result.stdout


def test_a_written_out_division_takes_every_digit_of_the_divisor(tmp_path: Path) -> None:
    # scale: 123456.5 was written `S[…] / 123456` before the substituted `/ 123456.50`
    spec = tmp_path / "s.yaml"
    spec.write_text("tokens: [a, b]\nembeddings: [[1, 0], [0, 1]]\nscale: 123456.5\n",
                    encoding="utf-8")
    result = run("explain", str(spec), "--format", "text", "-x", "scaled:a", "--width", "200")
    assert result.exit_code == 0, result.stderr
    assert "S′[a, a] = S[a, a] / 123456.5 = 1.00 / 123456.50 = 0.00" in result.stdout
