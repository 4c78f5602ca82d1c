"""The written-out arithmetic as data: a formula, the small expression trees of a written-out cell
(Num, Vec, Sum, Product, Quotient, Exp, Tanh,
Difference) and the line that holds one (Expansion).

A dot product's terms are Terms: its two rows of numbers, made into the products `aₖ·bₖ` only
when they are read. A renderer that elides a sum of 768 terms to five makes five; the `=` check
(attncli/arithmetic/exactness.py) works the sum from the rows.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import TYPE_CHECKING, overload

from attncli.i18n.typography import DECIMAL
from attncli.records import record

if TYPE_CHECKING:
    import numpy as np
    from numpy.typing import NDArray

    from attncli.i18n import Msg


@record
class Formula:
    """One formula, as plain text (Unicode) and as LaTeX math; `unit`, the unit of its value,
    is a word of the reader's language (bytes: `B`, in Russian `Б`), so each format writes it
    after the formula (render/common.py formula_text, formula_latex)."""

    text: str
    latex: str
    unit: Msg | None = None
    # the decimals of the spec's numbers it writes (a divisor's `1.41`, a soft cap's `2.5`), with
    # a decimal point: render/decimal_marks.py writes them with the reader's mark
    decimals: tuple[str, ...] = ()

    @classmethod
    def holding(cls, text: str, latex: str, *numbers: str) -> Formula:
        """A formula that writes `numbers` (as constants.py writes a number of the spec) into
        `text` and `latex`: their decimals are kept, so that a decimal comma reaches them."""
        found = (d for number in numbers for d in DECIMAL.findall(number))
        return cls(text, latex, None, tuple(dict.fromkeys(found)))


@record
class Num:
    """A number written into a calculation (-inf for a hidden score); `blank` on a worksheet,
    where it is a number the sheet leaves to the student (printed as a box)."""

    value: float
    blank: bool = False


@record
class Vec:
    """A row of numbers written into a calculation: `[1.00, 0.00]`; on a worksheet, `blank`
    holds the places of the numbers it leaves to the student."""

    values: tuple[float, ...]
    blank: frozenset[int] = frozenset()


@record
class Sum:
    """`a + b + …`; a renderer may elide the middle of a long sum, saying how many terms. A dot
    product's terms are Terms: its two rows, made into products as they are read."""

    terms: tuple[Expr, ...] | Terms


@record
class Product:
    """`a·b·…`; a factor may be a Vec (a number times a value row)."""

    factors: tuple[Expr, ...]


@record
class Quotient:
    """`a / b`."""

    numerator: Expr
    denominator: Expr


@record
class Exp:
    """`e^x`."""

    argument: Expr


@record
class Tanh:
    """`tanh(x)` (the soft-capping of a score)."""

    argument: Expr


@record
class Difference:
    """`a − b` (the max subtraction before e^x)."""

    left: Expr
    right: Expr


Expr = Num | Vec | Sum | Product | Quotient | Exp | Tanh | Difference
Value = float | tuple[float, ...]


@record
class Expansion:
    """One calculation written out, read as `target = symbolic = expression = result`.

    target:     what is computed, e.g. `S[chases, chases]` (None for an unnamed line like `e^0.14`)
    symbolic:   the same with names, e.g. `q_chases·k_chases` (optional)
    expression: the numbers actually used, as a small tree of Num, Vec, Sum, Product, Quotient,
                Exp, Tanh and Difference; every operand is a number of the walkthrough
    result:     a number, or a row of numbers for a weighted sum of value rows
    exact:      True when the expression, evaluated on its operands rounded to the display
                precision (as printed), gives the result as printed; a renderer writes `=` then,
                else `≈`. In hand-calculation mode every line of the forward pass is exact.
    """

    target: Formula | None
    symbolic: Formula | None
    expression: Expr
    result: Value
    exact: bool = True
    blank: bool = False  # a worksheet: the result is printed as a box to fill in

    def repeats_result(self) -> bool:
        """A named line whose numbers are one number that prints as its result (the Σ of a row
        with one visible key, the first tile's ℓ): written `Σ = 2.03`, not `Σ = 2.03 = 2.03`."""
        lone = self.expression
        if isinstance(lone, Sum) and len(lone.terms) == 1:
            lone = lone.terms[0]
        return (self.target is not None and self.symbolic is None and isinstance(lone, Num)
                and self.exact)


class Terms(Sequence[Product]):
    """aₖ·bₖ for k = 1 … len(left): a Sequence equal to the tuple of those Products."""

    __slots__ = ("left", "right")

    def __init__(self, left: NDArray[np.float64], right: NDArray[np.float64]) -> None:
        self.left = left  # (k,)
        self.right = right  # (k,)

    def __len__(self) -> int:
        return len(self.left)

    @overload
    def __getitem__(self, k: int) -> Product: ...
    @overload
    def __getitem__(self, k: slice) -> tuple[Product, ...]: ...

    def __getitem__(self, k: int | slice) -> Product | tuple[Product, ...]:
        if isinstance(k, slice):
            return tuple(self[i] for i in range(*k.indices(len(self))))
        if not -len(self) <= k < len(self):
            raise IndexError(k)
        return Product((Num(float(self.left[k])), Num(float(self.right[k]))))

    def __iter__(self) -> Iterator[Product]:
        for a, b in zip(self.left.tolist(), self.right.tolist(), strict=True):
            yield Product((Num(a), Num(b)))

    def __eq__(self, other: object) -> bool:
        if isinstance(other, (tuple, Terms)):
            return tuple(self) == tuple(other)
        return NotImplemented

    def __hash__(self) -> int:
        return hash(tuple(self))

    def __repr__(self) -> str:
        return f"Terms({tuple(self)!r})"
