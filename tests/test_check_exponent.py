"""attn check with numbers of a million and more, which attn prints m × 10^k (docs/formats.md,
"Very large numbers"): a student's number is checked at the place of its own last digit, in
the notation they wrote it, never at the mantissa attn prints. Every expected value is worked by
hand from Q[a, d1] = 1.234567e20 (identity weights)."""

from __future__ import annotations

from decimal import Decimal
from pathlib import Path

import pytest

from attncli.arithmetic.numbers import half_up, mantissa
from tests.conftest import run

SPEC = "tokens: [a, b]\nembeddings: [[1.234567e20, 0], [0, 1]]\n"


@pytest.fixture
def spec(tmp_path: Path) -> str:
    path = tmp_path / "s.yaml"
    path.write_text(SPEC, encoding="utf-8")
    return str(path)


@pytest.mark.parametrize("answer", [
    "1.23e20 0; 0 1",  # 1.234567 to 2 decimals of the mantissa: 1.23
    "1.2e20 0; 0 1",
    "12.3e19 0; 0 1",  # the same place, 10^18, written otherwise
    "1.23E+20 0; 0 1.0",
    "123456700000000000000 0; 0 1",  # every digit: right to the unit
    "1e20 0; 0 1",  # to the place of 10^20: 1.234567 rounds to 1
])
def test_a_number_with_an_exponent_or_every_digit_is_right_at_its_own_place(
        spec: str, answer: str) -> None:
    result = run("check", spec, "--step", "Q", "--answer", answer)
    assert result.exit_code == 0, result.stdout + result.stderr
    assert result.stdout == "Q: right to your precision (all 4 numbers).\n"


@pytest.mark.parametrize(("answer", "line"), [
    # 1.24 is not 1.234567 rounded to 2 decimals: 1.23 is, and 1.2346 to two more
    ("1.24e20 0; 0 1", "you wrote 1.24e20, the right value is 1.23e20 (1.2346e20)"),
    ("2e20 0; 0 1", "you wrote 2e20, the right value is 1e20 (1.23e20)"),
    ("1.2400e+20 0; 0 1", "you wrote 1.2400e+20, the right value is 1.2346e20 (1.234567e20)"),
    # a number written without an exponent is answered in fixed digits, as the student writes
    ("1000000 0; 0 1",
     "you wrote 1000000, the right value is 123456700000000000000 (123456700000000000000.00)"),
    # written m × 10^k, as attn prints a number of a million or more: answered so, with m's digits
    ("1.24×10²⁰ 0; 0 1", "you wrote 1.24×10²⁰, the right value is 1.23×10²⁰ (1.2346×10²⁰)"),
    ("1,24×10²⁰ 0; 0 1", "you wrote 1,24×10²⁰, the right value is 1,23×10²⁰ (1,2346×10²⁰)"),
    ("−1.2×10²⁰ 0; 0 1", "you wrote −1.2×10²⁰, the right value is 1.2×10²⁰ (1.235×10²⁰)"),
])
def test_a_wrong_number_is_answered_in_the_notation_it_was_written_in(
        spec: str, answer: str, line: str) -> None:
    result = run("check", spec, "--step", "Q", "--answer", answer)
    assert result.exit_code == 1
    assert f"   Q[a, d1]: {line}\n" in result.stdout


def test_a_small_number_with_an_exponent_is_checked_at_its_mantissa(tmp_path: Path) -> None:
    """0.3557 written 3.6e-1 is right (two decimals' place, as 0.36), 3.5e-1 is not."""
    path = tmp_path / "t.yaml"
    path.write_text("tokens: [a, b]\nembeddings: [[0.3557, 0], [0, 1]]\n", encoding="utf-8")
    right = run("check", str(path), "--step", "Q", "--answer", "3.6e-1 0; 0 1.0")
    assert right.exit_code == 0, right.stdout
    wrong = run("check", str(path), "--step", "Q", "--answer", "3.5e-1 0; 0 1.0")
    assert "you wrote 3.5e-1, the right value is 3.6e-1 (3.557e-1)" in wrong.stdout


# Each ended in "internal error" (exit 3): the right value was padded to the student's digits in
# a decimal Context too small for them. A float means at most 17 significant digits, so m is
# written with at most 16 decimals (docs/check.md, "Precision").
@pytest.mark.parametrize("written", [
    "2.0000000000000000000000000000e20",  # 28 decimals in m: 10^-8 place, within 15 decimals
    "2." + "0" * 100 + "e100",  # 100 decimals in m, the units' place
])
def test_a_long_mantissa_gets_the_right_value_to_what_a_float_holds(
        spec: str, written: str) -> None:
    result = run("check", spec, "--step", "Q", "--answer", f"{written} 0; 0 1")
    assert result.exit_code == 1, result.stderr
    assert (f"   Q[a, d1]: you wrote {written}, the right value is 1.2345670000000000e20 "
            "(1.2345670000000000e20)\n") in result.stdout


