"""The walkthrough as Typst pieces that a document or a deck (render/typst.py) lays out: a
heading and its chunks (a paragraph, a formula, a matrix block, a written-out line).

Matrices are split into column blocks that fit the page's width, judged by characters (a digit
of the text font is about half an em): a Typst table cannot be wider than its page.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field, replace

from attncli.arithmetic.numbers import NumberFormat
from attncli.i18n import Msg
from attncli.model import Matrix, Step, Walkthrough
from attncli.model.latex_text import shown_name, shown_prose
from attncli.records import record
from attncli.render import RenderOptions
from attncli.render.common import (
    Translate,
    column_blocks,
    description,
    drift_lines,
    expansion_text,
    header_facts,
    number_format,
    reading_sections,
    shown_matrices,
    step_heading,
    title,
    translator,
)
from attncli.render.heat import HIDDEN_MARK, LEGEND, hex_colour, hidden_cells, ink, rgb
from attncli.render.md_prose import Marked, unmark
from attncli.render.shown_cells import ShownCells, block_marker, elided_note
from attncli.render.typst_math import math, quoted
from attncli.render.typst_prose import expression, paragraph

# How wide a character of a matrix is, in ems of the text (a table's text is 0.85 of it, its
# digits about half an em), and a cell's inset on each side.
CHAR_EM = 0.85 * 0.55
INSET_EM = 0.85 * 0.4 * 2


@record
class Layout:
    width: float  # points a matrix block may take
    slides: bool = False
    font: float = 10.0  # the text size in points

    @property
    def em(self) -> float:
        return 14.0 if self.slides else self.font


@dataclass
class Part:
    kind: str  # title, step, reading or drift
    heading: str
    chunks: list[str] = field(default_factory=list)


def text(value: str) -> str:
    """A paragraph of user or catalog text, as a string literal: never markup."""
    return "#" + quoted(value)


def parts(walkthrough: Walkthrough, options: RenderOptions, lang: str,
          layout: Layout) -> Iterator[Part]:
    number = number_format(walkthrough, options)
    t = translator(replace(options, lang=lang), number)
    header = walkthrough.header
    if options.header:
        chunks = []
        # the user's words; a word too wide for any line shortened, as LaTeX does (shown_prose)
        about = description(header, lang)
        if about:
            chunks.append(text(shown_prose(about)))
        chunks.append("#list(" + ", ".join(expression(f, lang) for f in header_facts(header, t))
                      + ")")
        yield Part("title", shown_prose(title(header, lang, t)), chunks)
    for step in walkthrough.steps:
        yield step_part(step, walkthrough, t, number, options, layout, lang)
    marked = Marked(t)
    for heading, sentences in reading_sections(walkthrough, marked):
        yield Part("reading", unmark(heading, marked.words),
                   ["#" + expression(s, lang, marked.words) for s in sentences])
    drift = drift_lines(walkthrough, number, lang)
    if drift:
        yield Part("drift", t(Msg.of("Hand calculation")), [
            text(drift[0]), "#list(" + ", ".join(quoted(d.strip()) for d in drift[1:]) + ")"])


def step_part(step: Step, walkthrough: Walkthrough, t: Translate, number: NumberFormat,
              options: RenderOptions, layout: Layout, lang: str) -> Part:
    part = Part("step", step_heading(step.number, step, t))
    if step.formula is not None:
        unit = t(step.formula.unit) if step.formula.unit is not None else None
        part.chunks.append(math(step.formula.text, display=True, unit=unit))
    part.chunks += [paragraph(note, t, lang) for note in step.notes]
    matrices, identities = shown_matrices(step, options.full)
    if identities:
        part.chunks.append(paragraph(identities, t, lang))
    for matrix in matrices:
        part.chunks += matrix_chunks(matrix, number, t, options.full, layout)
    if step.id == "weights" and options.heatmap and step.matrices:
        part.chunks.append(text(t(LEGEND)))
        part.chunks += matrix_chunks(step.matrices[0], number, t, options.full, layout,
                                     heat=hidden_cells(walkthrough, step))
    if step.expansions:
        part.chunks.append(text(t(Msg.of("Written out:"))))
        part.chunks += (line(expansion_text(e, number, t, options.full))
                        for e in step.expansions)
    return part


RESULT = re.compile(r" ([=≈]) (?=\S+$)")  # the last "= x" of a written-out line


def line(written: str) -> str:
    """A written-out line: attn-line breaks it only at its spaces (never inside a token's name
    or a product), and its result stays with its "=" (a line never ends with the last "=")."""
    return "#attn-line(" + quoted(RESULT.sub(" \\1\u00a0", written)) + ")"


def matrix_chunks(matrix: Matrix, number: NumberFormat, t: Translate, full: bool,
                  layout: Layout, heat: set[tuple[int, int]] | None = None) -> list[str]:
    """The matrix in column blocks that fit the page, each a call of attn-matrix; with `heat`
    (the cells the mask hides), shaded as the heatmap."""
    shown = ShownCells(matrix, full)
    # a name too wide for the page as every format shows it (render/long_names.py), measured so
    rows = [shown_name(label) for label in shown.row_labels()]
    columns = [shown_name(label) for label in shown.column_labels()]

    def cell(i: int, j: int) -> str:
        if heat is not None and (i, j) in heat:
            return HIDDEN_MARK
        return BOX if (i, j) in matrix.blank else number.cell(matrix, i, j)

    cells = shown.cells(cell)
    widths = [(max(len(columns[j]), *(len(row[j]) for row in cells)) * CHAR_EM + INSET_EM)
              * layout.em for j in range(len(columns))]
    label = (max((len(r) for r in rows), default=0) * CHAR_EM + INSET_EM) * layout.em
    blocks = shown.split(column_blocks([round(w) for w in widths],
                                       max(round(layout.width - label), 1)))
    size = f"{matrix.shape[0]} × {matrix.shape[1]}"
    note = elided_note(matrix, full, t)
    chunks = []
    for k, block in enumerate(blocks):
        marker = block_marker(block, len(columns), tuple(columns), t, matrix.shape[1])
        notes = [n for n in (note if k == 0 else None, marker) if n]
        args = [math(matrix.symbol.text), quoted(size),
                array([columns[j] for j in block]), array(rows),
                "(" + ", ".join(array([row[j] for j in block]) for row in cells) + ",)"]
        if heat is not None:
            fills, inks = shades(matrix, shown, heat, block)
            args += [f"fills: {fills}", f"inks: {inks}"]
        if notes:
            args.append("note: " + quoted(" ".join(notes)))
        chunks.append("#attn-matrix(" + ", ".join(args) + ")")
    return chunks


BOX = "____"


def array(items: list[str]) -> str:
    """A Typst array of strings (a trailing comma: an array of one is still an array)."""
    return "(" + ", ".join(quoted(x) for x in items) + ",)"


def shades(matrix: Matrix, shown: ShownCells, hidden: set[tuple[int, int]],
           block: range) -> tuple[str, str]:
    """The fill and ink of each shown cell of a block, as Typst arrays of colours."""
    def colours(i: int | None, j: int | None) -> tuple[str, str]:
        if i is None or j is None:
            return hex_colour((255, 255, 255)), hex_colour((0, 0, 0))
        x = float("nan") if (i, j) in hidden else matrix.at(i, j)
        return hex_colour(rgb(x)), hex_colour(ink(x))

    pairs = [[colours(i, shown.columns[j]) for j in block] for i in shown.rows]
    fills = "(" + ", ".join(array([p[0] for p in row]) for row in pairs) + ",)"
    inks = "(" + ", ".join(array([p[1] for p in row]) for row in pairs) + ",)"
    return fills, inks
