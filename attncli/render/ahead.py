"""Parts of a large document written ahead, in other processes: `-x all` of a large spec writes
out every cell of every step, and each step's written-out cells (and each reading's sentences)
can be written while the document before them is. The parts come back in order, so the bytes
are the same as when one process writes them all (text, and the terminal view).

The processes are forked with the document's parts in hand (nothing is pickled but the text
they write), and at most a few parts are written ahead of the one the document has reached, so
memory holds a few parts' text, not the document.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from functools import partial
from itertools import islice
from typing import TYPE_CHECKING

from attncli.arithmetic.numbers import NumberFormat
from attncli.model import Lazy, Step, Walkthrough
from attncli.render import RenderOptions
from attncli.render.common import Translate, expansion_text, reading_sections
from attncli.render.wrap import formula, words

if TYPE_CHECKING:
    from attncli.workers.pool import Workers

Part = Callable[[], str]
Finish = Callable[[str], str]  # a line as the format writes it, with its line break

# Past this many written-out cells (at most), other processes write them ahead (options.jobs).
AHEAD_MIN = 20_000


class Ahead:
    """`parts` written by `jobs` processes, `part(k)` asked in order of k."""

    def __init__(self, parts: Sequence[Part], jobs: int) -> None:
        self.parts = parts
        self.jobs = jobs
        self.workers: Workers[str] | None = None
        self.started = False
        self.submitted = 0
        self.asked = 0

    def part(self, k: int) -> str:
        if not self.started:  # forked with the parts in hand
            from attncli.workers.pool import start

            self.workers, self.started = start(self.parts, self.jobs), True
        self.asked = k + 1
        if self.workers is None:  # the system gave no other process
            return self.parts[k]()
        while self.submitted < len(self.parts) and self.submitted <= k + 2 * self.jobs:
            self.workers.submit(self.submitted)
            self.submitted += 1
        return self.workers.result(k)

    def close(self) -> None:
        """End the processes: waited for when every part was asked for; otherwise (an error,
        a signal, a reader gone) killed, and the parts not yet written are not written."""
        from attncli.workers.pool import end

        end(self.workers, done=self.asked == len(self.parts))
        self.workers = None


class WrittenAhead(Ahead):
    """A walkthrough's parts: each step's written-out cells, then each reading's sentences."""

    def __init__(self, walkthrough: Walkthrough, options: RenderOptions, number: NumberFormat,
                 t: Translate, indent: str, finish: Finish, jobs: int) -> None:
        steps = walkthrough.steps
        super().__init__(
            [partial(_cells, step, number, t, options, indent, finish) for step in steps]
            + [partial(_sentences, walkthrough, t, options.width, indent, finish, j)
               for j in range(len(walkthrough.reading))], jobs)
        self.readings_from = len(steps)

    def cells(self, step_index: int) -> str:
        return self.part(step_index)

    def sentences(self, reading_index: int) -> str:
        return self.part(self.readings_from + reading_index)


def written_ahead(walkthrough: Walkthrough, options: RenderOptions, number: NumberFormat,
                  t: Translate, indent: str, finish: Finish) -> WrittenAhead | None:
    """The walkthrough's written-out cells and sentences to be written ahead, each line
    indented by `indent` and ended by `finish`, when there are many and more than one process
    may write; None otherwise."""
    if options.jobs is not None and options.jobs <= 1:
        return None
    most = sum(step.expansions.most or 0 for step in walkthrough.steps
               if isinstance(step.expansions, Lazy))
    if most < AHEAD_MIN:
        return None
    # here, not above: multiprocessing is loaded, and the processors attn may use counted (its
    # control group's files read), only for a walkthrough worth the processes
    from attncli.workers.pool import can_fork, usable_processors

    usable = usable_processors()
    jobs = usable if options.jobs is None else min(options.jobs, usable)
    if jobs <= 1 or not can_fork():
        return None
    return WrittenAhead(walkthrough, options, number, t, indent, finish, jobs)


def _cells(step: Step, number: NumberFormat, t: Translate, options: RenderOptions, indent: str,
           finish: Finish) -> str:
    return "".join(finish(line) for expansion in step.expansions
                   for line in formula(expansion_text(expansion, number, t, options.full),
                                       options.width, indent))


def _sentences(walkthrough: Walkthrough, t: Translate, width: int, indent: str, finish: Finish,
               j: int) -> str:
    """The sentences of the j-th reading (a head's, or the heads' together)."""
    return "".join(finish(line) for _, sentences in islice(reading_sections(walkthrough, t), j,
                                                            j + 1)
                   for sentence in sentences for line in words(sentence, width, indent))
