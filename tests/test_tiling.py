"""Online softmax in tiles (`tiling: {keys: b_k, queries: b_q}`): the tiled output equals
softmax(Q·Kᵀ/√d_k + M)·V written here in NumPy, for random specs and random block sizes (blocks
that do not divide the tokens among them); the running m and ℓ after the last tile equal each
row's largest score and Σ e^(s − max) computed here; a tiny case worked by hand, at full
precision and by hand, checked against the printed numbers."""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pytest

from attncli import build, loads_spec
from attncli.i18n import translate
from attncli.model import Step, Walkthrough
from tests.conftest import run, run_apart

CASES = 60


def random_spec(seed: int) -> dict[str, object]:
    """A random self-attention spec with a tiling section, as data: 1 to 3 heads, causal mask or
    none (sometimes padding too), a scale now and then, blocks of any size up to the tokens."""
    rng = np.random.default_rng(seed)
    n = int(rng.integers(1, 9))
    heads = int(rng.integers(1, 4))
    d_model = heads * int(rng.integers(1, 4))
    tiling: dict[str, int] = {"keys": int(rng.integers(1, n + 1))}
    if rng.random() < 0.7:
        tiling["queries"] = int(rng.integers(1, n + 1))
    spec: dict[str, object] = {
        "tokens": [f"t{i}" for i in range(n)],
        "embeddings": rng.normal(scale=1.5, size=(n, d_model)).tolist(),
        "heads": heads,
        "weights": {name: rng.normal(size=(d_model, d_model)).tolist()
                    for name in ("W_Q", "W_K", "W_V")},
        "tiling": tiling,
    }
    masks: list[object] = []
    if rng.random() < 0.5:
        masks.append("causal")
    if rng.random() < 0.3:
        keep = [True] + [bool(rng.random() < 0.7) for _ in range(n - 1)]
        masks.append({"padding": keep})
    if masks:
        spec["mask"] = masks
    if rng.random() < 0.3:
        spec["scale"] = float(rng.uniform(0.5, 3.0))
    return spec


def logits_of(spec: dict[str, object], head: int) -> tuple[np.ndarray, np.ndarray]:
    """This head's softmax input Q·Kᵀ/divisor + M (−∞ where hidden) and V, written out here."""
    x = np.array(spec["embeddings"])
    weights = spec["weights"]
    assert isinstance(weights, dict)
    h = int(spec["heads"])  # type: ignore[call-overload]
    d_head = x.shape[1] // h
    cols = slice(head * d_head, (head + 1) * d_head)
    q, k, v = (x @ np.array(weights[name])[:, cols] for name in ("W_Q", "W_K", "W_V"))
    scale = spec.get("scale")
    s = q @ k.T / (float(scale) if isinstance(scale, float) else math.sqrt(d_head))  # (n, n)
    n = x.shape[0]
    hidden = np.zeros((n, n), dtype=bool)
    for mask in spec.get("mask", []):  # type: ignore[attr-defined]
        if mask == "causal":
            hidden |= np.triu(np.ones((n, n), dtype=bool), 1)
        else:
            hidden |= ~np.array(mask["padding"])[None, :]
    s[hidden] = -np.inf
    return s, v


def plain_attention(s: np.ndarray, v: np.ndarray) -> np.ndarray:
    e = np.exp(s - s.max(axis=1, keepdims=True))  # (n, n): e^(s − row max), 0 where hidden
    return (e / e.sum(axis=1, keepdims=True)) @ v  # (n, d_v)


def walkthrough(spec: dict[str, object]) -> Walkthrough:
    return build(loads_spec(json.dumps(spec), "spec.json"))


def head_steps(w: Walkthrough, step_id: str, head: int) -> list[Step]:
    return [s for s in w.steps if s.id == step_id and (s.head or 1) == head]


def final_statistics(w: Walkthrough, head: int) -> dict[str, tuple[float, float]]:
    """m and ℓ of every query as the last tile that changed them printed them."""
    found: dict[str, tuple[float, float]] = {}
    for step in head_steps(w, "tile", head):
        if not step.matrices:
            continue  # a skipped tile
        statistics = step.matrices[2]
        assert statistics.columns == ("m_old", "m", "α", "ℓ_old", "ℓ")
        for r, row in enumerate(statistics.rows):
            found[row] = (statistics.at(r, 1), statistics.at(r, 4))
    return found


