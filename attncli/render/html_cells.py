"""What a number of the HTML page explains when it is clicked: the written-out lines that made it
(the lines `--expand all` writes for that cell) and the cells it was made from.

Lines are matched to cells by the name each line computes (`S[chases, mouse]`, `Z[cat]`); the
softmax of a row writes each e^x, then the row's sum, then each quotient in the same order (of
every key, or of the shown ones alone), so A[i, j] is told its own e^x, the sum and its
quotient. Sources are found among the steps before, in the same head: for S[i, j] the rows of Q
and K, for A[i, j] the row of scores, for Z[i, a] the row of A and the column of V.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from attncli.model import Expansion, Matrix, Step
from attncli.records import record

# (matrix index in its step, row, column) -> indices into the step's lines
CellLines = dict[tuple[int, int, int], list[int]]


@record
class Source:
    """The cells of an earlier matrix (step number, matrix index) a cell was made from: its row
    ("row"), its column ("column"), the row named by its column ("row_of_column": k_j for
    S[i, j]) or the same cell ("cell")."""

    step: int
    matrix: int
    relation: str


def cell_lines(step: Step, text: Callable[[Expansion], str]) -> tuple[list[str], CellLines]:
    """The step's written-out lines, and which of them belong to each cell."""
    rows: dict[str, tuple[int, int]] = {}
    for k, matrix in enumerate(step.matrices):
        for i, row in enumerate(matrix.rows):
            rows.setdefault(f"{matrix.symbol.text}[{row}]", (k, i))
    cells = _Cells(step.matrices)
    lines: list[str] = []
    by_cell: CellLines = {}
    pending: list[int] = []  # e^x lines of a softmax row, before its sum
    total: int | None = None  # the line of the row's sum
    quotients = 0  # the row's quotients after its sum
    last: tuple[int, int, int] | None = None
    for expansion in step.expansions:
        n = len(lines)
        lines.append(text(expansion))
        name = expansion.target.text if expansion.target is not None else None
        if name is None:
            if total is not None:  # a row's first e^x: the row before has ended
                pending, total, quotients = [], None, 0
            pending.append(n)
        elif name == "Σ":
            total = n
        elif (found := cells.at(name)) is not None:
            last = found
            # the q-th quotient after the sum is of the q-th e^x: its column's, or the q-th
            # shown cell's when only those terms are written (never found from a name, which
            # tokens holding ", " can make ambiguous)
            before = [pending[quotients]] if quotients < len(pending) and total is not None else []
            before += [total] if total is not None else []
            by_cell.setdefault(last, []).extend([*before, n])
            quotients += total is not None
            if total is not None and quotients == len(pending):  # the row's last quotient
                pending, total, quotients = [], None, 0
        elif name in rows:
            k, i = rows[name]
            for j in range(len(step.matrices[k].columns)):
                by_cell.setdefault((k, i, j), []).append(n)
        elif last is not None:  # cos θ[i, j] after S[i, j]
            by_cell[last].append(n)
    return lines, by_cell


class _Cells:
    """The cell a line computes, found from its name (`S[chases, mouse]`) through each matrix's
    row and column labels: the first of the cells so named (by matrix, row, column), as a table
    of every cell's name would give, without that table, whose n × m names of long tokens took
    800 MB for a page of 2,000 tokens."""

    def __init__(self, matrices: Sequence[Matrix]) -> None:
        # with the lengths of its row labels, the only places a name may be cut into a row and a
        # column: every ", " of a name was a place to try, each a copy of the name (a page of
        # 200 names of 1,000 characters of ", " took a second)
        self.matrices = [(k, matrix.symbol.text + "[", _first(matrix.rows), _first(matrix.columns),
                          sorted({len(row) for row in matrix.rows}))
                         for k, matrix in enumerate(matrices)]

    def at(self, name: str) -> tuple[int, int, int] | None:
        for k, start, rows, columns, cuts in self.matrices:
            if not (name.startswith(start) and name.endswith("]")):
                continue
            inner = name[len(start):-1]
            found = [(rows[inner[:cut]], columns[inner[cut + 2:]])  # "row, column"
                     for cut in cuts
                     if inner.startswith(", ", cut) and inner[:cut] in rows
                     and inner[cut + 2:] in columns]
            if found:
                i, j = min(found)
                return k, i, j
        return None


def _first(labels: Sequence[str]) -> dict[str, int]:
    """Each label's first index."""
    index: dict[str, int] = {}
    for n, label in enumerate(labels):
        index.setdefault(label, n)
    return index


def sources(steps: Sequence[Step], at: int, convention: str) -> list[list[Source]]:
    """For each matrix of steps[at], the cells of earlier matrices each of its cells is made of
    (those on the page: a walkthrough narrowed by --steps may leave them out)."""
    step = steps[at]
    before = [s for s in steps[:at + 1] if s.head in (None, step.head)]

    def latest(test: Callable[[Matrix], bool], relation: str,
               same_step: bool = False) -> list[Source]:
        for s in reversed(before if same_step else before[:-1]):
            for k in range(len(s.matrices) - 1, -1, -1):
                if test(s.matrices[k]):
                    return [Source(s.number, k, relation)]
        return []

    def named(relation: str, *symbols: str, same_step: bool = False) -> list[Source]:
        return latest(lambda m: m.symbol.text in symbols, relation, same_step)

    def scores(matrix: Matrix, relation: str) -> list[Source]:
        """The last n × m matrix of scores before: the softmax's input for A."""
        return latest(lambda m: m.shape == matrix.shape and m.symbol.text.startswith("S"),
                      relation)

    def made(matrix: Matrix) -> list[Source]:
        symbol = matrix.symbol.text
        if step.id == "projections" and symbol in ("Q", "K", "V"):
            return projection(matrix)
        if step.id == "scores":
            return named("row", "Q̂", "Q") + named("row_of_column", "K̂", "K")
        if step.id in ("scaled", "softcap", "bias", "masked"):
            return scores(matrix, "cell")
        if step.id == "weights":
            return scores(matrix, "row")
        if step.id == "sinks":
            return named("row", "A")
        if step.id == "output":
            return named("row", "A") + named("column", "V")
        if step.id == "out_projection" and symbol == "O":
            return named("row", "Z") + named("column", "W_O", same_step=True)
        return []

    def projection(matrix: Matrix) -> list[Source]:
        """x_i's row, and W's column a (row a in the column convention) when W is shown."""
        w = next((m for s in reversed(before[:-1]) for m in s.matrices
                  if m.symbol.text == "W_" + matrix.symbol.text), None)
        d_model = None if w is None else w.shape[0 if convention == "row" else 1]
        inputs = latest(lambda m: m.rows == matrix.rows and not m.symbol.text.startswith("W")
                        and m.shape[1] == (d_model or m.shape[1]), "row")
        along = "column" if convention == "row" else "row_of_column"
        return inputs + (named(along, "W_" + matrix.symbol.text) if w is not None else [])

    return [made(matrix) for matrix in step.matrices]
