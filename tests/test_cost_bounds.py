"""What a large spec costs grows with what is written, not with n x m x heads: the paths that
used to hold every row at once, measured by their peak of traced memory or by what they count
(never by the clock), at sizes small enough for a test and large enough for blocks of rows."""

from __future__ import annotations

import tracemalloc
from collections.abc import Callable
from pathlib import Path

from attncli import load_spec
from attncli.compute import ops
from attncli.spec.model import Spec
from attncli.steps import row_blocks
from attncli.steps.build import build

FLOAT = 8  # bytes of a float64


def spec_of(folder: Path, n: int, d: int, heads: int, extra: str) -> Spec:
    path = folder / "spec.yaml"
    path.write_text("tokens: [" + ", ".join(f"t{i}" for i in range(n)) + "]\n"
                    f"embeddings: {{random: {{seed: 1}}, shape: [{n}, {d}]}}\n"
                    f"heads: {heads}\nweights: {{W_Q: identity, W_K: identity, W_V: identity}}\n"
                    "mask: causal\n" + extra)
    return load_spec(str(path))


def peak_of(work: Callable[[], object]) -> int:
    """The most memory `work` held at once, in bytes, as tracemalloc traces it."""
    tracemalloc.start()
    try:
        work()
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def test_sinks_are_worked_in_blocks_of_rows(tmp_path: Path) -> None:
    """Four heads with a sink each, 1,536 tokens: the sink's softmax of n x (m + 1) was taken
    whole for every head, about four n x m arrays at once (75 MB here); in blocks of rows it
    holds a few blocks of ROWS x (m + 1)."""
    n, heads = 1536, 4
    spec = spec_of(tmp_path, n, 8, heads, f"sinks: [{', '.join(['0.5'] * heads)}]\n")
    rows = max(1, row_blocks.BLOCK_CELLS // n // ops.ROWS) * ops.ROWS  # 512 queries a block
    peak = peak_of(lambda: build(spec, summary=True))
    assert peak < 5 * rows * (n + 1) * FLOAT  # 31 MB; four whole n x m arrays are 75 MB
