"""Large output streamed: the pieces are the document, cells are found as the old list found
them, a failed stream writes no file, and the fast width rule agrees with the slow one."""

from __future__ import annotations

import unicodedata
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import pytest

from attncli import build, loads_spec
from attncli.arithmetic.expand import Selection
from attncli.arithmetic.selection import cells
from attncli.files.writing import write_atomic
from attncli.model import Lazy
from attncli.render import render, stream
from attncli.render.columns import NARROW, cell_width
from attncli.spec.examples import example_path
from attncli.steps.show import HELD, Shown, held


def test_every_character_the_fast_width_rule_counts_once_is_one_column_by_the_slow_rule() -> None:
    for code in range(0x20, 0xFB00):  # through the private-use area
        char = chr(code)
        if NARROW.fullmatch(char):
            width = 0 if unicodedata.combining(char) else (
                2 if unicodedata.east_asian_width(char) in "WF" else 1)
            assert width == 1, hex(code)
    assert cell_width("S[猫, 猫] = 1") == 13  # a wide character still counts twice
    assert cell_width("e\u0301") == 1  # a combining accent takes no column


@pytest.mark.parametrize("fmt", ["text", "rich", "json", "markdown", "latex"])
def test_the_streamed_pieces_are_the_rendered_document(fmt: str) -> None:
    walkthrough = build(loads_spec(example_path().read_text()), Selection("all"))
    langs = "en" if fmt == "json" else "pl,ru"
    pieces = list(stream(walkthrough, fmt, langs))
    assert "".join(pieces) == render(walkthrough, fmt, langs)
    sigma = "\\Sigma" if fmt in ("markdown", "latex") else "Σ"
    assert "".join(pieces).count(sigma) > 3  # the written-out cells are there


def _old_cells(rows: tuple[str, ...], columns: tuple[str, ...],
               chosen: list[tuple[str, str | None]]) -> list[tuple[int, int]]:
    """The list the written-out cells were once found with (quadratic, but plainly right)."""
    found: list[tuple[int, int]] = []
    for row, column in chosen:
        if row not in rows or (column is not None and column not in columns):
            continue
        i = rows.index(row)
        for j in ([columns.index(column)] if column is not None else range(len(columns))):
            if (i, j) not in found:
                found.append((i, j))
    return found


@pytest.mark.parametrize("chosen", [
    [("b", "y"), ("b", None), ("a", None), ("b", "x"), ("zz", None), ("a", "q")],
    [("a", None), ("a", None), ("c", "z"), ("c", "z")],
    [],
])
def test_cells_are_found_in_request_order_each_once(
        chosen: list[tuple[str, str | None]]) -> None:
    rows, columns = ("a", "b", "c"), ("x", "y", "z")
    assert list(cells(rows, columns, chosen)) == _old_cells(rows, columns, chosen)


def test_a_stream_that_fails_midway_writes_no_file(tmp_path: Path) -> None:
    target = tmp_path / "out.tex"

    def pieces() -> Iterator[str]:
        yield "\\section*{A}\n"
        raise RuntimeError("the renderer failed")

    with pytest.raises(RuntimeError):
        write_atomic(target, pieces())
    assert list(tmp_path.iterdir()) == []
    write_atomic(target, iter(["a", "b\n"]))
    assert target.read_text() == "ab\n"


def test_a_walkthrough_written_many_times_makes_its_few_written_out_cells_once() -> None:
    walkthrough = build(loads_spec(example_path().read_text()), Selection("all"))
    made = [0]

    def counted(items: Lazy) -> Lazy:  # type: ignore[type-arg]
        def make() -> Iterator[object]:
            made[0] += 1
            return iter(items)
        return Lazy(make)

    lazy = replace(walkthrough, steps=tuple(
        replace(s, expansions=counted(s.expansions)) if isinstance(s.expansions, Lazy) else s
        for s in walkthrough.steps))
    steps_written_out = sum(isinstance(s.expansions, Lazy) for s in lazy.steps)
    assert steps_written_out >= 3
    kept = held(Shown(lazy)).walkthrough
    assert made[0] == steps_written_out  # each made once, here
    for fmt, lang in (("text", "en"), ("json", "pl"), ("markdown", "ru")):
        assert render(kept, fmt, lang) == render(walkthrough, fmt, lang)
    assert made[0] == steps_written_out  # and never again
    many = Lazy(lambda: iter(range(HELD + 1)))
    big = replace(walkthrough, steps=(replace(walkthrough.steps[0], expansions=many),))
    assert held(Shown(big)).walkthrough.steps[0].expansions is many  # too many to keep
