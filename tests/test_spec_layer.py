"""Spec keys for several heads, cross-attention, positions, files, random matrices and the rest
of the layer: what they read, and the one-line error (file:line:column) for each mistake."""

from __future__ import annotations

import math
import textwrap
from pathlib import Path

import numpy as np
import pytest

from attncli import build
from attncli.errors import SpecError
from attncli.i18n import translate
from attncli.render import render
from attncli.spec.loading import loads_spec  # as the command line loads a spec
from attncli.spec.model import Spec

HEAD = """\
tokens: [a, b, c]
embeddings:
  - [1, 0, 0, 1]
  - [0, 1, 1, 0]
  - [1, 1, 0, 0]
"""


def load(text: str, folder: Path, allow_outside: bool = False) -> Spec:
    return loads_spec(textwrap.dedent(text), name=str(folder / "spec.yaml"),
                      allow_outside=allow_outside)


def error(text: str, folder: Path, allow_outside: bool = False) -> str:
    """The line the CLI prints, without the spec's folder."""
    with pytest.raises(SpecError) as caught:
        load(text, folder, allow_outside)
    where = caught.value.where
    assert where is not None
    line = f"{where.prefix()}: {translate(caught.value.message)}"
    return line.replace(str(folder) + "/", "")


def matrix(rows: int, columns: int, start: float = 0.0) -> str:
    values = np.arange(rows * columns, dtype=float).reshape(rows, columns) / 10 + start
    return "[" + ", ".join("[" + ", ".join(f"{v:g}" for v in row) + "]" for row in values) + "]"


# --- several heads ---------------------------------------------------------------------------

def test_heads_list_with_its_own_shapes(tmp_path: Path) -> None:
    spec = load(HEAD + f"""\
heads:
  - {{W_Q: {matrix(4, 2)}, W_K: {matrix(4, 2, 1)}, W_V: {matrix(4, 3)}}}
  - {{W_Q: {matrix(4, 1)}, W_K: {matrix(4, 1)}, W_V: {matrix(4, 5)}, b_V: [1, 2, 3, 4, 5]}}
weights:
  W_O: {matrix(8, 4)}
""", tmp_path)
    assert [(h.d_k("row"), h.d_v("row")) for h in spec.heads] == [(2, 3), (1, 5)]
    result = build(spec)
    assert result.steps[-1].id == "out_projection" and result.output.shape == (3, 4)
    assert result.header.uniform_heads is False
    text = render(result, "text")
    assert "3 tokens, d_model = 4, 2 heads\nmask: none · scale: ÷ √d_k of each head\n" in text
    assert "head 1: d_k = 2, d_v = 3\nhead 2: d_k = 1, d_v = 5\n" in text
    # head 2's √d_k is √1: its scaled scores are its scores
    scores = [s for s in result.steps if s.id in ("scores", "scaled") and s.head == 2]
    np.testing.assert_array_equal(scores[0].matrices[0].values, scores[1].matrices[0].values)


def test_split_heads_take_contiguous_blocks_in_the_column_convention(tmp_path: Path) -> None:
    spec = load(HEAD + f"""\
convention: column
heads: 2
weights: {{W_Q: {matrix(4, 4)}, W_V: {matrix(6, 4)}, b_Q: [1, 2, 3, 4]}}
""", tmp_path)
    w_q = np.arange(16, dtype=float).reshape(4, 4) / 10
    np.testing.assert_array_equal(spec.heads[1].W_Q, w_q[2:4])  # rows 3-4: d_k x d_model
    np.testing.assert_array_equal(spec.heads[1].W_V, np.arange(24.0).reshape(6, 4)[3:6] / 10)
    np.testing.assert_array_equal(spec.heads[1].b_Q, [3.0, 4.0])
    assert spec.heads[0].split == ((0, 2), (0, 3))
    assert ("This head's part of the full weights: rows 3–4 of W_Q and W_K, rows 4–6 of W_V."
            in render(build(spec), "text", width=200))


