"""attn check with numbers of a million and more, which attn prints m × 10^k (docs/formats.md,
"Very large numbers"): a student's number is checked at the place of its own last digit, in
the notation they wrote it, never at the mantissa attn prints. Every expected value is worked by
hand from Q[a, d1] = 1.234567e20 (identity weights)."""

from __future__ import annotations

from pathlib import Path

import pytest

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
