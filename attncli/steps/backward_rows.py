"""A summary's heads' weights for the backward pass, a block of query rows at a time, so that
the gradients of a real-size head hold no whole n x m array (attncli/compute/gradients.py works
them block by block): the head's families from the scores to the weights are run again on each
block, as attncli/steps/row_blocks.py runs them forward, and give the very numbers of the
forward pass, bit for bit. None when a family needs every row (see row_blocks.ROW_LOCAL): the
backward pass is then worked whole."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace

import numpy as np

from attncli.compute import ops
from attncli.compute.gradients import WeightBlocks
from attncli.steps import row_blocks
from attncli.steps.base import Build, Family, HeadState, State
from attncli.steps.build import HEAD, run


def weight_blocks(b: Build, state: State) -> tuple[WeightBlocks, ...] | None:
    """Each head's weights as blocks of rows, made again each time they are read."""
    spec = b.spec
    families = tuple(family for family in HEAD if family.applies(spec))
    start = row_blocks.chain(b, families, least=0)  # the gradients hold 3 n x m arrays
    names = [family.name for family in families]
    if start is None or state.x_in is None or "weights" not in names:  # sinks: their own
        return None
    to_weights = families[start:names.index("weights") + 1]  # the output is not needed
    keys_from = state.context if state.context is not None else state.x_in
    made = []
    for i, head in enumerate(spec.heads):
        hs = HeadState(i + 1 if len(spec.heads) > 1 else None, head, state.x_in, keys_from,
                       state.pre_normed, state.latent)
        made.append(rows_of(b, run(b, hs, families[:start], []), to_weights))
    return tuple(made)


def rows_of(b: Build, hs: HeadState, families: tuple[Family[HeadState], ...]) -> WeightBlocks:
    n, m = len(b.query_labels), len(b.key_labels)
    size = max(1, row_blocks.BLOCK_CELLS // m // ops.ROWS) * ops.ROWS  # row_blocks' blocks
    q = hs.q
    assert q is not None

    def blocks() -> Iterator[tuple[int, np.ndarray, np.ndarray]]:
        for first in range(0, n, size):
            stop = min(n, first + size)
            block = b.rows(first, stop)
            block.kept = None  # every row of the block: the gradients keep the ones they need
            state = replace(hs, q=q[first:stop])  # (rows, d_k)
            for family in families:
                state = family.run(block, state)[1]
            assert state.A is not None and state.scores is not None
            seen = np.isfinite(state.scores.values).sum(axis=1)  # (rows,): keys not hidden
            weights = np.nan_to_num(state.A.values)  # (rows, m): NaN passes nothing
            del state  # the block's scores let go while the gradients are worked
            yield first, weights, seen

    return blocks
