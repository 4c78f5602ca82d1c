"""What a renderer draws of one matrix, kept while the matrix lives.

`attn snippets` writes a spec in every language a manifest names, and a matrix's numbers, labels
and blocks are drawn alike in each: only the sentences around them are translated. A function
decorated `per_matrix` draws a matrix once for each choice of its other arguments (hashable: a
NumberFormat, a flavor, a flag) and returns the same drawing while the matrix lives; the entry
goes when the matrix is collected, so a walkthrough's drawings never outlive it. A matrix of
more than KEPT_CELLS cells is drawn each time: what is held grows with a lecture's examples, not
with a large walkthrough, whose documents are written as they are made.
"""

from __future__ import annotations

import weakref
from collections.abc import Callable, Hashable
from functools import wraps
from typing import Any, TypeVar

R = TypeVar("R")
KEPT_CELLS = 4096  # a 64 x 64 matrix; a 256-token spec's scores are not kept


def kept(matrix: Any) -> bool:
    """Whether `matrix` is small enough for its drawings to be kept."""
    rows, columns = matrix.shape
    return bool(rows * columns <= KEPT_CELLS)


def per_matrix(draw: Callable[..., R]) -> Callable[..., R]:
    """`draw(matrix, *args)`, kept by the matrix's identity and `args`; what it returns must not
    be changed by a caller (a tuple)."""
    memo: dict[tuple[Hashable, ...], tuple[weakref.ref[Any], R]] = {}

    @wraps(draw)
    def drawn(matrix: Any, *args: Hashable) -> R:
        if not kept(matrix):
            return draw(matrix, *args)
        key = (id(matrix), *args)
        found = memo.get(key)
        if found is not None and found[0]() is matrix:
            return found[1]
        value = draw(matrix, *args)

        def forget(_: weakref.ref[Any]) -> None:  # as the matrix is collected: before its id
            memo.pop(key, None)  # can name another object

        memo[key] = (weakref.ref(matrix, forget), value)
        return value

    drawn.memo = memo  # type: ignore[attr-defined]  # read by the tests
    return drawn
