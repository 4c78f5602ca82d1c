"""The comments `attn examples NAME --lang pl|ru` writes are wrapped between words, never inside
a formula: no line ends with `=` or an operator, whatever column the formula starts at."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from typer.testing import CliRunner

from attncli.cli.app import app
from attncli.i18n.comments import comment_lines

FORMULA = "F = (GELU(Y·W_1) ⊙ Y·W_3)·W_2"
LONG = "P[k, 2i] = sin(k / 100^(2i/4)) ≈ 0.84"
ENDS_INSIDE = re.compile(r"[=≈+−·/⊙×]$")


@pytest.mark.parametrize("lang", ["pl", "ru"])
@pytest.mark.parametrize("formula", [FORMULA, LONG])
def test_a_formula_is_never_broken_whatever_column_it_starts_at(lang: str, formula: str) -> None:
    for shift in range(0, 60):
        text = "słowo " * (shift // 6) + "x" * (shift % 6) + " " + formula + " koniec zdania"
        lines = [line.replace("\u00a0", " ") for line in comment_lines(text, lang, 40)]
        assert sum(formula in line for line in lines) == 1, (shift, lines)
        assert not any(ENDS_INSIDE.search(line) for line in lines), (shift, lines)


def test_a_formula_longer_than_the_line_stays_whole() -> None:
    lines = comment_lines("tu " + FORMULA + " i dalej", "pl", 12)
    assert FORMULA in [line.replace("\u00a0", " ") for line in lines]


@pytest.mark.parametrize("lang", ["pl", "ru"])
def test_no_bundled_example_breaks_a_formula_in_its_comments(lang: str) -> None:
    broken = []
    for path in sorted(Path(__file__).parent.parent.glob("configs/*.yaml")):
        result = CliRunner().invoke(app, ["examples", path.stem, "--lang", lang])
        assert result.exit_code == 0, result.output
        broken += [f"{path.stem}: {line}" for line in result.stdout.splitlines()
                   if line.lstrip().startswith("#") and ENDS_INSIDE.search(line.rstrip())]
    assert broken == []
