"""A labelled matrix for pdflatex: its tokens as row labels on the left, column labels above the
bracket, and, when it is wider than the page, balanced column blocks that each fit (8 columns
that need two blocks are 4 + 4, not 7 + 1). Slides also cap the rows of a block.

    \\attncolumn{0}{0.20\\\\0.80\\\\\\text{d1}} ...   (measures column 0: its label and numbers)
    \\begin{equation*}
    \\begin{array}{@{}r@{}r@{\\,}l@{}}
    & & (column labels, each \\attncell{j}{...}, after the width of a left bracket) \\\\
    X = {}\\quad & \\begin{array}{@{}r@{}}\\text{cat} \\\\ ...\\end{array}
        & \\begin{bmatrix} \\attncell{0}{0.20} & ... \\end{bmatrix}
    \\end{array}
    \\end{equation*}

The symbol sits in the row of the bracket, so `b_1 =` is level with a one-row matrix, and every
cell is right-aligned in its column's width (the widest of its label and its numbers, measured by
TeX), so the column labels stand over their numbers.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from attncli.model.latex_text import shown_name
from attncli.records import record
from attncli.render.common import column_blocks
from attncli.render.common import label_lines as lines_of_label
from attncli.render.tex import text_math
from attncli.render.tex_metrics import ARRAYCOLSEP, BRACKET, number_width, text_width

# \attncolumn{j}{entries} measures column j (its label and its numbers) into \attnw<j>;
# \attncell{j}{x} sets x right-aligned in that width, so a label stands over its numbers. Defined
# unless the document has them (a fragment may be \input twice): all a matrix needs beyond amsmath.
CELL_MACROS = "\n".join([
    r"\ifdefined\attnwidth\else\newlength\attnwidth\fi",
    r"\providecommand\attncolumn[2]{\settowidth{\attnwidth}{$\begin{matrix}#2\end{matrix}$}"
    r"\expandafter\edef\csname attnw#1\endcsname{\the\attnwidth}}",
    r"\providecommand\attncell[2]{\makebox[\csname attnw#1\endcsname][r]{$#2$}}",
])
MAX_MATRIX_COLS = 10  # amsmath's default limit for bmatrix


@record
class Page:
    """Where matrices go: the width of a line (pt) at a font size (pt), and at most `rows` rows
    of a matrix at once (None: any number, the page breaks between matrices); a slide also has
    a `height` its pieces are packed into."""

    width: float = 345.0  # article's \textwidth at 10 pt
    font: float = 10.0
    rows: int | None = None
    height: float | None = None  # a frame's room below its title; None: pages break by themselves

    def fits(self, points_at_10pt: float) -> bool:
        return points_at_10pt * self.font / 10 <= self.width * 0.96


@record
class Block:
    """The rows and columns of a matrix shown together."""

    rows: range
    columns: range


def symbol_width(symbol: str) -> float:
    """`W_1 = `: the symbol's letters and the equals sign with its spaces."""
    return text_width(symbol) * 1.1 + 23.0


def cell(column: int, content: str) -> str:
    return r"\attncell{" + str(column) + "}{" + content + "}"


# LaTeX's smaller sizes, for a matrix whose one column and row labels are wider than the line,
# and the share of the body's width a label or a number takes in each: more than the share of
# the point size, since a smaller design size is drawn wider (\tiny: 5 pt of an article's 10,
# 6 of Beamer's 11, yet 0.70 of the width). Measured in both by tests/test_tex_metrics.py.
SIZES = ((r"\small", 0.93), (r"\footnotesize", 0.86), (r"\scriptsize", 0.81), (r"\tiny", 0.71))


def label_lines(label: str) -> list[str]:
    """A label's lines as LaTeX sets them: a word too long for any line shortened first, as
    text_math writes it (model/latex_text.py shown_name)."""
    return lines_of_label(shown_name(label))


def label_width(label: str) -> float:
    return max(text_width(line) for line in label_lines(label))


def whole_width(label: str) -> float:
    """A label on one line, as text_math writes it."""
    return text_width(shown_name(label))


def column_label(label: str, cyrillic_base: bool = False) -> str:
    """A column label as math: a long one as a column of its lines."""
    lines = [text_math(line, "latex", cyrillic_base) for line in label_lines(label)]
    if len(lines) == 1:
        return lines[0]
    return r"\begin{matrix}" + r"\\".join(lines) + r"\end{matrix}"


def _widths(cells: Sequence[Sequence[str]], columns: Sequence[str]) -> list[float]:
    return [max([label_width(columns[j])] + [number_width(row[j]) for row in cells]) +
            2 * ARRAYCOLSEP for j in range(len(columns))]


def _fixed(symbol: str, rows: Sequence[str], wrap: bool = False) -> float:
    """The symbol, the row labels (whole, or their widest line) and the brackets."""
    width = label_width if wrap else whole_width
    return symbol_width(symbol) + max((width(r) for r in rows), default=0) + 2 + 2 * BRACKET


def _room(page: Page) -> float:
    return page.width * 0.96 * 10 / page.font + 2 * ARRAYCOLSEP


def wraps(symbol: str, cells: Sequence[Sequence[str]], rows: Sequence[str],
          columns: Sequence[str], page: Page) -> bool:
    """Whether the row labels are set in lines (label_lines, as the column labels always are):
    only when whole ones leave no room for even the widest column at the body's size."""
    need = _fixed(symbol, rows) + max(_widths(cells, columns), default=0.0)
    return need > _room(page) and any(len(label_lines(r)) > 1 for r in rows)


