"""Where every matrix of the spreadsheet stands, and how its cells are referred to.

A sheet is a column of steps; each step a heading, its notes, then its matrices side by side,
each a labelled block: its name above, the column labels over it, the row labels beside it. A
block knows its place, so a formula names any cell of an earlier block (on its own sheet as
`B5`, on another as `'Head 1'!B5`).
"""

from __future__ import annotations

from collections.abc import Callable

from xlsxwriter.utility import xl_rowcol_to_cell

from attncli.model import Labels
from attncli.records import record

# Excel's own limits: a sheet name of at most 31 characters, none of these in it.
SHEET_NAME_MAX = 31
SHEET_NAME_FORBIDDEN = "[]:*?/\\"
HIDDEN = "−∞"  # what a hidden score or a mask entry that hides a key holds: text, not a number


def sheet_name(text: str, taken: set[str]) -> str:
    """`text` as a sheet name Excel accepts, unique among `taken`; a tab's name is never
    wrapped, so a no-break space of the catalog's typography is a plain one there."""
    clean = "".join("_" if c in SHEET_NAME_FORBIDDEN or ord(c) < 32 else c
                    for c in text.replace("\u00a0", " "))
    clean = clean.strip("'").strip() or "_"
    name, extra = clean[:SHEET_NAME_MAX], 2
    while name.casefold() in {t.casefold() for t in taken}:
        suffix = f" ({extra})"
        name, extra = clean[:SHEET_NAME_MAX - len(suffix)] + suffix, extra + 1
    taken.add(name)
    return name


@record
class Formula:
    """A cell computed from others: `=…` as Excel writes it; `array` for one that must be entered
    as an array formula (MMULT, TRANSPOSE) though it fills a single cell."""

    text: str
    array: bool = False


# What a cell of a block holds: a number typed in (an input), a formula, or text (−∞, NaN).
Content = float | Formula | str
Fill = Callable[[int, int], Content]


@record
class Block:
    """One labelled matrix on a sheet: data cells from (row, col), `shape` of them.

    step: the index of the step in the walkthrough it shows; matrix: the index of the matrix in
    that step, or None for a block only the spreadsheet shows (a mask, a row maximum).
    """

    sheet: str
    row: int
    col: int
    shape: tuple[int, int]
    name: str
    step: int
    matrix: int | None
    computed: bool

    def _prefix(self, on: str) -> str:
        return "" if on == self.sheet else "'" + self.sheet.replace("'", "''") + "'!"

    def cell(self, i: int, j: int, on: str) -> str:
        """Cell (i, j) as a formula on sheet `on` names it."""
        return self._prefix(on) + xl_rowcol_to_cell(self.row + i, self.col + j)

    def row_range(self, i: int, on: str, columns: int | None = None) -> str:
        """Row i, `B5:E5`; its first `columns` cells alone, `B5:C5`, when given."""
        first = xl_rowcol_to_cell(self.row + i, self.col)
        last = xl_rowcol_to_cell(self.row + i, self.col + (columns or self.shape[1]) - 1)
        return f"{self._prefix(on)}{first}:{last}"

    def column_range(self, j: int, on: str) -> str:
        """Column j, `B5:B8`."""
        first = xl_rowcol_to_cell(self.row, self.col + j)
        last = xl_rowcol_to_cell(self.row + self.shape[0] - 1, self.col + j)
        return f"{self._prefix(on)}{first}:{last}"


@record
class Piece:
    """A block to be placed: what it shows and how each cell is filled.

    key: the name later formulas find it by (`Q`, `logits`, `max` …; the latest wins);
    fill: called once the step's blocks are placed, so it may read any of them.
    """

    key: str
    title: str
    rows: Labels
    columns: Labels
    fill: Fill
    matrix: int | None
    computed: bool = True
    also: tuple[str, ...] = ()  # more keys it is found by
    # the cells a key the mask hides holds 0 in: shown "—", as every other format shows them
    hidden: Callable[[int, int], bool] | None = None


class Places:
    """The blocks placed so far, by key; the latest of a key wins."""

    def __init__(self) -> None:
        self.latest: dict[str, Block] = {}
        self.blocks: list[Block] = []

    def add(self, keys: tuple[str, ...], block: Block) -> None:
        self.blocks.append(block)
        for key in keys:
            self.latest[key] = block

    def __getitem__(self, key: str) -> Block:
        return self.latest[key]

    def get(self, key: str) -> Block | None:
        return self.latest.get(key)
