"""Errors that name the right place in the right words: a key at its own line and column, a tab,
the calculator form without repeated names and with decimal commas, CSV rows counted from 1,
padding as 0/1, --steps that knows what the spec has, and str() of a library error."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from attncli import build, loads_spec
from attncli.errors import SpecError
from tests.conftest import run


def test_an_unknown_key_is_located_at_the_key_itself(write: Callable[[str, str], Path]) -> None:
    path = write("tokens: [a, b]\nembedings:\n  - [1, 0]\n  - [0, 1]\n", "spec.yaml")
    result = run("validate", str(path))
    assert result.stderr.splitlines()[0] == (
        f"{path}:2:1: embedings: unknown key; did you mean embeddings?")
    nested = write("tokens: [a]\nembeddings: [[1]]\nweights:\n  W_Q: identity\n  wk: identity\n",
                   "nested.yaml")
    assert run("validate", str(nested)).stderr.splitlines()[0] == (
        f"{nested}:5:3: weights.wk: unknown key; did you mean W_K?")
    json_path = write('{"tokens": ["a"],\n   "embedings": [[1]]}', "spec.json")
    assert run("validate", str(json_path)).stderr.splitlines()[0].startswith(
        f"{json_path}:2:4: embedings: unknown key")


def test_a_tab_says_yaml_indents_with_spaces(write: Callable[[str, str], Path]) -> None:
    path = write("tokens: [a]\nembeddings:\n\t- [1]\n", "tab.yaml")
    result = run("validate", str(path))
    assert result.exit_code == 2
    assert result.stderr.splitlines()[0] == (
        f"{path}:3:1: malformed YAML: a tab: YAML indents with spaces")
    polish = run("validate", str(path), env={"ATTN_LANG": "pl"}).stderr.splitlines()[0]
    assert polish == (f"{path}:3:1: błędny YAML: tabulator: YAML dopuszcza we wcięciach "
                      "tylko spacje")


@pytest.mark.parametrize(("args", "line"), [
    (["--tokens", "a b c", "--embeddings", "1 0; 0 1"],
     "attn: --embeddings: has 2 rows, expected one per token (3)"),
    (["--tokens", "a b", "--embeddings", "1 0; 0 1", "--mask", "1 0 1"],
     "attn: --mask: is 1 × 3, expected queries × keys = 2 × 2"),
    (["--tokens", "a b", "--embeddings", "1,0; 0,1"],
     'attn: --embeddings: 1,0 could be read with a decimal comma or with commas between numbers; '
     'separate numbers by spaces and rows by ";", like "0,5 1; 1 0,25" or "0.5 1; 1 0.25"'),
    (["--tokens", "a b", "--embeddings", "1, 0,5; 1 1"],
     'attn: --embeddings: 0,5 could be read with a decimal comma or with commas between numbers; '
     'separate numbers by spaces and rows by ";", like "0,5 1; 1 0,25" or "0.5 1; 1 0.25"'),
])
def test_the_calculator_form_names_the_option_once(args: list[str], line: str) -> None:
    result = run("explain", *args)
    assert (result.exit_code, result.stdout, result.stderr) == (2, "", line + "\n")


def test_the_calculator_form_reads_decimal_commas() -> None:
    doc = run("explain", "--tokens", "a b", "--embeddings", "0,5 1; 1 0,25", "--scale", "0,5",
              "--format", "json").json()
    embeddings = next(s for s in doc["steps"] if s["id"] == "embeddings")["matrices"][0]
    assert embeddings["values"] == [[0.5, 1.0], [1.0, 0.25]]  # 2 × 2, not [[0, 5, 1], [1, 0, 25]]
    scores = next(s for s in doc["steps"] if s["id"] == "scores")["matrices"][0]["values"]
    scaled = next(s for s in doc["steps"] if s["id"] == "scaled")["matrices"][0]["values"]
    assert scaled[0][1] == scores[0][1] / 0.5
    # commas between numbers, with or without spaces, still separate them
    for form in ("1, 0; 0, 1", "1,0,0; 0,1,0"):
        doc = run("explain", "--tokens", "a b", "--embeddings", form, "--format", "json").json()
        values = next(s for s in doc["steps"] if s["id"] == "embeddings")["matrices"][0]["values"]
        assert values[0][:2] == [1.0, 0.0] and values[1][:2] == [0.0, 1.0]


def test_help_says_the_calculator_form_takes_a_decimal_comma() -> None:
    out = run("explain", "--help", env={"COLUMNS": "200"}).stdout
    assert 'a decimal comma works too: "1 0; 0,2 1"' in " ".join(out.split())


@pytest.mark.parametrize(("csv", "reason"), [
    ("a,b\n1,2\n", "line 1, column 1: expected a number, found a"),
    ("1,2\n3,x\n", "line 2, column 2: expected a number, found x"),
    ("# a comment\n1,2\n3\n", "line 3 has 1 number, expected 2"),
])
def test_csv_rows_and_columns_are_counted_from_1(write: Callable[[str, str], Path], csv: str,
                                                 reason: str) -> None:
    write(csv, "e.csv")
    path = write("tokens: [a, b]\nembeddings: {file: e.csv}\n", "spec.yaml")
    assert run("validate", str(path)).stderr.splitlines()[0] == (
        f"{path}:2:20: embeddings.file: e.csv: {reason}")


def test_padding_takes_1_and_0_as_well_as_true_and_false() -> None:
    base = "tokens: [a, b, c]\nembeddings: [[1, 0], [0, 1], [1, 1]]\nmask: {padding: %s}\n"
    as_numbers = build(loads_spec(base % "[1, 1, 0]")).heads[0].weights.values
    as_booleans = build(loads_spec(base % "[true, true, false]")).heads[0].weights.values
    assert as_numbers.tolist() == as_booleans.tolist()
    assert (as_numbers[:, 2] == 0).all() and (as_numbers[:, :2] > 0).all()
    with pytest.raises(SpecError) as caught:
        loads_spec(base % "[1, 2, 0]")
    assert str(caught.value) == ("<string>:3:21: mask.padding[1]: expected true, false, 1 or 0, "
                                 "found the number 2")


def test_steps_tells_a_step_this_spec_lacks_from_an_unknown_one() -> None:
    absent = run("explain", "--steps", "concat")
    assert absent.exit_code == 2
    assert absent.stderr == ("attn: --steps: concat is not in this spec, whose steps are "
                             "embeddings, parameters, projections, scores, scaled, masked, "
                             "weights, output\n")
    unknown = run("explain", "--steps", "scroes")
    assert unknown.stderr.startswith("attn: --steps: unknown step scroes;")


def test_str_of_a_spec_error_is_the_finished_sentence() -> None:
    with pytest.raises(SpecError) as caught:
        loads_spec("tokens: [a, b]\nembeddings: [[1, 0], [0, 1]]\nweights: {W_Q: [[1, 0]]}\n")
    assert str(caught.value) == (
        "<string>:3:16: weights.W_Q is 1 × 2, expected d_model × d_k = 2 × 2")
    assert "{" not in str(caught.value)
