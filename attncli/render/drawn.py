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
from collections.abc import Callable, Hashable, Iterator
from contextlib import contextmanager
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


# --- one walkthrough in several languages (attn snippets): its written-out cells once ---

_SEVERAL = [False]  # set while attn writes each walkthrough in several languages


@contextmanager
def several_languages() -> Iterator[None]:
    """While attn writes each walkthrough it builds in several languages (`attn snippets`),
    what `same_in_every_language` makes is kept; elsewhere it is made each time, so a large
    walkthrough's written-out cells are never all held."""
    before, _SEVERAL[0] = _SEVERAL[0], True
    try:
        yield
    finally:
        _SEVERAL[0] = before


def several() -> bool:
    """Whether attn writes each walkthrough in several languages now (`several_languages`)."""
    return _SEVERAL[0]


def same_in_every_language(make: Callable[..., R]) -> Callable[..., R]:
    """`make(part, t, *args)` (`t` the translator) kept by the part's identity (a step, a
    written-out cell) and `args`, within `several_languages` and only when it said no sentence
    (a shortened sum's "… 60 more terms" is said in each language): the numbers and the
    notation of a written-out cell are the same in every language. What it returns must not be
    changed by a caller."""
    memo: dict[tuple[Hashable, ...], tuple[weakref.ref[Any], R]] = {}

    @wraps(make)
    def made(part: Any, t: Callable[[Any], str], *args: Hashable) -> R:
        if not _SEVERAL[0]:
            return make(part, t, *args)
        key = (id(part), *args)
        found = memo.get(key)
        if found is not None and found[0]() is part:
            return found[1]
        said = []

        def heard(msg: Any) -> str:
            said.append(msg)
            return t(msg)

        value = make(part, heard, *args)
        if not said:
            def forget(_: weakref.ref[Any]) -> None:
                memo.pop(key, None)

            memo[key] = (weakref.ref(part, forget), value)
        return value

    made.memo = memo  # type: ignore[attr-defined]  # read by the tests
    return made
