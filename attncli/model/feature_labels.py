"""The labels d1 … d_d of a matrix's d features (Q's columns, W_Q's rows ...), written when read.

A view shows a few of them; held as strings, the labels of d_k = 2,400,000 features took 150 MB,
twice what the queries of three tokens hold, and half a second to write."""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from typing import overload


class FeatureLabels(Sequence[str]):
    """The labels d1 … d_d of d features, as a tuple of them reads (indexed, sliced, counted,
    compared), each written only when it is read."""

    def __init__(self, d: int) -> None:
        self.d = d

    def __len__(self) -> int:
        return self.d

    @overload
    def __getitem__(self, i: int) -> str: ...
    @overload
    def __getitem__(self, i: slice) -> tuple[str, ...]: ...
    def __getitem__(self, i: int | slice) -> str | tuple[str, ...]:
        if isinstance(i, slice):
            return tuple(f"d{j + 1}" for j in range(*i.indices(self.d)))
        if not -self.d <= i < self.d:
            raise IndexError(i)
        return f"d{i % self.d + 1}"

    def index(self, value: object, start: int = 0, stop: int | None = None) -> int:
        """Where `dj` is, found from its number rather than by reading every label."""
        stop = self.d if stop is None else stop
        if isinstance(value, str) and value[:1] == "d" and value[1:].isdecimal():
            j = int(value[1:]) - 1
            if f"d{j + 1}" == value and max(start, 0) <= j < min(stop, self.d):
                return j
        raise ValueError(f"{value!r} is not among the labels")

    def __contains__(self, value: object) -> bool:
        try:
            self.index(value)
        except ValueError:
            return False
        return True

    def __eq__(self, other: object) -> bool:
        if isinstance(other, FeatureLabels):
            return self.d == other.d
        return isinstance(other, tuple) and len(other) == self.d and other == tuple(self)

    def __hash__(self) -> int:
        return hash(tuple(self))  # as the equal tuple's: nothing hashes a matrix's labels

    def __add__(self, other: tuple[str, ...]) -> tuple[str, ...]:
        return (*self, *other)

    def __radd__(self, other: tuple[str, ...]) -> tuple[str, ...]:
        return (*other, *self)

    def positions(self) -> FeaturePositions:
        """Each label's index, as a dict of them would give it."""
        return FeaturePositions(self)

    def __repr__(self) -> str:
        return f"FeatureLabels({self.d})"


class FeaturePositions(Mapping[str, int]):
    """`dj` -> j - 1 for the labels of d features, found from the number in the label."""

    def __init__(self, labels: FeatureLabels) -> None:
        self.labels = labels

    def __getitem__(self, label: str) -> int:
        try:
            return self.labels.index(label)
        except ValueError:
            raise KeyError(label) from None

    def __contains__(self, label: object) -> bool:
        return label in self.labels

    def __iter__(self) -> Iterator[str]:
        return iter(self.labels)

    def __len__(self) -> int:
        return len(self.labels)
