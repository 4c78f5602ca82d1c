"""Very large numbers written as a lecturer writes them, m × 10^k (docs/formats.md, "Very large
numbers"): a value whose rounding reaches a million, in every format, by the one formatter
(arithmetic/numbers.py); a small one is rounded as any other, 0.00. Every expected text
here is worked by hand: m is the number's shortest decimal divided by 10^k, rounded half up.

Before, such a number was written with every digit: `sinks: [1e308]` made a LaTeX page 2,386 pt
too wide, an embedding of 1e150 a matrix 207 pt too wide."""

from __future__ import annotations

import math
import re
from decimal import Decimal
from pathlib import Path

import numpy as np
import pytest

from attncli.arithmetic.exactness import dot, exact
from attncli.arithmetic.numbers import LARGE, SMALL, NumberFormat, rounded, shortest
from attncli.model import Num, Product, Sum, Terms, Vec
from tests.conftest import run, run_apart
from tests.test_latex_pages import pdflatex

TEXT = NumberFormat(precision=2)
MATH = TEXT.math()


@pytest.mark.parametrize(("value", "precision", "text", "tex"), [
    (1e20, 2, "1.00×10²⁰", r"1.00 \times 10^{20}"),
    (1.23456e-30, 2, "0.00", "0.00"),  # small: rounded as 10⁻⁵ is, never m × 10^k
    (-1.23456e-30, 4, "0.0000", "0.0000"),  # never −0.0000
    (-1.235e20, 2, "−1.24×10²⁰", r"-1.24 \times 10^{20}"),  # half up, away from zero
    (1.235e20, 0, "1×10²⁰", r"1 \times 10^{20}"),
    (9.995e20, 2, "1.00×10²¹", r"1.00 \times 10^{21}"),  # 9.995 rounds to 10.00: k + 1
    (1e308, 2, "1.00×10³⁰⁸", r"1.00 \times 10^{308}"),
    (5e-324, 2, "0.00", "0.00"),
    (-0.004, 2, "0.00", "0.00"),
    # the boundary: 999999.99995 rounds to 1000000.0000 at 4 decimals, a million: m × 10^k
    (999999.99995, 4, "1.0000×10⁶", r"1.0000 \times 10^{6}"),
    (999999.99995, 5, "999999.99995", "999999.99995"),
    (999999.994, 2, "999999.99", "999999.99"),
    (999999.995, 2, "1.00×10⁶", r"1.00 \times 10^{6}"),
    (-999999.995, 2, "−1.00×10⁶", r"-1.00 \times 10^{6}"),
    (827392.0, 4, "827392.0000", "827392.0000"),  # the largest number of the examples
    (1.4779186482698107e-28, 4, "0.0000", "0.0000"),  # the smallest weight of the examples
])
def test_a_number_is_written_m_times_ten_to_the_k_past_the_thresholds(
        value: float, precision: int, text: str, tex: str) -> None:
    number = NumberFormat(precision=precision)
    assert number(value) == text
    assert number.math()(value) == tex
    assert number.written([value, 0.5]) == [text, number(0.5)]  # a row at once, alike


def test_the_thresholds_one_ulp_either_side() -> None:
    assert LARGE == 1e6
    below = math.nextafter(LARGE, 0.0)  # 999999.9999999999
    assert NumberFormat(precision=10)(below) == "999999.9999999999"
    assert NumberFormat(precision=2)(below) == "1.00×10⁶"  # rounds to a million
    assert NumberFormat(precision=10)(LARGE) == "1.0000000000×10⁶"
    assert NumberFormat(precision=10)(math.nextafter(LARGE, 2e6)) == "1.0000000000×10⁶"
    # a small number is monotone with the rest: 10⁻⁵, 10⁻²⁹ and 10⁻⁴⁵ are all 0.00
    assert [TEXT(x) for x in (1e-5, SMALL, math.nextafter(SMALL, 0.0), 1e-45, -1e-45)] == \
        ["0.00"] * 5


