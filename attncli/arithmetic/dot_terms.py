"""The terms of a dot product Σₖ aₖ·bₖ as a written-out cell holds them: its two rows of numbers,
made into the products `aₖ·bₖ` only when they are read. A renderer that elides a sum of 768
terms to five makes five; the `=` check (attncli/arithmetic/exactness.py) works the sum from the rows.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import TYPE_CHECKING, overload

from attncli.model import Num, Product

if TYPE_CHECKING:
    import numpy as np
    from numpy.typing import NDArray


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
