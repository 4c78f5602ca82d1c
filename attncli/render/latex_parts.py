"""The walkthrough as LaTeX pieces that a document (attncli/render/latex.py) lays out as sections
and a deck (attncli/render/beamer.py) as frames: a heading and chunks of lines, each chunk a
paragraph or a display that a page or frame may break before.

Prose comes from the catalog with its notation as math (attncli/render/notation.py); matrices
are split into blocks that fit the page (attncli/render/latex_matrix.py); a written-out cell is
a paragraph of inline math, so TeX breaks a long sum after a `+` or an `=` and indents the rest.
"""

from __future__ import annotations

from collections.abc import Callable

from attncli.i18n import Msg
from attncli.model import Matrix, Step, Walkthrough
from attncli.model.latex_text import shown_heading, shown_prose
from attncli.render import RenderOptions
from attncli.render.common import (
    box_math,
    description,
    drift_lines,
    formula_latex,
    header_facts,
    number_format,
    reading_sections,
    shown_matrices,
    step_heading,
    title,
)
from attncli.render.heat import hidden_cells
from attncli.render.latex_heatmap import heatmap_chunks
from attncli.render.latex_lines import written_out
from attncli.render.latex_matrix import (
    Block,
    Page,
    blocks,
    fitting_size,
    matrix_latex,
    wraps,
)
from attncli.render.latex_writer import Chunk, Part, Writer
from attncli.render.long_names import long_names
from attncli.render.shown_cells import MARKS, ShownCells, block_marker, cell_texts, elided_note
from attncli.render.tex import MATH_SYMBOLS


def parts(walkthrough: Walkthrough, options: RenderOptions, lang: str, page: Page) -> list[Part]:
    number = number_format(walkthrough, options)
    w = Writer(lang, number, page, options.full, long_names(walkthrough))
    t = w.t
    header = walkthrough.header
    out = []
    if options.header:  # --no-header: the steps alone
        # the user's words, as written; a word too wide for any line shortened (shown_prose)
        intro = Part("title", w.esc(shown_heading(title(header, lang, t))))
        about = description(header, lang)
        if about:
            intro.chunks.append([w.esc(shown_prose(about))])
        facts = header_facts(header, t)
        intro.chunks.append([r"\\ ".join(w.prose(fact) for fact in facts)])
        out.append(intro)
    for step in walkthrough.steps:  # a step keeps its number when --steps picks some
        out.append(step_part(walkthrough, step.number, step, options, w))
    for heading, sentences in reading_sections(walkthrough, t):
        out.append(Part("reading", w.prose(heading), [[w.prose(s)] for s in sentences]))
    drift = drift_lines(walkthrough, number, lang)
    if drift:
        out.append(Part("drift", w.esc(t(Msg.of("Hand calculation"))),
                        [[w.prose(line.strip())] for line in drift]))
    return out


def step_part(walkthrough: Walkthrough, index: int, step: Step, options: RenderOptions,
              w: Writer) -> Part:
    part = Part("step", w.prose(step_heading(index, step, w.t)))
    if step.formula is not None:
        part.chunks.append([r"\begin{equation*}", formula_latex(step.formula, w.t),
                            r"\end{equation*}"])
    part.chunks += [[w.say(note)] for note in step.notes]
    matrices, identities = shown_matrices(step, options.full)
    if identities is not None:
        part.chunks += [[w.say(identities)]]
    for matrix in matrices:
        part.chunks += matrix_chunks(matrix, w)
    if step.id == "weights" and options.heatmap and step.matrices:
        part.chunks += heatmap_chunks(step.matrices[0], hidden_cells(walkthrough, step), w)
    if step.expansions:
        part.chunks += written_out(step.expansions, w.number, w.t, w.esc, w.full,
                                   r"\noindent " + w.esc(w.t(Msg.of("Written out:"))),
                                   w.line)
    return part


def matrix_chunks(matrix: Matrix, w: Writer,
                  cell: Callable[[float], str] | None = None) -> list[Chunk]:
    """One chunk per block of the matrix, each under its `columns d1–d4 of 8` marker; a large
    one elided in the middle (unless --full) under the note that says so."""
    math_number = cell or w.number.math()
    shown = ShownCells(matrix, w.full)
    # a worksheet's blanks are boxes, as wide as a number; a mark (⋮ ⋯ ⋱) is \vdots ...
    cells = [[MATH_SYMBOLS.get(x, x) for x in row]
             for row in cell_texts(matrix, math_number, box_math(math_number), w.full)]
    widths = [[x if x not in MARKS else "" for x in row]
              for row in cell_texts(matrix, math_number, math_number(0.0), w.full)]
    rows, columns = shown.row_labels(), shown.column_labels()
    note = elided_note(matrix, w.full, w.t)
    chunks: list[Chunk] = []
    fitted = blocks(matrix.symbol.text, widths, rows, columns, w.page)
    size, _ = fitting_size(matrix.symbol.text, widths, rows, columns, w.page)
    wrap = wraps(matrix.symbol.text, widths, rows, columns, w.page)
    row_ranges = list(dict.fromkeys(b.rows for b in fitted))
    column_ranges = shown.split(list(dict.fromkeys(b.columns for b in fitted)))
    for block in (Block(r, c) for c in column_ranges for r in row_ranges):
        lines: list[str] = [r"\noindent " + w.esc(note) + r"\par"] if note and not chunks else []
        marker = block_marker(block.columns, len(columns), tuple(columns), w.t, matrix.shape[1])
        if len(block.rows) < len(rows):
            named = [rows[i] for i in block.rows if shown.rows[i] is not None] or rows  # not ⋮
            span = w.t(Msg.of("rows {first}–{last} of {total}", first=named[0], last=named[-1],
                              total=matrix.shape[0]))
            marker = span if marker is None else marker + ", " + span
        if marker:
            # a long token name in the marker may break after its underscores, and two names
            # of a range (`columns name–name`, each up to 225 pt) after their dash
            lines.append(r"\noindent " + w.esc(marker).replace(r"\_", r"\_\allowbreak{}")
                         .replace("–", "–\\allowbreak{}"))
        lines += matrix_latex(matrix.symbol.latex,
                              [[cells[i][j] for j in block.columns] for i in block.rows],
                              [rows[i] for i in block.rows],
                              [columns[j] for j in block.columns], w.cyrillic,
                              [[widths[i][j] for j in block.columns] for i in block.rows], size,
                              wrap)
        chunks.append(lines)
    return chunks
