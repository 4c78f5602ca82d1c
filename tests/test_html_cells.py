"""The HTML page tells each number the written-out lines that made it (render/html_cells.py):
a line is matched to its cell by the name it computes, `S[row, column]`, found from the labels
of the step's matrices, never from a table of every cell's name (n × m names: 800 MB for a page
of 2,000 tokens, tests/test_size_cases.py)."""

from __future__ import annotations

import pytest

from attncli.arithmetic.expand import Selection
from attncli.model import Step
from attncli.render.html_cells import CellLines, cell_lines
from attncli.spec import loads_spec
from attncli.steps.build import build


def by_table(step: Step) -> tuple[list[str], CellLines]:
    """The lines of each cell as a table of every cell's name finds them: the first cell so
    named, by matrix, row and column (the renderer's way before, kept here as the reference)."""
    names: dict[str, tuple[int, int, int]] = {}
    rows: dict[str, tuple[int, int]] = {}
    for k, matrix in enumerate(step.matrices):
        for i, row in enumerate(matrix.rows):
            rows.setdefault(f"{matrix.symbol.text}[{row}]", (k, i))
            for j, column in enumerate(matrix.columns):
                names.setdefault(f"{matrix.symbol.text}[{row}, {column}]", (k, i, j))
    lines: list[str] = []
    by_cell: CellLines = {}
    pending: list[int] = []
    total: int | None = None
    last: tuple[int, int, int] | None = None
    for expansion in step.expansions:
        n = len(lines)
        lines.append(repr(expansion))
        name = expansion.target.text if expansion.target is not None else None
        if name is None:
            pending.append(n)
        elif name == "Σ":
            total = n
        elif name in names:
            last = names[name]
            k, i, j = last
            before = [pending[j]] if j < len(pending) and total is not None else []
            before += [total] if total is not None else []
            by_cell.setdefault(last, []).extend([*before, n])
            if total is not None and j == len(step.matrices[k].columns) - 1:
                pending, total = [], None
        elif name in rows:
            k, i = rows[name]
            for j in range(len(step.matrices[k].columns)):
                by_cell.setdefault((k, i, j), []).append(n)
        elif last is not None:
            by_cell[last].append(n)
    return lines, by_cell


# tokens whose names hold ", ": `S[a, b, c]` is both S[a, b | c] and S[a | b, c]
SPECS = {
    "commas": "tokens: ['a, b', c, a, 'b, c', 'a, b, c']\n"
              "embeddings: [[1, 0], [0, 1], [1, 1], [2, 1], [1, 2]]\nmask: causal\n",
    "repeated": "tokens: [x, 'x, x', x, ', ', ',']\n"
                "embeddings: [[1, 0], [0, 1], [1, 1], [2, 1], [1, 2]]\nheads: 2\n"
                "weights: {W_Q: identity, W_K: identity, W_V: identity}\n",
}


@pytest.mark.parametrize("name", sorted(SPECS))
def test_every_line_belongs_to_the_cell_a_table_of_every_name_gives(name: str) -> None:
    walkthrough = build(loads_spec(SPECS[name]), Selection("all"), summary=True)
    matched = 0
    for step in walkthrough.steps:
        lines, by_cell = cell_lines(step, repr)
        assert (lines, by_cell) == by_table(step), step.id
        matched += len(by_cell)
    assert matched > 0