def row_lines(rows: Sequence[str], wrap: bool) -> list[int]:
    """The lines each row takes: its label's when the labels are set in lines, else one."""
    return [len(label_lines(r)) if wrap else 1 for r in rows]


def fitting_size(symbol: str, cells: Sequence[Sequence[str]], rows: Sequence[str],
                 columns: Sequence[str], page: Page) -> tuple[str, float]:
    """The size a matrix is set in and its share of the body's: the body's own, or, when even
    its widest column beside the row labels (in lines where `wraps`) is wider than the line,
    the largest smaller size at which it fits."""
    wrap = wraps(symbol, cells, rows, columns, page)
    need = _fixed(symbol, rows, wrap) + max(_widths(cells, columns), default=0.0)
    if need <= _room(page):
        return "", 1.0
    return next((size for size in SIZES if need * size[1] <= _room(page)), SIZES[-1])


def blocks(symbol: str, cells: Sequence[Sequence[str]], rows: Sequence[str],
           columns: Sequence[str], page: Page) -> list[Block]:
    """Balanced blocks of the matrix that each fit `page` (at the size `fitting_size` gives):
    as few column blocks as fit, of nearly equal size, and as few row blocks as `page.rows`
    allows."""
    m = len(columns)
    widths = _widths(cells, columns)
    _, share = fitting_size(symbol, cells, rows, columns, page)
    wrap = wraps(symbol, cells, rows, columns, page)
    room = (page.width * 0.96 * 10 / page.font) / share - _fixed(symbol, rows, wrap) \
        + 2 * ARRAYCOLSEP
    # as few blocks as fit: even in size when that fits, else filled in order (long labels)
    column_ranges = column_blocks([math.ceil(w) for w in widths], max(math.floor(room), 1))
    for count in range(1, len(column_ranges) + 1):
        even = balanced(m, math.ceil(m / count))
        if all(sum(widths[j] for j in block) <= room for block in even):
            column_ranges = even
            break
    lines = row_lines(rows, wrap)
    row_ranges = row_blocks(lines, page.rows or max(sum(lines), 1))
    return [Block(r, c) for c in column_ranges for r in row_ranges]


def balanced(count: int, most: int) -> list[range]:
    """`count` items in consecutive ranges of at most `most`, as few and as even as can be."""
    parts = max(1, math.ceil(count / max(most, 1)))
    size, extra = divmod(count, parts)
    out, start = [], 0
    for i in range(parts):
        stop = start + size + (1 if i < extra else 0)
        out.append(range(start, stop))
        start = stop
    return out


def row_blocks(lines: Sequence[int], most: int) -> list[range]:
    """Rows in consecutive ranges of at most `most` lines (a row of a long label takes several;
    a taller row alone): as few as filling them in order gives, of nearly equal size when that
    fits too."""
    filled = column_blocks(list(lines), most)  # filled in order, as column blocks are
    even = balanced(len(lines), math.ceil(len(lines) / len(filled)))
    return even if all(sum(lines[i] for i in r) <= most for r in even) else filled


def matrix_latex(symbol: str, cells: Sequence[Sequence[str]], rows: Sequence[str],
                 columns: Sequence[str], cyrillic_base: bool = False,
                 widths: Sequence[Sequence[str]] | None = None, size: str = "",
                 wrap: bool = False) -> list[str]:
    """The lines of one labelled matrix (one block) as an equation*; `cells` are math. Columns
    are sized from `widths` (the cells with a number in place of a worksheet's blank, as
    `blocks` measured them; default: `cells`), so a sheet and its key size them alike. With
    `wrap` (see `wraps`), a long row label is one row of the labels' array per line, its
    numbers beside the first and an empty row of the bracket beside each further line, so the
    two arrays keep the same rows."""
    sizing = cells if widths is None else widths
    lines_of = [label_lines(r) if wrap else [r] for r in rows]
    row_labels = [text_math(line, "latex", cyrillic_base) for r in lines_of for line in r]
    labels = [column_label(c, cyrillic_base) for c in columns]
    height = r"\vphantom{\begin{matrix}" + r"\\".join("0" for _ in row_labels) \
        + r"\end{matrix}}"
    lines = [r"\attncolumn{" + str(j) + "}{" + r"\\".join(
        sorted({label} | {row[j] for row in sizing})) + "}" for j, label in enumerate(labels)]
    if len(columns) > MAX_MATRIX_COLS:
        lines.append(r"\setcounter{MaxMatrixCols}{" + str(len(columns)) + "}")
    lines += [
        r"\begin{equation*}",
        r"\begin{array}{@{}r@{}r@{\,}l@{}}",
        r"& & \hphantom{\left[" + height + r"\right.}\begin{matrix}"
        + " & ".join(cell(j, label) for j, label in enumerate(labels)) + r"\end{matrix} \\",
        symbol + r" = {}\quad & \begin{array}{@{}r@{}}" + r" \\ ".join(row_labels)
        + r"\end{array} & \begin{bmatrix}",
    ]
    for i, row in enumerate(cells):
        end = r" \\" if i < len(cells) - 1 else ""
        more = [r" \\ {}"] * (len(lines_of[i]) - 1) if i < len(lines_of) else []
        lines.append(" & ".join(cell(j, x) for j, x in enumerate(row)) + "".join(more) + end)
    lines += [r"\end{bmatrix}", r"\end{array}", r"\end{equation*}"]
    if size:  # a smaller size for the whole matrix, its measures included
        return [r"\begingroup" + size, *lines, r"\par\endgroup"]
    return lines
