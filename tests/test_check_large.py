"""`attn check` of a long sequence or a large answer: a refusal is made before any matrix is
computed whole, the slips are tried on the rows of the first differing numbers only, and the
report writes out the first numbers and counts the rest (issue #28: every cost charged before it
is paid)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from attncli.arithmetic.handcalc import FullPrecision, HandCalculation
from attncli.check import altered, compare
from attncli.check.altered import OnRows
from tests.conftest import run

IDENTITY = "weights: {W_Q: identity, W_K: identity, W_V: identity}\n"


def spec_file(folder: Path, x: np.ndarray) -> Path:
    """Tokens t0 … t(n-1) with embeddings `x` (n, d), W_Q = W_K = W_V = I, no mask."""
    rows = "".join("  - [" + ", ".join(repr(float(v)) for v in row) + "]\n" for row in x)
    path = folder / "spec.yaml"
    path.write_text("tokens: [" + ", ".join(f"t{i}" for i in range(len(x))) + "]\n"
                    "embeddings:\n" + rows + IDENTITY, encoding="utf-8")
    return path


def softmax_rows(s: np.ndarray) -> np.ndarray:
    e = np.exp(s - s.max(axis=1, keepdims=True))  # (n, m)
    return e / e.sum(axis=1, keepdims=True)


def weights_of(x: np.ndarray, scale: bool = True) -> np.ndarray:
    """A = softmax(X·Xᵀ/√d) with W_Q = W_K = I, by NumPy alone."""
    s = x @ x.T  # (n, d) @ (d, n) -> (n, n)
    return softmax_rows(s / np.sqrt(x.shape[1]) if scale else s)


def as_text(cells: list[list[str]]) -> str:
    return "; ".join(" ".join(row) for row in cells)


@pytest.fixture
def computed(monkeypatch: pytest.MonkeyPatch) -> list[tuple[int, ...] | None]:
    """The rows `kept` of every walkthrough attn check computes (None: every row, whole)."""
    calls: list[tuple[int, ...] | None] = []
    real = compare.compute

    def recording(spec, kept=None, calc=None):  # type: ignore[no-untyped-def]
        calls.append(kept)
        return real(spec, kept, calc)

    monkeypatch.setattr(compare, "compute", recording)
    return calls


@pytest.mark.parametrize("args", [
    ("--step", "weights", "--answer", "1 0"),  # A is 600 × 600
    ("--step", "nosuch", "--answer", "1 0"),
    ("--answer", "answers.yaml"),  # Q fits (600 × 2); weights, the second answer, does not
])
def test_a_refusal_computes_no_matrix_whole(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                            computed: list[tuple[int, ...] | None],
                                            args: tuple[str, ...]) -> None:
    """A wrong shape or an unknown step is known from a summary of the walkthrough (a few rows
    of each 600 × 600 matrix): attn check computed every matrix whole first, 249 MB for 3,000
    tokens, before it compared the answer's shape."""
    monkeypatch.chdir(tmp_path)
    x = np.random.default_rng(28).normal(size=(600, 2))
    spec = spec_file(tmp_path, x)
    (tmp_path / "answers.yaml").write_text(
        "Q: [" + ", ".join("[0, 0]" for _ in range(600)) + "]\nweights: [[1, 0]]\n",
        encoding="utf-8")
    result = run("check", str(spec), *args)
    assert result.exit_code == 2
    assert result.stdout == "" and len(result.stderr.splitlines()) == 1
    assert computed and all(kept is not None and len(kept) < 60 for kept in computed)


def test_an_answer_that_fits_is_judged_on_the_whole_walkthrough(
        tmp_path: Path, computed: list[tuple[int, ...] | None]) -> None:
    x = np.random.default_rng(28).normal(size=(600, 2))
    q = as_text([[f"{v:.2f}" for v in row] for row in x])  # Q = X·I
    result = run("check", str(spec_file(tmp_path, x)), "--step", "Q", "--answer", q)
    assert (result.exit_code, result.stdout) == (
        0, "Q: right to your precision (all 1,200 numbers).\n"), result.stderr
    assert computed[-1] is None  # the verdict reads every number


