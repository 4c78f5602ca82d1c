"""How much of a written-out cell is shown: a sum whole up to WHOLE_SUM terms, a longer one as its
first and last terms around a marker and the count of what is left out ("(64 terms, 59 not
shown)"), a row of numbers as its first and last VALUE_EDGE values. A line that leaves a number
out says `≈`: its printed numbers cannot give its result (render/common.py, tex.py,
latex_lines.py).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TypeVar

from attncli.arithmetic.elision import SUM_HEAD, SUM_TAIL, WHOLE_SUM
from attncli.i18n import Msg
from attncli.model import Difference, Exp, Expr, Product, Quotient, Sum, Vec

T = TypeVar("T")

ELLIPSIS = "…"
VALUE_EDGE = 3  # a row of more than 7 numbers is written as its first 3 and last 3


def elide(items: Sequence[T], write: Callable[[int, T], str], full: bool, keep_head: int,
          keep_tail: int, marker: str = ELLIPSIS) -> list[str]:
    """The first and last items written, with `marker` between, unless `full` or there are few;
    the items left out are never written (a sum of 768 terms costs five)."""
    count = len(items)
    if full or count <= keep_head + keep_tail + 1:
        return [write(k, item) for k, item in enumerate(items)]
    tail = range(count - keep_tail, count)
    return [*(write(k, items[k]) for k in range(keep_head)), marker,
            *(write(k, items[k]) for k in tail)]


def sum_terms(items: Sequence[T], write: Callable[[int, T], str], full: bool,
              marker: str = ELLIPSIS) -> list[str]:
    """A sum's terms as written: all of them up to WHOLE_SUM, else the first and last around
    `marker`."""
    return elide(items, write, full or len(items) <= WHOLE_SUM, SUM_HEAD, SUM_TAIL, marker)


def values(items: Sequence[T], write: Callable[[int, T], str], full: bool,
           marker: str = ELLIPSIS) -> list[str]:
    """A row of numbers as written (`[1.00, 0.00, …]`)."""
    return elide(items, write, full, VALUE_EDGE, VALUE_EDGE, marker)


def left_out(count: int) -> Msg:
    """What a shortened sum of `count` terms says after its last term: `(64 terms, 59 not
    shown)`."""
    return Msg.of("({terms}, {hidden})",
                  terms=Msg.plural_of("{count} term", "{count} terms", count),
                  hidden=Msg.plural_of("{count} not shown", "{count} not shown",
                                       count - SUM_HEAD - SUM_TAIL))


def leaves_out(expr: Expr, full: bool) -> bool:
    """Whether the expression as written leaves a number out: a sum of more than WHOLE_SUM
    terms, or a row of more than 2·VALUE_EDGE + 1 numbers, unless `full`. Looks into at most
    WHOLE_SUM terms of a sum, so a line's cost stays what it writes."""
    if full:
        return False
    if isinstance(expr, Sum):
        return len(expr.terms) > WHOLE_SUM or any(leaves_out(e, full) for e in expr.terms)
    if isinstance(expr, Vec):
        return len(expr.values) > 2 * VALUE_EDGE + 1
    if isinstance(expr, Product):
        return any(leaves_out(e, full) for e in expr.factors)
    if isinstance(expr, Quotient):
        return leaves_out(expr.numerator, full) or leaves_out(expr.denominator, full)
    if isinstance(expr, Exp):
        return leaves_out(expr.argument, full)
    if isinstance(expr, Difference):
        return leaves_out(expr.left, full) or leaves_out(expr.right, full)
    return False