def test_marks_infinities_and_zero_are_as_before() -> None:
    comma = NumberFormat.with_mark(2, "comma")
    assert comma(1.5e20) == "1,50×10²⁰"
    assert comma.math()(1.5e20) == r"1{,}50 \times 10^{20}"
    assert [TEXT(x) for x in (0.0, -0.0, math.inf, -math.inf, math.nan)] == \
        ["0.00", "0.00", "∞", "−∞", "NaN"]


def test_rounded_is_the_number_as_written() -> None:
    assert rounded(1.234567e20, 2) == 1.23e20
    assert rounded(1.23456e-30, 2) == 0.0
    assert rounded(999999.995, 2) == 1e6
    assert rounded(1e-29, 2) == 0.0


def test_a_spec_number_is_written_with_its_digits_past_the_thresholds() -> None:
    assert [shortest(x) for x in (2.0, -1.0, 0.5, 1e-5, 999999.0)] == \
        ["2", "−1", "0.5", "0.00001", "999999"]
    assert shortest(1e308) == "1×10³⁰⁸"
    assert shortest(-1.5e20, "-", tex=True) == r"-1.5 \times 10^{20}"
    assert shortest(1.23456e-30) == "1.23456×10⁻³⁰"


def test_equals_only_where_the_printed_numbers_give_the_printed_result() -> None:
    # 1.20×10²⁰ · 2.00 = 2.40×10²⁰ exactly; 1.23×10²⁰ · 2.00 = 2.46×10²⁰, not 2.47×10²⁰
    assert exact(Sum((Product((Num(1.2e20), Num(2.0))),)), 2.4e20, 2)
    assert not exact(Sum((Product((Num(1.234567e20), Num(2.0))),)), 2.469134e20, 2)
    # 1.23×10²⁰ · 1.23×10²⁰ = 1.5129×10⁴⁰, written 1.51×10⁴⁰, not the 1.52×10⁴⁰ of the result
    x = 1.234567e20
    assert not exact(Sum((Product((Num(x), Num(x))),)), x * x, 2)
    assert not exact(Sum(Terms(np.array([x, 0.0]), np.array([x, 0.0]))), x * x, 2)
    assert exact(Sum(Terms(np.array([x, 0.0]), np.array([1.0, 0.0]))), x, 2)
    # 0.00 · 0.00 + 2.00 · 1.00 = 2.00: a tiny number is printed, and worked, as 0.00
    a, b = np.array([1.23456e-30, 2.0]), np.array([3e-30, 1.0])
    assert exact(Sum(Terms(a, b)), 2.0, 2)
    assert exact(Sum((Product((Num(1.23456e-30), Num(3e-30))),)), 3.7037e-60, 2)


def test_a_sum_with_a_tiny_number_and_a_row_is_left_to_the_general_path() -> None:
    """A gradient's sum Σ aₖ·[row] (a Vec among its factors) with a number under 10⁻²⁹: no
    dot product (None), as for any such sum."""
    terms = (Product((Num(1e-30), Num(2.0))), Product((Num(0.5), Vec((1.0, 2.0)))))
    assert dot(Sum(terms), 2) is None
    # numbers only: worked on the printed numbers, 0.00·2.00 + 0.50·4.00
    value = dot(Sum((Product((Num(1e-30), Num(2.0))), Product((Num(0.5), Num(4.0))))), 2)
    assert value == Decimal("2.0000")


def test_the_walkthrough_writes_its_lines_with_the_same_rule(tmp_path: Path) -> None:
    (tmp_path / "s.yaml").write_text("tokens: [a, b]\nembeddings: [[1.234567e20, 0], [0, 1]]\n",
                                     encoding="utf-8")
    result = run("explain", str(tmp_path / "s.yaml"), "--format", "text")
    assert result.exit_code == 0, result.stderr
    lines = result.stdout.splitlines()
    assert "   Q[a, d1] = x_a·W_Q[:, d1] = 1.23×10²⁰·1.00 + 0.00·0.00 = 1.23×10²⁰" in lines
    assert "   S[a, a] = q_a·k_a = 1.23×10²⁰·1.23×10²⁰ + 0.00·0.00 ≈ 1.52×10⁴⁰" in lines
    assert "   S′[a, a] = S[a, a] / √2 = 1.52×10⁴⁰ / 1.41 = 1.08×10⁴⁰" in lines
    assert not re.search(r"\d{8}", result.stdout)


