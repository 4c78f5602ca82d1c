"""Bad input: one line on stderr naming file:line:column and key path, exit 2, nothing on stdout,
no traceback. The expected lines are written out in full: each is a message a user reads."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from tests.conftest import run

CASES = [
    ("shape", "spec.yaml",
     "tokens: [cat, chases]\nembeddings:\n  - [1, 0]\n  - [0, 1]\nweights:\n  W_Q:\n"
     "    - [1, 0]\n    - [0, 1]\n    - [1, 1]\n",
     "spec.yaml:7:5: weights.W_Q is 3x2, expected d_model x d_k = 2x2"),
    ("W_K against W_Q", "spec.yaml",
     "tokens: [a]\nembeddings: [[1, 2]]\nweights:\n  W_Q: [[1, 0, 0], [0, 1, 0]]\n"
     "  W_K: [[1, 0], [0, 1]]\n",
     "spec.yaml:5:8: weights.W_K is 2x2, expected d_model x d_k = 2x3"),
    ("column convention shape", "spec.yaml",
     "convention: column\ntokens: [a]\nembeddings: [[1, 2]]\nweights:\n  W_Q: [[1, 0, 0]]\n",
     "spec.yaml:5:8: weights.W_Q is 1x3, expected d_k x d_model = 1x2"),
    ("bias", "spec.yaml",
     "tokens: [a]\nembeddings: [[1, 2]]\nweights:\n  b_Q: [1, 2, 3]\n",
     "spec.yaml:4:8: weights.b_Q is 3, expected d_k = 2"),
    ("malformed YAML", "spec.yaml", "tokens: [a, b\nembeddings: [[1]]\n",
     "spec.yaml:2:11: malformed YAML: did not find expected ',' or ']'"),
    ("malformed JSON", "spec.json", '{"tokens": ["a"], "embeddings": [[1],]}',
     "spec.json:1:38: malformed JSON: Expecting value"),
    ("JSON duplicate key", "spec.json", '{"tokens": ["a"], "tokens": ["b"], "embeddings": [[1]]}',
     "spec.json: the key tokens is given twice"),
    ("JSON NaN", "spec.json", '{"tokens": ["a"], "embeddings": [[NaN]]}',
     "spec.json: expected a finite number, found NaN"),
    ("ragged rows", "spec.yaml", "tokens: [a, b]\nembeddings:\n  - [1, 0]\n  - [1]\n",
     "spec.yaml:4:5: embeddings[1]: expected a row of 2 numbers like the first row, found 1"),
    ("not a number", "spec.yaml", "tokens: [a, b]\nembeddings:\n  - [1, x]\n  - [1, 2]\n",
     'spec.yaml:3:9: embeddings[0][1]: expected a number, found the text "x"'),
    ("NaN", "spec.yaml", "tokens: [a]\nembeddings:\n  - [1, .nan]\n",
     "spec.yaml:3:9: embeddings[0][1]: expected a finite number, found .nan"),
    ("inf", "spec.yaml", "tokens: [a]\nembeddings:\n  - [-.inf]\n",
     "spec.yaml:3:6: embeddings[0][0]: expected a finite number, found -.inf"),
    ("too large for float64", "spec.yaml", "tokens: [a]\nembeddings:\n  - [1e999]\n",
     "spec.yaml:3:6: embeddings[0][0]: expected a finite number, found 1e999"),
    ("boolean in a matrix", "spec.yaml", "tokens: [a]\nembeddings: [[true]]\n",
     "spec.yaml:2:15: embeddings[0][0]: expected a number, found the boolean true"),
    ("empty tokens", "spec.yaml", "tokens: []\nembeddings: []\n",
     "spec.yaml:1:9: tokens: expected a list of tokens, found an empty list"),
    ("rows against tokens", "spec.yaml", "tokens: [a, b]\nembeddings: [[1]]\n",
     "spec.yaml:2:13: embeddings: has 1 rows, expected one per token (2)"),
    ("unknown key", "spec.yaml", "tokens: [a]\nembeddings: [[1]]\nmaks: causal\n",
     "spec.yaml:3:7: maks: unknown key; did you mean mask?"),
    ("unknown weight", "spec.yaml", "tokens: [a]\nembeddings: [[1]]\nweights: {Wq: identity}\n",
     "spec.yaml:3:15: weights.Wq: unknown key; did you mean W_Q?"),
    ("missing key", "spec.yaml", "tokens: [a]\n",
     "spec.yaml:1:1: the key embeddings is missing"),
    ("YAML boolean token", "spec.yaml", "tokens: [cat, on]\nembeddings: [[1], [2]]\n",
     'spec.yaml:1:15: tokens[1]: expected text, found on, which YAML reads as the boolean true; '
     'write it in quotes: "on"'),
    ("bare number token", "spec.yaml", "tokens: [a, 3]\nembeddings: [[1], [2]]\n",
     'spec.yaml:1:13: tokens[1]: expected text, found 3, which YAML reads as the number 3; '
     'write it in quotes: "3"'),
    ("not a mapping", "spec.yaml", "[1, 2]\n",
     "spec.yaml:1:1: expected a mapping, found a list of 2 items"),
    ("empty file", "spec.yaml", "", "spec.yaml: the spec is empty, expected a mapping of keys"),
    ("unknown mask", "spec.yaml", "tokens: [a]\nembeddings: [[1]]\nmask: causual\n",
     "spec.yaml:3:7: mask: expected none, causal, {window: w}, {padding: [...]} or a 0/1 "
     'matrix, found the text "causual"'),
    ("mask size", "spec.yaml", "tokens: [a, b]\nembeddings: [[1], [2]]\nmask: [[1, 0]]\n",
     "spec.yaml:3:7: mask is 1x2, expected queries x keys = 2x2"),
    ("padding size", "spec.yaml", "tokens: [a, b]\nembeddings: [[1], [2]]\n"
     "mask: {padding: [true]}\n",
     "spec.yaml:3:17: mask.padding: has 1 entries, expected one per key (2)"),
    ("mask values", "spec.yaml", "tokens: [a]\nembeddings: [[1]]\nmask: [[2]]\n",
     "spec.yaml:3:7: mask: expected only 1 (visible) and 0 (hidden) in a mask matrix"),
    ("negative scale", "spec.yaml", "tokens: [a]\nembeddings: [[1]]\nscale: -1\n",
     "spec.yaml:3:8: scale: expected a positive number to divide by, found -1"),
    ("precision", "spec.yaml", "tokens: [a]\nembeddings: [[1]]\ndisplay: {precision: 20}\n",
     "spec.yaml:3:22: display.precision: expected a whole number from 0 to 12, found 20"),
    ("duplicate key", "spec.yaml", "tokens: [a]\nembeddings: [[1]]\ntokens: [b]\n",
     "spec.yaml:3:1: the key tokens is given twice"),
    ("all keys hidden, error policy", "spec.yaml",
     "tokens: [a, b]\nembeddings: [[1], [2]]\nmask: {padding: [false, false]}\n"
     "masked_rows: error\n",
     "spec.yaml: mask: the query a sees no key (masked_rows: error)"),
    ("overflow", "spec.yaml", "tokens: [a, b]\nembeddings: [[1e200], [2e200]]\n",
     "spec.yaml: S[a, a] is too large for a 64-bit float; scale the inputs down"),
    ("general score shape", "spec.yaml",
     "tokens: [a]\nembeddings: [[1, 2]]\nscore: {general: [[1]]}\n",
     "spec.yaml:3:18: score.general is 1x1, expected d_k x d_k = 2x2"),
]


def assert_one_line_error(result_code: int, stdout: str, stderr: str, expected: str) -> None:
    assert result_code == 2
    assert stdout == ""
    assert "Traceback" not in stderr
    assert stderr == expected + "\n"


@pytest.mark.parametrize(("name", "file", "text", "expected"), CASES, ids=[c[0] for c in CASES])
def test_bad_spec(name: str, file: str, text: str, expected: str,
                  write: Callable[[str, str], Path], monkeypatch: pytest.MonkeyPatch) -> None:
    path = write(text, file)
    monkeypatch.chdir(path.parent)
    result = run("explain", file, "--format", "text")
    assert_one_line_error(result.exit_code, result.stdout, result.stderr, expected)


def test_not_utf8(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "spec.yaml").write_bytes(b"tokens: [caf\xe9]\n")
    monkeypatch.chdir(tmp_path)
    result = run("explain", "spec.yaml")
    assert_one_line_error(result.exit_code, result.stdout, result.stderr,
                          "spec.yaml:1:13: expected UTF-8 text, found the byte 0xe9")


def test_missing_file_and_folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    result = run("explain", "nope.yaml")
    assert_one_line_error(result.exit_code, result.stdout, result.stderr, "nope.yaml: no such file")
    result = run("explain", ".")
    assert_one_line_error(result.exit_code, result.stdout, result.stderr,
                          ".: this is a folder, expected a spec file")


def test_alias_bomb_is_refused_before_it_is_built(write: Callable[[str, str], Path]) -> None:
    lines = ["a: &a [1, 1, 1, 1, 1, 1, 1, 1, 1]"]
    for prev, name in zip("abcdefg", "bcdefgh", strict=True):
        lines.append(f"{name}: &{name} [" + ", ".join([f"*{prev}"] * 9) + "]")
    path = write("\n".join(lines) + "\n", "bomb.yaml")
    result = run("explain", str(path))
    assert result.exit_code == 2
    # 9 + 9² + ... + 9⁸ list items, plus the 8 lists and 8 keys' values: counted, never built
    assert "holds 54481005 values once its aliases are expanded; the limit is 5000000" in (
        result.stderr)


def test_debug_shows_the_traceback(write: Callable[[str, str], Path]) -> None:
    path = write("tokens: [a]\n", "spec.yaml")
    result = run("explain", str(path), "--debug")
    assert result.exit_code == 2
    assert "Traceback" in result.stderr
    assert result.stderr.rstrip().endswith("the key embeddings is missing")


def test_bad_option_is_a_usage_error() -> None:
    result = run("explain", "--format", "pdf")
    assert result.exit_code == 2
    assert "Traceback" not in result.stderr
