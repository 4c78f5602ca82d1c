"""Low precision (`dtype:`): every step equals PyTorch (CPU) computing the same step in the same
format from the same inputs.

Bit for bit: the rounding of the inputs, S′ = S / √d_k, the mask, x − m, e^(x − m), the row sums
and the quotients. Not bit for bit, and why: a matrix product (Q, K, V, S, Z). attn sums the
exact products in float64 and rounds once through float32; PyTorch sums them in float32 in the
order its kernel chooses and rounds once. For float16 and bfloat16 the two differ only where the
float32 sum lands on the other side of a halfway point: at most 1 unit in the last place (ulp),
and in few cells (counted below). For float32 PyTorch's own rounding errors are of the size of
the result's last bits: the bound is the textbook one for a float32 dot product of k terms,
|error| ≤ k·2⁻²⁴·Σ|aᵢbᵢ|, plus attn's half ulp.
"""

from __future__ import annotations

import json
import math
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from attncli import build, loads_spec
from attncli.compute.lowprec import LowPrecision, finfo, to_format
from attncli.model import Matrix, Step, Walkthrough
from attncli.steps import precision
from tests.conftest import run, run_apart
from tests.mha_reference import torch_module

CASES = 24
FORMATS = ("float16", "bfloat16", "float32")


def random_spec(seed: int, dtype: str) -> dict[str, Any]:
    rng = np.random.default_rng(seed)
    n = int(rng.integers(2, 7))
    heads = int(rng.integers(1, 3))
    d_head = int(rng.integers(1, 5))
    d_model = heads * d_head
    spread = float(rng.choice([0.5, 1.0, 3.0]))
    spec: dict[str, Any] = {
        "tokens": [f"t{i}" for i in range(n)],
        "embeddings": (rng.normal(size=(n, d_model)) * spread).tolist(),
        "heads": heads,
        "weights": {name: rng.normal(size=(d_model, d_model)).tolist()
                    for name in ("W_Q", "W_K", "W_V")},
        "dtype": dtype,
    }
    if rng.random() < 0.5:
        spec["mask"] = "causal"
    if rng.random() < 0.3:
        spec["scale"] = float(rng.uniform(0.5, 3.0))
    return spec


def walkthrough(spec: dict[str, Any]) -> Walkthrough:
    return build(loads_spec(json.dumps(spec), "spec.json"))


def head_steps(w: Walkthrough, head: int) -> dict[str, Step]:
    return {s.id: s for s in w.steps if (s.head or 1) == head}


def ulp(x: np.ndarray, dtype: str) -> np.ndarray:
    """The gap between the format's numbers at |x| (its smallest gap below the normal range)."""
    info = finfo(dtype)  # type: ignore[arg-type]
    exponent = np.floor(np.log2(np.where(np.abs(x) > 0, np.abs(x), 1.0)))
    return 2.0 ** (np.maximum(exponent, int(info.minexp)) - int(info.nmant))  # type: ignore[no-any-return]


def ulps(a: np.ndarray, b: np.ndarray, dtype: str) -> np.ndarray:
    """|a − b| in units of the last place of the format at max(|a|, |b|)."""
    return np.abs(a - b) / ulp(np.maximum(np.abs(a), np.abs(b)), dtype)  # type: ignore[no-any-return]


def matmul_agrees(ours: np.ndarray, a: np.ndarray, b: np.ndarray, dtype: str,
                  torch: Any, tdtype: Any, counts: list[int]) -> None:
    """attn's product of a and b (format values) against PyTorch's in the format."""
    theirs = (torch.tensor(a).to(tdtype) @ torch.tensor(b).to(tdtype)).double().numpy()
    if dtype == "float32":
        bound = a.shape[1] * 2.0**-24 * (np.abs(a) @ np.abs(b)) + np.abs(ours) * 2.0**-24
        assert (np.abs(ours - theirs) <= bound).all()
    else:
        assert (ulps(ours, theirs, dtype) <= 1.0).all()
    counts[0] += int((ours != theirs).sum())
    counts[1] += ours.size


