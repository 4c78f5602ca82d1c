"""The examples of several heads, cross-attention, positions and the full layer: numbers worked
out by hand or printed in the seed texts, and each example run through the CLI."""

from __future__ import annotations

import json
import math
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

from attncli import build, load_spec
from attncli.cli.app import app
from attncli.model import Walkthrough
from attncli.render import render

CONFIGS = Path(__file__).parent.parent / "configs"
EXAMPLES = ("two_heads", "positional_i_am_a_robot", "life_is_short", "life_is_short_three_heads",
            "cross_attention", "decoder_layer", "fused_heads_random")


def example(name: str) -> Walkthrough:
    return build(load_spec(str(CONFIGS / f"{name}.yaml")))


def step(result: Walkthrough, step_id: str, head: int | None = None) -> list[np.ndarray]:
    found = [s for s in result.steps if s.id == step_id and s.head == head]
    assert len(found) == 1, (step_id, head)
    return [m.values for m in found[0].matrices]


@pytest.mark.parametrize("name", EXAMPLES)
@pytest.mark.parametrize("fmt", ["text", "rich", "json"])
def test_every_example_renders(name: str, fmt: str) -> None:
    result = CliRunner().invoke(app, ["explain", str(CONFIGS / f"{name}.yaml"), "-f", fmt])
    assert result.exit_code == 0, result.output
    assert result.output.endswith("\n") and "\r" not in result.output


def test_two_heads_by_hand() -> None:
    result = example("two_heads")
    # head 1 compares features 1-2: the = [1, 0], cat = [0, 1], sat = [1, 1]; scores / √2
    big, small = math.exp(1 / math.sqrt(2)), 1.0
    row_the = [big / (2 * big + small), small / (2 * big + small), big / (2 * big + small)]
    np.testing.assert_allclose(result.heads[0].weights.values[0], row_the, atol=1e-15)
    # head 2 compares features 3-4: sat is [0, 0], so its scores are all 0: uniform weights
    np.testing.assert_allclose(result.heads[1].weights.values[2], [1 / 3] * 3, atol=1e-15)
    # Z_1(the) = A·V = w_the·[1, 0] + w_cat·[0, 1] + w_sat·[1, 1]
    z1 = [row_the[0] + row_the[2], row_the[1] + row_the[2]]
    np.testing.assert_allclose(result.heads[0].context.values[0], z1, atol=1e-15)
    # head 2, the: scores [1, 0, 0]/√2; V rows [0, 1], [1, 0], [0, 0]
    e = math.exp(1 / math.sqrt(2))
    z2 = [1 / (e + 2), e / (e + 2)]
    np.testing.assert_allclose(result.heads[1].context.values[0], z2, atol=1e-15)
    # W_O adds and subtracts the heads; b_O = [0, 0, 0.5, 0.5]
    expected = [z1[0] + z2[0], z1[1] + z2[1], z1[0] - z2[0] + 0.5, z1[1] - z2[1] + 0.5]
    np.testing.assert_allclose(result.output.values[0], expected, atol=1e-15)
    text = render(result, "text")
    assert "   the  1.05  1.10  1.05  0.60" in text
    assert "Z = Concat(Z₁, Z₂)" in text and "O = Z·W_O + b_O" in text
    assert "columns 3–4 of W_Q and W_K" in text


def test_two_heads_steps_are_named_by_head() -> None:
    result = example("two_heads")
    ids = [(s.id, s.head) for s in result.steps]
    per_head = ["parameters", "projections", "scores", "scaled", "weights", "output"]
    assert ids == [("embeddings", None), *((i, 1) for i in per_head),
                   *((i, 2) for i in per_head), ("concat", None), ("out_projection", None)]
    text = render(result, "text")
    assert "6. Attention weights — head 1" in text and "12. Attention weights — head 2" in text
    assert "3 tokens, d_model = 4, d_k = 2, d_v = 2, 2 heads" in text
    assert "output projection W_O: 4 × 4" in text


