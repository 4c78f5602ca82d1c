"""A summarized walkthrough: large attention matrices keep only the rows a view shows, and say
so; what is shown is the same as from the whole walkthrough. Also the in-place formulas that let
a real-size head hold few n x m arrays at once, and the reading's grouping of equal weights."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from attncli import build, loads_spec, render
from attncli.arithmetic.expand import Selection
from attncli.arithmetic.numbers import NumberFormat
from attncli.arithmetic.reading import groups, key_listing
from attncli.compute import ops
from attncli.i18n import translate
from attncli.model import Formula, HeadResult, Matrix
from tests.conftest import run

N = 70  # above elision.WHOLE_ROWS, so a summary keeps rows 0-3 and 66-69
EDGE_ROWS = (0, 1, 2, 3, 66, 67, 68, 69)


def large_spec(tmp_path: Path, heads: int = 2) -> Path:
    """N tokens, d_model 4, causal, fixed numbers (no randomness in the test)."""
    rows = [[round(((3 * i + 5 * j) % 11) / 7 - 0.6, 3) for j in range(4)] for i in range(N)]
    path = tmp_path / "large.yaml"
    path.write_text("tokens: [" + ", ".join(f"t{i}" for i in range(N)) + "]\n"
                    f"embeddings: {json.dumps(rows)}\nheads: {heads}\nmask: causal\n",
                    encoding="utf-8")
    return path


def reference_weights(x: np.ndarray, heads: int) -> list[np.ndarray]:
    """softmax(QKᵀ/√d_k + M) per head, written independently (identity W, causal)."""
    d_k = x.shape[1] // heads
    out = []
    for h in range(heads):
        q = x[:, h * d_k:(h + 1) * d_k]
        s = q @ q.T / np.sqrt(d_k)
        s[np.triu_indices(len(x), 1)] = -np.inf
        e = np.exp(s - s.max(axis=1, keepdims=True))
        out.append(e / e.sum(axis=1, keepdims=True))
    return out


def test_a_summary_keeps_the_shown_rows_of_every_attention_matrix(tmp_path: Path) -> None:
    spec = loads_spec(large_spec(tmp_path).read_text())
    summary = build(spec, summary=True)
    expected = reference_weights(spec.queries.embeddings, 2)
    for head, weights in zip(summary.heads, expected, strict=True):
        assert head.weights.kept == EDGE_ROWS
        assert head.weights.values.shape == (8, N)  # not N x N
        assert head.weights.shape == (N, N)
        for i in EDGE_ROWS:
            np.testing.assert_allclose(head.weights.row(i), weights[i], rtol=0, atol=1e-12)
        assert head.scores.kept == EDGE_ROWS
        assert head.queries.kept is None  # N x d_k: small, kept whole
    for step in summary.steps:
        if step.id in ("scores", "scaled", "masked", "weights"):
            assert step.matrices[0].kept == EDGE_ROWS


def test_a_summary_prints_every_matrix_as_the_whole_walkthrough_does(tmp_path: Path) -> None:
    spec = loads_spec(large_spec(tmp_path).read_text())
    whole = render(build(spec), "text")
    summary = render(build(spec, summary=True), "text")
    assert "[elided in the middle; --full shows all 70 × 70]" in summary
    cut = "What the weights say — head 1"
    assert summary.split(cut)[0] == whole.split(cut)[0]


def test_a_summary_reads_the_shown_queries_and_counts_the_rest(tmp_path: Path) -> None:
    spec = loads_spec(large_spec(tmp_path).read_text())
    reading = build(spec, summary=True).reading
    number = NumberFormat(2)
    first = [translate(s, "en", number) for s in reading[0].sentences]
    assert len(first) == 8 + 1
    assert first[0] == "“t0” sees only itself, so all its weight (1.00) stays there."
    assert first[-1] == "The other 62 queries are not read here; --full reads every one."
    together = [translate(s, "en", number) for s in reading[-1].sentences]
    assert together[-1] == first[-1]
    assert len(build(spec).reading[0].sentences) == N


def test_the_rows_written_out_are_kept_too(tmp_path: Path) -> None:
    spec = loads_spec(large_spec(tmp_path).read_text())
    walkthrough = build(spec, Selection.parse(["weights:t30"]), summary=True)
    assert walkthrough.heads[0].weights.kept == (0, 1, 2, 3, 30, 66, 67, 68, 69)
    lines = render(walkthrough, "text").splitlines()
    assert sum(line.strip().startswith("A[t30, t") for line in lines) == 2 * N  # both heads


def test_a_format_that_shows_every_number_refuses_a_summary(tmp_path: Path) -> None:
    spec = loads_spec(large_spec(tmp_path).read_text())
    with pytest.raises(ValueError, match="holds only some rows"):
        render(build(spec, summary=True), "json")


def test_explain_text_summarizes_and_full_or_json_do_not(tmp_path: Path) -> None:
    path = str(large_spec(tmp_path, heads=1))
    short = run("explain", path, "-f", "text", "-x", "none")
    assert short.exit_code == 0, short.stderr
    assert "The other 62 queries are not read here; --full reads every one." in short.stdout
    full = run("explain", path, "-f", "text", "-x", "none", "--full")
    assert "not read here" not in full.stdout
    assert "\n   “t69” attends" in full.stdout and "\n   “t40” attends" in full.stdout
    doc = run("explain", path, "-f", "json", "-x", "none").json()
    assert len(doc["heads"][0]["weights"]) == N


def test_polish_and_russian_count_the_queries_left_unread(tmp_path: Path) -> None:
    path = str(large_spec(tmp_path, heads=1))
    pl = run("explain", path, "-f", "text", "-x", "none", "--lang", "pl").stdout
    assert "62 pozostałe zapytania nie są tu opisane; --full opisuje wszystkie." in pl
    ru = run("explain", path, "-f", "text", "-x", "none", "--lang", "ru").stdout
    assert "Ещё 62 запроса здесь не описаны; --full описывает все." in ru


def test_snippets_print_what_explain_prints_for_a_large_spec(tmp_path: Path) -> None:
    large_spec(tmp_path, heads=1)
    (tmp_path / "attn.toml").write_text(
        '[[snippets]]\nspecs = "large.yaml"\nformats = ["text", "json"]\n'
        'output = "out/{name}.{ext}"\n', encoding="utf-8")
    done = subprocess.run([sys.executable, "-m", "attncli", "snippets"], cwd=tmp_path,
                          capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr
    for fmt, ext in (("text", "txt"), ("json", "json")):
        explained = run("explain", str(tmp_path / "large.yaml"), "-f", fmt)
        assert (tmp_path / "out" / f"large.{ext}").read_text(encoding="utf-8") == \
            explained.stdout


# --- the formulas written in place ---

def logits_with_hidden_rows() -> np.ndarray:
    rng = np.random.default_rng(3)
    s = rng.normal(size=(6, 5)) * 40  # (6, 5)
    s[np.triu_indices(6, 1, 5)] = -np.inf
    s[0] = -np.inf  # a query that sees no key
    s[2, 1] = np.inf  # an overflow: treated as hidden, as before
    return s


def test_softmax_in_place_gives_the_same_bits() -> None:
    s = logits_with_hidden_rows()
    expected, empty = ops.softmax(s.copy())
    buffer = s.copy()
    weights, empty_too = ops.softmax(buffer, out=buffer)
    assert weights is buffer
    np.testing.assert_array_equal(weights, expected)
    np.testing.assert_array_equal(empty, empty_too)
    assert weights[0].tolist() == [0.0] * 5 and empty.tolist()[0]
    np.testing.assert_allclose(weights[1:].sum(axis=1), 1.0)


def test_scale_and_mask_in_place_give_the_same_bits() -> None:
    s = np.random.default_rng(4).normal(size=(5, 5))  # (5, 5)
    visible = ops.causal(5, 5)
    buffer = s.copy()
    np.testing.assert_array_equal(ops.scale(buffer, 1.5, out=buffer), s / 1.5)
    masked = ops.apply_mask(buffer, visible, out=buffer)
    assert masked is buffer
    np.testing.assert_array_equal(masked, np.where(visible, s / 1.5, -np.inf))


# --- grouping equal weights, and naming a long group ---

def naive_groups(weights: np.ndarray, visible: np.ndarray,
                 columns: tuple[str, ...]) -> list[tuple[tuple[str, ...], float]]:
    """Every key compared with the first of its group, one by one (what reading.groups finds by
    bisecting each run)."""
    found: list[tuple[list[str], float]] = []
    for j in sorted(range(len(weights)), key=lambda j: -weights[j]):
        if not visible[j]:
            continue
        if found and found[-1][1] - weights[j] <= 1e-12:
            found[-1][0].append(columns[j])
        else:
            found.append(([columns[j]], float(weights[j])))
    return [(tuple(keys), weight) for keys, weight in found]


def head_of(weights: np.ndarray, visible: np.ndarray) -> HeadResult:
    m = len(weights)
    columns = tuple(f"k{j}" for j in range(m))
    A = Matrix(Formula("A", "A"), weights[None, :], ("q",), columns)
    S = Matrix(Formula("S", "S"), np.where(visible, 0.0, -np.inf)[None, :], ("q",), columns)
    empty = Matrix(Formula("Q", "Q"), np.zeros((1, 1)), ("q",), ("d1",))
    return HeadResult(1, empty, empty, empty, S, A, empty)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.sampled_from([0.0, 0.001, 0.004, 0.005, 0.0051, 0.01, 0.015, 0.1, 0.1 + 1e-13,
                                 0.1 + 3e-12, 0.125, 0.33, 0.5, 0.995, 1.0]),
                min_size=1, max_size=300),
       st.integers(0, 2**16))
def test_groups_are_the_weights_equal_within_the_tolerance(values: list[float], seed: int) -> None:
    weights = np.array(values)
    visible = np.random.default_rng(seed).random(len(values)) < 0.8
    columns = tuple(f"k{j}" for j in range(len(values)))
    found = [(tuple(keys), weight) for keys, weight in groups(head_of(weights, visible), 0)]
    assert found == naive_groups(weights, visible, columns)


def test_a_long_group_names_five_keys_and_counts_the_rest() -> None:
    keys = [f"t{i}" for i in range(2000)]
    assert translate(key_listing("q", keys), "en") == (
        "“t0”, “t1”, “t2”, “t3”, “t4” and 1995 more keys")
    assert translate(key_listing("q", keys[:6]), "en") == (
        "“t0”, “t1”, “t2”, “t3”, “t4” and “t5”")
    polish = "„t0”, „t1”, siebie, „t3”, „t4” i\u00a0jeszcze 2 klucze"
    assert translate(key_listing("t2", keys[:7]), "pl") == polish


def test_a_projection_left_out_is_the_input_itself() -> None:
    x = np.array([[1.5, -0.0, 2.0], [0.25, -3.0, 1e-300]])  # (2, 3)
    b = np.array([1.0, 0.0, -1.0])
    for convention in ("row", "column"):
        identity = ops.project(x, np.eye(3), b, convention)
        np.testing.assert_array_equal(identity, x @ np.eye(3) + b)
        assert str(ops.project(x, np.eye(3), None, convention)[0, 1]) == "0.0"  # as x @ I gives
    almost = np.eye(3)
    almost[2, 0] = 1e-9
    assert not ops.is_identity(almost) and not ops.is_identity(np.diag([1.0, 1.0, 2.0]))
    assert not ops.is_identity(np.eye(3, 2))
    np.testing.assert_array_equal(ops.project(x, almost, None, "row"), x @ almost)