def test_a_large_wrong_answer_shows_its_first_numbers_and_counts_the_rest(
        tmp_path: Path) -> None:
    """40 × 40 numbers all wrong: 20 written out, the other 1,580 counted; attn wrote one line
    per number (40,000 lines, 2.5 MB, for 200 × 200)."""
    x = np.random.default_rng(7).normal(size=(40, 3))
    a = weights_of(x)  # (40, 40)
    answer = as_text([["5"] * 40 for _ in range(40)])  # no weight is 5 to 0 decimals
    result = run("check", str(spec_file(tmp_path, x)), "--step", "weights", "--answer", answer)
    assert result.exit_code == 1
    assert result.stderr == "attn: 1 answer of 1 is wrong\n"
    lines = result.stdout.splitlines()
    assert lines[0] == "A: 1,600 of 1,600 numbers differ:"
    assert lines[1:21] == [f"   A[t0, t{j}]: you wrote 5, the right value is "
                           f"{a[0, j]:.0f} ({a[0, j]:.2f})" for j in range(20)]
    assert lines[21] == "   … and 1,580 more differing numbers"
    assert lines[22] == "   Slips tried on the rows of the first 12 differing numbers only:"
    assert len(lines) == 24


@pytest.mark.parametrize(("right_cells", "en", "pl", "ru"), [
    (4, "… and 1 more differing number", "… i jeszcze 1 niezgodna liczba",
     "… и ещё 1 несовпадающее число"),
    (3, "… and 2 more differing numbers", "… i jeszcze 2 niezgodne liczby",
     "… и ещё 2 несовпадающих числа"),
    (0, "… and 5 more differing numbers", "… i jeszcze 5 niezgodnych liczb",
     "… и ещё 5 несовпадающих чисел"),
])
def test_the_numbers_not_shown_are_counted_in_every_language(
        tmp_path: Path, right_cells: int, en: str, pl: str, ru: str) -> None:
    """5 × 5 weights, the last `right_cells` of them right: 25 - right_cells differ, 20 shown."""
    x = np.random.default_rng(5).normal(size=(5, 2))
    a = weights_of(x)
    cells = [f"{v:.2f}" for v in a.ravel()]
    cells = ["5"] * (25 - right_cells) + cells[25 - right_cells:]
    answer = as_text([cells[i:i + 5] for i in range(0, 25, 5)])
    spec = str(spec_file(tmp_path, x))
    for lang, line in (("en", en), ("pl", pl), ("ru", ru)):
        result = run("check", spec, "--step", "weights", "--answer", answer, "--lang", lang)
        assert result.exit_code == 1
        assert "   " + line in result.stdout.replace("\xa0", " ").splitlines(), result.stdout
        assert len(result.stdout.splitlines()) == 24 if right_cells == 0 else 25


def test_a_slip_is_still_named_when_it_is_tried_on_some_rows(tmp_path: Path) -> None:
    """Every weight of 30 tokens computed without the division by √d_k (NumPy, 2 decimals):
    hundreds of numbers differ, the slips are tried on the first rows, and the slip is named."""
    x = np.random.default_rng(11).normal(size=(30, 2))
    a = weights_of(x, scale=False)  # (30, 30)
    answer = as_text([[f"{v:.2f}" for v in row] for row in a])
    result = run("check", str(spec_file(tmp_path, x)), "--step", "weights", "--answer", answer)
    assert result.exit_code == 1
    lines = result.stdout.splitlines()
    assert "   Slips tried on the rows of the first 12 differing numbers only:" in lines
    assert "   Your numbers match the scores not divided by √d_k (no scaling)." in lines


