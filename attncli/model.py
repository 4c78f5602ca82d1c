"""The Walkthrough: what `build` produces and every renderer reads. Data only, but for the few
methods by which it lends its matrices to NumPy code and shows itself in a notebook
(attncli/render/notebook.py)."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from itertools import islice
from typing import TYPE_CHECKING, Any, Literal, TypeVar, overload

import numpy as np
from numpy.typing import NDArray

from attncli.i18n import Msg

if TYPE_CHECKING:
    from attncli.arithmetic.dot_terms import Terms

Array = NDArray[np.float64]
T = TypeVar("T")


class Lazy(Sequence[T]):
    """Items made on demand, again on every pass: `-x all` writes out millions of cells, each
    made as it is written and dropped after, so memory holds none of them (attncli/arithmetic/expand.py)."""

    __slots__ = ("make", "most")

    def __init__(self, make: Callable[[], Iterator[T]], most: int | None = None) -> None:
        self.make = make
        self.most = most  # at most how many it makes, when that is known without making them

    def __iter__(self) -> Iterator[T]:
        return self.make()

    def __bool__(self) -> bool:
        return any(True for _ in self.make())

    def __len__(self) -> int:
        return sum(1 for _ in self.make())

    @overload
    def __getitem__(self, index: int) -> T: ...
    @overload
    def __getitem__(self, index: slice) -> Sequence[T]: ...

    def __getitem__(self, index: int | slice) -> T | Sequence[T]:
        """By position, making the items up to it (a reader's check, not a renderer's path)."""
        if isinstance(index, slice) or index < 0:
            return tuple(self.make())[index]
        for item in islice(self.make(), index, None):
            return item
        raise IndexError(index)

    def __repr__(self) -> str:
        return "Lazy(...)"


@dataclass(frozen=True)
class Formula:
    """One formula, as plain text (Unicode) and as LaTeX math."""

    text: str
    latex: str


@dataclass(frozen=True)
class Matrix:
    """A labelled matrix. A hidden (masked) score is -inf; an undefined weight is NaN.

    A summary (`kept` given) holds only some whole rows of a large matrix: the ones a view that
    elides the middle shows, and the ones written out (see attncli/arithmetic/elision.py). Read it with
    `at` and `row`; `whole` is for formats that show every number.
    """

    symbol: Formula  # its name: Q, K, Sᵀ ...
    values: Array  # (rows, columns); a summary: (len(kept), columns)
    rows: tuple[str, ...]
    columns: tuple[str, ...]
    kept: tuple[int, ...] | None = None  # a summary: which rows `values` holds, ascending
    # a worksheet: the (row, column) cells printed as boxes to fill in (attncli/check/worksheet.py)
    blank: frozenset[tuple[int, int]] = frozenset()
    # attention weights under a mask: the masked scores, −∞ where a key is hidden from a query
    hidden_by: Matrix | None = None
    identity: bool = False  # a projection that is the identity: shown as `W_Q = I` unless --full

    @property
    def shape(self) -> tuple[int, int]:
        return (len(self.rows), len(self.columns))

    def row(self, i: int) -> Array:
        """Row i of the whole matrix (columns,)."""
        return self.values[i if self.kept is None else self.kept.index(i)]

    def at(self, i: int, j: int) -> float:
        return float(self.row(i)[j])

    def hidden(self, i: int, j: int) -> bool:
        """Whether the mask hides key j from query i (its weight is 0 by the mask, not earned)."""
        return self.hidden_by is not None and self.hidden_by.at(i, j) == -np.inf

    def row_indices(self) -> tuple[int, ...] | range:
        """The rows this matrix holds: all of them, or a summary's."""
        return range(len(self.rows)) if self.kept is None else self.kept

    def whole(self) -> Array:
        """Every number (rows, columns); ValueError for a summary."""
        if self.kept is not None:
            raise ValueError(f"{self.symbol.text} holds only some rows: build the walkthrough "
                             "with summary=False for a format that shows every number")
        return self.values


