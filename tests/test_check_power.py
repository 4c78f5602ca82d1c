"""attn check reads a number as attn writes one of a million or more, m × 10^k with its exponent
in superscripts (`1.00×10⁶`, `1,00×10⁶` with a decimal comma), checked at its own place as
`1.00e6` is. It was refused: `attn: --answer: expected a number, found 1.00×10⁶`, so a student
could not check a number copied from the walkthrough."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import run

SPEC = "tokens: [a, b]\nembeddings: [[1.0e6, 0], [0, 2.5e20]]\n"


@pytest.mark.parametrize(("answer", "lang", "code"), [
    ("1.00×10⁶ 0; 0 2.50×10²⁰", "en", 0),
    ("1×10⁶ 0; 0 3×10²⁰", "en", 0),  # 2.5e20 to the 10^20 place: 3×10²⁰, rounded half up
    ("1,00×10⁶ 0; 0 2,50×10²⁰", "pl", 0),
    ("1.00×10⁶ 0; 0 2.60×10²⁰", "en", 1),
])
def test_an_answer_written_m_times_ten_to_the_k(tmp_path: Path, answer: str, lang: str,
                                                 code: int) -> None:
    (tmp_path / "s.yaml").write_text(SPEC, encoding="utf-8")
    result = run("check", str(tmp_path / "s.yaml"), "--step", "embeddings", "--answer", answer,
                 "--lang", lang)
    assert result.exit_code == code, result.stderr
    if code == 1:
        assert "X[b, d2]: you wrote 2.60×10²⁰" in result.stdout


def test_a_power_with_no_mantissa_or_no_exponent_is_refused(tmp_path: Path) -> None:
    (tmp_path / "s.yaml").write_text(SPEC, encoding="utf-8")
    for bad in ("×10⁶", "1.00×10"):
        result = run("check", str(tmp_path / "s.yaml"), "--step", "embeddings", "--answer",
                     f"{bad} 0; 0 1")
        assert result.exit_code == 2
        assert result.stderr == f"attn: --answer: expected a number, found {bad}\n"


def test_what_attn_prints_with_a_decimal_comma_and_minus_signs_reads_back(
        tmp_path: Path) -> None:
    """`attn explain --matrix X --decimal-comma` prints `1,00×10⁶ −2,25; 0,50 −3,00×10⁷` (U+2212):
    the minus sign beside m × 10^k broke the decimal-comma decision and the answer was
    refused; and `--embeddings` did not read m × 10^k at all."""
    spec = tmp_path / "s.yaml"
    spec.write_text("tokens: [a, b]\nembeddings: [[1000000, -2.25], [0.5, -30000000]]\n")
    printed = run("explain", str(spec), "--matrix", "X", "-f", "text", "--decimal-comma")
    assert printed.stdout.split() == ["d1", "d2", "a", "1,00×10⁶", "−2,25", "b", "0,50",
                                      "−3,00×10⁷"]
    checked = run("check", str(spec), "--step", "embeddings", "--answer",
                  "1,00×10⁶ −2,25; 0,50 −3,00×10⁷")
    assert (checked.exit_code, checked.stderr) == (0, "")
    typed = run("explain", "--tokens", "a b", "--embeddings", "−1,00×10⁶ 0,5; 0,5 −3,00×10⁷",
                "--matrix", "X", "-f", "text")
    assert typed.exit_code == 0
    assert typed.stdout.split()[3:5] == ["−1.00×10⁶", "0.50"]


@pytest.mark.parametrize(("answer", "lang", "code"), [
    # m × 10^k as typed on one line: caret, TeX's braces, brackets, *, x or ·, and 10^k alone
    ("1.00×10^6 0; 0 2.50×10^20", "en", 0),
    ("1*10^6 0; 0 3*10^(20)", "en", 0),  # 2.5e20 to the 10^20 place: 3, rounded half up
    ("10^6 0; 0 2.5x10^{20}", "en", 0),
    ("1,00·10^6 0; 0 2,50·10^+20", "pl", 0),
    ("1.00×10^6 0; 0 2.60×10^20", "en", 1),
])
def test_an_answer_typed_with_a_caret(tmp_path: Path, answer: str, lang: str, code: int) -> None:
    (tmp_path / "s.yaml").write_text(SPEC, encoding="utf-8")
    result = run("check", str(tmp_path / "s.yaml"), "--step", "embeddings", "--answer", answer,
                 "--lang", lang)
    assert result.exit_code == code, result.stderr
    if code == 1:  # answered in the student's own signs, m's digits as theirs: 2.5 to 2 decimals
        assert ("X[b, d2]: you wrote 2.60×10^20, the right value is 2.50×10^20 (2.5000×10^20)"
                in result.stdout)


@pytest.mark.parametrize("bad", ["10^", "1.2×10^", "1.2×10^(-3", "1.2×10^{3)", "1.2×10^1.5",
                                 "2^10", "1.2××10^3"])
def test_a_caret_form_that_is_not_a_number_is_refused(tmp_path: Path, bad: str) -> None:
    (tmp_path / "s.yaml").write_text(SPEC, encoding="utf-8")
    result = run("check", str(tmp_path / "s.yaml"), "--step", "embeddings", "--answer",
                 f"{bad} 0; 0 1")
    assert (result.exit_code, result.stderr) == (
        2, f"attn: --answer: expected a number, found {bad}\n")


def test_a_caret_answer_past_a_float_is_quoted_as_typed(tmp_path: Path) -> None:
    (tmp_path / "s.yaml").write_text(SPEC, encoding="utf-8")
    result = run("check", str(tmp_path / "s.yaml"), "--step", "embeddings", "--answer",
                 "2×10^999 0; 0 1")
    assert result.stderr == ("attn: --answer: 2×10^999 is larger than any number attn computes "
                             "with (about 1.8e308)\n")
