"""The rule for a cell written `—` (the mask hides the key and the weight is the 0 that gives) is
held by attncli.arithmetic.numbers.shows_hidden alone: the text table, which writes a row of
numbers at once, and NumberFormat.cell, which writes one, give the same cells."""

from __future__ import annotations

from dataclasses import dataclass

from attncli import build, load_spec
from attncli.arithmetic.numbers import NumberFormat, shows_hidden
from attncli.render.text import shown_cells
from tests.conftest import CONFIGS


@dataclass
class Masked:
    """A 1 x 2 matrix whose mask hides key 1 from query 0."""

    values: tuple[float, float]
    shape: tuple[int, int] = (1, 2)

    def at(self, i: int, j: int) -> float:
        return self.values[j]

    def hidden(self, i: int, j: int) -> bool:
        return j == 1


def test_only_the_zero_a_mask_gives_is_written_as_a_dash() -> None:
    number = NumberFormat(2)
    assert [number.cell(Masked((0.0, 0.0)), 0, j) for j in (0, 1)] == ["0.00", "—"]
    # a number in a hidden place that the mask did not make is written, not hidden
    assert [number.cell(Masked((0.5, 0.25)), 0, j) for j in (0, 1)] == ["0.50", "0.25"]
    assert not shows_hidden(Masked((0.0, 0.25)), 0, 1, 0.25)


def test_the_text_table_and_the_one_cell_writer_hide_the_same_cells() -> None:
    """cat_chases_mouse: 3 tokens under a causal mask, so query i sees keys 0..i and the 3 cells
    above the diagonal of A are written `—`."""
    walkthrough = build(load_spec(str(CONFIGS / "cat_chases_mouse.yaml")))
    weights = next(m for step in walkthrough.steps for m in step.matrices
                   if m.hidden_by is not None)
    number = NumberFormat(walkthrough.precision)
    table = shown_cells(weights, [0, 1, 2], [0, 1, 2], number, heat=False)
    one_by_one = [[number.cell(weights, i, j) for j in range(3)] for i in range(3)]
    assert table == one_by_one
    assert [(i, j) for i in range(3) for j in range(3) if table[i][j] == "—"] == [
        (0, 1), (0, 2), (1, 2)]