@dataclass(frozen=True)
class Num:
    """A number written into a calculation (-inf for a hidden score)."""

    value: float


@dataclass(frozen=True)
class Vec:
    """A row of numbers written into a calculation: `[1.00, 0.00]`."""

    values: tuple[float, ...]


@dataclass(frozen=True)
class Sum:
    """`a + b + …`; a renderer may elide the middle of a long sum, saying how many terms. A dot
    product's terms are Terms: its two rows, made into products as they are read."""

    terms: tuple[Expr, ...] | Terms


@dataclass(frozen=True)
class Product:
    """`a·b·…`; a factor may be a Vec (a number times a value row)."""

    factors: tuple[Expr, ...]


@dataclass(frozen=True)
class Quotient:
    """`a / b`."""

    numerator: Expr
    denominator: Expr


@dataclass(frozen=True)
class Exp:
    """`e^x`."""

    argument: Expr


@dataclass(frozen=True)
class Difference:
    """`a − b` (the max subtraction before e^x)."""

    left: Expr
    right: Expr


Expr = Num | Vec | Sum | Product | Quotient | Exp | Difference
Value = float | tuple[float, ...]


@dataclass(frozen=True)
class Expansion:
    """One calculation written out, read as `target = symbolic = expression = result`.

    target:     what is computed, e.g. `S[chases, chases]` (None for an unnamed line like `e^0.14`)
    symbolic:   the same with names, e.g. `q_chases·k_chases` (optional)
    expression: the numbers actually used, as a small tree of Num, Vec, Sum, Product, Quotient,
                Exp and Difference; every operand is a number of the walkthrough
    result:     a number, or a row of numbers for a weighted sum of value rows
    exact:      True when the expression, evaluated on its operands rounded to the display
                precision (as printed), gives the result as printed; a renderer writes `=` then,
                else `≈`. In hand-calculation mode every line is exact.
    """

    target: Formula | None
    symbolic: Formula | None
    expression: Expr
    result: Value
    exact: bool = True
    blank: bool = False  # a worksheet: the result is printed as a box to fill in


@dataclass(frozen=True)
class Step:
    """One step of the computation: what it is called, its formula, what it produced."""

    # stable: embeddings, positional, context, parameters, projections, rope, scores, scaled,
    # bias, masked, weights, output (per head); concat, out_projection; residual_1, norm_1, ffn,
    # residual_2, norm_2 (the rest of the layer)
    id: str
    title: Msg
    formula: Formula | None
    matrices: tuple[Matrix, ...]
    head: int | None = None  # 1-based, for steps that belong to one head
    notes: tuple[Msg, ...] = ()
    # cells of this step written out (attncli/arithmetic/expand.py): a Lazy when many may be
    expansions: Sequence[Expansion] = ()
    # 1-based place in the whole walkthrough, kept when only some steps are shown, so that
    # "step 7" on a slide is step 7 of the full example
    number: int = 0


@dataclass(frozen=True)
class HeadResult:
    """The matrices of one head, for the JSON `heads` entries."""

    index: int  # 1-based
    queries: Matrix
    keys: Matrix
    values: Matrix
    scores: Matrix  # the softmax input: scaled and masked (-inf where hidden)
    weights: Matrix
    context: Matrix
    divisor: float = 1.0  # what the scores were divided by (√d_k, rounded in hand calculation)
    # the rows Q and K, V were projected from: X (E + P, or LayerNorm(X) before a pre-norm
    # layer) and the context C with cross-attention; None: the embeddings as given
    query_inputs: Array | None = None  # (n, d_model)
    key_inputs: Array | None = None  # (m, d_model)


@dataclass(frozen=True)
class Header:
    title: dict[str, str]  # language -> text; "" for any
    description: dict[str, str]
    n_queries: int
    n_keys: int
    d_model: int
    d_k: int
    d_v: int
    n_heads: int
    convention: str
    mask: Msg
    scale: Msg
    uniform_heads: bool = True  # every head has the d_k and d_v above
    facts: tuple[Msg, ...] = ()  # more about the example: heads' shapes, positions, W_O, layer


