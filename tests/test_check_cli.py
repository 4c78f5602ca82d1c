"""`attn check` from the command line: exit codes a course's CI can grade by, the answer file,
the languages, and one line for bad input."""

from __future__ import annotations

from pathlib import Path

from tests.conftest import CONFIGS, run

CAT = str(CONFIGS / "cat_chases_mouse.yaml")
# seed 000 at full precision: A[chases] = [0.3557, 0.6443, 0], A[mouse] = [0.3954, 0.2515, 0.3531]
RIGHT = "1 0 0; 0.36 0.64 0; 0.40 0.25 0.35"
BY_HAND = "1 0 0; 0.35 0.65 0; 0.4 0.25 0.35"


def test_right_answer_exits_0() -> None:
    result = run("check", CAT, "--step", "weights", "--answer", RIGHT)
    assert result.exit_code == 0, result.stderr
    assert result.stdout == "A: right to your precision (all 9 numbers).\n"


def test_more_and_fewer_decimals_are_right_too() -> None:
    result = run("check", CAT, "--step", "weights", "--answer",
                 "1 0 0; 0.3557 0.644 0; 0.4 0.3 0.4")
    assert result.exit_code == 0, result.stdout


def test_wrong_answer_exits_1_and_names_the_slip() -> None:
    result = run("check", CAT, "--step", "weights", "--answer", BY_HAND)
    assert result.exit_code == 1
    assert result.stdout.splitlines() == [
        "A: right except row “chases”; 2 of 9 numbers differ:",
        "   A[chases, cat]: you wrote 0.35, the right value is 0.36 (0.3557)",
        "   A[chases, chases]: you wrote 0.65, the right value is 0.64 (0.6443)",
        "   Your numbers match every intermediate rounded to 2 decimals along the way.",
    ]
    assert result.stderr == "attn: 1 answer of 1 is wrong\n"


def test_softmax_over_columns_in_polish_and_russian() -> None:
    # S′ = X·Xᵀ/√2 under the causal mask, e^x divided by its column's sum instead of its row's
    answer = "0.41 0 0; 0.23 0.65 0; 0.36 0.35 1"
    pl = run("check", CAT, "--step", "weights", "--answer", answer, "--lang", "pl")
    ru = run("check", CAT, "--step", "weights", "--answer", answer, "--lang", "ru")
    assert pl.exit_code == ru.exit_code == 1
    assert "Twoje liczby wychodzą przy takim błędzie: softmax po kolumnach zamiast po " \
        "wierszach." in pl.stdout
    assert "Ваши числа получаются при такой ошибке: softmax по столбцам вместо строк." in ru.stdout
    assert "6 z\u00a09 liczb się nie zgadza:" in pl.stdout  # 5 and more: singular verb
    assert "6 из 9 чисел не совпадают:" in ru.stdout


def test_answer_file_with_several_steps(tmp_path: Path) -> None:
    answers = tmp_path / "answers.yaml"
    answers.write_text("weights: [[1, 0, 0], [0.36, 0.64, 0], [0.40, 0.25, 0.35]]\n"
                       "output: \"1 0; 0.48 0.64; 0.73 0.25\"\n", encoding="utf-8")
    result = run("check", CAT, "--answer", str(answers))
    assert result.exit_code == 0, result.stdout + result.stderr
    assert result.stdout.splitlines() == ["A: right to your precision (all 9 numbers).",
                                          "Z: right to your precision (all 6 numbers)."]


