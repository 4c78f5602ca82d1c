"""One matrix alone (`--matrix A`), to paste into a formula: in LaTeX a bare bmatrix (an array
in brackets beyond amsmath's 10 columns), in Markdown that in a display-math block (a table in
the plain flavor), in text the labelled grid, in JSON its name, labels and values."""

from __future__ import annotations

import json
from collections.abc import Callable

from attncli.arithmetic.numbers import NumberFormat
from attncli.errors import UsageError
from attncli.i18n import Msg
from attncli.model import Matrix, Walkthrough
from attncli.render import RenderOptions
from attncli.render.common import number_format, translator
from attncli.render.json_doc import matrix_doc
from attncli.render.markdown import escape

MAX_MATRIX_COLUMNS = 10  # amsmath's MaxMatrixCols: a wider bmatrix does not compile


def latex_matrix(matrix: Matrix, number: NumberFormat) -> list[str]:
    """`\\begin{bmatrix}` one row per line `\\end{bmatrix}`: every number, as math."""
    math = number.math()
    rows = [" & ".join(row) for row in math.cells(matrix)]  # a hidden key's weight: —
    body = [row + (r" \\" if i < len(rows) - 1 else "") for i, row in enumerate(rows)]
    if len(matrix.columns) <= MAX_MATRIX_COLUMNS:
        return [r"\begin{bmatrix}", *body, r"\end{bmatrix}"]
    return [r"\left[\begin{array}{" + "r" * len(matrix.columns) + "}", *body,
            r"\end{array}\right]"]


def markdown_table(matrix: Matrix, number: NumberFormat) -> list[str]:
    """A GFM table: the row labels in the first column, the column labels as the header."""
    lines = ["| " + " | ".join(["", *(escape(c) for c in matrix.columns)]) + " |",
             "|" + "|".join(["---", *("---:" for _ in matrix.columns)]) + "|"]
    for label, row in zip(matrix.rows, number.cells(matrix), strict=True):
        lines.append("| " + " | ".join([escape(label) or " ", *row])
                     + " |")
    return lines


def markdown(matrix: Matrix, number: NumberFormat, flavor: str) -> list[str]:
    if flavor == "plain":
        return markdown_table(matrix, number)
    fence = ("```math", "```") if flavor == "github" else ("$$", "$$")
    return [fence[0], *latex_matrix(matrix, number), fence[1]]


def json_matrix(matrix: Matrix) -> list[str]:
    """The matrix's JSON document (as in `steps[].matrices[]`), one matrix row a line."""
    def dumps(value: object) -> str:
        return json.dumps(value, ensure_ascii=False, allow_nan=False)

    doc = matrix_doc(matrix)
    rows = doc.pop("values")
    lines = ["{", *(f"  {dumps(k)}: {dumps(v)}," for k, v in doc.items()), '  "values": [']
    lines += [f"    {dumps(row)}" + ("," if i < len(rows) - 1 else "")
              for i, row in enumerate(rows)]
    return [*lines, "  ]", "}"]


def text(matrix: Matrix, walkthrough: Walkthrough, options: RenderOptions) -> list[str]:
    """The labelled grid as `--format text` shows it, without caption or indent."""
    from attncli.render.text import matrix_lines

    number = number_format(walkthrough, options)
    return matrix_lines(matrix, number, translator(options, number), options.width,
                        options.full, indent="", caption=False)


def render_matrix(walkthrough: Walkthrough, matrix: Matrix, format: str,
                  **options: object) -> str:
    """`matrix` of `walkthrough` alone in `format`; UsageError for a format that cannot."""
    base = RenderOptions(**{"md_flavor": walkthrough.md_flavor, **options})  # type: ignore[arg-type]
    number = number_format(walkthrough, base)
    writers: dict[str, Callable[[], list[str]]] = {
        "text": lambda: text(matrix, walkthrough, base),
        "rich": lambda: text(matrix, walkthrough, base),
        "json": lambda: json_matrix(matrix),
        "latex": lambda: latex_matrix(matrix, number),
        "markdown": lambda: markdown(matrix, number, base.md_flavor),
    }
    if format not in writers:
        raise UsageError(Msg.of("--matrix writes {known}, not {format}",
                                known=", ".join(writers), format=format))
    return "\n".join(line.rstrip() for line in writers[format]()) + "\n"