@dataclass(frozen=True)
class Reading:
    """Sentences that say in words what the numbers of one head show (attncli/arithmetic/reading.py)."""

    head: int | None  # None: the only head, or a comparison of all heads
    sentences: Sequence[Msg]  # a Lazy when many: an angle for every written-out score


@dataclass(frozen=True)
class Drift:
    """A printed number that hand calculation got differently from full precision."""

    matrix: str  # the symbol, A or Z
    head: int | None
    row: str
    column: str
    rounded: float  # what carrying rounded numbers gave
    full: float  # the full-precision value


@dataclass(frozen=True)
class Cell:
    """One number of a step's matrix, by the step's number and the matrix's symbol."""

    step: int  # Step.number
    matrix: str
    row: str
    column: str


@dataclass(frozen=True)
class StepError:
    """How far a step computed in a low precision lands from the same step in float64."""

    step: int
    largest: float  # the largest absolute error
    at: Cell
    relative: float | None = None  # the largest relative error, where float64's number is not 0
    relative_at: Cell | None = None


@dataclass(frozen=True)
class Finding:
    """A cell that overflowed (inf), underflowed (0) or became NaN where float64 did not."""

    kind: Literal["overflow", "underflow", "nan"]
    at: Cell
    full: float  # float64's value


@dataclass(frozen=True)
class Verdict:
    """Softmax without a safeguard, for one head: where e^x overflows, a row where every e^x
    underflows to 0, or the largest e^x, which stays finite."""

    head: int | None
    without: Literal["max_subtraction", "scale_and_max_subtraction"]
    outcome: Literal["overflow", "underflow", "finite"]
    at: Cell  # the largest score the query sees (for underflow: of the row that underflows)
    x: float
    exp: float  # e^x in the format: inf, 0 or finite
    count: int = 0  # overflow: how many cells overflow


@dataclass(frozen=True)
class LowPrecisionReport:
    """What a dtype below float64 did: the errors of each step, every finding, the verdicts."""

    dtype: str
    errors: tuple[StepError, ...]
    findings: tuple[Finding, ...]
    verdicts: tuple[Verdict, ...]


@dataclass(frozen=True)
class Walkthrough:
    header: Header
    steps: tuple[Step, ...]
    heads: tuple[HeadResult, ...]
    output: Matrix
    precision: int = 2
    decimal: Literal["dot", "comma"] = "dot"  # the spec's display.decimal
    notes: tuple[Msg, ...] = field(default=())
    round_intermediates: bool = False  # every intermediate was carried rounded to `precision`
    reading: tuple[Reading, ...] = ()
    drift: tuple[Drift, ...] | None = None  # hand calculation only: where it differs from full
    low_precision: LowPrecisionReport | None = None  # a dtype below float64 only
    # how the spec asks to be written (display.header, display.md_flavor); render's options win
    header_shown: bool = True
    md_flavor: str = "github"
    # the language(s) `render` writes when none is given, and a notebook shows ("pl", "pl,en")
    lang: str = "en"

    # --- for notebooks and NumPy users (attncli/render/notebook.py) ---

    def matrix(self, name: str) -> Matrix:
        """The matrix shown as `name`: `"A"` (the weights), `"S′ + M"` or `"S' + M"`, `"W_Q"`,
        `"A:2"` for head 2's; UsageError naming the ones there are when there is none."""
        from attncli.pick import pick

        return pick(self, name)

    def __getitem__(self, name: str) -> Array:
        """The numbers of `matrix(name)` as a new float64 array (rows, columns): `w["A"]`.
        A key the mask hides is -inf in the scores and 0 in the weights."""
        return self.matrix(name).whole().copy()

    def __repr__(self) -> str:
        from attncli.render.notebook import summary

        return summary(self)

    def _repr_markdown_(self) -> str:
        from attncli.render.notebook import markdown

        return markdown(self)

    def _repr_pretty_(self, printer: Any, cycle: bool) -> None:
        from attncli.render.notebook import text

        printer.text(text(self))