def test_bad_input_is_one_line_and_exit_2(tmp_path: Path) -> None:
    ragged = run("check", CAT, "--step", "weights", "--answer", "1 0 0; 0.36 0.64")
    assert (ragged.exit_code, ragged.stderr) == (2, "attn: --answer: row 2 has 2 numbers, "
                                                 "expected 3\n")
    shape = run("check", CAT, "--step", "output", "--answer", "1 0 0; 0.36 0.64 0")
    assert shape.exit_code == 2
    assert shape.stderr == ("attn: --answer: Z is 3 × 2 (rows “cat”, “chases”, “mouse”); the "
                            "answer is 2 × 3\n")
    answers = tmp_path / "a.yaml"
    answers.write_text("weights:\n  - [1, 0, x]\n", encoding="utf-8")
    word = run("check", CAT, "--answer", str(answers))
    assert word.exit_code == 2
    assert word.stderr == f"{answers}:2:12: weights[0][2]: expected a number, found x\n"
    unknown = run("check", CAT, "--step", "weigths", "--answer", "1")
    assert unknown.exit_code == 2 and "unknown step weigths" in unknown.stderr
    assert "Traceback" not in unknown.stderr + word.stderr


def test_the_example_answer_file_in_every_language() -> None:
    """configs/answers/cat_chases_mouse_by_hand.yaml against tests/golden/check_*.txt (regenerate
    with ATTN_UPDATE_GOLDEN=1 and read the diff)."""
    import os

    golden = Path(__file__).parent / "golden_check"
    for lang in ("en", "pl", "ru"):
        result = run("check", CAT, "--answer",
                     str(CONFIGS / "answers" / "cat_chases_mouse_by_hand.yaml"), "--lang", lang)
        assert result.exit_code == 1
        path = golden / f"check_cat_chases_mouse_by_hand.{lang}.txt"
        if os.environ.get("ATTN_UPDATE_GOLDEN") == "1":
            path.write_text(result.stdout, encoding="utf-8")
        assert result.stdout == path.read_text(encoding="utf-8")


def test_an_answer_of_the_wrong_shape_for_600_tokens_is_one_line(tmp_path: Path) -> None:
    """A is 600 × 600: the refusal names its first 9 rows, an ellipsis and the last (it listed
    every row, nested one sentence per row, and ended in a RecursionError traceback)."""
    tokens = [f"t{i}" for i in range(600)]
    spec = tmp_path / "spec.yaml"
    spec.write_text("tokens: [" + ", ".join(tokens) + "]\nembeddings: {random: {seed: 1}, "
                    "dim: 2}\nweights: {W_Q: identity, W_K: identity, W_V: identity}\n",
                    encoding="utf-8")
    result = run("check", str(spec), "--step", "weights", "--answer", "1 0")
    rows = ", ".join(f"“t{i}”" for i in range(9))
    assert (result.exit_code, result.stdout, result.stderr) == (
        2, "", f"attn: --answer: A is 600 × 600 (rows {rows}, …, “t599”); the answer is 1 × 2\n")


def test_a_row_of_one_number_is_said_in_the_singular(tmp_path: Path) -> None:
    typed = run("check", CAT, "--step", "weights", "--answer", "1 0 0; 0.36; 0.4 0.25 0.35")
    assert (typed.exit_code, typed.stderr) == (
        2, "attn: --answer: row 2 has 1 number, expected 3\n")
    (tmp_path / "ragged.yaml").write_text("weights: [[1, 0, 0], [0.36], [0.4, 0.25, 0.35]]\n")
    filed = run("check", CAT, "--answer", str(tmp_path / "ragged.yaml"), "--lang", "ru")
    assert filed.exit_code == 2
    assert filed.stderr.endswith("ragged.yaml:1:22: weights: строка 2: 1 число, ожидается 3\n")


def test_the_spec_and_the_answer_cannot_both_be_standard_input() -> None:
    """`attn check - -a -`: the answer read all of standard input, and the spec's text was judged
    as the answer (`<stdin>:4:3: title: expected a matrix …`)."""
    from typer.testing import CliRunner

    from attncli.cli.app import app

    result = CliRunner().invoke(app, ["check", "-", "-a", "-", "--lang", "en"],
                                input=(CONFIGS / "cat_chases_mouse.yaml").read_text("utf-8"))
    assert (result.exit_code, result.output) == (
        2, "attn: SPEC and --answer would both read standard input; name a file for one of them\n")
