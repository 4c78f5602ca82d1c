"""`@record`: attn's immutable data classes (the Spec, the Walkthrough, their parts), made cheaply.

To the type checker `@record` is `@dataclass(frozen=True)`: mypy rejects an assignment to a
field of any record. At run time it is a dataclass with one generated method, `__init__`;
comparison, hash and repr are three functions shared by every record, with what
`dataclass(frozen=True)` would give (fields compared in order, `compare=False` fields left out,
`repr=False` fields not shown). Python 3.11 compiles each generated method of a dataclass when its
module is imported: a frozen dataclass has six (`__init__`, `__repr__`, `__eq__`, `__hash__`,
`__setattr__`, `__delattr__`), about 3.5 million instructions a class, and a plain `attn explain`
defines some sixty of them (docs/performance.md).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import Field, dataclass, field, fields
from operator import attrgetter
from typing import TYPE_CHECKING, Any, TypeVar, cast

if TYPE_CHECKING:
    from typing_extensions import dataclass_transform
else:
    def dataclass_transform(**_: object) -> Callable[[Any], Any]:
        return lambda decorator: decorator

__all__ = ["record"]

T = TypeVar("T")


def _values(names: tuple[str, ...]) -> Callable[[object], tuple[Any, ...]]:
    """The values of `names` of an instance, as one tuple (attrgetter of one name gives the bare
    value)."""
    if len(names) == 1:
        one = attrgetter(names[0])
        return lambda obj: (one(obj),)
    return attrgetter(*names) if names else lambda obj: ()


def _eq(self: Any, other: object) -> bool:
    compared = self.__record_compared__
    if other.__class__ is not self.__class__:
        return NotImplemented
    return bool(compared(self) == compared(other))


def _hash(self: Any) -> int:
    return hash(self.__record_hashed__(self))


def _repr(self: Any) -> str:
    shown = ", ".join(f"{name}={getattr(self, name)!r}" for name in self.__record_shown__)
    return f"{type(self).__qualname__}({shown})"


@dataclass_transform(frozen_default=True, field_specifiers=(field, Field))
def record(cls: type[T]) -> type[T]:
    """The class as a dataclass that compares, hashes and prints like a frozen one; methods the
    class writes itself are kept."""
    made: Any = dataclass(eq=False, repr=False)(cls)
    every = fields(made)
    # staticmethod: read through an instance, the getters stay plain functions of it
    made.__record_compared__ = staticmethod(_values(tuple(f.name for f in every if f.compare)))
    made.__record_hashed__ = staticmethod(_values(tuple(
        f.name for f in every if (f.compare if f.hash is None else f.hash))))
    made.__record_shown__ = tuple(f.name for f in every if f.repr)
    own = made.__dict__
    if "__eq__" not in own:
        made.__eq__ = _eq
    if own.get("__hash__") is None:  # None: the class wrote __eq__ without a hash of its own
        made.__hash__ = _hash
    if "__repr__" not in own:
        made.__repr__ = _repr
    return cast("type[T]", made)
