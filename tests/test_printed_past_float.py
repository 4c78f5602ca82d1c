"""A number whose printed value is past the largest double (1.7976e308 at 2 decimals is written
1.80×10³⁰⁸; 1.5e308 at 0 decimals, 2×10³⁰⁸): worked by its written digits, not as an infinity
(int(inf) was attn's exit 3), and `=` only where those digits give the printed result."""

from __future__ import annotations

import json
from decimal import Decimal
from pathlib import Path

import pytest

from attncli.arithmetic.exactness import exact, printed
from attncli.model import Num, Product, Quotient, Sum
from tests.conftest import run

BIASES = [("b_Q", 1.7976e308, "2"), ("b_K", 1.7976931348623157e308, "2"), ("b_Q", 1.5e308, "0")]
FORMATS = [["--latex", "--standalone"], ["--beamer"], ["--json"], ["--xlsx"], ["--markdown"],
           ["--html"], ["--typst"], ["--svg"]]


def spec(tmp_path: Path, bias: str, value: float) -> Path:
    path = tmp_path / "s.json"
    path.write_text(json.dumps({"tokens": ["a", "b"], "embeddings": [[1, 0], [0, 1]],
                                "weights": {bias: [value, 0]}}), encoding="utf-8")
    return path


def test_the_printed_value_is_its_digits() -> None:
    assert printed(1.7976e308, 2) == Decimal("1.80E+308")
    assert printed(1.5e308, 0) == Decimal("2E+308")
    assert printed(-1.7976e308, 2) == Decimal("-1.80E+308")


def test_equals_only_where_the_written_digits_give_the_written_result() -> None:
    # 1.00·1.00 + 1.80×10³⁰⁸ = 1.80×10³⁰⁸ (the 1 is far below the last digit)
    assert exact(Sum((Product((Num(1.0), Num(1.0))), Num(1.7976e308))), 1.7976e308, 2)
    # 1.80×10³⁰⁸ + 1.80×10³⁰⁸ = 3.60×10³⁰⁸, not the 1.80×10³⁰⁸ of a result that is as large
    # as a double gets: both were an infinity, and so "equal"
    assert not exact(Sum((Num(1.7976e308), Num(1.7976e308))), 1.7976e308, 2)
    # 1.80×10³⁰⁸ / 1.41 = 1.2766×10³⁰⁸, written 1.28×10³⁰⁸, not the 1.27×10³⁰⁸ of 1.7976e308/√2
    assert not exact(Quotient(Num(1.7976e308), Num(2 ** 0.5)), 1.7976e308 / 2 ** 0.5, 2)
    # 2×10³⁰⁸ · 1 = 2×10³⁰⁸ at 0 decimals
    assert exact(Sum((Product((Num(1.5e308), Num(1.0))),)), 1.5e308, 0)


@pytest.mark.parametrize(("bias", "value", "precision"), BIASES)
def test_the_walkthrough_writes_the_bias_as_attn_prints_it(tmp_path: Path, bias: str,
                                                           value: float, precision: str) -> None:
    result = run("explain", str(spec(tmp_path, bias, value)), "-f", "text", "-p", precision)
    assert result.exit_code == 0, result.stderr
    lines = [" ".join(line.split()) for line in result.stdout.splitlines()]
    if precision == "2":
        letter = bias[-1]
        assert (f"{letter}[a, d1] = x_a·W_{letter}[:, d1] + {bias}[d1] = 1.00·1.00 + 0.00·0.00 "
                "+ 1.80×10³⁰⁸ =") in lines
        product = "1.80×10³⁰⁸·1.00" if letter == "Q" else "1.00·1.80×10³⁰⁸"
        assert f"S[a, a] = q_a·k_a = {product} + 0.00·0.00 = 1.80×10³⁰⁸" in lines
        assert "S′[a, a] = S[a, a] / √2 = 1.80×10³⁰⁸ / 1.41 ≈ 1.27×10³⁰⁸" in lines
    else:
        assert "Q[a, d1] = x_a·W_Q[:, d1] + b_Q[d1] = 1·1 + 0·0 + 2×10³⁰⁸ = 2×10³⁰⁸" in lines
        assert "S′[a, a] = S[a, a] / √2 = 2×10³⁰⁸ / 1 ≈ 1×10³⁰⁸" in lines


@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize(("bias", "value", "precision"), BIASES[::2])
def test_every_format_is_written(tmp_path: Path, fmt: list[str], bias: str, value: float,
                                 precision: str) -> None:
    out = tmp_path / "out"
    result = run("export", str(spec(tmp_path, bias, value)), *fmt, "-p", precision,
                 "--lang", "pl", "-o", str(out))
    assert result.exit_code == 0, result.stderr
    assert out.stat().st_size > 1000
