"""What a post or a slide needs: --steps keeps each step's number in every format, the reading
only with its step, --no-reading, --no-header, --md-flavor, one matrix alone (--matrix), and the
same choices in a snippets manifest entry and in a spec's `display`."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest

from tests.conftest import run

CAT = "configs/cat_chases_mouse.yaml"
TWO_HEADS = "configs/two_heads.yaml"


def softmax_rows(scores: np.ndarray) -> np.ndarray:
    shifted = np.exp(scores - scores.max(axis=1, keepdims=True))  # (n, m)
    return shifted / shifted.sum(axis=1, keepdims=True)


def cat_weights() -> np.ndarray:
    """Seed 000 by the formula: identity projections, causal mask, divided by √2."""
    x = np.array([[1.0, 0.0], [0.2, 1.0], [0.8, 0.0]])  # (3, 2)
    scores = x @ x.T / np.sqrt(2)  # (3, 2) @ (2, 3) -> (3, 3)
    scores[np.triu_indices(3, 1)] = -np.inf
    return softmax_rows(scores)


def two_heads_weights(head: int) -> np.ndarray:
    """configs/two_heads.yaml: identity weights split in two, head h reads features 2h-1, 2h."""
    e = np.array([[1.0, 0, 0, 1], [0, 1, 1, 0], [1, 1, 0, 0]])  # (3, 4)
    x = e[:, 2 * head - 2:2 * head]  # (3, 2)
    return softmax_rows(x @ x.T / np.sqrt(2))


def printed(matrix: np.ndarray) -> list[str]:
    """Rows as LaTeX prints them; a key the causal mask hides (weight exactly 0 above the
    diagonal) as \\text{—}."""
    return [" & ".join(r"\text{—}" if j > i and v == 0 else f"{v:.2f}"
                       for j, v in enumerate(row)) for i, row in enumerate(matrix)]


def ok(*args: str) -> str:
    result = run(*args)
    assert result.exit_code == 0, result.stderr
    return result.stdout


# --- step numbers ---

HEADINGS = {
    "text": ["explain", CAT, "-f", "text"],
    "rich": ["explain", CAT, "-f", "rich"],
    "markdown": ["export", CAT, "--markdown"],
    "latex": ["export", CAT, "--latex"],
}


@pytest.mark.parametrize("fmt", sorted(HEADINGS))
def test_steps_keep_their_numbers_in_every_format(fmt: str) -> None:
    # seed 000: embeddings, parameters, projections, scores, scaled, masked, weights, output
    out = ok(*HEADINGS[fmt], "--steps", "scores,weights")
    assert re.findall(r"(\d+)\. (Scores|Attention weights)", out) == [
        ("4", "Scores"), ("7", "Attention weights")]
    assert "1. " not in out


def test_json_steps_carry_their_number() -> None:
    doc = json.loads(ok("explain", CAT, "-f", "json", "--steps", "weights,output"))
    assert [(s["id"], s["number"]) for s in doc["steps"]] == [("weights", 7), ("output", 8)]
    every = json.loads(ok("explain", CAT, "-f", "json"))
    assert [s["number"] for s in every["steps"]] == list(range(1, 9))


def test_a_head_keeps_its_numbers() -> None:
    # two heads: embeddings, then 6 steps per head (no mask), so head 2's weights are step 12
    out = ok("explain", TWO_HEADS, "-f", "text", "--head", "2", "--steps", "weights")
    assert "12. Attention weights — head 2" in out


# --- the reading ---

def test_the_reading_comes_only_with_the_weights() -> None:
    assert "What the weights say" not in ok("explain", CAT, "-f", "text", "--steps", "scores")
    assert "What the weights say" in ok("explain", CAT, "-f", "text", "--steps", "weights")
    assert "What the weights say" not in ok("explain", CAT, "-f", "text", "--no-reading")
    doc = json.loads(ok("explain", CAT, "-f", "json", "--steps", "output"))
    assert doc["reading"] == []


def test_each_heads_reading_comes_with_its_own_weights() -> None:
    one = ok("explain", TWO_HEADS, "-f", "text", "--steps", "weights", "--head", "2")
    assert "What the weights say — head 2" in one
    assert "head 1" not in one and "What the heads say together" not in one
    both = ok("explain", TWO_HEADS, "-f", "text", "--steps", "weights")
    assert all(h in both for h in ("What the weights say — head 1",
                                   "What the weights say — head 2",
                                   "What the heads say together"))


def test_hand_calculation_drift_only_for_what_is_shown() -> None:
    by_hand = "configs/cat_chases_mouse_by_hand.yaml"
    out = ok("explain", by_hand, "-f", "text", "--steps", "output")
    assert "Z[chases, d2]: 0.65 by hand" in out and "A[chases, cat]" not in out
    assert "Hand calculation" not in ok("explain", by_hand, "-f", "text", "--steps", "scores")


# --- the header ---

@pytest.mark.parametrize("fmt", sorted(HEADINGS))
def test_no_header_starts_with_the_first_step(fmt: str) -> None:
    out = ok(*HEADINGS[fmt], "--steps", "weights", "--no-header")
    assert "cat chases mouse" not in out.replace("cat  chases  mouse", "")  # only as labels
    assert "d_model" not in out
    # the first line that prints: past comments and a LaTeX fragment's own set-up (its two
    # helper macros and the ragged-right group)
    setup = ("%", r"\ifdefined", r"\providecommand", r"\begingroup")
    first = next(line for line in out.splitlines() if line.strip() and not line.startswith(setup))
    assert "7. Attention weights" in first


# --- one matrix ---

def test_matrix_alone_in_latex_is_a_bare_bmatrix_of_the_numbers() -> None:
    out = ok("export", CAT, "--latex", "--matrix", "A")
    assert out.splitlines() == [r"\begin{bmatrix}",
                                *(row + r" \\" for row in printed(cat_weights())[:-1]),
                                printed(cat_weights())[-1], r"\end{bmatrix}"]


def test_matrix_of_a_head() -> None:
    out = ok("export", TWO_HEADS, "--latex", "--matrix", "A:2", "-p", "4")
    rows = [" & ".join(f"{v:.4f}" for v in row) for row in two_heads_weights(2)]
    assert out == "\\begin{bmatrix}\n" + " \\\\\n".join(rows) + "\n\\end{bmatrix}\n"


def test_matrix_in_markdown_follows_the_flavor() -> None:
    github = ok("export", CAT, "--markdown", "--matrix", "A").splitlines()
    assert github[0] == "```math" and github[-1] == "```" and github[1] == r"\begin{bmatrix}"
    katex = ok("export", CAT, "--markdown", "--md-flavor", "katex", "--matrix", "A").splitlines()
    assert katex[0] == katex[-1] == "$$"
    plain = ok("export", CAT, "--markdown", "--md-flavor", "plain", "--matrix", "A")
    assert plain.splitlines()[3] == "| chases | 0.36 | 0.64 | — |"  # mouse: hidden


def test_matrix_in_text_and_json() -> None:
    text = ok("explain", CAT, "-f", "text", "--matrix", "A").splitlines()
    assert text == ["         cat  chases  mouse",
                    "cat     1.00       —      —",
                    "chases  0.36    0.64      —",
                    "mouse   0.40    0.25   0.35"]
    doc = json.loads(ok("explain", CAT, "-f", "json", "--matrix", "A"))
    assert doc["name"] == "A" and doc["rows"] == ["cat", "chases", "mouse"]
    assert np.allclose(doc["values"], cat_weights(), atol=1e-12)


def test_matrix_symbols_as_typed() -> None:
    masked = ok("export", CAT, "--latex", "--matrix", "S' + M").splitlines()
    assert masked[1] == r"0.71 & -\infty & -\infty \\"  # 1/√2 = 0.7071, hidden keys
    layer = ok("export", "configs/decoder_layer.yaml", "--latex", "--matrix", "R_1")
    assert layer == ok("export", "configs/decoder_layer.yaml", "--latex", "--matrix", "R₁")


@pytest.mark.parametrize(("args", "message"), [
    ([CAT, "--matrix", "B"], "attn: --matrix: no matrix B here; this walkthrough has X, W_Q, "
                             "W_K, W_V, Q, K, V, S, S′, S′ + M, A, Z\n"),
    ([TWO_HEADS, "--matrix", "A"], "attn: --matrix: A is one per head; add the head, as in "
                                   "A:1\n"),
    ([TWO_HEADS, "--matrix", "A:3"], "attn: --matrix: A has no head 3; it is in heads 1, 2\n"),
    ([CAT, "--matrix", "W_K:999"], "attn: --matrix: W_K has no head 999; the spec has one "
                                   "head\n"),
    # a head past any int64 is named as written, not as head 0
    ([TWO_HEADS, "--matrix", "A:" + "9" * 5000], "attn: --matrix: A has no head "
     "99999999999999999999…9999999999; it is in heads 1, 2\n"),
    ([CAT, "--matrix", "A:0099"], "attn: --matrix: A has no head 99; the spec has one head\n"),
    ([CAT, "--matrix", "A:x"], "attn: --matrix: expected SYMBOL or SYMBOL:HEAD such as A:2, "
                               "found A:x\n"),
    (["configs/decoder_layer.yaml", "--matrix", "μ, σ"],
     "attn: --matrix: μ, σ is in several steps (norm_1, norm_2); keep one with --steps\n"),
])
def test_an_unknown_matrix_is_a_clear_error(args: list[str], message: str) -> None:
    result = run("explain", "-f", "text", *args)
    assert (result.exit_code, result.stdout, result.stderr) == (2, "", message)


def test_steps_choose_among_matrices_of_one_symbol() -> None:
    out = ok("explain", "configs/decoder_layer.yaml", "-f", "json", "--steps", "norm_2",
             "--matrix", "μ,σ")
    assert json.loads(out)["name"] == "μ, σ"


def test_a_wide_matrix_compiles_as_pasted(tmp_path: Path) -> None:
    """More than 10 columns is no bmatrix (amsmath's limit): an array in brackets, which
    pdflatex compiles inside the formula it is pasted into."""
    wide = ok("export", "configs/life_is_short.yaml", "--latex", "--matrix", "W_V")
    # W_V is d_v x d_model = 28 x 16 in this spec's column convention
    assert wide.startswith(r"\left[\begin{array}{" + "r" * 16 + "}\n")
    assert len(wide.splitlines()) == 1 + 28 + 1
    if shutil.which("pdflatex") is None:
        pytest.skip("pdflatex is not installed")
    narrow = ok("export", CAT, "--latex", "--matrix", "A")
    doc = tmp_path / "paste.tex"
    doc.write_text("\\documentclass[landscape]{article}\\usepackage[margin=5mm]{geometry}"
                   "\\usepackage{amsmath}\\begin{document}\\tiny\n"
                   f"\\[ A = {narrow} \\]\n\\[ W_V = {wide} \\]\n\\end{{document}}\n",
                   encoding="utf-8")
    result = subprocess.run(["pdflatex", "-interaction=nonstopmode", "-halt-on-error",
                             doc.name], cwd=tmp_path, capture_output=True, text=True, check=False)
    assert result.returncode == 0, result.stdout[-2000:]


# --- a spec's display, and options over it ---

SPEC = """tokens: [cat, chases, mouse]
embeddings: [[1, 0], [0.2, 1], [0.8, 0]]
mask: causal
display:
  steps: [weights]
  expand: none
  reading: false
  header: false
  md_flavor: katex
"""


def test_display_chooses_what_the_spec_shows(write) -> None:  # type: ignore[no-untyped-def]
    spec = str(write(SPEC))
    out = ok("explain", spec, "-f", "text")
    assert out.startswith("7. Attention weights\n")
    assert "Written out" not in out and "What the weights say" not in out
    assert "$$" in ok("export", spec, "--markdown")
    every = ok("explain", spec, "-f", "text", "--steps", "all", "--header", "--reading",
               "-x", "auto")
    assert every.startswith("Attention step by step\n") and "8. Output" in every
    assert "What the weights say" in every and "Written out" in every
    assert "$`" in ok("export", spec, "--markdown", "--md-flavor", "github", "--steps", "all")


@pytest.mark.parametrize(("display", "message"), [
    ("  steps: [wieghts]", "spec.yaml:5:11: display.steps[0]: expected one of image, patches, "
                          "patch_embedding, embeddings, "),
    ("  head: 0", "spec.yaml:5:9: display.head: expected a whole number of at least 1, found 0"),
    ("  header: maybe", "spec.yaml:5:11: display.header: expected true or false, found "),
    ("  md_flavour: katex", "spec.yaml:5:3: display.md_flavour: unknown key; did you mean "
                            "md_flavor?"),
    ("  steps: [scaled]\n  head: 2", "spec.yaml:6:9: display.head: the spec has one head; "
                                     "expected 1, found 2"),
    ("  expand: [weights]", "spec.yaml:5:11: display.expand: expected auto, all, none, "
                            "shown or STEP:ROW[,COLUMN], found weights"),
])
def test_a_bad_display_choice_is_located(write, display: str,  # type: ignore[no-untyped-def]
                                         message: str) -> None:
    spec = write("tokens: [cat, chases, mouse]\nembeddings: [[1, 0], [0.2, 1], [0.8, 0]]\n"
                 "mask: causal\ndisplay:\n" + display + "\n")
    result = run("explain", str(spec), "-f", "text")
    assert result.exit_code == 2 and result.stdout == ""
    assert result.stderr.replace(str(spec.parent) + "/", "").startswith(message), result.stderr
    assert len(result.stderr.splitlines()) == 1


def test_a_display_step_the_spec_lacks_is_located(write) -> None:  # type: ignore[no-untyped-def]
    spec = write("tokens: [a, b]\nembeddings: [[1, 0], [0, 1]]\ndisplay: {steps: [masked]}\n")
    result = run("explain", str(spec), "-f", "text")
    assert result.exit_code == 2
    assert result.stderr.replace(str(spec.parent) + "/", "") == (
        "spec.yaml:3:18: display.steps: masked is not in this spec, whose steps are embeddings, "
        "parameters, projections, scores, scaled, weights, output\n")


# --- a snippets manifest entry ---

MANIFEST = """[[snippets]]
specs = "cat.attn.yaml"
formats = ["text", "markdown", "latex", "json"]
output = "out/{name}.slide.{ext}"
steps = ["weights"]
expand = "none"
header = false
reading = false
md_flavor = "katex"

[[snippets]]
specs = "cat.attn.yaml"
formats = ["latex", "markdown", "json"]
output = "out/{name}.A.{ext}"
matrix = "A"
"""


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    (tmp_path / "cat.attn.yaml").write_text(Path(CAT).read_text(encoding="utf-8"),
                                            encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    return tmp_path


def test_a_manifest_entry_writes_what_the_options_print(repo: Path) -> None:
    (repo / "attn.toml").write_text(MANIFEST, encoding="utf-8")
    result = run("snippets")
    assert result.exit_code == 0, result.stderr
    assert result.stderr == "attn: 7 written, 0 unchanged, 0 failed\n"
    slide = ["--steps", "weights", "-x", "none", "--no-header", "--no-reading"]
    out = repo / "out"
    assert (out / "cat.slide.txt").read_text() == ok("explain", "cat.attn.yaml", "-f", "text",
                                                     *slide)
    assert (out / "cat.slide.md").read_text() == ok("export", "cat.attn.yaml", "--markdown",
                                                    "--md-flavor", "katex", *slide)
    assert (out / "cat.slide.tex").read_text() == ok("export", "cat.attn.yaml", "--latex",
                                                     *slide)
    assert (out / "cat.A.tex").read_text() == ok("export", "cat.attn.yaml", "--latex",
                                                 "--matrix", "A")
    assert (out / "cat.slide.txt").read_text().startswith("7. Attention weights\n")
    assert json.loads((out / "cat.A.json").read_text())["name"] == "A"


@pytest.mark.parametrize(("entry", "message"), [
    ('stepz = ["weights"]', "attn.toml:5:1: snippets[0].stepz: unknown key; did you mean steps?"),
    ('steps = ["wieghts"]', "attn.toml:5:10: snippets[0].steps[0]: expected one of image, "
                           "patches, patch_embedding, embeddings, "),
    ("head = 0", "attn.toml:5:8: snippets[0].head: expected a whole number of at least 1, found 0"),
    ('md_flavor = "gfm"', "attn.toml:5:13: snippets[0].md_flavor: expected one of github, katex, "
                          "plain, found the text \"gfm\""),
    ('matrix = "B"', "attn.toml:5:10: snippets[0].matrix: no matrix B here; this walkthrough "
                     "has X, "),
    ("head = 2", "attn.toml:5:8: snippets[0].head: the spec has one head; expected 1, found 2"),
    ('expand = ["weights"]', "attn.toml:5:10: snippets[0].expand: expected auto, all, none, "
                             "shown or STEP:ROW[,COLUMN], found weights"),
])
def test_a_bad_entry_choice_is_located(repo: Path, entry: str, message: str) -> None:
    (repo / "attn.toml").write_text('[[snippets]]\nspecs = "cat.attn.yaml"\nformats = ["text"]\n'
                                    f'output = "out/{{name}}.txt"\n{entry}\n', encoding="utf-8")
    result = run("snippets", "--check")
    assert result.exit_code == 2
    assert result.stderr.startswith(message), result.stderr
    assert not (repo / "out").exists()


def test_a_bad_entry_in_yaml_names_line_and_column(repo: Path) -> None:
    (repo / "snippets.yaml").write_text(
        "snippets:\n  - specs: cat.attn.yaml\n    formats: [text]\n"
        "    output: out/{name}.txt\n    header: nope\n", encoding="utf-8")
    result = run("snippets")
    assert result.exit_code == 2
    assert result.stderr == ("snippets.yaml:5:13: snippets[0].header: expected true or false, "
                             "found the text \"nope\"\n")
