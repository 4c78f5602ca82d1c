"""Input that once ended in "internal error" (exit 3) or slipped through: each is now one line
naming where the problem is, exit 2 and nothing written, or, where the input is good, the
document it asks for. Cases that fit a spec file are in tests/bad_inputs/; these need an option,
an answer file, a manifest, a link or a pipe."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import run
from tests.test_latex_pages import pdflatex

ROOT = Path(__file__).resolve().parent.parent
CAT = str(ROOT / "configs" / "cat_chases_mouse.yaml")
RIGHT = "1 0 0; 0.36 0.64 0; 0.4 0.25 0.35"  # cat chases mouse's weights (README)


def long_tokens_spec(folder: Path, count: int, length: int) -> Path:
    """`count` tokens of `length` characters each: a matrix of one column per block."""
    tokens = [f"t{i:02d}" + "x" * (length - 3) for i in range(count)]
    path = folder / "long.yaml"
    path.write_text(json.dumps({
        "tokens": tokens, "embeddings": [[round(0.1 * i, 1), 0.5] for i in range(count)],
        "weights": {"W_Q": "identity", "W_K": "identity", "W_V": "identity"}}),
        encoding="utf-8")
    return path


@pytest.mark.parametrize(("fmt", "length", "widest"), [("--latex", 42, 2), ("--beamer", 42, 1),
                                                       ("--markdown", 32, 1)])
def test_long_token_names_split_a_matrix_into_blocks(fmt: str, length: int, widest: int,
                                                     tmp_path: Path) -> None:
    spec = long_tokens_spec(tmp_path, 20, length)
    out = tmp_path / "out.txt"
    result = run("export", str(spec), fmt, "-o", str(out))
    assert (result.exit_code, result.stderr) == (0, "")
    text = out.read_text(encoding="utf-8").replace("\\_", "_")
    # A is 20 × 20, elided to 4 + 4 columns; each block names its columns (one, or two in the
    # article, whose row labels are set in lines), the mark (⋯) rides with a block and no block
    # is the mark alone
    names = [f"t{i:02d}" + "x" * (length - 3) for i in (*range(4), *range(16, 20))]
    weights = text.split("Attention weights")[-1].split("Output")[0]
    if widest == 1:
        for name in names:
            assert f"column {name} of 20" in text
        assert "columns" not in weights
        return
    blocks = re.findall(r"columns? (t\d\dx+)(?:–(?:\\allowbreak\{\})?(t\d\dx+))? of 20",
                        weights)  # a range may break after its dash in LaTeX
    spans = [range(int(first[1:3]), int((last or first)[1:3]) + 1) for first, last in blocks]
    assert [i for span in spans for i in span] == [int(name[1:3]) for name in names]
    assert max(len(span) for span in spans) == widest


def test_long_token_names_compile_in_latex(tmp_path: Path) -> None:
    spec = long_tokens_spec(tmp_path, 20, 42)
    out = tmp_path / "doc.tex"
    assert run("export", str(spec), "--latex", "--standalone", "-o", str(out)).exit_code == 0
    log = pdflatex(out.read_text(encoding="utf-8"), tmp_path / "build")
    assert "Output written" in log


@pytest.mark.parametrize(("answer", "line"), [
    ("1e-999999999", "attn: --answer: 1e-999999999 has 999,999,999 decimals; an answer is "
                     "checked to at most 15"),  # a count, its digits grouped
    # a long number is quoted as every value is: its first 20 characters, …, its last 10
    ("1" + "0" * 100_000, "attn: --answer: 10000000000000000000…0000000000 is larger than any "
                          "number attn computes with (about 1.8e308)"),
    ("1." + "0" * 100_000, "attn: --answer: 1.000000000000000000…0000000000 has 100,000 "
                           "decimals; an answer is checked to at most 15"),
    ("1e999", "attn: --answer: 1e999 is larger than any number attn computes with (about "
              "1.8e308)"),
    ("nan", "attn: --answer: expected a number, found nan"),
    ("0.1234567890123456", "attn: --answer: 0.1234567890123456 has 16 decimals; an answer is "
                           "checked to at most 15"),
    # an exponent of 19 digits or more, past what Decimal holds, was "expected a number"
    ("0.35e999999999999999999999", "attn: --answer: 0.35e999999999999999999999 is larger than "
                                   "any number attn computes with (about 1.8e308)"),
    ("1e-99999999999999999999999", "attn: --answer: 1e-99999999999999999999999 has more "
                                   "decimals than an answer is checked to (at most 15)"),
    ("1×10⁻" + "⁹" * 22, "attn: --answer: 1×10⁻" + "⁹" * 22 + " has more decimals than an "
                          "answer is checked to (at most 15)"),
])
def test_a_number_no_check_can_use_is_bad_input(answer: str, line: str) -> None:
    result = run("check", CAT, "--step", "weights", "--answer", f"{answer} 0 0; 0.36 0.64 0; "
                 "0.4 0.25 0.35")
    assert (result.exit_code, result.stdout, result.stderr) == (2, "", line + "\n")


def test_fifteen_decimals_and_the_largest_float_are_still_numbers() -> None:
    exact = run("check", CAT, "--step", "weights", "--answer",
                "1.000000000000000 0 0; 0.36 0.64 0; 0.4 0.25 0.35")
    assert exact.exit_code == 0
    huge = run("check", CAT, "--step", "weights", "--answer", "1e308 0 0; 0.36 0.64 0; "
               "0.4 0.25 0.35")
    assert huge.exit_code == 1 and "you wrote 1e308, the right value is 1" in huge.stdout


def test_nan_in_an_answer_file_is_bad_input_as_typed(tmp_path: Path) -> None:
    answers = tmp_path / "a.yaml"
    answers.write_text("weights: [[.nan, 0, 0], [0.36, 0.64, 0], [0.4, 0.25, 0.35]]\n",
                       encoding="utf-8")
    result = run("check", CAT, "--answer", str(answers))
    assert (result.exit_code, result.stderr) == (
        2, f"{answers}:1:12: weights[0][0]: expected a number, found .nan\n")


def test_a_bad_key_of_an_answer_file_is_named_at_its_line(tmp_path: Path) -> None:
    answers = tmp_path / "a.yaml"
    answers.write_text(f'weights: "{RIGHT}"\nwieghts: [[1]]\n', encoding="utf-8")
    result = run("check", CAT, "--answer", str(answers))
    assert (result.exit_code, result.stdout) == (2, "")
    assert result.stderr == (f"{answers}:2:1: unknown step wieghts; expected one of "
                             "embeddings, parameters, Q, K, V, scores, scaled, masked, weights, "
                             "output; did you mean weights?\n")
    answers.write_text(f'head: 3\nweights: "{RIGHT}"\n', encoding="utf-8")
    head = run("check", CAT, "--answer", str(answers))
    assert (head.exit_code, head.stderr) == (
        2, f"{answers}:1:7: expected a head from 1 to 1, found 3\n")
    typed = run("check", CAT, "--answer", RIGHT, "--step", "weights", "--head", "2")
    assert (typed.exit_code, typed.stderr) == (
        2, "attn: --head: expected a head from 1 to 1, found 2\n")


@pytest.mark.parametrize(("head", "lang", "found"), [
    ("[1, 2]", "en", "found a list of 2 items"),
    ("{a: 1}", "en", "found a mapping of 1 key"),
    ("[1, 2]", "pl", "otrzymano: lista z\u00a02 elementami"),  # a one-letter word keeps its noun
    ("{a: 1}", "ru", "получено: словарь с\u00a01 ключом"),
    ('"2"', "en", 'found the text "2"'),
])
def test_a_head_that_is_no_number_is_said_as_written(tmp_path: Path, head: str, lang: str,
                                                     found: str) -> None:
    """Not Python's repr of attn's parsed nodes (`found [Node(value=1, where=…`)."""
    answers = tmp_path / "a.yaml"
    answers.write_text(f'head: {head}\nweights: "1"\n', encoding="utf-8")
    result = run("check", str(ROOT / "configs" / "two_heads.yaml"), "--answer", str(answers),
                 "--lang", lang)
    expected = {"en": "head: expected a head number (1, 2, ...), ",
                "pl": "head: oczekiwano numeru głowicy (1, 2, …), ",
                "ru": "head: ожидается номер головы (1, 2, …), "}[lang]
    assert (result.exit_code, result.stdout) == (2, "")
    assert result.stderr == f"{answers}:1:7: {expected}{found}\n"


def test_a_negative_seed_is_refused_before_anything_is_written(tmp_path: Path) -> None:
    sheet, picture = tmp_path / "sheet.tex", tmp_path / "h.svg"
    result = run("export", CAT, "--latex", "--worksheet", "--blank-cells", "3", "--seed", "-5",
                 "-o", str(sheet), "--heatmap", str(picture))
    assert (result.exit_code, result.stderr) == (
        2, "attn: --seed: expected a whole number of at least 0, found -5\n")
    assert list(tmp_path.iterdir()) == []


def manifest(folder: Path, text: str) -> None:
    (folder / "posts").mkdir()
    (folder / "posts" / "a.yaml").write_text(Path(CAT).read_text(encoding="utf-8"),
                                             encoding="utf-8")
    (folder / "attn.toml").write_text(text, encoding="utf-8")


ENTRY = '[[snippets]]\nspecs = "posts/a.yaml"\nformats = ["text"]\noutput = "{output}"\n'


def test_an_output_folder_that_is_a_loop_of_links(tmp_path: Path,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    manifest(tmp_path, ENTRY.format(output="out/{name}.{ext}"))
    (tmp_path / "out").symlink_to("out")
    monkeypatch.chdir(tmp_path)
    result = run("snippets")
    assert (result.exit_code, result.stderr) == (
        2, "attn.toml:4:10: snippets[0].output: the snippet out/a.txt: the symbolic links lead "
           "in a loop\n")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["attn.toml", "out", "posts"]


def test_a_conversion_in_a_placeholder_is_named_as_written(tmp_path: Path,
                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    manifest(tmp_path, ENTRY.format(output="out/{name!r}.{ext}"))
    monkeypatch.chdir(tmp_path)
    result = run("snippets")
    assert (result.exit_code, result.stderr) == (
        2, "attn.toml:4:10: snippets[0].output: unknown placeholder {name!r}; expected one of "
           "{name}, {dir}, {lang}, {format}, {ext}\n")


@pytest.mark.parametrize("opening", ["[", "{a = "])
def test_a_manifest_nested_too_deep(opening: str, tmp_path: Path,
                                    monkeypatch: pytest.MonkeyPatch) -> None:
    closing = "]" if opening == "[" else "}"
    manifest(tmp_path, ENTRY.format(output="out/{name}.{ext}") + "x = " + opening * 330
             + closing * 330 + "\n")
    monkeypatch.chdir(tmp_path)
    result = run("snippets")
    # the 65th opening is past the limit: after `x = ` and 64 others
    column = 5 + 64 * len(opening)
    assert (result.exit_code, result.stderr) == (
        2, f"attn.toml:5:{column}: the manifest nests lists and tables more than 64 levels "
           "deep\n")


def test_a_reader_that_goes_away_ends_snippets_diff_with_141(tmp_path: Path) -> None:
    """Unbuffered (PYTHONUNBUFFERED=1, as CI runners often set), a short write once dropped the
    rest of the diff and the command ended 0."""
    manifest(tmp_path, ENTRY.format(output="out/{name}.{ext}").replace(
        '"posts/a.yaml"', '"posts/*.yaml"').replace('["text"]', '["text", "latex", "markdown"]'))
    for i in range(12):
        (tmp_path / "posts" / f"a{i}.yaml").write_text(Path(CAT).read_text(encoding="utf-8"),
                                                       encoding="utf-8")
    env = {**os.environ, "PYTHONUNBUFFERED": "1", "PYTHONPATH": str(ROOT)}
    done = subprocess.run(f"{sys.executable} -m attncli snippets --diff 2>/dev/null | head -c 10;"
                          " echo \" ${PIPESTATUS[0]}\"", shell=True, executable="/bin/bash",
                          cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300,
                          check=True)
    assert done.stdout == "--- /dev/n 141\n"
    assert not (tmp_path / "out").exists()


NBSP = "\u00a0"


@pytest.mark.parametrize(("write", "lang", "said"), [
    (lambda p: p.write_text("# nothing but a comment\n"), "en",
     "a.yaml: the answer file is empty; expected a mapping of step ids to matrices"),
    (lambda p: p.mkdir(), "pl",
     f"a.yaml: to jest katalog, a{NBSP}powinien być plik z{NBSP}odpowiedzią"),
    (lambda p: p.write_text("weights: " + "[" * 200 + "]" * 200 + "\n"), "ru",
     f"a.yaml:1:73: в{NBSP}файле ответа списки и{NBSP}словари вложены глубже, чем на 64 уровня"),
])
def test_an_answer_file_is_called_one_not_a_spec(write: Any, lang: str, said: str,
                                                 tmp_path: Path,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    write(tmp_path / "a.yaml")
    monkeypatch.chdir(tmp_path)
    result = run("check", CAT, "--answer", "a.yaml", "--lang", lang)
    assert (result.exit_code, result.stdout) == (2, "")
    assert result.stderr == said + "\n"
    assert "spec" not in result.stderr and "specyfikac" not in result.stderr
    assert "спецификац" not in result.stderr


@pytest.mark.parametrize(("lang", "said"), [
    ("en", "expected a number, found a list of 1 item"),
    ("pl", "oczekiwano liczby, otrzymano: lista z\u00a01 elementem"),
])
def test_a_cell_that_is_a_list_is_described_in_the_language(lang: str, said: str,
                                                            tmp_path: Path) -> None:
    answers = tmp_path / "a.yaml"
    answers.write_text("weights: [[[1]]]\n", encoding="utf-8")
    result = run("check", CAT, "--answer", str(answers), "--lang", lang)
    assert (result.exit_code, result.stdout) == (2, "")
    assert result.stderr == f"{answers}:1:12: weights[0][0]: {said}\n", result.stderr


@pytest.mark.parametrize(("value", "lang", "said"), [
    # !!bool maybe was KeyError and !!timestamp x AttributeError (exit 3, internal error);
    # !!float one and !!int 1.5 quoted Python's ValueError in English, in every language
    ("!!bool maybe", "en", 'expected true or false, found the text "maybe"'),
    ("!!timestamp x", "en", 'YAML reads x as a date, and there is no such date; if it is text, '
     'write it in quotes: "x"'),
    ("!!float one", "en", 'expected a number, found the text "one"'),
    ("!!int 1.5", "en", 'expected a whole number, found the text "1.5"'),
    ("!!float one", "pl", "oczekiwano liczby, otrzymano: tekst „one”"),
    ("!!float one", "ru", "ожидается число, получено: текст «one»"),
])
def test_a_tagged_value_its_tag_cannot_read_is_named_at_its_place(
        value: str, lang: str, said: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "s.yaml").write_text(f"tokens: [a, b]\nembeddings: [[{value}, 0], [0, 1]]\n"
                                     "weights: {W_Q: identity, W_K: identity, W_V: identity}\n",
                                     encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    result = run("explain", "s.yaml", "--format", "text", "--lang", lang)
    assert (result.exit_code, result.stdout, result.stderr) == (
        2, "", f"s.yaml:2:15: embeddings[0][0]: {said}\n")
