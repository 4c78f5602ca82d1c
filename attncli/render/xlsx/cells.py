"""What the step writers share: the context they read earlier blocks from, and the formulas of
a matrix product, a residual add and the cells given as numbers."""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field

from attncli.model import Matrix, Step
from attncli.render.common import Translate
from attncli.render.xlsx.grid import HIDDEN, Block, Content, Fill, Formula, Piece, Places
from attncli.spec.model import Spec


@dataclass
class Context:
    """What a step writer reads: the spec (its constants: eps, the scale, the activation), the
    blocks placed so far, and the sheet it writes on."""

    spec: Spec
    places: Places
    t: Translate
    sheet: str = ""
    heads: int = 1
    # a mixture of experts: each expert's rows, as the rows of the layer they are (xlsx/moe.py)
    routed: dict[int, list[int]] = field(default_factory=dict)

    @property
    def row(self) -> bool:
        """The row convention: Q = X·W_Q; else q_i = W_Q·x_i (W_Q is d_k x d_model)."""
        return self.spec.convention == "row"

    def at(self, key: str, i: int, j: int) -> str:
        return self.places[key].cell(i, j, self.sheet)


# a step's blocks, or None: this step keeps attn's numbers as values here
Writer = Callable[[Context, Step], list[Piece] | None]


def number(x: float) -> Content:
    """A number given to the sheet: −∞ (a hidden key, a bias that hides) as text."""
    if x == -math.inf:
        return HIDDEN
    return "NaN" if math.isnan(x) else float(x)


def given(matrix: Matrix) -> Fill:
    """The cells of a matrix attn was given (or read, or drew): numbers a student may edit."""
    values = matrix.whole()
    return lambda i, j: number(float(values[i, j]))


def given_piece(matrix: Matrix, index: int, key: str, *also: str) -> Piece:
    return Piece(key, matrix.symbol.text, matrix.rows, matrix.columns, given(matrix), index,
                 computed=False, also=also)


# A spreadsheet reads a number written in a formula only inside the normal doubles, and Excel
# only below 10³⁰⁸ (a larger one it takes for text): LibreOffice refuses 1e-320 (Err:502).
SMALLEST_NORMAL = 2.0**-1022  # 2.2250738585072014e-308
LARGEST_WRITTEN = 1e308
SHIFT = 64  # a subnormal times 2⁶⁴ is a normal double, exactly


def literal(x: float) -> str:
    """A constant inside a formula, with every digit it has (repr: the shortest exact one); one
    a spreadsheet cannot read as written is the same double as a product of two it can (scaling
    by a power of two is exact): a subnormal eps of 1e-320 is (1.8446538709477686e-301/2^64),
    a sink of 1.7976931348623157e308 is (8.988465674311579e+307*2). Excel, which has no
    subnormals, computes the former as 0."""
    x = float(x)
    if 0.0 < abs(x) < SMALLEST_NORMAL:
        return f"({x * 2.0**SHIFT!r}/2^{SHIFT})"
    if LARGEST_WRITTEN <= abs(x) < math.inf:
        return f"({x / 2.0!r}*2)"
    return repr(x)


def product(ctx: Context, x: Block, i: int, w: Block, j: int) -> str:
    """Entry (i, j) of X·W in the row convention (row i of X times column j of W), or of the
    rows xᵢ times W's row j in the column convention (W stored d_out x d_in)."""
    on = ctx.sheet
    if ctx.row:
        return f"MMULT({x.row_range(i, on)},{w.column_range(j, on)})"
    return f"SUMPRODUCT({x.row_range(i, on)},{w.row_range(j, on)})"


def projected(ctx: Context, x: Block, w: Block, bias: Block | None) -> Fill:
    """(x·W + b)[i, j], one formula a cell."""
    def fill(i: int, j: int) -> Content:
        plus = "" if bias is None else "+" + bias.cell(0, j, ctx.sheet)
        return Formula(f"={product(ctx, x, i, w, j)}{plus}", array=ctx.row)
    return fill


def added(ctx: Context, left: Block, right: Block) -> Fill:
    """left + right, cell by cell (a residual add, E + P)."""
    return lambda i, j: Formula(f"={left.cell(i, j, ctx.sheet)}+{right.cell(i, j, ctx.sheet)}")


def computed(step: Step, index: int, key: str, fill: Fill, *also: str) -> Piece:
    matrix = step.matrices[index]
    return Piece(key, matrix.symbol.text, matrix.rows, matrix.columns, fill, index, also=also,
                 hidden=matrix.hidden if matrix.hidden_by is not None else None)


def find(step: Step, symbol: str) -> int | None:
    """The index of the matrix of `step` called `symbol`."""
    for index, matrix in enumerate(step.matrices):
        if matrix.symbol.text == symbol:
            return index
    return None


def as_given(ctx: Context, step: Step) -> list[Piece]:
    """A step whose numbers the sheet holds as attn computed them (see the note it gets)."""
    return [given_piece(m, index, m.symbol.text) for index, m in enumerate(step.matrices)]
