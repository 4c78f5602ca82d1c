"""Plain text: no colour, fixed width, the same bytes everywhere. For pipes and golden files."""

from __future__ import annotations

import textwrap
from collections.abc import Sequence

from attncli.elision import shown
from attncli.i18n import Msg
from attncli.model import Matrix, Walkthrough
from attncli.render import RenderOptions
from attncli.render.common import (
    ELLIPSIS,
    Translate,
    block_marker,
    cell_width,
    column_blocks,
    description,
    drift_lines,
    elided_note,
    expansion_text,
    header_facts,
    heatmap_caption,
    is_elided,
    language_heading,
    language_sections,
    matrix_caption,
    number_format,
    reading_sections,
    shade,
    shown_matrices,
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
            lines += wrapped(t(note), options.width)
        matrices, identities = shown_matrices(step, options.full)
        if identities:
            lines += ["", *wrapped(t(identities), options.width)]
        for matrix in matrices:
            lines += ["", *matrix_lines(matrix, number, t, options.width, options.full)]
        if step.id == "weights" and options.heatmap:
            lines += ["", INDENT + heatmap_caption(t),
                      *matrix_lines(step.matrices[0], number, t, options.width, options.full,
                                    heat=True)]
        if step.expansions:
            lines += ["", INDENT + t(Msg.of("Written out:"))]
            lines += [INDENT + expansion_text(e, number, t, options.full)
                      for e in step.expansions]
    lines += reading_lines(walkthrough, t, options.width)
    drift = drift_lines(walkthrough, number, options.lang)
    if drift:
        lines += ["", t(Msg.of("Hand calculation")), *[INDENT + line for line in drift]]
    return "\n".join(line.rstrip() for line in lines) + "\n"


def wrapped(text: str, width: int) -> list[str]:
    return textwrap.wrap(text, width, initial_indent=INDENT, subsequent_indent=INDENT,
                         break_on_hyphens=False)


def reading_lines(walkthrough: Walkthrough, t: Translate, width: int) -> list[str]:
    lines: list[str] = []
    for heading, sentences in reading_sections(walkthrough, t):
        lines += ["", heading]
        for sentence in sentences:
            lines += wrapped(sentence, width)
    return lines


def document(walkthrough: Walkthrough, options: RenderOptions, langs: Sequence[str]) -> str:
    """The walkthrough in each of `langs`, each under a `## PL` heading."""
    return language_sections(walkthrough, options, langs, render, language_heading)


def pad_left(text: str, width: int) -> str:
    return " " * (width - cell_width(text)) + text


def pad_right(text: str, width: int) -> str:
    return text + " " * (width - cell_width(text))


def matrix_lines(matrix: Matrix, number: NumberFormat, t: Translate, width: int,
                 full: bool = False, heat: bool = False) -> list[str]:
    """The matrix as aligned columns under its caption, split into blocks to fit `width`; a large
    one elided in the middle unless `full`; with `heat`, each number after its shade."""
    def write(i: int, j: int) -> str:
        text = number.cell(matrix, i, j)
        return shade(matrix.at(i, j)) + " " + text if heat else text

    elide = is_elided(matrix, full)
    row_at, column_at = shown(matrix.shape[0], elide), shown(matrix.shape[1], elide)
    labels = [matrix.rows[i] if i is not None else ELLIPSIS for i in row_at]
    columns = [matrix.columns[j] if j is not None else ELLIPSIS for j in column_at]
    cells = [[ELLIPSIS if i is None or j is None else write(i, j)
              for j in column_at] for i in row_at]
    label_width = max((cell_width(label) for label in labels), default=0)
    col_widths = [
        max(cell_width(columns[j]), *(cell_width(row[j]) for row in cells))
        for j in range(len(columns))
    ]
    available = width - len(INDENT) - label_width
    blocks = column_blocks([w + GAP for w in col_widths], available)
    lines = [INDENT + matrix_caption(matrix)]
    note = elided_note(matrix, full, t)
    if note:
        lines.append(INDENT + note)
    for block in blocks:
        marker = block_marker(block, len(col_widths), tuple(columns), t,
                              matrix.shape[1])
        if marker:
            lines.append(INDENT + "[" + marker + "]")
        head = "".join(" " * GAP + pad_left(columns[j], col_widths[j]) for j in block)
        lines.append(INDENT + " " * label_width + head)
        for label, row in zip(labels, cells, strict=True):
            body = "".join(" " * GAP + pad_left(row[j], col_widths[j]) for j in block)
            lines.append(INDENT + pad_right(label, label_width) + body)
    return lines