def test_seed_001_positional_table() -> None:
    result = example("positional_i_am_a_robot")
    p, x = step(result, "positional")
    # the lecture's table, d = 4, n = 100, to its two decimals
    table = [[0, 1, 0, 1], [0.84, 0.54, 0.10, 1.0], [0.91, -0.42, 0.20, 0.98],
             [0.14, -0.99, 0.30, 0.96]]
    np.testing.assert_allclose(p, table, atol=0.005)
    np.testing.assert_allclose(p[1], [math.sin(1), math.cos(1), math.sin(0.1), math.cos(0.1)],
                               atol=1e-15)
    np.testing.assert_array_equal(x, p)  # the embeddings are zero
    text = render(result, "text")
    assert "   am     0.84   0.54  0.10  1.00" in text
    assert "   X = E + P" in text


def test_seed_002_single_head_numbers() -> None:
    result = example("life_is_short")
    head = result.heads[0]
    scores = step(result, "scores")[0]
    np.testing.assert_allclose(scores[1], [8.5808, -7.6597, 3.2558, 1.0395, 11.1466, -0.4800],
                               atol=5e-5)
    np.testing.assert_allclose(head.weights.values[1],
                               [0.2912, 0.0106, 0.0982, 0.0625, 0.4917, 0.0458], atol=5e-5)
    context_vector_2 = [
        -1.5993, 0.0156, 1.2670, 0.0032, -0.6460, -1.1407, -0.4908, -1.4632, 0.4747, 1.1926,
        0.4506, -0.7110, 0.0602, 0.7125, -0.1628, -2.0184, 0.3838, -2.1188, -0.8136, -1.5694,
        0.7934, -0.2911, -1.3640, -0.2366, -0.9564, -0.5265, 0.0624, 1.7084,
    ]
    np.testing.assert_allclose(result.output.values[1], context_vector_2, atol=5e-5)
    # the printed first embedding row is exact (float32 values, read as they are)
    np.testing.assert_allclose(step(result, "embeddings")[0][0][:4],
                               [0.3374, -0.1778, -0.3035, -0.5880], atol=5e-5)
    assert result.header.d_k == 24 and result.header.d_v == 28


def test_seed_002_three_heads_with_d_v_unlike_d_k() -> None:
    result = example("life_is_short_three_heads")
    archive = np.load(CONFIGS / "data/life_is_short/heads.npz")
    x = np.load(CONFIGS / "data/life_is_short/embeddings.npy").astype(np.float64)
    outputs = []
    for h, head in enumerate(result.heads, start=1):
        w_q, w_k, w_v = (archive[f"W_{n}_{h}"].astype(np.float64) for n in "QKV")
        q, k, v = x @ w_q.T, x @ w_k.T, x @ w_v.T  # the notebook's W·x, row by row
        a = np.exp(q @ k.T / math.sqrt(24))
        a /= a.sum(axis=1, keepdims=True)
        np.testing.assert_allclose(head.weights.values, a, rtol=0, atol=1e-12)
        outputs.append(a @ v)
        assert head.context.shape == (6, 28)
    np.testing.assert_allclose(result.output.values, np.concatenate(outputs, axis=1), atol=1e-12)
    doc = json.loads(render(result, "json"))
    assert [(h["head"], h["d_k"], h["d_v"]) for h in doc["heads"]] == [
        (1, 24, 28), (2, 24, 28), (3, 24, 28)]
    assert len(doc["output"][0]) == 84


