"""Which part of a large matrix is shown: numpy's summary, shared by the renderers that elide
and by `build`, which for them keeps only the rows that will be seen (attncli/steps/build.py).

A matrix of more than MAX_CELLS numbers shows, along every axis longer than 2·EDGE + 1, only its
first and last EDGE entries around a marker. A written-out sum of more than WHOLE_SUM terms is
written, unless `--full`, as its first SUM_HEAD and last SUM_TAIL terms (render/shortened.py),
which is what a page that writes the shown terms is charged for (arithmetic/page_terms.py).
"""

from __future__ import annotations

# How a reader asks for every number, named where something is left out: the command line's
# switch, unless a renderer is told another (a notebook names the library's full=True).
FULL_SWITCH = "--full"
MAX_CELLS = 150
EDGE = 4
# A summarized walkthrough keeps every row of its attention matrices up to this many queries;
# above it, only the rows a view shows (and the rows written out), so that n x m matrices of a
# real-size model are never all held at once.
WHOLE_ROWS = 64
WHOLE_SUM = 16  # a sum of up to 16 terms is written whole; a longer one as its first 3, last 2
SUM_HEAD, SUM_TAIL = 3, 2


def is_elided(rows: int, columns: int) -> bool:
    return rows * columns > MAX_CELLS and max(rows, columns) > 2 * EDGE + 1


def shown(count: int, elide: bool) -> list[int | None]:
    """Indices to show along an axis of `count`; None marks the elided middle."""
    if not elide or count <= 2 * EDGE + 1:
        return list(range(count))
    return [*range(EDGE), None, *range(count - EDGE, count)]


def summary_rows(rows: int, columns: int, wanted: set[int]) -> tuple[int, ...] | None:
    """The rows a summary of a rows x columns attention matrix keeps (the shown ones, and
    `wanted`), or None when it keeps them all."""
    if rows <= WHOLE_ROWS or not is_elided(rows, columns):
        return None
    return tuple(sorted({i for i in shown(rows, True) if i is not None} | wanted))


def written_terms(count: int) -> int:
    """The terms of a sum of `count` that a line writes unless `--full`."""
    return count if count <= WHOLE_SUM else SUM_HEAD + SUM_TAIL