@pytest.mark.parametrize(("extra", "expected"), [
    ("heads: 3\n", "spec.yaml:6:8: heads: cannot split d_k = 4 of the weights into 3 equal heads"),
    ("heads: 0\n", "spec.yaml:6:8: heads: expected a whole number of at least 1, found 0"),
    ("heads: many\n", 'spec.yaml:6:8: heads: expected a number of heads or a list of heads, '
                      'found the text "many"'),
    (f"heads:\n  - {{W_Q: {matrix(4, 2)}, W_K: {matrix(4, 2)}}}\n"
     f"  - {{W_Q: {matrix(4, 2)}, W_K: {matrix(4, 3)}}}\n",
     "spec.yaml:8:64: heads[1].W_K is 4 × 3, expected d_model × d_k = 4 × 2 (head 2)"),
    (f"heads:\n  - {{W_Q: {matrix(4, 2)}}}\n",
     "spec.yaml:7:5: heads[0]: W_K is missing, so it is the identity, which needs d_k = d_model"),
    (f"heads:\n  - {{W_V: {matrix(3, 2)}}}\n",
     "spec.yaml:7:11: heads[0].W_V is 3 × 2, expected d_model × d_v = 4 × 2 (head 1)"),
    (f"heads: [{{}}]\nweights: {{W_Q: {matrix(4, 4)}}}\n",
     "spec.yaml:7:16: weights.W_Q: with a list of heads, each head has its own projections; "
     "weights may hold only W_O and b_O"),
    ("weights: {b_O: [1, 2, 3, 4]}\n",
     "spec.yaml:6:16: weights.b_O: b_O needs W_O beside it in weights"),
    (f"heads: [{{W_Q: {matrix(4, 2)}, W_K: {matrix(4, 2)}}}, {{}}]\nscore: {{general: "
     f"{matrix(2, 2)}}}\n", "spec.yaml:7:8: score: the general score needs one d_k for every "
     "head; head 2 has d_k = 4, head 1 has 2"),
    (f"heads: 2\nweights: {{W_O: {matrix(4, 3)}}}\n",
     "spec.yaml:7:16: weights.W_O is 4 × 3, expected h·d_v × d_model = 4 × 4"),
])
def test_head_errors(tmp_path: Path, extra: str, expected: str) -> None:
    assert error(HEAD + extra, tmp_path) == expected


# --- cross-attention --------------------------------------------------------------------------

CONTEXT = HEAD + """\
context:
  tokens: [w, x, y, z]
  embeddings: [[1, 0, 0, 0], [0, 1, 0, 0], [0, 0, 1, 0], [0, 0, 0, 1]]
"""


def test_cross_attention_is_n_by_m(tmp_path: Path) -> None:
    spec = load(CONTEXT + "mask: {padding: [true, false, true, true]}\n", tmp_path)
    result = build(spec)
    weights = result.heads[0].weights
    assert weights.shape == (3, 4) and weights.columns == ("w", "x", "y", "z")
    np.testing.assert_array_equal(weights.values[:, 1], 0.0)
    # query a = [1, 0, 0, 1] against the unit keys, over √4: logits [.5, hidden, 0, .5]
    e = np.exp([0.5, 0.0, 0.5])
    np.testing.assert_allclose(weights.values[0, [0, 2, 3]], e / e.sum(), atol=1e-15)
    np.testing.assert_allclose(result.output.values[0], [e[0], 0, e[1], e[2]] / e.sum(),
                               atol=1e-15)


@pytest.mark.parametrize(("extra", "expected"), [
    ("mask: causal\n",
     "spec.yaml:9:7: mask: a causal mask needs as many queries as keys, found 3 × 4"),
    ("mask: {window: 1, causal: true}\n",
     "spec.yaml:9:7: mask: a causal mask needs as many queries as keys, found 3 × 4"),
    ("mask: {padding: [true, true, false]}\n",
     "spec.yaml:9:17: mask.padding: has 3 entries, expected one per key (4)"),
])
def test_cross_attention_mask_errors(tmp_path: Path, extra: str, expected: str) -> None:
    assert error(CONTEXT + extra, tmp_path) == expected


def test_context_needs_the_same_d_model(tmp_path: Path) -> None:
    text = HEAD + "context: {tokens: [x], embeddings: [[1, 2]]}\n"
    assert error(text, tmp_path) == ("spec.yaml:6:36: context.embeddings: has 2 columns, "
                                     "expected d_model = 4 as in the query embeddings")