def test_cross_attention_example() -> None:
    result = example("cross_attention")
    a = result.heads[0].weights
    assert a.shape == (3, 4)
    assert a.rows == ("<s>", "le", "chat") and a.columns == ("the", "cat", "sleeps", "<pad>")
    for head in result.heads:
        np.testing.assert_array_equal(head.weights.values[:, 3], 0.0)  # <pad> is hidden
        np.testing.assert_allclose(head.weights.values.sum(axis=1), 1.0, atol=1e-15)
    # by hand, head 1, query <s>: q = [1, 0, .5, 0]·W_Q[:, :2] + b_Q[:2] = [1.25 + .1, 0]
    c = np.loadtxt(CONFIGS / "data/encoder_states.csv", delimiter=",")
    k = c @ np.array([[1.0, 0.2], [0.0, 1.0], [0.0, 0.0], [0.2, 0.0]])
    logits = np.array([1.35, 0.0]) @ k[:3].T / math.sqrt(2)
    expected = np.exp(logits) / np.exp(logits).sum()
    np.testing.assert_allclose(result.heads[0].weights.values[0, :3], expected, atol=1e-15)
    ids = [s.id for s in result.steps if s.head is None]
    assert ids == ["embeddings", "context", "concat", "out_projection"]
    text = render(result, "text")
    assert "3 queries, 4 keys, d_model = 4" in text
    assert "K = C·W_K" in text and "Q = X·W_Q + b_Q" in text


def test_decoder_layer_example_is_post_norm() -> None:
    result = example("decoder_layer")
    ids = [s.id for s in result.steps if s.head is None]
    assert ids == ["embeddings", "positional", "concat", "out_projection", "residual_1",
                   "norm_1", "ffn", "residual_2", "norm_2"]
    y = result.output.values
    np.testing.assert_allclose(y.mean(axis=1), 0.0, atol=1e-12)
    np.testing.assert_allclose(y.var(axis=1), 1 / (1 + 1e-5 / np.var(step(result, "residual_2")[0],
                                                                      axis=1)), atol=1e-12)
    w_1 = step(result, "ffn")[0]
    np.testing.assert_array_equal(w_1, np.random.default_rng(1).uniform(-0.5, 0.5, (4, 8)))
    # one header line, whole at a width that holds it (at 80 columns it is wrapped)
    assert "feed-forward (ReLU, d_ff = 8)" in render(result, "text", width=200)


def test_random_matrices_are_numpys_generator() -> None:
    result = example("fused_heads_random")
    # PCG64 with seed 0: the first standard normal numbers are fixed on every machine
    np.testing.assert_allclose(step(result, "embeddings")[0][0, :3],
                               [0.1257302210933933, -0.1321048632913019, 0.6404226504432821],
                               rtol=1e-15)
    assert result.header.n_heads == 4 and result.header.d_k == 2


def test_through_the_attn_entry_point(tmp_path: Path) -> None:
    attn = shutil.which("attn", path=str(Path(sys.executable).parent))
    assert attn is not None
    done = subprocess.run([attn, "explain", str(CONFIGS / "cross_attention.yaml"), "-f", "json"],
                          capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr
    doc = json.loads(done.stdout)
    assert doc["shape"]["n_queries"] == 3 and doc["shape"]["n_keys"] == 4
    assert len(doc["output"]) == 3 and len(doc["output"][0]) == 4
    bad = tmp_path / "bad.yaml"
    bad.write_text("tokens: [a, b]\nembeddings: [[1, 0], [0, 1]]\nheads: 3\n")
    done = subprocess.run([attn, "explain", str(bad)], capture_output=True, text=True, check=False)
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr == (f"{bad}:3:8: heads: cannot split d_k = 2 of the weights into 3 equal "
                           "heads\n")


def test_written_out_projections_start_from_x_with_positions() -> None:
    # decoder_layer adds sinusoidal positions: x_mouse = E[mouse] + P[2]
    # = [0.8 + sin 2, 0 + cos 2, 0.3 + sin 0.02, 0.5 + cos 0.02] = [1.71, -0.42, 0.32, 1.50]
    result = CliRunner().invoke(app, ["explain", str(CONFIGS / "decoder_layer.yaml"), "-f", "text",
                                      "--steps", "projections", "--head", "1",
                                      "-x", "projections:mouse,d1", "--width", "120"])
    assert result.exit_code == 0, result.output
    assert ("Q[mouse, d1] = x_mouse·W_Q[:, d1] = 1.71·1.00 + (−0.42)·0.00 + 0.32·0.00 + "
            "1.50·0.00 = 1.71") in result.stdout  # whole at 120 columns
