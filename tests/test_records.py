"""`@record` (attncli/records): compared, hashed and printed as `dataclass(frozen=True)` would,
with the standard library's frozen dataclass as the oracle."""

from __future__ import annotations

from dataclasses import dataclass, field, fields, is_dataclass, replace
from typing import ClassVar

import pytest

from attncli.records import record


@record
class Cheap:
    name: str
    size: int = 1
    seen: dict[str, int] = field(default_factory=dict, compare=False)
    note: str = field(default="", repr=False)


@dataclass(frozen=True)
class Oracle:
    name: str
    size: int = 1
    seen: dict[str, int] = field(default_factory=dict, compare=False)
    note: str = field(default="", repr=False)


def test_equality_hash_and_repr_are_a_frozen_dataclasses() -> None:
    pairs = [(("q", 2), ("q", 2)), (("q", 2), ("q", 3)), (("k",), ("q",))]
    for left, right in pairs:
        assert (Cheap(*left) == Cheap(*right)) == (Oracle(*left) == Oracle(*right))
    # a field left out of comparison changes neither equality nor hash
    assert Cheap("q", 2, {"a": 1}) == Cheap("q", 2, {"b": 2})
    assert hash(Cheap("q", 2, {"a": 1})) == hash(Cheap("q", 2)) == hash(Oracle("q", 2))
    assert len({Cheap("q"), Cheap("q"), Cheap("k")}) == 2
    assert repr(Cheap("q", 2, note="x")).replace("Cheap", "Oracle") == repr(Oracle("q", 2))
    assert repr(Cheap("q", 2)) == "Cheap(name='q', size=2, seen={})"


def test_another_class_with_the_same_fields_is_not_equal() -> None:
    assert Cheap("q") != Oracle("q")
    assert Cheap("q").__eq__(Oracle("q")) is NotImplemented


def test_replace_makes_a_new_record() -> None:
    first = Cheap("q", 2)
    second = replace(first, size=3)
    assert (first.size, second.size, second.name) == (2, 3, "q")


@record
class OwnMethods:
    value: float

    def __eq__(self, other: object) -> bool:
        return isinstance(other, OwnMethods) and round(self.value) == round(other.value)

    def __hash__(self) -> int:
        return hash(round(self.value))

    def __repr__(self) -> str:
        return f"≈{round(self.value)}"


def test_methods_a_class_writes_are_kept() -> None:
    assert OwnMethods(1.2) == OwnMethods(0.9)
    assert hash(OwnMethods(1.2)) == hash(1)
    assert repr(OwnMethods(2.6)) == "≈3"


@record
class Made:
    name: str
    rows: list[int] = field(default_factory=list)
    memo: dict[str, int] = field(default_factory=dict, init=False, repr=False, compare=False)
    size: int = field(default=3, kw_only=True)

    def __post_init__(self) -> None:
        self.memo["made"] = len(self.rows)


@dataclass
class MadeOracle:
    name: str
    rows: list[int] = field(default_factory=list)
    memo: dict[str, int] = field(default_factory=dict, init=False, repr=False, compare=False)
    size: int = field(default=3, kw_only=True)

    def __post_init__(self) -> None:
        self.memo["made"] = len(self.rows)


@record
class Child(Made):
    extra: float = 0.5


def state(obj: object) -> dict[str, object]:
    return dict(vars(obj))


def test_init_is_a_dataclasses_made_when_the_first_instance_is() -> None:
    for args, kwargs in [(("q",), {}), (("q", [1, 2]), {"size": 7}), ((), {"name": "k"})]:
        assert state(Made(*args, **kwargs)) == state(MadeOracle(*args, **kwargs))
    first, second = Made("q"), Made("q")
    first.rows.append(1)  # each instance its own list: the factory is called for each
    assert (second.rows, first.memo, second.memo) == ([], {"made": 0}, {"made": 0})
    child = Child("c", [4], size=2, extra=1.5)
    assert (child.name, child.rows, child.size, child.extra, child.memo) == (
        "c", [4], 2, 1.5, {"made": 1})
    assert Made("q", [1]) == Made("q", [1]) and Made("q", size=1) != Made("q", size=2)


def test_wrong_arguments_fail_as_a_dataclasses_do() -> None:
    for call in (lambda: Made(), lambda: Made("q", [], 4), lambda: Made("q", colour=1)):
        with pytest.raises(TypeError):
            call()
        with pytest.raises(TypeError):  # the second call meets the compiled __init__
            call()


@record
class WithClassVariable:
    name: str
    shared: ClassVar[int] = 7
    size: int = field(default=2, compare=False)


@dataclass
class WithClassVariableOracle:
    name: str
    shared: ClassVar[int] = 7
    size: int = field(default=2, compare=False)


def described(cls: type) -> list[tuple[object, ...]]:
    return [(f.name, f.type, f.default, f.default_factory, f.init, f.repr, f.compare, f.kw_only)
            for f in fields(cls)]


def test_fields_are_read_as_dataclass_reads_them() -> None:
    """`@record` reads a class's fields itself: the same Field objects as `dataclass` makes,
    a class variable left out, defaults back on the class, the same `__match_args__`."""
    assert described(Made) == described(MadeOracle)
    assert described(WithClassVariable) == described(WithClassVariableOracle)
    assert [f.name for f in fields(Child)] == ["name", "rows", "memo", "size", "extra"]
    assert (WithClassVariable.shared, WithClassVariable.size, WithClassVariable("q").shared) == (
        7, 2, 7)
    assert "memo" not in Made.__dict__ and "rows" not in Made.__dict__  # factories only
    assert Made.__match_args__ == MadeOracle.__match_args__ == ("name", "rows")
    assert WithClassVariable.__match_args__ == ("name", "size")
    assert is_dataclass(Made) and is_dataclass(Made("q"))


def test_what_dataclass_refuses_a_record_refuses() -> None:
    with pytest.raises(ValueError, match="mutable default"):
        record(type("Listed", (), {"__annotations__": {"rows": "list[int]"}, "rows": []}))
    with pytest.raises(TypeError, match="no type annotation"):
        record(type("Unnamed", (), {"__annotations__": {}, "size": field(default=1)}))