# --- positional encodings ---------------------------------------------------------------------

def test_positional_kinds(tmp_path: Path) -> None:
    plain = load(HEAD + "positional: sinusoidal\n", tmp_path).queries.positional
    assert plain is not None and plain.kind == "sinusoidal" and plain.base == 10000.0
    assert load(HEAD + "positional: none\n", tmp_path).queries.positional is None
    learned = build(load(HEAD + f"positional: {matrix(3, 4)}\n", tmp_path))
    p, x = (m.values for m in learned.steps[1].matrices)
    np.testing.assert_array_equal(p, np.arange(12.0).reshape(3, 4) / 10)
    np.testing.assert_array_equal(x[0], [1.0, 0.1, 0.2, 1.3])
    # the default base is 10000: P[1, 2] = sin(1 / 10000^(2/4)) = sin(0.01)
    result = build(load(HEAD + "positional: sinusoidal\n", tmp_path))
    assert result.steps[1].matrices[0].values[1, 2] == pytest.approx(np.sin(0.01), abs=1e-16)


@pytest.mark.parametrize(("extra", "expected"), [
    ("positional: cosine\n", "spec.yaml:6:13: positional: expected none, sinusoidal, rope, "
     "{sinusoidal: {base: n}}, {rope: {base: n, layout: half}} or a tokens × d_model matrix, "
     'found the text "cosine"'),
    ("positional: {sinusoidal: {base: 1}}\n",
     "spec.yaml:6:33: positional.sinusoidal.base: expected a base greater than 1, found 1"),
    ("positional: {sinusoidal: {bass: 10}}\n",
     "spec.yaml:6:27: positional.sinusoidal.bass: unknown key; did you mean base?"),
    (f"positional: {matrix(2, 4)}\n",
     "spec.yaml:6:13: positional is 2 × 4, expected tokens × d_model = 3 × 4"),
])
def test_positional_errors(tmp_path: Path, extra: str, expected: str) -> None:
    assert error(HEAD + extra, tmp_path) == expected


# --- matrices from files ----------------------------------------------------------------------

def test_npy_npz_and_csv(tmp_path: Path) -> None:
    (tmp_path / "data").mkdir()
    np.save(tmp_path / "data" / "e.npy", np.eye(3, 4, dtype=np.float32) * 0.5)
    np.savez(tmp_path / "w.npz", W_Q=np.arange(8.0).reshape(4, 2), W_K=np.ones((4, 2)))
    (tmp_path / "v.csv").write_text("1,0\n0,1\n1,1\n0,0\n")
    (tmp_path / "b.csv").write_text("0.5,-0.5\n")
    spec = load("""\
        tokens: [a, b, c]
        embeddings: {file: data/e.npy}
        weights:
          W_Q: {file: w.npz, key: W_Q}
          W_K: {file: w.npz, key: W_K}
          W_V: {file: v.csv}
          b_V: {file: b.csv}
        """, tmp_path)
    np.testing.assert_array_equal(spec.queries.embeddings, np.eye(3, 4) * 0.5)
    assert spec.queries.embeddings.dtype == np.float64
    np.testing.assert_array_equal(spec.heads[0].W_Q, np.arange(8.0).reshape(4, 2))
    np.testing.assert_array_equal(spec.heads[0].W_V, [[1, 0], [0, 1], [1, 1], [0, 0]])
    np.testing.assert_array_equal(spec.heads[0].b_V, [0.5, -0.5])


def test_files_outside_the_folder_need_allow_outside(tmp_path: Path) -> None:
    inner = tmp_path / "specs"
    inner.mkdir()
    np.save(tmp_path / "e.npy", np.eye(3, 4))
    text = "tokens: [a, b, c]\nembeddings: {file: ../e.npy}\n"
    assert error(text, inner) == ("spec.yaml:2:20: embeddings.file: ../e.npy is outside the "
                                  "spec's folder; only files in that folder or below it are read")
    assert load(text, inner, allow_outside=True).queries.embeddings.shape == (3, 4)
    absolute = f"tokens: [a, b, c]\nembeddings: {{file: {tmp_path / 'e.npy'}}}\n"
    assert "is outside the spec's folder" in error(absolute, inner)


