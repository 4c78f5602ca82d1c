"""One step of the walkthrough as a section of the HTML page: its heading, its formula as
MathML, its notes, its matrices as labelled tables whose every number is a focusable cell, the
weights shaded as a heatmap, its written-out lines, and the panel that explains a cell.

A number cell carries `data-cell="NAME[row, column]"` as the text format names it, its row and
column (`data-r`, `data-c`, indices into the whole matrix) and the written-out lines that made
it (`data-lines`, indices into the step's list); its table names the cells it was made from
(`data-from`, see html_cells.Source). The page's script (html_assets.SCRIPT) reads them.
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Sequence
from html import escape

from attncli.arithmetic.numbers import NumberFormat, shows_hidden
from attncli.i18n import Msg
from attncli.model import Matrix, Step
from attncli.render.common import (
    Translate,
    expansion_text,
    formula_text,
    shown_matrices,
    step_heading,
)
from attncli.render.html_cells import CellLines, Source, cell_lines
from attncli.render.html_prose import paragraph
from attncli.render.mathml import math as mathml
from attncli.render.shown_cells import (
    BOTH_LEFT_OUT,
    COLUMNS_LEFT_OUT,
    ROWS_LEFT_OUT,
    ShownCells,
    elided_note,
    is_elided,
)

INPUTS = frozenset({"embeddings", "parameters", "context"})  # numbers given, not computed


def attr(text: str) -> str:
    return escape(text, quote=True)


def step_section(step: Step, anchor: str, t: Translate, number: NumberFormat, full: bool,
                 made_from: Sequence[Sequence[Source]], heatmap: bool,
                 lang: str) -> Iterator[str]:
    """The section of one step; `anchor` is its id (the page's block, language and step)."""
    heading = step_heading(step.number, step, t)
    lines, by_cell = shown_lines(step, *cell_lines(
        step, lambda e: expansion_text(e, number, t, full)), full)
    yield (f'<section class="attn-step" id="{attr(anchor)}" data-step="{step.number}" '
           f'aria-labelledby="{attr(anchor)}-h">')
    yield f'<h2 id="{attr(anchor)}-h" tabindex="-1">{escape(heading)}</h2>'
    if step.formula is not None:
        unit = t(step.formula.unit) if step.formula.unit is not None else None
        yield ('<p class="attn-formula">' + mathml(step.formula.text, display=True,
                                                   label=formula_text(step.formula, t),
                                                   unit=unit) + "</p>")
    for note in step.notes:
        yield f"<p>{paragraph(note, t, lang)}</p>"
    matrices, identities = shown_matrices(step, full)
    if identities:
        yield f"<p>{paragraph(identities, t, lang)}</p>"
    yield '<div class="attn-work">'
    yield '<div class="attn-matrices">'
    for matrix in matrices:
        k = step.matrices.index(matrix)
        heat = heatmap and step.id == "weights" and k == 0
        yield from table(matrix, k, anchor, number, t, full, by_cell, made_from[k], heat)
    yield "</div>"
    empty = t(Msg.of("Given in the spec: an input, not computed.")) if step.id in INPUTS else (
        t(Msg.of("Click a number, or reach it with Tab and press Enter, to see how it was "
                 "computed.")) if lines else
        t(Msg.of("This step's numbers are not written out one by one: the formula above "
                 "makes each of them.")))
    label = t(Msg.of("Written out"))
    yield (f'<aside class="attn-why" aria-live="polite" aria-label="{attr(label)}"'
           f' data-empty="{attr(empty)}"><p class="attn-hint">{escape(empty)}</p></aside>')
    yield "</div>"
    if lines:
        written = t(Msg.of("Written out:"))
        yield (f'<details class="attn-lines"><summary>{escape(written)}'
               f" ({len(lines)})</summary><ol>")
        yield from (f"<li><code>{escape(line)}</code></li>" for line in lines)
        yield "</ol></details>"
    yield "</section>"


def shown_lines(step: Step, lines: list[str], by_cell: CellLines,
                full: bool) -> tuple[list[str], CellLines]:
    """The lines of the cells shown: of a large matrix elided in the middle, a row written out
    at once (a softmax of 256 keys) keeps only the lines of its shown cells."""
    if full or not any(is_elided(m, full) for m in step.matrices):
        return lines, by_cell
    shown = {(k, i, j): by_cell[k, i, j] for k, m in enumerate(step.matrices)
             for i in ShownCells(m, full).rows for j in ShownCells(m, full).columns
             if i is not None and j is not None and (k, i, j) in by_cell}
    kept = sorted({n for found in shown.values() for n in found})
    at = {n: new for new, n in enumerate(kept)}
    return [lines[n] for n in kept], {cell: [at[n] for n in found]
                                      for cell, found in shown.items()}


def table(matrix: Matrix, k: int, anchor: str, number: NumberFormat, t: Translate, full: bool,
          by_cell: CellLines, made_from: Sequence[Source], heat: bool) -> Iterator[str]:
    """The matrix as a table: its name and size as the caption, its labels as headers."""
    rows, columns = matrix.shape
    sources = " ".join(f"{s.step}.{s.matrix}.{s.relation}" for s in made_from)
    yield (f'<figure class="attn-matrix" id="{attr(anchor)}m{k}" data-m="{k}"'
           f' data-from="{attr(sources)}">')
    yield ('<table' + (' class="attn-heat"' if heat else "") + '><caption>'
           + mathml(matrix.symbol.text, label=matrix.symbol.text)
           + f" <span>({rows} × {columns})</span></caption>")
    shown = ShownCells(matrix, full)
    heads = "".join(f'<th scope="col">{escape(label)}</th>' for label in shown.column_labels())
    yield f"<thead><tr><td></td>{heads}</tr></thead>"
    yield "<tbody>"
    name = matrix.symbol.text
    for i, label in zip(shown.rows, shown.row_labels(), strict=True):
        cells = [f'<th scope="row">{escape(label)}</th>']
        for j in shown.columns:
            if i is None or j is None:
                mark = (BOTH_LEFT_OUT if j is None else ROWS_LEFT_OUT) if i is None else (
                    COLUMNS_LEFT_OUT)
                cells.append(f'<td class="attn-gap" aria-hidden="true">{mark}</td>')
                continue
            cells.append(cell(matrix, k, i, j, name, number, by_cell, heat))
        yield "<tr>" + "".join(cells) + "</tr>"
    yield "</tbody></table>"
    note = elided_note(matrix, full, t)
    if note:
        yield f"<figcaption>{escape(note)}</figcaption>"
    if heat:
        legend = t(Msg.of("Heatmap: the deeper the blue, the more weight; a key the mask hides "
                          "is grey."))
        yield f'<figcaption class="attn-legend">{escape(legend)}</figcaption>'
    yield "</figure>"


def cell(matrix: Matrix, k: int, i: int, j: int, name: str, number: NumberFormat,
         by_cell: CellLines, heat: bool) -> str:
    """One number: focusable, named as the text format names it."""
    where = f"{name}[{matrix.rows[i]}, {matrix.columns[j]}]"
    text = number.cell(matrix, i, j)
    style, kind = "", ""
    if heat:
        value = matrix.at(i, j)
        if shows_hidden(matrix, i, j, value):
            kind = " attn-hidden"
        elif math.isfinite(value):
            style = f' style="--w:{min(max(value, 0.0), 1.0):.3f}"'
            kind = " attn-deep" if value > 0.55 else ""
    lines = by_cell.get((k, i, j))
    data = f' data-lines="{" ".join(map(str, lines))}"' if lines else ""
    return (f'<td class="attn-n{kind}" tabindex="0" data-cell="{attr(where)}" data-r="{i}" '
            f'data-c="{j}"{data}{style} aria-label="{attr(where + " = " + text)}">'
            f"{escape(text)}</td>")
