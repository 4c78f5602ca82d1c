"""Plain text: no colour, fixed width, the same bytes everywhere. For pipes and golden files."""

from __future__ import annotations

import textwrap

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

INDENT = "   "
GAP = 2


def render(walkthrough: Walkthrough, options: RenderOptions) -> str:
    number = number_format(walkthrough, options)
    t = translator(options, number)
    name = title(walkthrough.header, options.lang, t)
    lines = [name, "=" * cell_width(name)]
    about = description(walkthrough.header, options.lang)
    if about:
        lines += ["", about]
    lines += ["", *header_facts(walkthrough.header, t)]
    for number_of_step, step in enumerate(walkthrough.steps, start=1):
        lines += ["", step_heading(number_of_step, step, t)]
        if step.formula is not None:
            lines.append(INDENT + step.formula.text)
        for note in step.notes:
            lines += textwrap.wrap(t(note), options.width, initial_indent=INDENT,
                                   subsequent_indent=INDENT, break_on_hyphens=False)
        for matrix in step.matrices:
            lines += ["", *matrix_lines(matrix, number, t, options.width)]
    return "\n".join(line.rstrip() for line in lines) + "\n"


def pad_left(text: str, width: int) -> str:
    return " " * (width - cell_width(text)) + text


def pad_right(text: str, width: int) -> str:
    return text + " " * (width - cell_width(text))


def matrix_lines(matrix: Matrix, number: NumberFormat, t: Translate, width: int) -> list[str]:
    """The matrix as aligned columns under its caption, split into blocks to fit `width`."""
    cells = [[number(float(x)) for x in row] for row in matrix.values]
    label_width = max((cell_width(label) for label in matrix.rows), default=0)
    col_widths = [
        max(cell_width(matrix.columns[j]), *(cell_width(row[j]) for row in cells))
        for j in range(len(matrix.columns))
    ]
    available = width - len(INDENT) - label_width
    blocks = column_blocks([w + GAP for w in col_widths], available)
    lines = [INDENT + matrix_caption(matrix)]
    for block in blocks:
        marker = block_marker(block, len(col_widths), matrix.columns, t)
        if marker:
            lines.append(INDENT + "[" + marker + "]")
        head = "".join(" " * GAP + pad_left(matrix.columns[j], col_widths[j]) for j in block)
        lines.append(INDENT + " " * label_width + head)
        for label, row in zip(matrix.rows, cells, strict=True):
            body = "".join(" " * GAP + pad_left(row[j], col_widths[j]) for j in block)
            lines.append(INDENT + pad_right(label, label_width) + body)
    return lines