def test_file_errors(tmp_path: Path) -> None:
    np.save(tmp_path / "words.npy", np.array(["a", "b"]))
    np.save(tmp_path / "objects.npy", np.array([{"a": 1}], dtype=object), allow_pickle=True)
    np.save(tmp_path / "cube.npy", np.zeros((3, 4, 1)))
    np.save(tmp_path / "one.npy", np.float64(3.0))  # a single number: shape ()
    np.save(tmp_path / "nan.npy", np.array([[np.nan, 1.0]] * 3))
    np.savez(tmp_path / "two.npz", a=np.eye(2), b=np.eye(2))
    (tmp_path / "ragged.csv").write_text("1,2,3,4\n1,2\n1,2,3,4\n")
    (tmp_path / "e.txt").write_text("1")

    def line(name: str, key: str = "") -> str:
        extra = f", key: {key}" if key else ""
        return error(f"tokens: [a, b, c]\nembeddings: {{file: {name}{extra}}}\n", tmp_path)

    where = "spec.yaml:2:20: embeddings.file: "
    assert line("missing.npy") == where + "missing.npy: no such file"
    assert line("words.npy") == where + "words.npy: expected real numbers, found the data type <U1"
    assert line("objects.npy") == where + ("objects.npy holds Python objects, which attn never "
                                           "loads (they could run code); save plain numbers")
    assert line("cube.npy") == where + ("cube.npy holds an array of shape 3 × 4 × 1, expected a "
                                        "matrix (2 dimensions)")
    assert line("one.npy") == where + ("one.npy holds an array of shape (), expected a matrix "
                                       "(2 dimensions)")  # the shape was left blank
    assert line("nan.npy") == where + "nan.npy: expected finite numbers, found inf or NaN"
    assert line("two.npz") == where + "two.npz holds 2 arrays (“a”, “b”); say which with key"
    assert line("two.npz", "c") == where + "two.npz has no array “c”; it has “a”, “b”"
    assert line("ragged.csv") == where + "ragged.csv: line 2 has 2 numbers, expected 4"
    assert line("e.txt") == where + "e.txt: expected a .npy, .npz or .csv file"
    assert line("e.npy", "W") == where + "e.npy: key is only for .npz files"
    np.save(tmp_path / "small.npy", np.eye(2, 4))
    assert line("small.npy") == ("spec.yaml:2:13: embeddings: has 2 rows, expected one per token "
                                 "(3)")


# --- random matrices --------------------------------------------------------------------------

def test_random_matrices(tmp_path: Path) -> None:
    spec = load("""\
        tokens: [a, b, c]
        embeddings: {random: {seed: 7, distribution: uniform, low: -1, high: 1}, dim: 6}
        weights:
          W_Q: {random: {seed: 1}, shape: [6, 2]}
          W_K: {random: {seed: 2}}
          W_V: {random: {seed: 3, mean: 1, std: 0.1}}
          b_K: {random: {seed: 4}}
        """, tmp_path)
    np.testing.assert_array_equal(spec.queries.embeddings,
                                  np.random.default_rng(7).uniform(-1, 1, (3, 6)))
    assert spec.heads[0].W_K.shape == (6, 2)  # from W_Q
    assert spec.heads[0].W_V.shape == (6, 6)  # nothing else tells: d_model x d_model
    np.testing.assert_array_equal(spec.heads[0].W_V,
                                  np.random.default_rng(3).normal(1, 0.1, (6, 6)))
    np.testing.assert_array_equal(spec.heads[0].b_K, np.random.default_rng(4).normal(0, 1, 2))


