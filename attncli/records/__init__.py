"""`@record`: attn's immutable data classes (the Spec, the Walkthrough, their parts), made cheaply.

To the type checker `@record` is `@dataclass(frozen=True)`: mypy rejects an assignment to a
field of any record. At run time it is a dataclass with one generated method, `__init__`;
comparison, hash and repr are three functions shared by every record, with what
`dataclass(frozen=True)` would give (fields compared in order, `compare=False` fields left out,
`repr=False` fields not shown). Python 3.11 compiles each generated method of a dataclass when its
module is imported: a frozen dataclass has six (`__init__`, `__repr__`, `__eq__`, `__hash__`,
`__setattr__`, `__delattr__`), about 3.5 million instructions a class, and a plain `attn explain`
defines some sixty of them (docs/performance.md). Even `__init__` is compiled only when the first
instance is made (0.75 million instructions a class): a plain `attn explain` never makes one of
some twenty of the records it defines (the spec sections it does not use), `attn --help` none.
And the class is not passed through `dataclass()` at all: its fields are read here, as
`dataclass` reads them, into the same `Field` objects (so `dataclasses.fields`, `replace` and
`is_dataclass` work on a record), without the three string matches `dataclass` makes of every
annotation to see whether it names `ClassVar`, `InitVar` or `KW_ONLY` (100 microseconds a
class: a plain `attn explain` defines about sixty records).
"""

from __future__ import annotations

import dataclasses
import inspect
from collections.abc import Callable
from dataclasses import MISSING, Field, dataclass, field, fields
from operator import attrgetter
from typing import TYPE_CHECKING, Any, ClassVar, TypeVar, cast

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


def _init_source(cls: type) -> tuple[str, dict[str, Any]]:
    """The text of the `__init__` a dataclass would have (its fields in order, as parameters
    where `init`, keyword-only where `kw_only`; a default factory called for each instance; then
    `__post_init__`), and the names it reads."""
    names: dict[str, Any] = {"_FACTORY": _FACTORY}
    params: list[str] = []
    keywords: list[str] = []
    body: list[str] = []
    for f in fields(cls):
        factory = f.default_factory is not MISSING
        if factory:
            names[f"_factory_{f.name}"] = f.default_factory
        if f.default is not MISSING:
            names[f"_default_{f.name}"] = f.default
        if not f.init:
            if factory or f.default is not MISSING:
                value = f"_factory_{f.name}()" if factory else f"_default_{f.name}"
                body.append(f"self.{f.name} = {value}")
            continue
        default = "=_FACTORY" if factory else (
            f"=_default_{f.name}" if f.default is not MISSING else "")
        (keywords if f.kw_only is True else params).append(f.name + default)
        value = f"_factory_{f.name}() if {f.name} is _FACTORY else {f.name}" if factory else f.name
        body.append(f"self.{f.name} = {value}")
    if hasattr(cls, "__post_init__"):
        body.append("self.__post_init__()")
    signature = ", ".join(["self", *params, *(["*", *keywords] if keywords else [])])
    lines = "\n    ".join(body or ["pass"])
    return f"def __init__({signature}):\n    {lines}\n", names


_FACTORY = object()  # a parameter with a default factory, not given


def _first_init(self: Any, *args: Any, **kwargs: Any) -> None:
    """A record's `__init__` until its first instance: it compiles the real one, puts it in the
    class (the first one in the instance's MRO that is waiting for it), and calls it."""
    owner = next(c for c in type(self).__mro__ if c.__dict__.get("__init__") is _first_init)
    text, names = _init_source(owner)
    exec(text, names)  # the text is made above from the class's own field names
    init = names["__init__"]
    init.__qualname__ = f"{owner.__qualname__}.__init__"
    owner.__init__ = init  # type: ignore[misc]
    init(self, *args, **kwargs)


# What `dataclass` marks a field and a class variable with, and the parameters it keeps of
# `dataclass(eq=False, repr=False, init=False)`, which a record is to the standard library.
_FIELD = getattr(dataclasses, "_FIELD")  # noqa: B009 (not in the type stubs)
_CLASS_VARIABLE = getattr(dataclasses, "_FIELD_CLASSVAR")  # noqa: B009
_PARAMS = vars(dataclass(eq=False, repr=False, init=False)(
    type("Params", (), {"__doc__": "Params"})))["__dataclass_params__"]  # documented: see record
_NOT_FOR_RECORDS = ("InitVar", "KW_ONLY")


def _kind(annotation: object) -> object:
    """Whether a field is one (_FIELD) or a class variable, from its annotation (a string
    under `from __future__ import annotations`: its name before any `[`)."""
    if isinstance(annotation, str):
        head = annotation.split("[", 1)[0].strip().rpartition(".")[2]
    elif annotation is ClassVar or getattr(annotation, "__origin__", None) is ClassVar:
        head = "ClassVar"
    else:
        special = annotation is dataclasses.InitVar or annotation is dataclasses.KW_ONLY \
            or isinstance(annotation, dataclasses.InitVar)
        head = "InitVar" if special else ""
    if head in _NOT_FOR_RECORDS:
        raise TypeError(f"a record has no {head} fields")
    return _CLASS_VARIABLE if head == "ClassVar" else _FIELD


def _own_field(cls: type, name: str, annotation: object) -> Field[Any]:
    """The `Field` of one annotated name of the class, as `dataclass` makes it."""
    default = getattr(cls, name, MISSING)
    made: Any = default if isinstance(default, Field) else field(default=default)
    made.name, made.type = name, annotation
    kind = made._field_type = _kind(annotation)
    if kind is _FIELD:
        if made.kw_only is MISSING:
            made.kw_only = False
        if made.default.__class__.__hash__ is None:
            raise ValueError(f"mutable default {type(made.default)} for field {name} is not "
                             "allowed: use default_factory")
    elif made.default_factory is not MISSING:
        raise TypeError(f"field {name} cannot have a default factory")
    return made


def _as_dataclass(cls: Any) -> None:
    """What `dataclass(eq=False, repr=False, init=False)` makes of the class: its fields (the
    bases' first, in the order of the method resolution), each class attribute that held a
    `field(...)` replaced by its default, and `__match_args__`."""
    every: dict[str, Field[Any]] = {}
    for base in cls.__mro__[-1:0:-1]:
        every.update(base.__dict__.get("__dataclass_fields__", {}))
    annotations = inspect.get_annotations(cls)
    for name, annotation in annotations.items():
        made = every[name] = _own_field(cls, name, annotation)
        if isinstance(cls.__dict__.get(name), Field):
            if made.default is MISSING:
                delattr(cls, name)
            else:
                setattr(cls, name, made.default)
    for name, value in cls.__dict__.items():
        if isinstance(value, Field) and name not in annotations:
            raise TypeError(f"{name!r} is a field but has no type annotation")
    cls.__dataclass_params__ = _PARAMS
    cls.__dataclass_fields__ = every
    if "__match_args__" not in cls.__dict__:
        cls.__match_args__ = tuple(  # type: ignore[misc]
            f.name for f in fields(cls) if f.init and not f.kw_only)


@dataclass_transform(frozen_default=True, field_specifiers=(field, Field))
def record(cls: type[T]) -> type[T]:
    """The class as a dataclass that compares, hashes and prints like a frozen one; methods the
    class writes itself are kept."""
    own_init = "__init__" in cls.__dict__
    if not cls.__doc__:  # documented by its name, where a dataclass writes its signature
        cls.__doc__ = cls.__name__
    made: Any = cls
    _as_dataclass(made)
    if not own_init:
        made.__init__ = _first_init
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
