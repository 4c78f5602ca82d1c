"""What `attn check` pays for an answer of whole numbers (issue #28): the cells are rounded by
array, never one by one for each slip tried, and the slip worked by hand is charged before it
is paid, as --round-intermediates is."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from attncli.arithmetic.handcalc import HandCalculation
from attncli.check import compare
from attncli.check.answer import Answer, Written
from attncli.errors import Location
from tests.conftest import run
from tests.test_check_large import as_text, spec_file, weights_of

NOT_TRIED = {
    "en": "   Not tried: every intermediate rounded to 0 decimals along the way (working it by "
          "hand takes 6,400 weights; the limit is 5,000, which depends on --max-cells).",
    "pl": "   Nie sprawdzono takiego błędu: każda wartość pośrednia zaokrąglana po drodze do 0 "
          "miejsc po przecinku – ręczne obliczenia objęłyby 6400 wag, a limit to 5000 (zależy "
          "od opcji --max-cells).",
    "ru": "   Не проверена такая ошибка: каждое промежуточное значение по ходу расчёта "
          "округлялось до 0 знаков после запятой — вручную пришлось бы вычислить 6400 весов, а "
          "предел — 5000 (он зависит от --max-cells).",
}


def random_cells(rng: np.random.Generator, count: int) -> tuple[np.ndarray, list[Written]]:
    """`count` right values and the numbers a student might write for them: the value rounded
    (half up and half even, so some cells are off by one unit), a unit off, 0, at 0 to 6
    decimals or at a place left of the point; values that are exact ties (0.125, −2.5),
    within 10⁻⁹ of one, negative, past a million, inf and NaN."""
    decimals = rng.integers(-3, 7, size=count)  # (count,)
    units = rng.integers(-2_000_000, 2_000_000, size=count)  # (count,)
    value = (units + rng.choice([0.5, 0.5 + 1e-10, 0.5 - 1e-10, 0.0],
                                size=count) * rng.choice([0, 1], size=count)) \
        / 10.0 ** decimals.clip(0)  # (count,): many a tie at the last decimal
    value = np.where(rng.random(count) < 0.5, rng.normal(scale=3.0, size=count), value)
    value[rng.random(count) < 0.01] = np.inf
    value[rng.random(count) < 0.01] = -np.inf
    value[rng.random(count) < 0.01] = np.nan
    cells = []
    for v, d in zip(value.tolist(), decimals.tolist(), strict=True):
        kind = rng.integers(4)
        if not np.isfinite(v) or kind == 0:
            written = 0.0 if kind == 0 else v
        elif d < 0:
            written = float(round(v / 10.0 ** -d) * 10.0 ** -d)
        else:
            written = round(v, d) + (0 if kind < 3 else float(rng.choice([-1, 1])) / 10 ** d)
        cells.append(Written(repr(written), written, int(d)))
    return value, cells


def test_the_cells_rounded_by_array_agree_with_each_rounded_alone() -> None:
    """`agreeing` is `matches` of every cell, over 60,000 cells of every kind, ties among them:
    the array rounding decides none otherwise than the one rule attn prints with."""
    rng = np.random.default_rng(28)
    value, cells = random_cells(rng, 60_000)
    values = value.reshape(200, 300)
    answer = Answer("weights", tuple(tuple(cells[i:i + 300]) for i in range(0, 60_000, 300)),
                    Location("--answer"))
    same = compare.agreeing(values, answer)
    alone = np.array([[compare.matches(float(values[i, j]), answer.cells[i][j])
                       for j in range(300)] for i in range(200)])
    assert np.array_equal(same, alone)
    assert 6_000 < alone.sum() < 54_000  # both kinds are many


@pytest.fixture
def counted(monkeypatch: pytest.MonkeyPatch) -> dict[str, int]:
    """How often a cell is rounded alone (compare.matches) and how many rows of e^x a hand
    calculation works in Decimal (HandCalculation.softmax_parts)."""
    counts = {"matches": 0, "rows by hand": 0}
    real_matches, real_parts = compare.matches, HandCalculation.softmax_parts

    def matches(value: float, answer: Written) -> bool:
        counts["matches"] += 1
        return real_matches(value, answer)

    def softmax_parts(self, logits):  # type: ignore[no-untyped-def]
        counts["rows by hand"] += len(logits)
        return real_parts(self, logits)

    monkeypatch.setattr(compare, "matches", matches)
    monkeypatch.setattr(HandCalculation, "softmax_parts", softmax_parts)
    return counts


@pytest.mark.parametrize("lang", ["en", "pl", "ru"])
def test_an_answer_of_whole_numbers_is_rounded_by_array_and_the_hand_slip_is_charged(
        tmp_path: Path, counted: dict[str, int], lang: str) -> None:
    """80 tokens, every weight written 0 but the first (7): half a unit of 0 decimals reaches
    every weight, so each of the 6,400 was rounded alone for each of 8 slips (51,200 calls;
    397,786 for 223 tokens, 5 s), and the slip `every intermediate rounded to 0 decimals`
    worked 6,400 e^x in Decimal, past the 5,000 weights --round-intermediates may take at
    --max-cells 1,000,000. The cells are rounded by array and the slip is named as not tried."""
    x = np.random.default_rng(80).normal(size=(80, 4)).round(2)
    a = weights_of(x)  # (80, 80)
    cells = [["0"] * 80 for _ in range(80)]
    cells[0][0] = "7"
    result = run("check", str(spec_file(tmp_path, x)), "--step", "weights", "--answer",
                 as_text(cells), "--max-cells", "1000000", "--lang", lang)
    assert result.exit_code == 1
    lines = result.stdout.replace("\xa0", " ").splitlines()
    wrong = [(i, j) for i in range(80) for j in range(80) if f"{a[i, j]:.0f}" != cells[i][j]]
    assert lines[0].endswith(f" {len(wrong)} of 6,400 numbers differ:" if lang == "en" else ":")
    assert lines[-1] == NOT_TRIED[lang].replace("\xa0", " ")
    assert counted == {"matches": 0, "rows by hand": 0}


def test_the_hand_slip_within_the_limit_is_tried_as_before(
        tmp_path: Path, counted: dict[str, int]) -> None:
    """The same answer for 40 tokens: 1,600 weights, within the limit: the slip is worked by
    hand on every row (40 rows of e^x) and named as before, with no line of a slip not tried."""
    x = np.random.default_rng(80).normal(size=(40, 4)).round(2)
    cells = [["0"] * 40 for _ in range(40)]
    cells[0][0] = "7"
    result = run("check", str(spec_file(tmp_path, x)), "--step", "weights", "--answer",
                 as_text(cells), "--max-cells", "1000000")
    assert result.exit_code == 1
    assert "Not tried" not in result.stdout
    assert counted == {"matches": 0, "rows by hand": 40}