@pytest.mark.parametrize(("size", "answer", "line"), [
    # 10^30 (31 digits, and 2 more decimals): past the 28 digits of Python's default Context
    ("1e30", "1 0; 0 1",
     "you wrote 1, the right value is 1" + "0" * 30 + " (1" + "0" * 30 + ".00)"),
    ("1e30", "1,5 0; 0 1",
     "you wrote 1,5, the right value is 1" + "0" * 30 + ",0 (1" + "0" * 30 + ",000)"),
    # 10^100: past the 80 digits attn's own Context carries
    ("1e100", "1.5 0; 0 1",
     "you wrote 1.5, the right value is 1" + "0" * 100 + ".0 (1" + "0" * 100 + ".000)"),
])
def test_a_plain_wrong_number_gets_a_huge_right_value_in_every_digit(
        tmp_path: Path, size: str, answer: str, line: str) -> None:
    path = tmp_path / "d.yaml"
    path.write_text(f"tokens: [a, b]\nembeddings: [[{size}, 0], [0, 1]]\n", encoding="utf-8")
    result = run("check", str(path), "--step", "embeddings", "--answer", answer)
    assert result.exit_code == 1, result.stderr
    assert f"   X[a, d1]: {line}\n" in result.stdout


# A zero is checked at the place of its last digit as any number is: every number attn computes
# (below 1.8 × 10^308) rounds to 0 at 10^1000000. These were exit 3 (Overflow, InvalidOperation).
@pytest.mark.parametrize("zero", ["0e1000000", "-0e1000000", "0e999999999", "0×10¹⁰⁰⁰⁰⁰⁰",
                                  "0e999999999999999999",
                                  # past what Decimal holds: was "expected a number"
                                  "0e99999999999999999999999999"])
def test_a_zero_written_with_a_huge_exponent_is_judged_at_its_place(spec: str, zero: str) -> None:
    result = run("check", spec, "--step", "Q", "--answer", f"{zero} 0; 0 1")
    assert (result.exit_code, result.stderr) == (0, "")
    assert result.stdout == "Q: right to your precision (all 4 numbers).\n"


@pytest.mark.parametrize(("name", "text"), [
    ("a.json", '{"Q": [[0e1000000, 0], [0, 1]]}'),
    ("a.yaml", "Q:\n  - [-0e999999999, 0]\n  - [0, 1]\n"),
])
def test_a_zero_with_a_huge_exponent_in_an_answer_file_is_judged_too(
        spec: str, tmp_path: Path, name: str, text: str) -> None:
    answers = tmp_path / name
    answers.write_text(text, encoding="utf-8")
    result = run("check", spec, "--answer", str(answers))
    assert (result.exit_code, result.stderr) == (0, "")
    assert result.stdout == "Q: right to your precision (all 4 numbers).\n"


def test_half_up_and_mantissa_reach_any_place() -> None:
    """Past what a decimal Context holds (Emax 999,999; 80 digits) the arithmetic is exact."""
    assert half_up(Decimal("0.36"), -1_000_000).as_tuple() == (0, (0,), 1_000_000)
    assert half_up(Decimal("-4.9"), -1).as_tuple() == (1, (0,), 1)  # |4.9| < 5: a zero
    assert half_up(Decimal("5"), -1) == 10  # the nearest place that still rounds
    m, k = mantissa(Decimal("1.234567E+20"), 100)
    assert (str(m), k) == ("1.234567" + "0" * 94, 20)


@pytest.mark.parametrize("digit", ["٣", "３", "३"])  # Arabic-Indic, fullwidth, Devanagari 3
def test_a_digit_of_another_script_is_not_read_as_a_number(spec: str, digit: str) -> None:
    result = run("check", spec, "--step", "Q", "--answer", f"{digit} 0; 0 1")
    assert result.exit_code == 2
    assert result.stderr == f"attn: --answer: expected a number, found {digit}\n"
    embedded = run("explain", "--tokens", "a b", "--embeddings", f"1 0; 0 {digit}", "-f", "json")
    assert embedded.exit_code == 2
    assert "expected a number, found" in embedded.stderr and digit in embedded.stderr


def test_too_many_decimals_are_counted_as_counts_are_and_quoted_as_written(spec: str) -> None:
    result = run("check", spec, "--step", "Q", "--answer", "1.23×10⁻⁶⁶⁶⁶⁶⁶⁶⁶⁶⁶⁶ 0; 0 1")
    assert result.exit_code == 2
    assert result.stderr == ("attn: --answer: 1.23×10⁻⁶⁶⁶⁶⁶⁶⁶⁶⁶⁶⁶ has 66,666,666,668 decimals; "
                             "an answer is checked to at most 15\n")


@pytest.mark.parametrize("written", ["1×10³⁰⁸", "1e308"])
def test_a_right_value_of_zero_is_written_0_in_any_notation(tmp_path: Path, written: str) -> None:
    path = tmp_path / "z.yaml"
    path.write_text("tokens: [a, b]\nembeddings: [[0, 0], [0, 1]]\n", encoding="utf-8")
    result = run("check", str(path), "--step", "Q", "--answer", f"{written} 0; 0 1")
    assert result.exit_code == 1
    assert f"   Q[a, d1]: you wrote {written}, the right value is 0 (0)\n" in result.stdout


def test_an_underscore_is_not_part_of_a_number_typed_in() -> None:
    """Python's float() reads 1_000 as 1000; `attn check` refuses it, and so does --embeddings."""
    result = run("explain", "--tokens", "a b", "--embeddings", "1_000 0; 0 1", "-f", "text")
    assert (result.exit_code, result.stderr) == (
        2, "attn: --embeddings: expected a number, found 1_000\n")