@pytest.mark.parametrize(("extra", "expected"), [
    ("embeddings: {random: {seed: 1}}\n", "spec.yaml:2:13: embeddings: cannot tell the shape of "
     "this random matrix from the others; add shape: [rows, columns]"),
    ("embeddings: {random: {seed: 1, low: 0}, dim: 2}\n",
     "spec.yaml:2:37: embeddings.random.low: low does not apply to the normal distribution"),
    ("embeddings: {random: {distribution: uniform, low: 1, high: 1}, dim: 2}\n",
     "spec.yaml:2:22: embeddings.random: expected low < high, found low = 1, high = 1"),
    ("embeddings: {random: {seed: -1}, dim: 2}\n",
     "spec.yaml:2:29: embeddings.random.seed: expected a whole number of at least 0, found -1"),
    ("embeddings: {random: {}, shape: [4, 2]}\n",
     "spec.yaml:2:33: embeddings.shape is 4 × 2, expected 3 × ?"),
    ("embeddings: {random: {}, shape: [3, 4000000]}\n", "spec.yaml:2:13: embeddings: a matrix "
     "of 3 × 4,000,000 is too large; the limit is 10,000,000 numbers, which --max-cells sets"),
    ("embeddings: {randm: {}}\n",
     "spec.yaml:2:13: embeddings: expected a matrix, {file: ...} or {random: ...}, "
     "found a mapping of 1 key"),
])
def test_random_errors(tmp_path: Path, extra: str, expected: str) -> None:
    assert error("tokens: [a, b, c]\n" + extra, tmp_path) == expected


# --- the rest of the layer --------------------------------------------------------------------

@pytest.mark.parametrize(("extra", "expected"), [
    ("block: {residual: false}\n",
     "spec.yaml:6:8: block: expected at least one of residual: true, layer_norm, rms_norm and ffn"),
    ("block: {layer_norm: {eps: 0}}\n",
     "spec.yaml:6:27: block.layer_norm.eps: expected a positive eps, found 0"),
    ("block: {layer_norm: [{}, {}, {}]}\n", "spec.yaml:6:21: block.layer_norm: expected one "
     "LayerNorm for both places or a list of two, found 3"),
    ("block: {layer_norm: {gain: [1, 2]}}\n",
     "spec.yaml:6:28: block.layer_norm.gain is 2, expected d_model = 4"),
    ("block: {ffn: {W_1: {random: {}}, W_2: {random: {}}}}\n",
     "spec.yaml:6:20: block.ffn.W_1: cannot tell the shape of this random matrix from the "
     "others; add shape: [rows, columns]"),
    (f"block: {{ffn: {{W_1: {matrix(4, 8)}, W_2: {matrix(4, 8)}}}}}\n",
     "spec.yaml:6:187: block.ffn.W_2 is 4 × 8, expected d_ff × d_model = 8 × 4"),
    (f"block: {{ffn: {{W_1: {matrix(4, 2)}, W_2: {matrix(2, 4)}, activation: tanh}}}}\n",
     "spec.yaml:6:129: block.ffn.activation: expected one of relu, gelu, gelu_tanh, silu, swiglu, "
     'geglu, geglu_tanh, found the text "tanh"'),
    (f"heads: [{{W_V: {matrix(4, 3)}}}]\nblock: {{}}\n",
     "spec.yaml:7:8: block: the layer needs the attention output to have d_model = 4 columns, "
     "found 3; add W_O to weights"),
])
def test_block_errors(tmp_path: Path, extra: str, expected: str) -> None:
    assert error(HEAD + extra, tmp_path) == expected


def test_block_parts_are_opt_in(tmp_path: Path) -> None:
    only_norm = build(load(HEAD + "block: {residual: false, layer_norm: true}\n", tmp_path))
    assert [s.id for s in only_norm.steps][-1] == "norm_1"
    y = only_norm.output.values
    z = only_norm.heads[0].context.values
    expected = (z - z.mean(axis=1, keepdims=True)) / np.sqrt(z.var(axis=1, keepdims=True) + 1e-5)
    np.testing.assert_allclose(y, expected, atol=1e-15)
    gelu = build(load(HEAD + f"block: {{residual: false, ffn: {{W_1: {matrix(4, 2)}, "
                             f"W_2: {matrix(2, 4)}, activation: gelu}}}}\n", tmp_path))
    hidden = gelu.heads[0].context.values @ (np.arange(8.0).reshape(4, 2) / 10)
    # GELU(x) = x·Φ(x), Φ the standard normal CDF
    phi = np.vectorize(lambda v: 0.5 * (1 + math.erf(v / math.sqrt(2))))
    np.testing.assert_allclose(gelu.output.values, (hidden * phi(hidden)) @ (
        np.arange(8.0).reshape(2, 4) / 10), atol=1e-15)
    assert [s.id for s in gelu.steps][-1] == "ffn"
