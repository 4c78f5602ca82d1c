"""attn validate and attn examples."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner, Result

from attncli.cli.app import app
from tests.conftest import CONFIGS, EXAMPLES


def invoke(*args: str) -> Result:
    return CliRunner().invoke(app, list(args))


# --- attn validate ---

def test_validate_accepts_every_example() -> None:
    result = invoke("validate", *map(str, EXAMPLES))
    assert result.exit_code == 0, result.stderr
    assert (result.stdout, result.stderr) == ("", f"attn: {len(EXAMPLES)} specs are valid\n")


def test_validate_lists_every_broken_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    Path("rows.yaml").write_text("tokens: [a, b, c]\nembeddings: [[1, 0], [0, 1]]\n")
    Path("key.yaml").write_text("tokens: [a]\nembeddings: [[1]]\nmask: causal\nscael: none\n")
    Path("shape.yaml").write_text("tokens: [a]\nembeddings: [[1, 2]]\n"
                                  "weights: {W_Q: [[1], [0]], W_K: [[1, 0], [0, 1]]}\n")
    good = str(CONFIGS / "cat_chases_mouse.yaml")
    result = invoke("validate", "rows.yaml", good, "key.yaml", "missing.yaml", "shape.yaml")
    assert result.exit_code == 2
    assert result.stderr.splitlines() == [
        "rows.yaml:2:13: embeddings: has 2 rows, expected one per token (3)",
        "key.yaml:4:1: scael: unknown key; did you mean scale?",
        "missing.yaml: no such file",
        "shape.yaml:3:33: weights.W_K is 2 × 2, expected d_model × d_k = 2 × 1",
        "attn: 4 specs of 5 have errors",
    ]
    assert result.stdout == ""


def test_validate_builds_the_spec_too(tmp_path: Path) -> None:
    # loads fine, but building it finds a query that sees no key, which masked_rows forbids
    spec = tmp_path / "rows.yaml"
    spec.write_text("tokens: [a, b]\nembeddings: [[1, 0], [0, 1]]\n"
                    "mask: {padding: [false, false]}\nmasked_rows: error\n")
    result = invoke("validate", str(spec))
    assert result.exit_code == 2
    assert result.stderr.splitlines() == [
        f"{spec}: mask: the query “a” sees no key (masked_rows: error)",
        "attn: 1 spec of 1 has errors",
    ]


def test_validate_needs_a_file() -> None:
    result = invoke("validate")
    assert result.exit_code == 2
    assert result.stderr == "attn: the argument specs is missing (see attn validate --help)\n"


# --- attn examples ---

def test_examples_lists_every_bundled_example_with_its_title() -> None:
    result = invoke("examples")
    assert result.exit_code == 0
    lines = result.stdout.splitlines()
    assert [line.split()[0] for line in lines] == [p.stem for p in EXAMPLES]
    titles = dict(line.split(None, 1) for line in lines)
    assert titles["cat_chases_mouse"] == "cat chases mouse: attention step by step"


def test_examples_name_prints_the_spec_as_written() -> None:
    result = invoke("examples", "two_tokens_unscaled")
    assert result.exit_code == 0
    assert result.stdout == (CONFIGS / "two_tokens_unscaled.yaml").read_text("utf-8")


def test_a_copied_example_is_a_working_spec(tmp_path: Path) -> None:
    copy = tmp_path / "mine.yaml"
    copy.write_text(invoke("examples", "cat_chases_mouse").stdout, "utf-8")
    assert invoke("explain", str(copy), "-f", "text").stdout == invoke(
        "explain", str(CONFIGS / "cat_chases_mouse.yaml"), "-f", "text").stdout


@pytest.mark.parametrize(("name", "message"), [
    ("cat_chases_mice", "attn: no example named cat_chases_mice; did you mean cat_chases_mouse?\n"),
    ("xyz", "attn: no example named xyz; run attn examples to list them\n"),
])
def test_an_unknown_example_is_a_usage_error(name: str, message: str) -> None:
    result = invoke("examples", name)
    assert (result.exit_code, result.stderr, result.stdout) == (2, message, "")
