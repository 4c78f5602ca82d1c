"""The terminal view draws its matrices as Rich tables, which lay out each cell (about 150 µs):
64 heads of 100 tokens took 13 s, 256 heads 39 s, a decode of 100 tokens shown whole 22 s. Past
TABLE_CELLS cells in all, the matrices are drawn as the text format draws them, the rest of the
view as it was."""

from __future__ import annotations

import pytest

from attncli import build, loads_spec
from attncli.arithmetic.expand import Selection
from attncli.render import render, rich_view

MANY_HEADS = ("tokens: [" + ", ".join(f"t{i}" for i in range(100)) + "]\n"
              "embeddings: {random: {seed: 1}, dim: 64}\nheads: 64\nmask: causal\n")
CAT = "tokens: [cat, chases, mouse]\nembeddings: [[1, 0], [0.2, 1], [0.8, 0]]\nmask: causal\n"


TWO_HEADS = ("tokens: [" + ", ".join(f"t{i}" for i in range(12)) + "]\n"
             "embeddings: {random: {seed: 1}, dim: 4}\nheads: 2\n")


def tables_drawn(spec: str, monkeypatch: pytest.MonkeyPatch, lang: str = "en",
                 **options: object) -> tuple[int, str]:
    made: list[object] = []
    table = rich_view.Table

    def counted(*args: object, **kwargs: object) -> object:
        made.append(args)
        return table(*args, **kwargs)

    monkeypatch.setattr(rich_view, "Table", counted)
    text = render(build(loads_spec(spec), Selection("auto"), summary=True), "rich", lang,
                  width=100, **options)
    return len(made), text


def test_many_heads_are_drawn_as_aligned_columns(monkeypatch: pytest.MonkeyPatch) -> None:
    walkthrough = build(loads_spec(MANY_HEADS), Selection("auto"), summary=True)
    assert rich_view.table_cells(walkthrough, rich_view.RenderOptions()) > rich_view.TABLE_CELLS
    count, text = tables_drawn(MANY_HEADS, monkeypatch)
    assert count == 0
    plain = render(walkthrough, "text", "en", width=100)
    # X's first row, as the text format writes it (0.35 = E[t0, d1] of seed 1)
    row = next(line for line in plain.splitlines() if line.lstrip().startswith("t0 "))
    assert row.strip() in text and row.strip().startswith("t0    0.35")


def test_a_small_walkthrough_keeps_its_tables(monkeypatch: pytest.MonkeyPatch) -> None:
    count, text = tables_drawn(CAT, monkeypatch)
    assert count > 5 and "0.64" in text  # A[chases, chases]


def test_the_cells_are_counted_across_every_language_of_the_document(
        monkeypatch: pytest.MonkeyPatch) -> None:
    # 12 tokens, d_model 4, two heads, nothing elided: X (12 x 4); per head W_Q, W_K, W_V (4 x 2
    # each), Q, K, V (12 x 2 each), S, S', A and A's heatmap (12 x 12 each), Z (12 x 2); the
    # heads side by side (12 x 4): 48 + 2 x (24 + 72 + 576 + 24) + 48 = 1,488 cells a language
    walkthrough = build(loads_spec(TWO_HEADS), Selection("auto"), summary=True)
    cells = rich_view.table_cells(walkthrough, rich_view.RenderOptions())
    assert cells == 1_488
    two, _ = tables_drawn(TWO_HEADS, monkeypatch, "en,pl")  # 2,976 cells: within the budget
    assert two > 0
    monkeypatch.undo()
    three, text = tables_drawn(TWO_HEADS, monkeypatch, "en,pl,ru")  # 4,464: past it
    assert three == 0
    assert text.count("t0    ") >= 3  # every section's matrices as aligned columns
