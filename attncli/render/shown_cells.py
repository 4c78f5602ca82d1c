"""The part of a matrix a format shows: every cell, or, for a large one unless --full, its first
and last rows and columns around a mark (attncli/arithmetic/elision.py has the rule, numpy's
summary), with
the note that says what is left out and the `columns d1–d4 of 64` marker of a block."""

from __future__ import annotations

from collections.abc import Callable

from attncli.arithmetic import elision
from attncli.arithmetic.elision import FULL_SWITCH
from attncli.arithmetic.numbers import NumberFormat
from attncli.i18n import Msg
from attncli.model import Matrix
from attncli.render.common import Translate

# The marks where an elided matrix leaves rows out (in the row-label column and across the
# numbers), columns out (in the header and down the numbers), and both (where they cross).
ROWS_LEFT_OUT, COLUMNS_LEFT_OUT, BOTH_LEFT_OUT = "⋮", "⋯", "⋱"
MARKS = frozenset((ROWS_LEFT_OUT, COLUMNS_LEFT_OUT, BOTH_LEFT_OUT))


class ShownCells:
    """The part of a matrix a format shows: every row and column, or, for a large one unless
    `full`, the first and last elision.EDGE of each around a mark (None in `rows`/`columns`)."""

    def __init__(self, matrix: Matrix, full: bool) -> None:
        elide = is_elided(matrix, full)
        self.matrix = matrix
        self.rows = elision.shown(matrix.shape[0], elide)
        self.columns = elision.shown(matrix.shape[1], elide)

    def row_labels(self) -> list[str]:
        return [ROWS_LEFT_OUT if i is None else self.matrix.rows[i] for i in self.rows]

    def column_labels(self) -> list[str]:
        return [COLUMNS_LEFT_OUT if j is None else self.matrix.columns[j] for j in self.columns]

    def cells(self, text: Callable[[int, int], str]) -> list[list[str]]:
        """text(i, j) of every shown cell, a mark where rows or columns are left out."""
        def at(i: int | None, j: int | None) -> str:
            if i is None:
                return BOTH_LEFT_OUT if j is None else ROWS_LEFT_OUT
            return COLUMNS_LEFT_OUT if j is None else text(i, j)

        return [[at(i, j) for j in self.columns] for i in self.rows]

    def split(self, blocks: list[range]) -> list[range]:
        """Column `blocks` that fit a page; an elided matrix's are cut at its mark (`d1 … d4 ⋯`
        and `d61 … d64`), so no block's range of labels runs across the gap, and the mark stays
        with the columns before it, never a block of its own (long labels: one column a block)."""
        if None not in self.columns:
            return blocks
        mark = self.columns.index(None)
        if len(blocks) == 2:
            return [range(mark + 1), range(mark + 1, len(self.columns))]
        cut = [part for block in blocks
               for part in (range(block.start, min(block.stop, mark + 1)),
                            range(max(block.start, mark + 1), block.stop)) if part]
        alone = cut.index(range(mark, mark + 1)) if range(mark, mark + 1) in cut else None
        if alone is not None and len(cut) > 1:
            other = alone - 1 if alone > 0 else alone + 1
            first, second = sorted((alone, other))
            cut[first:second + 1] = [range(cut[first].start, cut[second].stop)]
        return cut


def cell_texts(matrix: Matrix, number: Callable[[float], str], box: str,
               full: bool = True) -> list[list[str]]:
    """The cells of `matrix` a format shows (every one with `full`, see Shown) as text: its
    number (`—` for a hidden key's weight, when `number` is a NumberFormat), or `box` where a
    worksheet left it blank; a mark (ROWS_LEFT_OUT ...) where the middle is left out."""
    def text(i: int, j: int) -> str:
        if (i, j) in matrix.blank:
            return box
        return number.cell(matrix, i, j) if isinstance(number, NumberFormat) else \
            number(matrix.at(i, j))

    return ShownCells(matrix, full).cells(text)


def is_elided(matrix: Matrix, full: bool) -> bool:
    return not full and elision.is_elided(*matrix.shape)


def elided_note(matrix: Matrix, full: bool, t: Translate) -> str | None:
    rows, columns = matrix.shape
    if not is_elided(matrix, full):
        return None
    return t(Msg.of("[elided in the middle; {switch} shows all {rows} × {columns}]",
                    rows=rows, columns=columns, switch=FULL_SWITCH))


def block_marker(block: range, total: int, columns: tuple[str, ...], t: Translate,
                 of: int | None = None) -> str | None:
    """`columns d1–d8 of 24` when a matrix is split, else None. `total` counts the columns
    shown; `of`, when given, the matrix's own (more, when the middle is elided)."""
    if len(block) == total:
        return None
    named = [j for j in block if columns[j] not in MARKS]  # not the mark of the left-out middle
    if len(named) == 1:  # never a range of one (d8–d8)
        return t(Msg.of("column {first} of {total}", first=columns[named[0]],
                        total=total if of is None else of))
    return t(Msg.of("columns {first}–{last} of {total}", first=columns[named[0]],
                    last=columns[named[-1]], total=total if of is None else of))
