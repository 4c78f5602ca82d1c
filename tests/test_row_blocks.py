"""A summarized head worked in blocks of query rows (attncli/steps/row_blocks.py) gives, bit for
bit, the matrices the whole n x m arrays give: the same build is run twice, once with blocks forced
small and once with blocks turned off, and every matrix of every step is compared."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from attncli import load_spec
from attncli.compute import ops
from attncli.model import Walkthrough
from attncli.spec.model import Spec
from attncli.steps import row_blocks
from attncli.steps.build import build

N = 1100  # queries and keys: three blocks of 512 rows at ops.ROWS = 512, the last one short
MASKS = {
    "none": "",
    "causal": "mask: causal\n",
    "window with sinks": "mask: {window: 40, sink_tokens: 3}\n",
    "causal window": "mask: {window: 7, causal: true}\n",
    "padding": "mask: {padding: [" + ", ".join(["1"] * (N - 9) + ["0"] * 9) + "]}\n",
    "two heads, causal": "mask: causal\nheads: 2\n"
                         "weights: {W_Q: identity, W_K: identity, W_V: identity}\n",
    "causal, a sink": "mask: causal\nsinks: [0.5]\n",
    "two heads, window, sinks": "mask: {window: 7, causal: true}\nheads: 2\nsinks: [2, -1]\n"
                                "weights: {W_Q: identity, W_K: identity, W_V: identity}\n",
}


def spec_file(folder: Path, extra: str) -> Path:
    path = folder / "spec.yaml"
    path.write_text("tokens: [" + ", ".join(f"t{i}" for i in range(N)) + "]\n"
                    f"embeddings: {{random: {{seed: 5}}, shape: [{N}, 4]}}\n" + extra)
    return path


def matrices(walkthrough: Walkthrough) -> list[tuple[str, object, tuple[int, ...] | None,
                                                     np.ndarray]]:
    return [(step.id, step.head, matrix.kept, matrix.values)
            for step in walkthrough.steps for matrix in step.matrices]


def built_both_ways(spec: Spec, monkeypatch: pytest.MonkeyPatch
                    ) -> tuple[Walkthrough, Walkthrough, list[bool]]:
    """The summary of `spec` built with blocks forced small (blocks of ops.ROWS rows), then with
    blocks turned off; and, for each call that could work a head in blocks, whether it did."""
    used: list[bool] = []
    blocks = row_blocks.blocks

    def counted(*args: object) -> object:
        made = blocks(*args)  # type: ignore[arg-type]
        used.append(made is not None)
        return made

    monkeypatch.setattr(row_blocks, "BLOCK_CELLS", 1)  # blocks of ops.ROWS rows
    monkeypatch.setattr(row_blocks, "blocks", counted)
    in_blocks = build(spec, summary=True)
    monkeypatch.setattr(row_blocks, "BLOCK_CELLS", 10**12)  # never in blocks
    return in_blocks, build(spec, summary=True), used


def assert_same_matrices(in_blocks: Walkthrough, whole: Walkthrough) -> None:
    got, expected = matrices(in_blocks), matrices(whole)
    assert [g[:3] for g in got] == [e[:3] for e in expected]
    for (step, _, _, a), (_, _, _, b) in zip(got, expected, strict=True):
        assert a.shape == b.shape and np.array_equal(a, b, equal_nan=True), step


@pytest.mark.parametrize("mask", sorted(MASKS))
def test_blocks_of_rows_give_the_whole_arrays_numbers(mask: str, tmp_path: Path,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    spec = load_spec(str(spec_file(tmp_path, MASKS[mask])))
    in_blocks, whole, used = built_both_ways(spec, monkeypatch)
    assert used and all(used)  # every head was worked in blocks
    assert len(used) == len(spec.heads)
    assert_same_matrices(in_blocks, whole)
    assert in_blocks.reading == whole.reading
    assert [step.notes for step in in_blocks.steps] == [step.notes for step in whole.steps]
    assert [h.context.values.tobytes() for h in in_blocks.heads] == \
        [h.context.values.tobytes() for h in whole.heads]


def test_blocks_that_say_different_things_are_worked_whole(tmp_path: Path,
                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    # every key hidden: each block's weights step counts its own queries that see no key (512,
    # 512, 76); the head is worked whole and counts them once, all 1100
    spec = load_spec(str(spec_file(tmp_path, "mask: {padding: [" + ", ".join(["0"] * N)
                                   + "]}\n")))
    monkeypatch.setattr(row_blocks, "BLOCK_CELLS", 1)
    weights = next(step for step in build(spec, summary=True).steps if step.id == "weights")
    assert [dict(note.params).get("count") for note in weights.notes] == [None, N]


def test_the_products_are_taken_in_fixed_blocks_of_rows() -> None:
    rng = np.random.default_rng(7)
    q, k = rng.normal(size=(1300, 5)), rng.normal(size=(900, 5))  # (n, d_k), (m, d_k)
    whole = ops.dot_scores(q, k)  # (n, m)
    for first in range(0, 1300, ops.ROWS):
        part = ops.dot_scores(q[first:first + ops.ROWS * 2], k)
        assert np.array_equal(part, whole[first:first + ops.ROWS * 2])
    assert np.allclose(whole, q @ k.T, rtol=1e-13, atol=1e-13)