# The record's worst case: cat_chases_mouse with `\` tokens and a sink logit of 1e308.
RECORD = r"""title: \
tokens: [\0, \1, \2]
embeddings: [[1.0, 0.0], [0.2, 1.0], [0.8, 0.0]]
weights: {W_Q: identity, W_K: identity, W_V: identity}
mask: causal
sinks: [1.0e+308]
description: \ \
"""


def test_the_sink_logit_is_written_m_times_ten_to_the_k(tmp_path: Path) -> None:
    (tmp_path / "s.yaml").write_text(RECORD, encoding="utf-8")
    result = run("explain", str(tmp_path / "s.yaml"), "--format", "text")
    assert result.exit_code == 0, result.stderr
    assert "The sink logit s = 1×10³⁰⁸ joins" in " ".join(result.stdout.split())
    assert "   e^(0.57 − 1.00×10³⁰⁸) = 0.00" in result.stdout.splitlines()
    assert "   e^s = e^(1.00×10³⁰⁸ − 1.00×10³⁰⁸) = 1.00" in result.stdout.splitlines()
    assert not re.search(r"\d{8}", result.stdout)


@pytest.mark.parametrize("args", [["--latex", "--standalone", "--lang", "pl,en,ru"],
                                  ["--beamer", "--aspect", "43", "--lang", "pl"]])
def test_the_records_worst_case_compiles_with_no_overfull_box(tmp_path: Path,
                                                              args: list[str]) -> None:
    (tmp_path / "s.yaml").write_text(RECORD, encoding="utf-8")
    result = run("export", str(tmp_path / "s.yaml"), *args, "-o", str(tmp_path / "o.tex"))
    assert result.exit_code == 0, result.stderr
    tex = (tmp_path / "o.tex").read_text(encoding="utf-8")
    assert r"s = 1 \times 10^{308}" in tex
    assert re.findall(r"Overfull \\[hv]box[^\n]*", pdflatex(tex, tmp_path / "pdf")) == []


def test_a_hand_calculation_carries_the_numbers_as_written(tmp_path: Path) -> None:
    """--round-intermediates: 1.23×10²⁰ is carried, so q·k is 1.23×10²⁰·1.23×10²⁰ = 1.5129×10⁴⁰,
    written and carried as 1.51×10⁴⁰; 1.51×10⁴⁰ / 1.41 = 1.0709…×10⁴⁰, written 1.07×10⁴⁰."""
    (tmp_path / "s.yaml").write_text("tokens: [a, b]\nembeddings: [[1.234567e20, 0], [0, 1]]\n",
                                     encoding="utf-8")
    result = run("explain", str(tmp_path / "s.yaml"), "--format", "text",
                 "--round-intermediates")
    assert result.exit_code == 0, result.stderr
    lines = result.stdout.splitlines()
    assert "   S[a, a] = q_a·k_a = 1.23×10²⁰·1.23×10²⁰ + 0.00·0.00 = 1.51×10⁴⁰" in lines
    assert "   S′[a, a] = S[a, a] / √2 = 1.51×10⁴⁰ / 1.41 = 1.07×10⁴⁰" in lines


