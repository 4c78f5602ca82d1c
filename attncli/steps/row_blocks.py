"""A summarized head's n x m steps in blocks of query rows, so that a real-size head never holds
a whole n x m array: 8,000 tokens take 512 MB as one array of scores, a few MB as blocks.

Every row of scores, masked scores, softmax and output is worked from its own query alone (and
every key), and the products over keys are taken in fixed blocks of rows either way
(attncli/compute/ops.py `by_rows`), so a block of rows gives the very numbers, bit for bit, that
the whole array gives. Only the families that are so (ROW_LOCAL) are run in blocks (a score
bias too: a block adds its own rows of B, from Build.first_row); a spec that turns on any other
one between the scores and the output (tiles, hand calculation) is computed whole, as before.
A low precision is worked in the same blocks: its products are taken in the same fixed blocks
of rows (attncli/compute/lowprec.py) and every other step is rounded
cell by cell. A decode reads Q, K, V and Z alone,
so it runs after the blocks (AFTER). The blocks' steps must agree in everything but their rows
(titles, formulas, notes); when they do not (a note that counts queries with no visible key,
say), the head is computed whole again, so what is printed never depends on the blocks. A note
that reads every row (which query gave the sink most) is left out of each block and written
once the blocks are joined (Family.joined): the sink's reading, the score soft-capping bends
most, the check of MLA's absorbed scores; each block leaves in its state what that note needs.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

import numpy as np

from attncli.compute import ops
from attncli.model import Matrix, Step
from attncli.steps.base import Build, Family, HeadState, function

# The families whose every row is its own query's (and the ones before the scores, which make
# n x d arrays only)
ROW_LOCAL = frozenset({"scores", "absorbed", "scaled", "softcap", "bias", "masked", "weights",
                       "sinks", "output"})
# The families that read the head's n x d arrays alone (Q, K, V, Z), never an n x m one: run
# after the blocks, on the joined state
AFTER = frozenset({"decode"})
# n x m numbers a block holds at once: 8 MB of float64
BLOCK_CELLS = 1 << 20


def chain(b: Build, families: tuple[Family[HeadState], ...],
          least: int | None = None) -> int | None:
    """Where the n x m families start in `families` (the ones the spec turns on), when the head
    is to be run in blocks of rows (a summary's head of more than `least` cells, BLOCK_CELLS
    unless given); None to run it whole."""
    spec = b.spec
    n, m = len(b.query_labels), len(b.key_labels)
    least = BLOCK_CELLS if least is None else least
    if b.kept is None or n * m <= least or spec.display.round_intermediates:
        return None
    names = [family.name for family in families]
    start = names.index("scores")
    if not set(names[start:]) <= ROW_LOCAL:
        return None
    return start


def blocks(b: Build, hs: HeadState,
           families: tuple[Family[HeadState], ...]) -> tuple[list[Step], HeadState] | None:
    """The families' steps on hs in blocks of rows, joined; None when the blocks' steps differ
    in more than their rows."""
    n, m = len(b.query_labels), len(b.key_labels)
    assert hs.q is not None
    size = max(1, BLOCK_CELLS // m // ops.ROWS) * ops.ROWS  # a block starts where ops' would
    made: list[tuple[list[Step], HeadState]] = []
    for first in range(0, n, size):
        stop = min(n, first + size)
        block, state = b.rows(first, stop), replace(hs, q=hs.q[first:stop])  # (rows, d_k)
        steps: list[Step] = []
        for family in families:
            found, state = family.run(block, state)
            steps.extend(found)
        made.append((steps, replace(state, logits=None, weights=None)))
    joined = join(b, hs, made, size)
    if joined is None:
        return None
    steps, state = joined
    for family in families:
        if family.joined is not None:  # what reads every row, once the rows are all there
            steps = function(family.joined)(b, steps, state)
    return steps, state


def join(b: Build, hs: HeadState, made: list[tuple[list[Step], HeadState]],
         size: int) -> tuple[list[Step], HeadState] | None:
    per_block = [steps for steps, _ in made]
    if any(len(steps) != len(per_block[0]) for steps in per_block):
        return None
    rows = Rows(b.query_labels, size)
    steps = []
    for same in zip(*per_block, strict=True):
        first = same[0]
        if any(described(step) != described(first) for step in same):
            return None
        matrices = tuple(rows.joined([step.matrices[k] for step in same])
                         for k in range(len(first.matrices)))
        # a step's worked lines are its last query's (the absorbed scores'): the last block's
        steps.append(replace(first, matrices=matrices, expansions=same[-1].expansions))
    states = [state for _, state in made]
    bends = [s.bend for s in states if s.bend is not None]
    return steps, replace(states[-1], q=hs.q, scores=rows.joined([s.scores for s in states]),
                          A=rows.joined([s.A for s in states]),
                          Z=rows.joined([s.Z for s in states]),
                          sunk=None if states[0].sunk is None else
                          np.concatenate([s.sunk for s in states if s.sunk is not None]),  # (n,)
                          # the most of all rows: the first block's of equal moves, as argmax
                          bend=max(bends, key=lambda bend: bend.moved) if bends else None,
                          same=None if states[0].same is None else
                          all(s.same for s in states))


def described(step: Step) -> tuple[object, ...]:
    """What a step says besides its numbers."""
    return step.id, step.title, step.formula, step.notes, step.head, len(step.matrices)


class Rows:
    """The blocks' matrices joined into the matrices of every query, each once: a step's matrix
    and the same matrix in the head's state (or as the weights' mask) stay one object."""

    def __init__(self, labels: tuple[str, ...], size: int) -> None:
        self.labels = labels
        self.size = size  # queries a block
        self.done: dict[int, Matrix] = {}  # by the id of the first block's matrix

    def joined(self, parts: Sequence[Matrix | None]) -> Matrix:
        first = parts[0]
        assert first is not None and all(part is not None for part in parts)
        if id(first) not in self.done:
            self.done[id(first)] = self.join([part for part in parts if part is not None])
        return self.done[id(first)]

    def join(self, parts: list[Matrix]) -> Matrix:
        first = parts[0]
        values = np.concatenate([part.values for part in parts])  # (rows held, columns)
        kept = None
        if first.kept is not None:
            kept = tuple(i + k * self.size for k, part in enumerate(parts)
                         for i in part.kept or ())
        hidden_by = None
        if first.hidden_by is not None:
            hidden_by = self.joined([part.hidden_by for part in parts])
        return replace(first, values=values, rows=self.labels, kept=kept, hidden_by=hidden_by)