@pytest.mark.parametrize("dtype", FORMATS)
@pytest.mark.parametrize("seed", range(CASES))
def test_every_step_equals_pytorch_in_the_same_format(seed: int, dtype: str) -> None:
    torch = torch_module()
    tdtype = getattr(torch, dtype)
    spec = random_spec(seed, dtype)
    w = walkthrough(spec)
    x = np.array(spec["embeddings"])
    weights = spec["weights"]
    h = spec["heads"]
    d_head = x.shape[1] // h
    # the inputs: PyTorch's conversion of the float64 numbers, bit for bit
    ours_x = w.steps[0].matrices[0].values
    np.testing.assert_array_equal(ours_x, torch.tensor(x).to(tdtype).double().numpy())
    counts = [0, 0]
    for head in range(1, h + 1):
        steps = head_steps(w, head)
        cols = slice((head - 1) * d_head, head * d_head)
        q, k, v = (m.values for m in steps["projections"].matrices)
        for ours, name in ((q, "W_Q"), (k, "W_K"), (v, "W_V")):
            w_in = torch.tensor(np.array(weights[name])[:, cols]).to(tdtype).double().numpy()
            matmul_agrees(ours, ours_x, w_in, dtype, torch, tdtype, counts)
        s = steps["scores"].matrices[0].values
        matmul_agrees(s, q, k.T, dtype, torch, tdtype, counts)
        # S′ = S / divisor, the divisor a number of the format: bit for bit
        scale = spec.get("scale", math.sqrt(d_head))
        divisor = torch.tensor(scale, dtype=torch.float64).to(tdtype)
        scaled = steps["scaled"].matrices[0].values
        np.testing.assert_array_equal(
            scaled, (torch.tensor(s).to(tdtype) / divisor).double().numpy())
        logits = torch.tensor(scaled).to(tdtype)
        if "masked" in steps:
            hidden = torch.triu(torch.ones(len(x), len(x), dtype=torch.bool), 1)
            logits = logits.masked_fill(hidden, -math.inf)
            np.testing.assert_array_equal(steps["masked"].matrices[0].values,
                                          logits.double().numpy())
        ours_a = steps["weights"].matrices[0].values
        softmax_agrees(ours_a, logits, dtype, torch)
        z = steps["output"].matrices[0].values
        matmul_agrees(z, ours_a, v, dtype, torch, tdtype, counts)
    # float16 and bfloat16: the products that differ by their 1 ulp are rare
    if dtype != "float32":
        assert counts[0] <= max(1, counts[1] // 50), counts


def softmax_agrees(ours_a: np.ndarray, logits: Any, dtype: str, torch: Any) -> None:
    """Softmax in its steps, each taken by attn and by PyTorch from the same numbers: m and
    x − m, bit for bit; e^(x − m) and Σ bit for bit in float16 and bfloat16 (PyTorch works them
    in float32 and rounds once, like attn); in float32 PyTorch's e^x is within 1 ulp and its
    float32 sum within m·2⁻²⁴·Σ; then e / Σ bit for bit."""
    m, e, total, weights = LowPrecision(dtype).softmax_parts(logits.double().numpy())
    np.testing.assert_array_equal(ours_a, weights)
    shifted = logits - logits.max(dim=1, keepdim=True).values
    np.testing.assert_array_equal(
        np.where(np.isinf(shifted.double().numpy()), 0.0, shifted.double().numpy()),
        to_format(np.where(np.isneginf(logits.double().numpy()), 0.0,
                           logits.double().numpy() - m[:, None]), dtype))
    their_e = torch.exp(shifted).double().numpy()
    their_total = torch.tensor(e).to(logits.dtype).sum(dim=1).double().numpy()
    if dtype == "float32":
        assert (ulps(e, their_e, dtype) <= 1.0).all()
        assert (np.abs(total - their_total) <= e.shape[1] * 2.0**-24 * total).all()
    else:
        np.testing.assert_array_equal(e, their_e)
        np.testing.assert_array_equal(total, their_total)
    quotient = torch.tensor(e).to(logits.dtype) / torch.tensor(total).to(logits.dtype)[:, None]
    np.testing.assert_array_equal(weights, quotient.double().numpy())


def spec_with_scores(s_prime: list[list[float]], scale: Any = "none") -> dict[str, Any]:
    """A spec whose scores are `s_prime` (n x n) exactly: E = I, W_Q = I, W_K = s_primeᵀ."""
    n = len(s_prime)
    return {
        "tokens": [f"t{i}" for i in range(n)],
        "embeddings": np.eye(n).tolist(),
        "weights": {"W_Q": "identity", "W_K": np.array(s_prime).T.tolist(),
                    "W_V": "identity"},
        "scale": scale,
        "dtype": "float16",
    }


def explained(spec: dict[str, Any], tmp_path: Path, *options: str) -> str:
    """The text walkthrough of `spec`, its lines joined."""
    path = tmp_path / "spec.json"
    path.write_text(json.dumps(spec), encoding="utf-8")
    result = run("explain", str(path), "--format", "text", *options)
    assert result.exit_code == 0, result.stderr
    return " ".join(result.stdout.split())


def test_e_to_the_x_overflows_just_past_ln_65504(tmp_path: Path) -> None:
    """ln 65504 ≈ 11.0899; float16 rounds e^x to inf from e^x ≥ 65520 (x ≥ 11.0900) up.
    S′[t1, t1] = 11.09375 (a float16 number): e^x = 65776 overflows; 11.0859375 gives
    e^x = 65263.9, which float16 holds as 65248 (numbers there are 32 apart)."""
    text = explained(spec_with_scores([[11.0859375, 1.0], [2.0, 11.09375]], scale=1.0),
                     tmp_path, "--precision", "4")
    assert ("Without the max subtraction, e^x overflows at S′[t1, t1]: 11.0938 > ln 65,504 ≈ "
            "11.0899 (1 cell in all): softmax gives inf / inf = NaN.") in text


def test_e_to_the_x_stays_finite_below_it(tmp_path: Path) -> None:
    text = explained(spec_with_scores([[11.0859375, 1.0], [2.0, 3.0]], scale=1.0), tmp_path,
                     "--precision", "4")
    assert ("Without the max subtraction, e^x stays finite: its largest value is 65248.0000, "
            "for x = 11.0859 at S′[t0, t0], below 65,504.") in text


def test_without_the_scale_the_unscaled_scores_overflow(tmp_path: Path) -> None:
    """S[t0, t1] = 12.5, d_k = 2: √2 in float16 is 1.4140625, 12.5 / 1.4140625 = 8.8398, and
    float16 numbers there are 1/128 apart: S′ = 1131/128 = 8.8359375. Scaled, e^x stays finite:
    e^8.8359375 = 6876.3, float16 6876 (4 apart there); unscaled, e^12.5 = 268337 overflows."""
    text = explained(spec_with_scores([[1.0, 12.5], [0.5, 2.0]], scale="sqrt_dk"), tmp_path)
    assert ("Without the max subtraction, e^x stays finite: its largest value is 6876.00, for "
            "x = 8.84 at S′[t0, t1], below 65,504.") in text
    assert ("Without the scale and the max subtraction, e^x overflows at S[t0, t1]: 12.50 > "
            "ln 65,504 ≈ 11.09 (1 cell in all): softmax gives inf / inf = NaN.") in text


def test_a_weight_that_underflows_is_named(tmp_path: Path) -> None:
    """S′ = [0, −20]: float64's weight of t1 is e^−20 / (1 + e^−20) ≈ 2.061·10⁻⁹, below half
    of float16's smallest number 2⁻²⁴ ≈ 5.96·10⁻⁸: float16 rounds it, and e^−20, to 0."""
    text = explained(spec_with_scores([[0.0, -20.0], [0.0, 0.0]], scale=1.0), tmp_path)
    assert "Underflow: A[t0, t1] is 0 in float16 (float64: 0.000000002061)." in text
    assert "Underflow: Z[t0, d2] is 0 in float16 (float64: 0.000000002061)." in text  # V = I
    assert "In all: 0 overflows, 2 underflows, 0 NaNs." in text


def test_an_overflowing_score_is_named_and_its_nan_follows(tmp_path: Path) -> None:
    """S = E·Eᵀ, E[t0] = (300, 0): S[t0, t0] = 90000 > 65504 is inf; the row's softmax
    subtracts inf from inf: NaN."""
    spec = spec_with_scores([[1.0, 0.0], [0.0, 1.0]], scale=1.0)
    spec["embeddings"] = [[300.0, 0.0], [0.0, 1.0]]
    text = explained(spec, tmp_path)
    assert "Overflow: S[t0, t0] is inf in float16 (float64: 90000.00)." in text
    assert "A[t0, t0] is NaN in float16, from an inf before it (float64: 1.000)." in text
    # the weights' other numbers are float64's, but not every one: said so
    # the score overflowed before e^x: "∞ > ln 65,504" would compare nothing
    assert ("Without the max subtraction, e^x overflows at S′[t0, t0], whose score is already "
            "inf in float16 (1 cell in all): softmax gives inf / inf = NaN.") in text


def test_a_step_whose_other_numbers_are_float64s_says_every_other(tmp_path: Path) -> None:
    """The float16 example with its embeddings × 100: the weights of "the" and "cat" are
    float64's exactly (1 and 0, 0 and 1), those of "sat" NaN. "Every number equals float64's"
    sat above the NaNs it contradicted."""
    import yaml

    from tests.conftest import CONFIGS
    spec = yaml.safe_load((CONFIGS / "low_precision_float16.yaml").read_text(encoding="utf-8"))
    spec["embeddings"] = [[100 * x for x in row] for row in spec["embeddings"]]
    text = explained(spec, tmp_path)
    assert ("Softmax is taken along each row, so every row of A sums to 1. In float16: every "
            "other number equals float64's. A[sat, the] is NaN in float16, from an inf before "
            "it") in text


def test_float16_numbers_print_as_float16() -> None:
    """The float16 numbers near 2 are 1/512 apart: 2.2·512 = 1126.4, so 2.2 is stored as
    1126/512 = 2.19921875, and printed to 4 decimals 2.1992."""
    assert to_format(np.array([2.2]), "float16")[0] == 2.19921875
    spec = spec_with_scores([[1.0, 0.0], [0.0, 1.0]], scale=1.0)
    spec["embeddings"] = [[2.2, 0.0], [0.0, 1.0]]
    w = walkthrough(spec)
    assert w.steps[0].matrices[0].values[0, 0] == 2.19921875


def test_float64_is_the_default(tmp_path: Path) -> None:
    spec = random_spec(3, "float64")
    plain = {key: value for key, value in spec.items() if key != "dtype"}
    assert explained(spec, tmp_path) == explained(plain, tmp_path)


@pytest.mark.parametrize(("extra", "lang", "message"), [
    ("dtype: float8\n", "en",
     "spec.yaml:4:8: dtype: expected one of float16, bfloat16, float32, float64, found the text "
     '"float8"; did you mean float16?'),
    ("dtype: float16\nbackward: {}\n", "en",
     "spec.yaml:5:11: backward: expected no backward with dtype: float16 (low precision is "
     "worked out without it), found one; remove it or use dtype: float64"),
    ("dtype: bfloat16\npositional: rope\n", "pl",
     "spec.yaml:5:13: positional: klucz rope nie może występować przy dtype: bfloat16 "
     "(obliczenia w niskiej precyzji go nie obejmują); usuń go albo użyj dtype: float64"),
    ("dtype: float16\ndisplay: {round_intermediates: true}\n", "ru",
     "spec.yaml:5:32: display.round_intermediates: ручной расчёт ведётся с десятичными числами "
     "в том виде, в каком они записаны; его нельзя сочетать с dtype: float16"),
])
def test_what_low_precision_does_not_cover_is_refused(tmp_path: Path, extra: str, lang: str,
                                                      message: str) -> None:
    path = tmp_path / "spec.yaml"
    path.write_text("tokens: [a, b]\nembeddings: [[1, 0], [0, 1]]\nweights: {W_Q: identity, "
                    "W_K: identity, W_V: identity}\n" + extra, encoding="utf-8")
    result = run("explain", str(path), "--lang", lang)
    assert result.exit_code == 2
    assert result.stdout == ""
    assert result.stderr.replace("\xa0", " ").endswith(f"/{message}\n")  # one line


def test_the_reading_says_an_overflow_made_the_nan(tmp_path: Path) -> None:
    spec = spec_with_scores([[1.0, 0.0], [0.0, 1.0]], scale=1.0)
    spec["embeddings"] = [[300.0, 0.0], [0.0, 1.0]]
    assert "“t0”: its weights are NaN, from a score that overflowed." in explained(spec, tmp_path)


def test_the_json_export_keeps_the_report_as_data() -> None:
    """configs/low_precision_float16.yaml: S (step 4) in float16 is off by at most
    |13.6640625 − 13.67| = 0.0059375 (float64's S[sat, sat] = 2.1² + 1.3² + 2.6² + 0.9²), and
    the unscaled S[sat, sat] = 13.6640625 overflows e^x (steps: 1 embeddings, 2 parameters,
    3 projections, 4 scores, 5 scaled, 6 masked)."""
    result = run("export", "configs/low_precision_float16.yaml", "--json")
    report = json.loads(result.stdout)["low_precision"]
    assert report["dtype"] == "float16" and report["findings"] == []
    scores = next(e for e in report["errors"] if e["step"] == 4)
    assert scores["at"] == {"step": 4, "matrix": "S", "row": "sat", "column": "sat"}
    assert scores["largest"] == pytest.approx(13.67 - 13.6640625, abs=1e-12)
    assert report["verdicts"][1] == {
        "head": None, "without": "scale_and_max_subtraction", "outcome": "overflow",
        "at": {"step": 4, "matrix": "S", "row": "sat", "column": "sat"},
        "x": 13.6640625, "exp": None, "cells": 1}
    assert json.loads(run("export", "configs/cat_chases_mouse.yaml",
                          "--json").stdout)["low_precision"] is None


def test_a_summary_says_its_counts_are_of_the_rows_shown(tmp_path: Path) -> None:
    """300 tokens: the text view keeps some rows of the 300 × 300 matrices, and counts in them;
    JSON (no summary) counts every row, so finds more."""
    rng = np.random.default_rng(1)
    spec = spec_with_scores([[1.0]], scale=1.0)
    spec.update(tokens=[f"t{i}" for i in range(300)],
                embeddings=(rng.normal(size=(300, 4)) * 3).tolist(), mask="causal",
                weights={"W_Q": "identity", "W_K": "identity", "W_V": "identity"})
    text = explained(spec, tmp_path)
    assert "The queries × keys matrices are summaries here" in text
    shown = int(text.split("In all: 0 overflows, ")[1].split(" underflow")[0])
    whole = walkthrough(spec).low_precision
    assert whole is not None
    assert 0 < shown < sum(f.kind == "underflow" for f in whole.findings)


def test_an_overflowed_query_or_key_has_no_angle(tmp_path: Path) -> None:
    """E[t0] = (10⁵, 0) is inf in float16, so q_t0 and k_t0 are (inf, 0): q·k is inf or NaN and
    no angle is defined. Only cos θ[t1, t1] = (0, 1)·(0, 1) / (1·1) = 1 is written out (no
    "≈ NaN" line), the reading measures only that pair (0°; not "180°" from a NaN taken for
    −1), and nothing is printed on stderr (no NumPy warning)."""
    spec = spec_with_scores([[1.0, 0.0], [0.0, 1.0]], scale=1.0)
    spec["embeddings"] = [[1e5, 0.0], [0.0, 1.0]]
    path = tmp_path / "spec.json"
    path.write_text(json.dumps(spec), encoding="utf-8")
    result = run("explain", str(path), "--format", "text", "--expand", "all")
    assert (result.exit_code, result.stderr) == (0, "")
    text = " ".join(result.stdout.split())
    assert "cos θ[t1, t1] = q_t1·k_t1 / (|q_t1|·|k_t1|) = 1.00 / (1.00·1.00) = 1.00" in text
    assert text.count("cos θ[") == 1 and "≈ NaN (cos" not in text and "(∞·" not in text
    assert "q_t1 and k_t1 are 0.00° apart (cos θ = 1.00)." in text
    assert text.count("° apart") == 1


def test_the_errors_of_many_rows_are_found_without_reading_them_one_by_one(
        monkeypatch: pytest.MonkeyPatch) -> None:
    # 600 tokens in float16, scores past 65504: each step's rows were compared one at a time
    # (Q, K and V of 4,096 tokens in bfloat16 took 0.5 s of a 1.3 s validate); now a block of
    # rows at a time. Its largest error, and its overflows in the order of the rows, are those
    # NumPy finds over the whole matrices.
    n = 600
    spec = loads_spec(json.dumps({
        "tokens": [f"t{i}" for i in range(n)],
        "embeddings": {"random": {"seed": 3, "distribution": "uniform", "low": -300,
                                  "high": 300}, "shape": [n, 4]},
        "heads": 1, "weights": {"W_Q": "identity", "W_K": "identity", "W_V": "identity"},
        "mask": "causal", "dtype": "float16", "display": {"reading": False}}))
    # built whole (about 1.5 million numbers): past the default bound of the library's build
    whole = 100_000_000
    full = build(replace(spec, dtype="float64"), max_cells=whole)
    rows_read: list[int] = []
    comparing = []
    real_row, real_differences = Matrix.row, precision.differences

    def counting(self: Matrix, i: int) -> Any:
        if comparing:
            rows_read.append(i)
        return real_row(self, i)

    def compared(*args: Any) -> Any:
        comparing.append(True)
        try:
            return real_differences(*args)
        finally:
            comparing.pop()

    monkeypatch.setattr(Matrix, "row", counting)
    monkeypatch.setattr(precision, "differences", compared)
    walkthrough = build(spec, max_cells=whole)
    assert rows_read == []
    report = walkthrough.low_precision
    assert report is not None
    scores = next(s for s in walkthrough.steps if s.id == "scores")
    low = scores.matrices[0].values  # (n, n): S in float16
    exact = next(s for s in full.steps if s.id == "scores").matrices[0].values  # (n, n)
    both = np.isfinite(low) & np.isfinite(exact)
    error = np.where(both, np.abs(low - exact), -1.0)
    i, j = np.unravel_index(int(np.argmax(error)), error.shape)
    found = next(e for e in report.errors if e.step == scores.number)
    assert (found.largest, found.at.row, found.at.column) == (error[i, j], f"t{i}", f"t{j}")
    overflows = np.argwhere(np.isinf(low) & np.isfinite(exact))  # (k, 2), row by row
    assert len(overflows) > 100
    named = [(f.at.row, f.at.column) for f in report.findings
             if f.at.step == scores.number and f.kind == "overflow"]
    assert named == [(f"t{i}", f"t{j}") for i, j in overflows]


def test_a_subnormal_input_s_error_is_written_out(tmp_path: Path) -> None:
    """1e-310 (a float64 subnormal) is 0 in bfloat16: its error, written with two significant
    digits, asked NumberFormat for 311 decimals, and 10.0 ** 313 raised OverflowError (exit 3
    in every format but JSON); it is written m × 10^k, not in 311 decimals."""
    (tmp_path / "s.yaml").write_text("tokens: [a, b]\nembeddings: [[1.0e-310, 1.0], [1.0, 2.0]]\n"
                                     "dtype: bfloat16\n")
    done = run_apart(tmp_path, "explain", "s.yaml", "-f", "text", "--width", "80")
    assert (done.returncode, done.stderr) == (0, "")
    text = "".join(line.strip() for line in done.stdout.splitlines())
    written = text.split("the largest error against float64 is", 1)[1].split(",", 1)[0]
    assert written.strip() == "1.0×10⁻³¹⁰"  # 1e-310 to two significant digits, m × 10^k