@pytest.mark.parametrize("seed", range(CASES))
def test_the_tiled_output_equals_plain_attention(seed: int) -> None:
    spec = random_spec(seed)
    w = walkthrough(spec)
    for head in range(len(w.heads)):
        s, v = logits_of(spec, head)
        [output] = head_steps(w, "tiled_output", head + 1)
        tiled = output.matrices[-1]
        assert tiled.symbol.text == "O"
        np.testing.assert_allclose(tiled.values, plain_attention(s, v), rtol=0, atol=1e-12)
        assert translate(output.notes[-1], "en").startswith("Check: O equals Z")


@pytest.mark.parametrize("seed", range(CASES))
def test_the_last_m_and_l_are_the_row_max_and_the_row_sum(seed: int) -> None:
    spec = random_spec(seed)
    w = walkthrough(spec)
    for head in range(len(w.heads)):
        s, _ = logits_of(spec, head)
        peak = s.max(axis=1)  # (n,)
        total = np.exp(s - peak[:, None]).sum(axis=1)  # (n,)
        found = final_statistics(w, head + 1)
        assert sorted(found) == sorted(f"t{i}" for i in range(s.shape[0]))
        for i in range(s.shape[0]):
            m, ell = found[f"t{i}"]
            assert m == pytest.approx(peak[i], abs=1e-12)
            assert ell == pytest.approx(total[i], abs=1e-12)
        [output] = head_steps(w, "tiled_output", head + 1)
        np.testing.assert_allclose(output.matrices[0].values[:, 0], total, rtol=0, atol=1e-12)


@pytest.mark.parametrize("seed", range(0, CASES, 3))
def test_the_tiles_cover_every_visible_score_once(seed: int) -> None:
    """The tiles shown, put back together, are the softmax input; a tile left out is one the
    mask hides entirely, and its queries and keys are those of the blocks."""
    spec = random_spec(seed)
    w = walkthrough(spec)
    s, _ = logits_of(spec, 0)
    n = s.shape[0]
    tiling = spec["tiling"]
    assert isinstance(tiling, dict)
    b_q, b_k = tiling.get("queries", n), tiling["keys"]
    steps = head_steps(w, "tile", 1)
    assert len(steps) == math.ceil(n / b_q) * math.ceil(n / b_k)
    rebuilt = np.full((n, n), -np.inf)
    for k, step in enumerate(steps):
        i, j = divmod(k, math.ceil(n / b_k))
        rows = range(i * b_q, min((i + 1) * b_q, n))
        columns = range(j * b_k, min((j + 1) * b_k, n))
        if not step.matrices:
            assert np.isneginf(s[rows.start:rows.stop, columns.start:columns.stop]).all()
            continue
        tile = step.matrices[0]
        assert tile.rows == tuple(f"t{r}" for r in rows)
        assert tile.columns == tuple(f"t{c}" for c in columns)
        rebuilt[rows.start:rows.stop, columns.start:columns.stop] = tile.values
    np.testing.assert_allclose(rebuilt, s, rtol=0, atol=1e-12)


@pytest.mark.parametrize("config", ["alibi_three_heads", "rope_half", "multi_query",
                                    "cross_attention", "score_bias_matrix", "padding_comma",
                                    "column_convention", "decoder_layer"])
def test_every_head_layout_bias_and_mask_gives_plain_attention(config: str) -> None:
    """ALiBi, RoPE, shared key-value heads, context, a bias matrix, padding, the column
    convention, a whole layer: each head's tiled O equals its Z from the steps before."""
    text = Path(f"configs/{config}.yaml").read_text("utf-8") + "tiling: {keys: 2, queries: 2}\n"
    w = build(loads_spec(text, f"configs/{config}.yaml"))
    for head in w.heads:
        [output] = head_steps(w, "tiled_output", head.index)
        np.testing.assert_allclose(output.matrices[-1].values, head.context.values, rtol=0,
                                   atol=1e-12)


# The tiny case, by hand: queries q1 = [1, 0], q2 = [0, 1]; keys and values (the context)
# [1, 0], [0, 1], [2, 0]; W = I, no scale. S = [[1, 0, 2], [0, 1, 0]].
# Key block 1 (k1, k2): m = [1, 1], P̃ = [[1, e⁻¹], [e⁻¹, 1]], ℓ = 1 + e⁻¹ = 1.3679 each,
#   Õ = P̃·V₁ = [[1, 0.3679], [0.3679, 1]].
# Key block 2 (k3): S = [2, 0]; q1's maximum grows to 2: e^(1 − 2) = 0.3679; q2's stays 1.
#   ℓ = [0.3679·1.3679 + 1, 1.3679 + 0.3679] = [1.5032, 1.7358]
#   Õ = [0.3679·[1, 0.3679] + 1·[2, 0], [0.3679, 1] + 0.3679·[2, 0]] = [[2.3679, 0.1353],
#       [1.1036, 1]]
# O = Õ / ℓ = [[1.5752, 0.0900], [0.6358, 0.5761]], which is softmax(S)·V.
TINY = """
tokens: [q1, q2]
embeddings: [[1, 0], [0, 1]]
context:
  tokens: [k1, k2, k3]
  embeddings: [[1, 0], [0, 1], [2, 0]]
scale: 1
tiling: {keys: 2, queries: 2}
"""


