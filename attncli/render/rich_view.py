"""The terminal view: Rich tables labelled by tokens, split into column blocks to fit."""

from __future__ import annotations

import io

from rich import box
from rich.console import Console
from rich.rule import Rule
from rich.table import Table
from rich.text import Text

from attncli.model import Matrix, Walkthrough
from attncli.render import RenderOptions
from attncli.render.common import (
    Translate,
    block_marker,
    cell_width,
    column_blocks,
    description,
    header_facts,
    matrix_caption,
    number_format,
    step_heading,
    title,
    translator,
)
from attncli.render.numbers import NumberFormat

CELL_PADDING = 3  # one space each side and one border per column


def render(walkthrough: Walkthrough, options: RenderOptions) -> str:
    out = io.StringIO()
    console = Console(file=out, width=options.width, force_terminal=options.color,
                      color_system="standard" if options.color else None,
                      highlight=False, emoji=False, markup=False)
    show(console, walkthrough, options)
    return out.getvalue()


def show(console: Console, walkthrough: Walkthrough, options: RenderOptions) -> None:
    """Print the walkthrough on `console` (which never reads markup: a token `[bold]` is text)."""
    number = number_format(walkthrough, options)
    t = translator(options, number)
    header = walkthrough.header
    console.print(Rule(Text(title(header, options.lang, t), style="bold")))
    about = description(header, options.lang)
    if about:
        console.print(Text(about))
    for fact in header_facts(header, t):
        console.print(Text(fact, style="dim"))
    for index, step in enumerate(walkthrough.steps, start=1):
        console.print()
        console.print(Text(step_heading(index, step, t), style="bold cyan"))
        if step.formula is not None:
            console.print(Text("  " + step.formula.text, style="bold"))
        for note in step.notes:
            console.print(Text("  " + t(note), style="italic"))
        for matrix in step.matrices:
            for table in tables(matrix, number, t, options.width):
                console.print()
                console.print(table)


def tables(matrix: Matrix, number: NumberFormat, t: Translate, width: int) -> list[Table]:
    """One table per column block, so no table is ever squeezed or wrapped by the terminal."""
    cells = [[number(float(x)) for x in row] for row in matrix.values]
    label_width = max((cell_width(label) for label in matrix.rows), default=0)
    col_widths = [
        max(cell_width(matrix.columns[j]), *(cell_width(row[j]) for row in cells))
        for j in range(len(matrix.columns))
    ]
    available = width - label_width - 2 * CELL_PADDING
    result = []
    for block in column_blocks([w + CELL_PADDING for w in col_widths], available):
        caption = matrix_caption(matrix)
        marker = block_marker(block, len(col_widths), matrix.columns, t)
        table = Table(title=Text(caption), caption=Text(marker) if marker else None,
                      box=box.SIMPLE_HEAD, title_justify="left", show_edge=False)
        table.add_column("", style="bold", no_wrap=True)
        for j in block:
            table.add_column(Text(matrix.columns[j]), justify="right", no_wrap=True)
        for label, row in zip(matrix.rows, cells, strict=True):
            table.add_row(Text(label), *(Text(row[j]) for j in block))
        result.append(table)
    return result
