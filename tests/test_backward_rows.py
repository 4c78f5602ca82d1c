"""The backward pass of a summary (validate, text, one step shown) worked a block of query rows
at a time: no head's dA, dS′ or dS is held whole, and the gradients are those of the whole
backward pass (itself checked against PyTorch's autograd in tests/test_backward_oracle.py)."""

from __future__ import annotations

import json
import tracemalloc
from typing import Any

import numpy as np
import pytest

from attncli.compute import gradients
from attncli.model import Walkthrough
from attncli.spec import loads_spec
from attncli.spec.model import Spec
from attncli.steps import row_blocks
from attncli.steps.build import build


def spec_of(n: int, heads: int, d_model: int, mask: object = "causal") -> Spec:
    return loads_spec(json.dumps({
        "tokens": [f"t{i}" for i in range(n)],
        "embeddings": {"random": {"seed": 1}, "shape": [n, d_model]}, "heads": heads,
        "weights": {"W_Q": "identity", "W_K": "identity", "W_V": "identity"},
        "mask": mask, "backward": {}}))


def matrices(w: Walkthrough, step_id: str) -> list[tuple[str, int | None, np.ndarray]]:
    return [(m.symbol.text, s.head, m.values) for s in w.steps if s.id == step_id
            for m in s.matrices]


def test_a_summary_backward_holds_no_whole_n_by_m_array_per_head() -> None:
    """512 tokens, 4 heads: dA, dS′ and dS of every head held whole are 3 · 4 · 512² float64
    numbers, 25 MB; worked in blocks, the whole build stays below that."""
    n, heads = 512, 4
    spec = spec_of(n, heads, 32)
    whole_arrays = 3 * heads * n * n * 8  # bytes: dA, dS′, dS of each head
    tracemalloc.start()
    try:
        w = build(spec, summary=True)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < whole_arrays
    d_a = [m for s in w.steps if s.id == "grad_values" for m in s.matrices if m.symbol.text == "dA"]
    assert len(d_a) == heads and all(m.kept is not None and m.values.shape[0] < n for m in d_a)


# the written-out row is the first that sees the most keys: the last under a causal mask, the
# 40th under a window of 40, a row the summary does not show
@pytest.mark.parametrize("mask", ["causal", {"window": 40, "causal": True}], ids=str)
@pytest.mark.parametrize("cells", [row_blocks.BLOCK_CELLS, 40 * 64])  # 1 block, then 64 rows
def test_the_summary_gradients_are_the_whole_ones(monkeypatch: pytest.MonkeyPatch,
                                                  cells: int, mask: object) -> None:
    """dQ, dK, dV (dQ row by row, dK and dV summed block by block), dW and dX as the whole
    backward pass gives them; the kept rows of dA, dS′ and dS too, and the written-out row."""
    monkeypatch.setattr(row_blocks, "BLOCK_CELLS", cells)
    spec = spec_of(200, 2, 8, mask)
    whole, summary = build(spec), build(spec, summary=True)
    for step_id in ("grad_projections", "grad_weights", "grad_input"):
        for (name, head, full), (same, at, part) in zip(matrices(whole, step_id),
                                                        matrices(summary, step_id), strict=True):
            assert (name, head) == (same, at)
            np.testing.assert_allclose(part, full, rtol=1e-12, atol=1e-15)
    for step_id in ("grad_values", "grad_softmax", "grad_scores"):
        kept = [m for s in summary.steps if s.id == step_id for m in s.matrices]
        full = [m for s in whole.steps if s.id == step_id for m in s.matrices]
        for part, all_rows in zip(kept, full, strict=True):
            if part.symbol.text in ("dA", "dS′", "dS"):  # a summary's rows, not all 200
                assert part.kept is not None and len(part.kept) < 200
            rows = list(part.kept) if part.kept is not None else slice(None)
            np.testing.assert_allclose(part.values, all_rows.values[rows], rtol=1e-12,
                                       atol=1e-15)
    for step_id in ("grad_values", "grad_softmax", "grad_projections"):
        written = [list(s.expansions) for s in summary.steps if s.id == step_id]
        assert written and all(len(e) > 0 for e in written)
        assert written == [list(s.expansions) for s in whole.steps if s.id == step_id]


def test_a_heads_gradients_hold_few_blocks_at_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """One head of 2,048 tokens, in blocks of 512 query rows (8 MB each): dS′ is worked in one
    array (the product, the difference and the product written over it), and a block's arrays
    and scores are let go before the next block is made. The memory the head's gradients add
    rose by 7.7 blocks; now by 4.7 (the next block's scores and weights as it is made)."""
    n = 2048
    spec = loads_spec(json.dumps({
        "tokens": [f"t{i}" for i in range(n)],
        "embeddings": {"random": {"seed": 1}, "shape": [n, 4]}, "heads": 1,
        "weights": {"W_Q": "identity", "W_K": "identity", "W_V": "identity"},
        "backward": {}}))
    block = row_blocks.BLOCK_CELLS // n // 512 * 512 * n * 8  # bytes: 512 rows of n keys
    assert block == 8 * 2**20
    real = gradients.head_gradients
    rises: list[int] = []

    def measured(*args: Any, **kwargs: Any) -> Any:
        start = tracemalloc.get_traced_memory()[0]
        tracemalloc.reset_peak()
        made = real(*args, **kwargs)
        rises.append(tracemalloc.get_traced_memory()[1] - start)
        return made

    monkeypatch.setattr(gradients, "head_gradients", measured)
    tracemalloc.start()
    try:
        build(spec, summary=True)
    finally:
        tracemalloc.stop()
    assert len(rises) == 1
    assert rises[0] < 6 * block