def test_a_constant_of_the_spec_is_written_with_its_digits_or_bracketed_m_times_ten_to_the_k(
        tmp_path: Path) -> None:
    """A RoPE base, a soft cap or a divisor written into a formula: whole numbers with their
    digits (Qwen's RoPE base 1000000, not 1e+06), m × 10^k bracketed where a power or a division
    takes it whole, and the numbers of a line bracketed alike when they divide."""
    from attncli.arithmetic.numbers import constant
    assert [constant(x) for x in (10000.0, 1e6, 2.5, 123456789.0)] == \
        ["10000", "1000000", "2.5", "123456789"]
    # the digits it was written with: six significant digits made 123456.5 a divisor of 123456
    # in `S′ = S / 123456`, beside the 123456.50 the division took
    assert [constant(x) for x in (123456.5, 0.1234567, 1e-5)] == ["123456.5", "0.1234567",
                                                                   "0.00001"]
    assert constant(1.5e20) == "(1.5×10²⁰)"
    assert constant(1.5e20, tex=True) == r"\left(1.5 \times 10^{20}\right)"
    assert constant(1.5e20, bracket=False) == "1.5×10²⁰"
    (tmp_path / "z.yaml").write_text(
        "tokens: [a, b]\nembeddings: [[1, 0], [0, 1]]\n"
        "positional: {rope: {base: 1.5e20, layout: half}}\nsoftcap: 1e300\n"
        "scale: 123456789.5\n", encoding="utf-8")
    result = run("explain", str(tmp_path / "z.yaml"), "--format", "text", "-x", "all")
    assert result.exit_code == 0, result.stderr
    lines = result.stdout.splitlines()
    assert "positional encoding: rotary (RoPE), base 1.5×10²⁰, pairs (i, i + d_k/2)" in lines
    assert "   S′ = S / (1.234567895×10⁸)" in lines
    # 1.00 / 123456789.5 = 8.1×10⁻⁹: 0.00 as every small number
    assert "   S′[a, a] = S[a, a] / (1.234567895×10⁸) = 1.00 / (1.23×10⁸) = 0.00" in lines
    assert "   S″ = c·tanh(S′ / c) = (1×10³⁰⁰)·tanh(S′ / (1×10³⁰⁰))" in lines
    assert not [line for line in lines if "e+" in line]
    (tmp_path / "q.yaml").write_text(
        "tokens: [a, b]\nembeddings: [[1, 0], [0, 1]]\n"
        "positional: {rope: {base: 1000000, layout: half}}\n", encoding="utf-8")
    qwen = run("explain", str(tmp_path / "q.yaml"), "--format", "text")
    assert "positional encoding: rotary (RoPE), base 1000000, pairs (i, i + d_k/2)" in \
        qwen.stdout.splitlines()


def test_a_length_past_float64_prints_no_numpy_warning(tmp_path: Path) -> None:
    """|k| of a key of 1e200 overflows in NumPy's norm: it is ∞ and no angle is written, and
    NumPy's English warning with its source path (`RuntimeWarning: overflow encountered in dot`)
    no longer reaches stderr."""
    (tmp_path / "s.yaml").write_text("tokens: [a, b]\nembeddings: [[1, 0], [0, 1]]\n"
                                     "weights: {W_K: [[1e200, 0], [0, 1e200]]}\n")
    done = run_apart(tmp_path, "--lang", "pl", "explain", "s.yaml", "-f", "text")
    assert (done.returncode, done.stderr) == (0, "")
    assert "1.00×10²⁰⁰" in done.stdout


@pytest.mark.parametrize(("precision", "value", "text"), [
    (311, 1e-310, "1.0×10⁻³¹⁰"),  # an error of 10^−310 to two significant digits
    (16, 1.25e-11, "1.25000×10⁻¹¹"),  # 16 decimals: m has the 16 − 11 = 5 past its first digit
    (16, -3e-11, "−3.00000×10⁻¹¹"),
    (15, 1e-11, "0.000000000010000"),  # 15 decimals are written in fixed digits, as before
    (16, 2e-10, "0.0000000002000000"),  # a first digit at the tenth decimal: fixed digits
])
def test_a_tiny_number_written_to_many_decimals_is_m_times_ten_to_the_k(
        precision: int, value: float, text: str) -> None:
    """A low-precision error or underflow of a subnormal number (10^−310) was written with 311
    decimals, five lines of zeros; past 15 decimals a number below 10^−10 is m × 10^k."""
    number = NumberFormat(precision=precision)
    assert number(value) == text
    assert number.written([value, 0.5]) == [text, number(0.5)]


