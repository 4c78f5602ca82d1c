"""`attn explain` with the work shown: goldens, calculator form, steps and heads, errors."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import yaml
from typer.testing import CliRunner

from attncli.cli.app import app
from attncli.spec.examples import example_path, examples_dir

runner = CliRunner()
GOLDEN = Path(__file__).parent / "golden" / "show"
SEED_000 = str(example_path("cat_chases_mouse"))
LARGE_TOKENS = " ".join(f"t{i}" for i in range(14))
LARGE_EMBEDDINGS = "; ".join(
    " ".join(f"{((3 * i + 5 * j) % 7) / 4:g}" for j in range(3)) for i in range(14))

CASES = {
    "seed000_by_hand.txt": [str(example_path("cat_chases_mouse_by_hand"))],
    "seed000_by_hand.json": [str(example_path("cat_chases_mouse_by_hand")), "-f", "json",
                             "--steps", "weights,output", "-x", "weights:chases",
                             "-x", "output:chases"],
    "seed000_expanded.txt": [SEED_000, "--steps", "scores,scaled,weights,output",
                             "-x", "scores:chases,chases", "-x", "scaled:chases,chases",
                             "-x", "weights:chases", "-x", "output:chases"],
    "large_elided.txt": ["--tokens", LARGE_TOKENS, "--embeddings", LARGE_EMBEDDINGS,
                         "--mask", "causal", "--steps", "scores,weights", "-x", "weights:t13"],
}


def explain(*args: str) -> str:
    result = runner.invoke(app, ["explain", "--format", "text", *args])
    assert result.exit_code == 0, result.output
    return result.stdout


@pytest.mark.parametrize("name", sorted(CASES))
def test_golden(name: str) -> None:
    out = explain(*CASES[name])
    path = GOLDEN / name
    if os.environ.get("ATTN_UPDATE_GOLDEN") == "1":
        path.write_text(out, encoding="utf-8", newline="\n")
    assert out == path.read_text(encoding="utf-8")


def test_the_calculator_form_gives_the_same_output_as_the_spec_file(tmp_path: Path) -> None:
    spec = tmp_path / "same.yaml"
    spec.write_text("tokens: [cat, chases, mouse]\nembeddings: [[1, 0], [0.2, 1], [0.8, 0]]\n"
                    "weights: {W_V: [[1, 0.5], [0, 2]]}\nmask: causal\n", encoding="utf-8")
    inline = ["--tokens", "cat chases mouse", "--embeddings", "1 0; 0.2 1; 0.8 0",
              "--wv", "1 0.5; 0 2", "--mask", "causal"]
    for extra in ([], ["--round-intermediates"], ["-f", "json", "-x", "all"]):
        assert explain(*inline, *extra) == explain(str(spec), *extra)


def test_steps_and_head_choose_what_is_shown() -> None:
    out = explain(SEED_000, "--steps", "weights,output", "--head", "1", "-x", "none")
    headings = [line for line in out.splitlines() if line[:1].isdigit() and ". " in line]
    assert headings == ["7. Attention weights", "8. Output"]  # their numbers in the whole


def test_large_matrices_are_elided_unless_full() -> None:
    args = ["--tokens", LARGE_TOKENS, "--embeddings", LARGE_EMBEDDINGS, "--steps", "weights"]
    short, full = explain(*args), explain(*args, "--full")
    assert "[elided in the middle; --full shows all 14 × 14]" in short
    row = next(line for line in short.splitlines() if line.strip().startswith("t13"))
    assert "…" in row and len(row.split()) == 1 + 4 + 1 + 4
    assert "…" not in full
    rows = [x.split()[1:] for x in full.split("Heatmap: a fuller block")[0].splitlines()
            if x.strip().startswith("t13")]
    assert sum(len(r) for r in rows) == 14  # every column, over the column blocks


def test_no_color_loses_nothing_the_heatmap_prints_every_number() -> None:
    out = explain(SEED_000, "--steps", "weights")
    heat = out.split("Heatmap: a fuller block")[1].splitlines()
    assert heat[4].split() == ["chases", "░░", "0.36", "▓▓", "0.64", "—"]  # mouse: hidden


@pytest.mark.parametrize(("args", "stderr"), [
    (["--tokens", "a b", "--embeddings", "1 0; 0.2 1 3"],
     "attn: --embeddings: row 2 has 3 numbers, expected 2\n"),
    (["--tokens", "a b", "--embeddings", "1 0; x 1"],
     "attn: --embeddings: expected a number, found x\n"),
    (["--tokens", "a b", "--embeddings", "1 0; 0 1", "--wq", "1 0 0; 0 1 0; 0 0 1"],
     "attn: --wq: is 3 × 3, expected d_model × d_k = 2 × 3\n"),
    (["--tokens", "a b", "--embeddings", "1 0; 0 1", "--mask", "sideways"],
     'attn: --mask: expected causal, none or a matrix like "1 0; 0 1", found sideways\n'),
    (["--tokens", "a b"], "attn: --embeddings is needed to describe a spec without a file\n"),
    ([SEED_000, "--tokens", "a"], "attn: give either SPEC or --tokens/--embeddings, not both\n"),
    (["--steps", "scores,nope"], "attn: --steps: unknown step nope; expected one of embeddings, "
     "parameters, projections, scores, scaled, masked, weights, output\n"),
    (["--head", "2"], "attn: --head: the spec has one head; expected 1, found 2\n"),
    (["-x", "scores:cat,zebra"],
     "attn: --expand: scores has no column zebra; its columns are cat, chases, mouse\n"),
])
def test_bad_input_is_one_line_and_exit_2(args: list[str], stderr: str) -> None:
    result = runner.invoke(app, ["explain", "-f", "text", *args])
    assert result.exit_code == 2
    assert result.stdout == ""
    assert result.stderr == stderr


def oracle(config: Path) -> np.ndarray:
    """softmax(c·tanh(QKᵀ/√d_k / c) + B + M)V in one shot, from the YAML as written (row or
    column convention; B a bias matrix and c a soft cap, when given)."""
    doc = yaml.safe_load(config.read_text(encoding="utf-8"))
    x = np.array(doc["embeddings"], dtype=float)
    weights = doc.get("weights", {})
    column = doc.get("convention") == "column"

    def w(name: str) -> np.ndarray:
        given = weights.get(name, "identity")
        m = np.eye(x.shape[1]) if given == "identity" else np.array(given, dtype=float)
        return m.T if column else m

    q, k, v = x @ w("W_Q"), x @ w("W_K"), x @ w("W_V")
    s = q @ k.T / (1.0 if doc.get("scale") == "none" else np.sqrt(q.shape[1]))
    if "softcap" in doc:  # Gemma 2: c·tanh(s/c), after the scale, before the bias and the mask
        s = doc["softcap"] * np.tanh(s / doc["softcap"])
    if isinstance(doc.get("bias"), list):
        s = s + np.array(doc["bias"], dtype=float)
    if doc.get("mask") == "causal":
        s = np.where(np.tri(*s.shape, dtype=bool), s, -np.inf)
    elif isinstance(doc.get("mask"), dict) and "padding" in doc["mask"]:
        s = np.where(np.array(doc["mask"]["padding"], dtype=bool)[None, :], s, -np.inf)
    a = np.exp(s - s.max(axis=1, keepdims=True))
    return (a / a.sum(axis=1, keepdims=True)) @ v


# Keys the one-shot oracle above does not model; the examples that use them (several heads,
# cross-attention, positions, files, the full layer) are checked against PyTorch's semantics in
# tests/test_mha_oracle.py, tests/test_layer_oracle.py and tests/test_heads_examples.py.
BEYOND_ONE_HEAD = {"heads", "context", "positional", "block"}


def test_every_example_config_explains_by_its_formula_and_its_lines_recompute() -> None:
    for config in sorted(examples_dir().glob("*.yaml")):
        doc = json.loads(explain(str(config), "-f", "json", "-x", "all"))
        tolerance = 0.01 if doc["round_intermediates"] else 1e-12
        written = yaml.safe_load(config.read_text(encoding="utf-8"))
        one_head = not BEYOND_ONE_HEAD & set(written) and isinstance(written["embeddings"], list)
        if one_head and written.get("dtype", "float64") != "float64":
            # every step in float16 or bfloat16 is checked against PyTorch in the same format
            # in tests/test_low_precision.py; here the output stays within 4 units of
            # roundoff (2⁻¹¹ for float16, 2⁻⁸ for bfloat16) of float64's
            unit = 2.0 ** -(11 if written["dtype"] == "float16" else 8)
            np.testing.assert_allclose(doc["output"], oracle(config), rtol=4 * unit, atol=0)
        elif one_head:
            np.testing.assert_allclose(doc["output"], oracle(config), atol=tolerance)
        lines = [e for step in doc["steps"] for e in step["expansions"]]
        assert lines
        if doc["round_intermediates"]:
            assert all(e["exact"] for e in lines), config


def test_the_installed_command_shows_the_calculator_form() -> None:
    attn = Path(sys.executable).with_name("attn")
    result = subprocess.run(
        [str(attn), "explain", "--format", "text", "--tokens", "cat chases mouse",
         "--embeddings", "1 0; 0.2 1; 0.8 0", "--mask", "causal", "--round-intermediates",
         "--steps", "output", "-x", "output:chases"],
        capture_output=True, text=True, check=False, env={**os.environ, "NO_COLOR": "1"})
    assert result.returncode == 0, result.stderr
    assert ("   Z[chases] = Σⱼ A[chases, j]·v_j = 0.35·[1.00, 0.00] + 0.65·[0.20, 1.00] =\n"
            "       [0.48, 0.65]\n") in result.stdout  # 80 columns, broken after `=`
