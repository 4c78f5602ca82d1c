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
from attncli.render.latex_matrix import balanced
from attncli.render.tex_metrics import number_width, text_width

if TYPE_CHECKING:
    from attncli.render.latex_parts import Chunk, Writer

TABCOLSEP = 6.0  # \tabcolsep


def colour(rgb_value: tuple[int, int, int]) -> str:
    return "[RGB]{" + ",".join(str(c) for c in rgb_value) + "}"


def heatmap_chunks(weights: Matrix, hidden: set[tuple[int, int]], w: Writer) -> list[Chunk]:
    """One centred table per block, the legend above the first."""
    number = w.number.math()
    values = weights.whole()  # (n, m)
    n, m = weights.shape
    cell = max([text_width(c) for c in weights.columns] +
               [number_width(number(float(x))) for row in values for x in row] + [10.0])
    label = max((text_width(r) for r in weights.rows), default=0.0)
    room = w.page.width * 0.96 * 10 / w.page.font - label - 2 * TABCOLSEP
    per_block = max(1, int(room // (cell + 2 * TABCOLSEP)))
    chunks: list[Chunk] = []
    for columns in balanced(m, per_block):
        for rows in balanced(n, w.page.rows or max(n, 1)):
            lines = [r"\begin{center}", r"\begin{tabular}{@{}r" + "c" * len(columns) + "@{}}",
                     " & ".join(["", *(w.esc(weights.columns[j]) for j in columns)]) + r" \\"]
            for i in rows:
                cells = ["{}" + w.esc(weights.rows[i])]  # {}: a label "[x]" is not \\[x]
                for j in columns:
                    x = float(values[i, j])
                    if (i, j) in hidden:  # the mask step shows it hidden: no answer given away
                        cells.append(r"\cellcolor" + colour(rgb(float("nan"))) + w.esc(HIDDEN_MARK))
                    elif (i, j) in weights.blank:  # a worksheet: neither colour nor number
                        cells.append("$" + box_math(number) + "$")
                    else:
                        cells.append(r"\cellcolor" + colour(rgb(x)) + r"\textcolor"
                                     + colour(ink(x)) + "{$" + number(x) + "$}")
                lines.append(" & ".join(cells) + r" \\")
            lines += [r"\end{tabular}", r"\end{center}"]
            chunks.append(lines)
    chunks[0] = [r"\noindent " + w.say(LEGEND), *chunks[0]]  # the legend stays with its table
    return chunks