def test_an_underflow_of_a_subnormal_number_is_one_line(tmp_path: Path) -> None:
    spec = tmp_path / "s.yaml"
    spec.write_text("tokens: [a, b]\nembeddings:\n  - [1.0e-310, 1.0]\n  - [1.0, 2.0]\n"
                    "dtype: bfloat16\n", encoding="utf-8")
    result = run("explain", str(spec), "-f", "text", "--steps", "embeddings")
    assert result.exit_code == 0
    assert ("In bfloat16: the largest error against float64 is 1.0×10⁻³¹⁰, at X[a, d1];"
            in result.stdout)
    assert "Underflow: X[a, d1] is 0 in bfloat16 (float64: 1.000×10⁻³¹⁰)." in result.stdout


EPS_RECORD = """tokens: [a, b]
embeddings: [[1, 0], [0, 1]]
qk_norm: {over: head, eps: 3e-300}
block:
  rms_norm: {eps: 1.5e-300}
  moe:
    router: {W: [[1, 0], [0, 1]]}
    top_k: 1
    alpha: 1.2345e-250
    limit: 2.5e250
    experts:
      - {W_1: [[1, 0], [0, 1]], W_3: [[1, 0], [0, 1]], W_2: [[1, 0], [0, 1]]}
      - {W_1: [[1, 0], [0, 1]], W_3: [[1, 0], [0, 1]], W_2: [[1, 0], [0, 1]]}
"""


def test_an_eps_alpha_or_limit_is_written_m_times_ten_to_the_k(tmp_path: Path) -> None:
    """An eps of 2.5e-200 was written with its 200 decimals: a LaTeX page 674 pt too wide.
    Powers of ten stay 10⁻⁵; a number below 10⁻⁶ or from 10¹⁵ on is m × 10^k with m's digits."""
    from attncli.arithmetic.constants import constant, plain_number
    assert [plain_number(x) for x in (1e-5, 2e-5, 1.5e-6, 2.5e-7, 2.5e-200, 1e-320, 5e-324,
                                      2.5e250, 1e15, 123456789.5)] == \
        ["10⁻⁵", "0.00002", "0.0000015", "2.5×10⁻⁷", "2.5×10⁻²⁰⁰", "10⁻³²⁰", "5×10⁻³²⁴",
         "2.5×10²⁵⁰", "10¹⁵", "123456789.5"]
    assert constant(2.5e-200).latex == r"2.5 \times 10^{-200}"
    assert constant(1e-320).latex == "10^{-320}"
    (tmp_path / "s.yaml").write_text(EPS_RECORD, encoding="utf-8")
    result = run("explain", str(tmp_path / "s.yaml"), "--format", "text")
    assert result.exit_code == 0, result.stderr
    prose = " ".join(result.stdout.split())
    assert "clamped from above at ℓ = 2.5×10²⁵⁰" in prose
    assert "with α = 1.2345×10⁻²⁵⁰" in prose
    assert "1.5×10⁻³⁰⁰" in prose and "3×10⁻³⁰⁰" in prose
    assert not re.search(r"\d{12}", result.stdout)


@pytest.mark.parametrize("args", [["--latex", "--standalone", "--lang", "ru"],
                                  ["--beamer", "--lang", "pl"]])
def test_the_eps_record_compiles_with_no_overfull_box(tmp_path: Path, args: list[str]) -> None:
    (tmp_path / "s.yaml").write_text(EPS_RECORD, encoding="utf-8")
    result = run("export", str(tmp_path / "s.yaml"), *args, "-o", str(tmp_path / "o.tex"))
    assert result.exit_code == 0, result.stderr
    tex = (tmp_path / "o.tex").read_text(encoding="utf-8")
    assert r"2.5 \times 10^{250}" in tex
    assert re.findall(r"Overfull \\[hv]box[^\n]*", pdflatex(tex, tmp_path / "pdf")) == []