def test_a_hand_calculation_on_some_rows_is_the_hand_calculation_there(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """OnRows gives the rows it keeps exactly the numbers of the arithmetic it narrows, and
    computes that arithmetic's n x m formulas on those rows alone."""
    rng = np.random.default_rng(3)
    q, k, v = rng.normal(size=(6, 2)), rng.normal(size=(6, 2)), rng.normal(size=(6, 2))
    by_hand, rows = HandCalculation(2), (1, 4)
    narrowed = OnRows(by_hand, rows, 6)
    seen: list[int] = []
    real = HandCalculation.softmax_parts

    def counting(self, logits):  # type: ignore[no-untyped-def]
        seen.append(len(logits))
        return real(self, logits)

    monkeypatch.setattr(HandCalculation, "softmax_parts", counting)
    s = by_hand.dot_scores(q, k)  # (6, 6)
    scaled = by_hand.scale(s, 1.41)
    weights, _ = by_hand.softmax(scaled)
    seen.clear()
    narrowed_weights, _ = narrowed.softmax(narrowed.scale(narrowed.dot_scores(q, k), 1.41))
    assert seen == [2]  # two rows of e^x in Decimal, not six
    rows_ = list(rows)
    assert np.array_equal(narrowed.dot_scores(q, k)[rows_], s[rows_])
    assert np.array_equal(narrowed_weights[rows_], weights[rows_])
    assert np.array_equal(narrowed.attend(narrowed_weights, v)[rows_],
                          by_hand.attend(weights, v)[rows_])
    others = [0, 2, 3, 5]  # the rest at full precision
    full = FullPrecision()
    assert np.allclose(narrowed.dot_scores(q, k)[others], full.dot_scores(q, k)[others])
    assert altered.OnRows is OnRows


def test_hand_calculation_of_a_long_sequence_is_refused_as_explain_refuses_it(
        tmp_path: Path) -> None:
    """`attn check --round-intermediates` of 300 tokens and a 300 × 300 answer worked every
    softmax in decimal arithmetic, 90,000 e^x for each try: past 20 s of processor time. It is
    held to the weights `attn explain --round-intermediates` works by hand (a 500th of
    --max-cells)."""
    x = np.random.default_rng(3).normal(size=(300, 4))
    spec = spec_file(tmp_path, x)
    answer = tmp_path / "a.json"
    answer.write_text('{"weights": [' + ",".join(["[" + ",".join(["0.5"] * 300) + "]"] * 300)
                      + "]}", encoding="utf-8")
    # twice the default limit: an answer file of 100,000 numbers, 40,000 weights by hand
    line = ("attn: --round-intermediates: hand calculation of this spec works 90,000 weights; "
            "the limit is 40,000, which --max-cells sets\n")
    for command in (["explain", str(spec), "--format", "text"],
                    ["check", str(spec), "--answer", str(answer)]):
        result = run(*command, "--round-intermediates", "--max-cells", "20000000")
        assert (result.exit_code, result.stdout, result.stderr) == (2, "", line)


def test_an_answer_file_is_held_to_50000_numbers(tmp_path: Path) -> None:
    """Every step of a 300-token walkthrough answered (366,000 numbers) took 8.5 s and 279 MB;
    a 3,000 × 3,000 answer (9 million numbers, 18 MB) 1.7 GB before a verdict. An answer file
    holds at most 50,000 numbers (a 200th of --max-cells, at least 5,000) and 1 MiB, counted
    before they are read."""
    spec = spec_file(tmp_path, np.eye(3, 2))
    answer = tmp_path / "a.json"
    # 201 rows of 250: 50,250 numbers
    answer.write_text('{"weights": [' + ",".join(["[" + ",".join(["1"] * 250) + "]"] * 201)
                      + "]}", encoding="utf-8")
    result = run("check", str(spec), "--answer", str(answer))
    assert result.exit_code == 2 and result.stdout == ""
    assert result.stderr.endswith(
        ": the answer file holds more than 50,000 values, the limit that --max-cells sets\n")
    result = run("check", str(spec), "--answer", str(answer), "--max-cells", "20000000")
    assert "holds more than" not in result.stderr  # 100,000 with a limit twice as large
