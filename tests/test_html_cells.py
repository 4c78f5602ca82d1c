"""The HTML page tells each number the written-out lines that made it (render/html_cells.py):
a line is matched to its cell by the name it computes, `S[row, column]`, found from the labels
of the step's matrices, never from a table of every cell's name (n × m names: 800 MB for a page
of 2,000 tokens, tests/test_size_cases.py)."""

from __future__ import annotations

import json

import pytest

from attncli.arithmetic.expand import Selection
from attncli.model import Step
from attncli.render import html_cells
from attncli.render.html_cells import CellLines, cell_lines
from attncli.spec import loads_spec
from attncli.steps.build import build


def by_table(step: Step) -> tuple[list[str], CellLines]:
    """The lines of each cell as a table of every cell's name finds them: the first cell so
    named, by matrix, row and column (the renderer's way before, kept here as the reference).
    A softmax row's q-th quotient is of its q-th e^x."""
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
    quotients: list[int] = []
    last: tuple[int, int, int] | None = None
    for expansion in step.expansions:
        n = len(lines)
        lines.append(repr(expansion))
        name = expansion.target.text if expansion.target is not None else None
        if name is None:
            if total is not None:
                pending, total, quotients = [], None, []
            pending.append(n)
        elif name == "Σ":
            total = n
        elif name in names:
            last = names[name]
            q = len(quotients)
            before = [pending[q]] if q < len(pending) and total is not None else []
            before += [total] if total is not None else []
            by_cell.setdefault(last, []).extend([*before, n])
            if total is not None:
                quotients.append(n)
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


def test_a_cell_of_a_by_name_ambiguous_row_is_told_its_own_row_terms() -> None:
    """Tokens whose names hold ", " make `A[', , a']` the name of several cells: each line the
    page tells a cell of A is still of one row, in order, and computes it, e^x / Σ = A, worked
    here from the lines' own numbers (a cell told the next row's lines fails it)."""
    spec = ("tokens: [', , , a', ', ', ', , ', 'a, ', ', a', a]\n"
            "embeddings: [[1, 0], [0, 1], [1, 1], [2, 1], [1, 2], [0, 2]]\nmask: causal\n")
    for selection in (Selection("all"), Selection("shown")):
        walkthrough = build(loads_spec(spec), selection, summary=True)
        step = next(s for s in walkthrough.steps if s.id == "weights")
        by_cell = cell_lines(step, repr)[1]
        results = [float(expansion.result) for expansion in step.expansions]  # type: ignore[arg-type]
        checked = 0
        for found in by_cell.values():
            for e, total, quotient in zip(found[0::3], found[1::3], found[2::3], strict=True):
                assert e < total < quotient
                assert not any(k for k in range(total + 1, quotient)
                               if step.expansions[k].target is None)  # no e^x of a next row
                assert results[e] / results[total] == pytest.approx(results[quotient], abs=1e-12)
                checked += 1
        assert checked == 6 * 6 if selection.mode == "all" else checked > 0


def test_a_name_is_cut_only_where_a_row_label_of_its_matrix_ends(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """A line's name was tried as a row and a column at every ", " it holds, each try a copy of
    the name: the weights step of a page of 200 names of 1,000 characters of ", " took 0.9 s;
    a cut is now tried only at the length of a row label."""
    tokens = [", " * 495 + f"{i:04d}" for i in range(200)]
    spec = {"tokens": tokens, "embeddings": {"random": {"seed": 1}, "dim": 4}, "mask": "causal"}
    walkthrough = build(loads_spec(json.dumps(spec)), Selection("shown", terms_shown=True),
                        summary=True)  # as a page is built: each row's shown terms alone
    step = next(step for step in walkthrough.steps if step.id == "weights")
    tried = [0]  # each try of a cut: a copy of the name's start, looked up among the rows

    class Rows(dict[str, int]):
        def __contains__(self, label: object) -> bool:
            tried[0] += 1
            return super().__contains__(label)

    first = html_cells._first
    monkeypatch.setattr(html_cells, "_first", lambda labels: Rows(first(labels)))
    lines, by_cell = cell_lines(step, repr)
    # a name is tried once for each length of a row label of a matrix, not at each of its
    # 495 ", "
    lengths = sum(len({len(row) for row in matrix.rows}) for matrix in step.matrices)
    assert 0 < tried[0] <= len(lines) * lengths
    matrix = step.matrices[0]
    assert all(matrix.rows[i] == tokens[i] and matrix.columns[j] == tokens[j]
               for _, i, j in by_cell)
    assert len(by_cell) == 8 * 8  # the 8 rows shown of 200, each with its 8 cells shown