def tiny(*options: str) -> str:
    path = Path("tiny.yaml")
    path.write_text(TINY, "utf-8")
    result = run("explain", str(path), "--format", "text", "--steps", "tile,tiled_output",
                 "--expand", "tile:q1", "--expand", "tiled_output:q2", "--precision", "4",
                 *options)
    assert result.exit_code == 0, result.stderr
    return result.stdout


def test_the_tiny_case_worked_by_hand(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    out = tiny()
    assert "q1     −∞  1.0000  0.0000  0.0000  1.3679" in out
    assert "q1  1.0000  2.0000  0.3679  1.3679  1.5032" in out
    assert "q2  1.0000  1.0000  1.0000  1.3679  1.7358" in out
    assert "α[q1] = e^(1.0000 − 2.0000) = 0.3679" in out
    assert "P̃₁₁[q1, k2] = e^(0.0000 − 1.0000) = 0.3679" in out
    assert "ℓ[q1] = 0.3679·1.3679 + 1.0000 ≈ 1.5032" in out
    assert "Õ[q1] = 0.3679·[1.0000, 0.3679] + 1.0000·[2.0000, 0.0000] ≈ [2.3679, 0.1353]" in out
    assert "O[q2, d1] = 1.1036 / 1.7358 = 0.6358" in out
    assert "O[q2, d2] = 1.0000 / 1.7358 = 0.5761" in out
    assert "q1  1.5752  0.0900" in out
    assert "Check: O equals Z = A·V" in " ".join(out.split())


def test_the_tiny_case_by_hand_drifts_where_the_rescale_rounds(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """At 2 decimals, carried rounded. Tiles: ℓ = [0.37·1.37 + 1.00, 1.37 + 0.37] = [1.51, 1.74],
    Õ = [[0.37·1.00 + 2.00, 0.37·0.37 + 0], [0.37 + 0.37·2.00, 1.00]] = [[2.37, 0.14],
    [1.11, 1.00]], O = [[2.37/1.51, 0.14/1.51], [1.11/1.74, 1.00/1.74]] = [[1.57, 0.09],
    [0.64, 0.57]]. Softmax by hand (scores this small are not shifted): e = [2.72, 1.00, 7.39]
    and [1.00, 2.72, 1.00], sums 11.11 and 4.72, weights [0.24, 0.09, 0.67] and
    [0.21, 0.58, 0.21], Z = [[0.24 + 0.67·2, 0.09], [0.21 + 0.21·2, 0.58]] = [[1.58, 0.09],
    [0.63, 0.58]]: three cells apart."""
    monkeypatch.chdir(tmp_path)
    out = " ".join(tiny("--round-intermediates", "--precision", "2").split())
    assert "ℓ[q1] = 0.37·1.37 + 1.00 = 1.51" in out
    assert "Õ[q1] = 0.37·[1.00, 0.37] + 1.00·[2.00, 0.00] = [2.37, 0.14]" in out
    assert "O (2 × 2) d1 d2 q1 1.57 0.09 q2 0.64 0.57" in out
    assert "By hand, 3 cells of O print differently from Z = A·V" in out
    assert ("O[q1, d1] = 1.57, Z[q1, d1] = 1.58 O[q2, d1] = 0.64, Z[q2, d1] = 0.63 "
            "O[q2, d2] = 0.57, Z[q2, d2] = 0.58") in out


def test_a_causal_tile_above_the_diagonal_is_skipped() -> None:
    """configs/online_softmax_tiling.yaml: 5 tokens in blocks of 2 under a causal mask; the
    tiles (1, 2), (1, 3) and (2, 3) lie above the diagonal."""
    w = build(loads_spec(Path("configs/online_softmax_tiling.yaml").read_text("utf-8"),
                         "online_softmax_tiling.yaml"))
    skipped = [translate(s.title, "en").split(":")[0] for s in w.steps
               if s.id == "tile" and not s.matrices]
    assert skipped == ["Tile 1, 2", "Tile 1, 3", "Tile 2, 3"]


def test_the_samples_in_the_docs_are_what_attn_prints() -> None:
    """docs/online_softmax.md shows the last query block and the check by hand as printed."""
    doc = Path("docs/online_softmax.md").read_text("utf-8")
    tiles, by_hand = (block.split("```", 1)[0] for block in doc.split("```text\n")[1:3])
    command = ["explain", "configs/online_softmax_tiling.yaml", "--format", "text",
               "--no-header", "--no-reading", "--steps", "tile,tiled_output"]
    assert tiles in run(*command).stdout
    assert by_hand in run(*command, "--round-intermediates").stdout


@pytest.mark.parametrize("lang", ["en", "pl", "ru"])
def test_the_rescale_in_latex_prose_is_a_power_not_a_caret(lang: str) -> None:
    """`α = e^(m_old − m)` in a sentence is typeset as e raised to m_old − m in LaTeX; a caret
    in text would print as a caret."""
    result = run("export", "configs/online_softmax_tiling.yaml", "--latex", "--lang", lang)
    assert result.exit_code == 0, result.stderr
    prose = [line for line in result.stdout.splitlines() if "m_{\\text{old}}" in line
             and "\\alpha" in line and "equation" not in line and "\\attncell" not in line]
    assert prose and all("e^{m_{\\text{old}} - m}" in line for line in prose)
    # the statistics' column labels are notation too: m_old typeset, not the word m\_old
    assert "\\attncell{0}{m_{\\text{old}}}" in result.stdout and "m\\_old" not in result.stdout
    assert "\\textasciicircum" not in result.stdout and "^(" not in result.stdout


def tiled(n: int, heads: int) -> str:
    return json.dumps({"tokens": [f"t{i}" for i in range(n)], "heads": heads,
                       "embeddings": {"random": {"seed": 1}, "shape": [n, 2 * heads]},
                       "tiling": {"keys": 8, "queries": 8}})


def test_the_scores_worked_tile_by_tile_are_bounded_across_the_heads() -> None:
    """Every score of every tile is written out and carried through the online softmax's
    updates: 4,096 tokens of two heads took 13.5 s and 1.4 GB to validate, 600 tokens 38.6 s for
    the HTML page. 64 × 64 scores of one head are worked through; 65 × 65, or two heads of 46
    tokens (4,232), are refused before anything is built."""
    from attncli.errors import SpecError

    loads_spec(tiled(64, 1))
    for n, heads, scores in ((65, 1, 4225), (46, 2, 4232)):
        with pytest.raises(SpecError) as refused:
            loads_spec(tiled(n, heads))
        assert str(refused.value).endswith(
            f"tiling: the tiles of all heads hold {scores:,} scores; at most 4,096 are worked "
            "through; choose fewer tokens or heads")
        assert scores == n * n * heads


def test_a_tile_whose_score_overflows_in_float16_is_compared_with_its_float64_twin() -> None:
    """S[a, a] = 300² = 90,000 is ∞ in float16: that tile shows matrices its float64 twin does
    not, and the comparison asserted they were as many (exit 3 in every command)."""
    from attncli.i18n import translate as tr

    spec = loads_spec("tokens: [a, b]\nembeddings: [[300.0, 0.0], [0.0, 1.0]]\n"
                      "tiling: {keys: 1, queries: 1}\ndtype: float16\n")
    notes = [tr(note, "en") for step in build(spec).steps for note in step.notes]
    assert "Overflow: S[a, a] is inf in float16 (float64: 90000)." in notes


@pytest.mark.parametrize("heads", [1, 2])
def test_a_tile_of_float16_that_overflows_is_explained_in_one_language(
        tmp_path: Path, heads: int) -> None:
    """1e20 is ∞ in float16: a tile's Õ line (a number times a row) reached the decimal path of
    the `=` check, which read the row as a number (AttributeError, exit 3), and NumPy's English
    warning with attn's source line came on stderr with exit 0."""
    (tmp_path / "s.yaml").write_text(
        "tokens: [t0, t1]\nembeddings:\n  - [1.0e20, 1.8, 1.1, 0.5]\n  - [-1.1, -1.9, -0.5, -1.0]\n"
        f"heads: {heads}\ntiling: {{keys: 2, queries: 2}}\nmask: {{causal: true, window: 1}}\n"
        "dtype: float16\n")
    done = run_apart(tmp_path, "explain", "s.yaml", "-f", "text")
    assert (done.returncode, done.stderr) == (0, "")
    assert "Overflow: X[t0, d1] is inf in float16" in done.stdout
