"""Parts of a large document written ahead, in other processes: `-x all` of a large spec writes
out every cell of every step, and each step's written-out cells (and the reading) can be written
while the document before them is. The parts come back in order, so the bytes are the same as
when one process writes them all.

The processes are forked with the document's parts in hand (nothing is pickled but the text
they write), and at most a few parts are written ahead of the one the document has reached, so
memory holds a few parts' text, not the document.
"""

from __future__ import annotations

import multiprocessing
from collections.abc import Callable, Sequence
from concurrent.futures import Future, ProcessPoolExecutor

Part = Callable[[], str]

# The parts of the document being written, for the forked processes to find by number.
_PARTS: Sequence[Part] = ()


def _write(k: int) -> str:
    return _PARTS[k]()


def can_fork() -> bool:
    return "fork" in multiprocessing.get_all_start_methods()


class Ahead:
    """`parts` written by `jobs` processes, `part(k)` asked in order of k."""

    def __init__(self, parts: Sequence[Part], jobs: int) -> None:
        self.parts = parts
        self.jobs = jobs
        self.pool: ProcessPoolExecutor | None = None
        self.pending: dict[int, Future[str]] = {}
        self.submitted = 0

    def part(self, k: int) -> str:
        global _PARTS
        if self.pool is None:
            _PARTS = self.parts
            self.pool = ProcessPoolExecutor(self.jobs, multiprocessing.get_context("fork"))
        while self.submitted < len(self.parts) and self.submitted <= k + 2 * self.jobs:
            self.pending[self.submitted] = self.pool.submit(_write, self.submitted)
            self.submitted += 1
        return self.pending.pop(k).result()

    def close(self) -> None:
        """Stop the processes: the parts not yet written are not written."""
        if self.pool is not None:
            self.pool.shutdown(wait=True, cancel_futures=True)
            self.pool = None
