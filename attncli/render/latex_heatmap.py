"""The attention weights as a LaTeX heatmap: a table of coloured cells (xcolor's \\cellcolor,
through colortbl: `\\usepackage[table]{xcolor}`), the number printed in each, hidden keys grey
and marked — (attncli/render/heat.py has the colours); a worksheet's blank cell is white, with the
line to write on. Wide ones are split into balanced column
blocks like the matrices.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from attncli.model import Matrix
from attncli.render.common import box_math
from attncli.render.heat import HIDDEN_MARK, LEGEND, ink, rgb
from attncli.render.latex_matrix import SIZES, balanced, label_lines, label_width, whole_width
from attncli.render.shown_cells import MARKS, ShownCells
from attncli.render.tex import MATH_SYMBOLS
from attncli.render.tex_metrics import number_width

if TYPE_CHECKING:
    from attncli.render.latex_writer import Chunk, Writer

TABCOLSEP = 6.0  # \tabcolsep


def colour(rgb_value: tuple[int, int, int]) -> str:
    return "[RGB]{" + ",".join(str(c) for c in rgb_value) + "}"


def header(label: str, w: Writer) -> str:
    """A column's label over the table: a long one in lines, one over the other."""
    lines = [w.esc(line) for line in label_lines(label)]
    if len(lines) == 1:
        return lines[0]
    # each line in braces: a line that begins with `[` or `*` is not read as an argument of `\\`
    return r"\shortstack{" + r"\\".join("{" + line + "}" for line in lines) + "}"


def heatmap_chunks(weights: Matrix, hidden: set[tuple[int, int]], w: Writer) -> list[Chunk]:
    """One centred table per block, the legend above the first; a large one elided in the
    middle like its matrix (unless --full)."""
    number = w.number.math()
    shown = ShownCells(weights, w.full)
    rows, columns = shown.row_labels(), shown.column_labels()

    def heat(i: int, j: int) -> str:
        x = weights.at(i, j)
        if (i, j) in hidden:  # the mask step shows it hidden: no answer given away
            return r"\cellcolor" + colour(rgb(float("nan"))) + w.esc(HIDDEN_MARK)
        if (i, j) in weights.blank:  # a worksheet: neither colour nor number
            return "$" + box_math(number) + "$"
        return (r"\cellcolor" + colour(rgb(x)) + r"\textcolor" + colour(ink(x)) + "{$"
                + number(x) + "$}")

    cells = shown.cells(heat)
    cell = max([label_width(c) for c in columns] +
               [number_width(number(weights.at(i, j))) for i in shown.rows if i is not None
                for j in shown.columns if j is not None] + [10.0])
    label = max((whole_width(r) for r in rows), default=0.0)
    line = w.line
    need = label + cell + 4 * TABCOLSEP  # one column beside the labels (40-character names)
    size, share = next(((command, ratio) for command, ratio in SIZES if need * ratio <= line),
                       SIZES[-1]) if need > line else ("", 1.0)
    room = line / share - label - 2 * TABCOLSEP
    per_block = max(1, int(room // (cell + 2 * TABCOLSEP)))
    chunks: list[Chunk] = []
    for block in balanced(len(columns), per_block):
        for lines_of in balanced(len(rows), w.page.rows or max(len(rows), 1)):
            lines = [r"\begin{center}" + size, r"\begin{tabular}{@{}r" + "c" * len(block) + "@{}}",
                     " & ".join(["", *(header(columns[j], w) for j in block)]) + r" \\"]
            for i in lines_of:
                row = ["{}" + w.esc(rows[i])]  # {}: a label "[x]" is not \\[x]
                row += [f"${MATH_SYMBOLS[x]}$" if x in MARKS else x
                        for x in (cells[i][j] for j in block)]
                lines.append(" & ".join(row) + r" \\")
            lines += [r"\end{tabular}", r"\end{center}"]
            chunks.append(lines)
    # the legend stays with its table: one box a page never breaks (a center list would let it)
    chunks[0] = [r"\noindent\begin{minipage}{\linewidth}", w.say(LEGEND) + r"\par", *chunks[0],
                 r"\end{minipage}"]
    return chunks
