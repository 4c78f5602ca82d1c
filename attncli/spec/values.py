"""Reading one value of a spec from its Node: the checks every section shares, and the
SpecError they raise, which names the key path, what was expected and what was found."""

from __future__ import annotations

import datetime
import math
import re
from collections.abc import Callable, Iterable, Sequence
from typing import Any, NoReturn, TypeVar

import numpy as np

from attncli.errors import SpecError
from attncli.i18n import LANGUAGES, Count, Msg, Shape, suggesting
from attncli.i18n.quoting import shown
from attncli.i18n.suggest import closest
from attncli.spec.model import Array
from attncli.spec.source import Node

T = TypeVar("T")


def fail(node: Node, msgid: str, **params: Any) -> NoReturn:
    """Raise a SpecError at `node`; the message starts with its key path."""
    fail_at(node, Msg.of(msgid, **params))


def fail_at(node: Node, problem: Msg) -> NoReturn:
    """Raise a SpecError at `node` with `problem` (a plural message, say) after its key path."""
    if not node.where.path:
        raise SpecError(problem, node.where)
    raise SpecError(Msg.of("{path}: {problem}", path=node.where.path, problem=problem),
                    node.where)


# What YAML 1.1 reads in another base: 017 is octal 15, 1:30 is 90 (base 60). Written in a
# matrix or as a size, either is a number the user did not mean, so it is refused, not read.
_OCTAL = re.compile(r"[-+]?0[0-7_]+").fullmatch
_BASE_60 = re.compile(r"[-+]?[0-9][0-9_]*(?::[0-5]?[0-9])+(?:\.[0-9_]*)?").fullmatch


def describe(node: Node, raw: bool = True) -> Msg:
    """What was found, in words: `the boolean true`, `the text "abc"`, `a list of 3 items`.

    With raw, a scalar is named as it was written (`the number 1e999`); without, as read.
    """
    value = node.value
    written = shown(node.text) if raw and node.text is not None else None
    if isinstance(value, dict):
        # not the `a mapping` of check_keys: what was found and what was expected are
        # different grammatical cases in Polish (znaleziono mapowanie / oczekiwano mapowania)
        return Msg.plural_of("a mapping of {count} key", "a mapping of {count} keys", len(value))
    if isinstance(value, list):
        return Msg.plural_of("a list of {count} item", "a list of {count} items", len(value))
    if value is None:
        return Msg.of("nothing (null)")
    if isinstance(value, bool):
        return Msg.of("the boolean {value}", value=written or str(value).lower())
    if isinstance(value, (int, float)):
        return Msg.of("the number {value}", value=written or repr(value))
    if isinstance(value, (datetime.date, datetime.datetime)):
        return Msg.of("the date {value}", value=written or str(value))
    return Msg.of('the text "{value}"', value=shown(str(value)))


def as_written(node: Node, value: float) -> str | float:
    """A number as the spec wrote it (`5e-324`), for a refusal's "found"; as read where it was
    not written (a default, a file's)."""
    return shown(node.text) if node.text is not None else value


def expect(node: Node, expected: Msg, known: Iterable[str] = ()) -> NoReturn:
    """Refuse `node`: expected this, found that; for a closed set of words (`known`), with the
    one a misspelt word is close to (`mask: casual`: did you mean causal?)."""
    problem = Msg.of("expected {expected}, found {found}", expected=expected,
                     found=describe(node))
    if isinstance(node.value, str):
        problem = suggesting(problem, node.value, known)
    fail_at(node, problem)


def check_keys(node: Node, allowed: Iterable[str]) -> dict[str, Node]:
    """The node's mapping, after refusing unknown keys (with a did-you-mean)."""
    if not isinstance(node.value, dict):
        expect(node, Msg.of("a mapping"))
    allowed = tuple(allowed)
    for key, child in node.value.items():
        if key not in allowed:
            written = Node(key, node.keys.get(key, child.where))  # at the key, not its value
            suggestion = did_you_mean(key, allowed)
            if suggestion:
                fail(written, "unknown key; did you mean {suggestion}?", suggestion=suggestion)
            fail(written, "unknown key; expected one of {allowed}", allowed=", ".join(allowed))
    return dict(node.value)


def did_you_mean(key: str, allowed: tuple[str, ...]) -> str | None:
    """The allowed key closest to `key`, ignoring case, `_` and `-` (`wq` -> `W_Q`)."""

    return closest(key, allowed)


def choice(node: Node, options: tuple[str, ...]) -> str:
    if not isinstance(node.value, str) or node.value not in options:
        expect(node, Msg.of("one of {options}", options=", ".join(options)), options)
    return node.value


def boolean(node: Node) -> bool:
    if not isinstance(node.value, bool):
        expect(node, Msg.of("true or false"))
    return node.value


def in_decimals(node: Node) -> None:
    """Refuse a plain number that YAML 1.1 read in base 8 (`017`) or base 60 (`1:30`)."""
    written = node.text
    if written is None or node.quoted or isinstance(node.value, bool):
        return
    if _OCTAL(written) and int(written.replace("_", ""), 10) != node.value:  # 07 is 7 either way
        fail(node, "expected a decimal number, found {written}, which YAML reads as the octal "
             "number {found}; write it without the leading zeros", written=shown(written),
             found=Count(node.value))
    if _BASE_60(written):
        fail(node, "expected a decimal number, found {written}, which YAML reads in base 60 as "
             "{found}; write the number you mean in decimal notation", written=shown(written),
             found=node.value)


def integer(node: Node, low: int, high: int | None = None) -> int:
    value = node.value
    if isinstance(value, bool) or not isinstance(value, int):
        expect(node, Msg.of("a whole number"))
    in_decimals(node)
    if value < low or (high is not None and value > high):
        found = shown(node.text if node.text is not None else  # a TOML 0x… of 50,000 digits:
                      str(value) if value.bit_length() < 10_000 else hex(value))  # no str()
        if high is None:
            fail(node, "expected a whole number of at least {low}, found {value}",
                 low=low, value=found)
        fail(node, "expected a whole number from {low} to {high}, found {value}",
             low=low, high=high, value=found)
    return value


def number(node: Node) -> float:
    value = node.value
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        expect(node, Msg.of("a number"))
    in_decimals(node)
    if isinstance(value, int) and abs(value) > 2**1023:
        fail(node, "expected a number that fits a 64-bit float, found {found}",
             found=shown(node.text or str(value)))
    if not math.isfinite(value):
        fail(node, "expected a finite number, found {found}", found=shown(node.text or str(value)))
    return float(value)


def text(node: Node) -> str:
    if not isinstance(node.value, str):
        if node.text is not None and not node.quoted and not isinstance(node.value, (dict, list)):
            fail(node, "expected text, found {written}, which YAML reads as {found}; "
                 'write it in quotes: "{written}"', found=describe(node, raw=False),
                 written=shown(node.text))
        expect(node, Msg.of("text"))
    return node.value


def items(node: Node, what: Msg) -> list[Node]:
    if not isinstance(node.value, list):
        expect(node, what)
    if not node.value:
        fail(node, "expected {what}, found an empty list", what=what)
    return list(node.value)


def matrix(node: Node, name: str) -> Array:
    """A non-empty rectangular matrix of finite numbers, as float64."""
    if node.array is not None:  # given as an array: its own copy is made once all is charged
        return node.array  # (rows, width), read-only
    rows = items(node, Msg.of("a matrix (a list of rows of numbers)"))
    width: int | None = None
    cells: list[Sequence[float]] = []
    for row in rows:
        # a row of plain numbers comes converted (source.Node.numbers); any other is read cell by
        # cell, so that a bad cell is named with its line and column
        numbers = row.numbers
        entries = items(row, Msg.of("a row of numbers")) if numbers is None else None
        found = len(entries) if entries is not None else len(() if numbers is None else numbers)
        if width is None:
            width = found
        elif found != width:
            fail_at(row, Msg.plural_of("expected a row of {count} number like the first row, "
                                       "found {found}", "expected a row of {count} numbers like "
                                       "the first row, found {found}", width, found=found))
        cells.append([number(cell) for cell in entries] if entries is not None else
                     () if numbers is None else numbers)
    return np.array(cells, dtype=np.float64)  # (rows, width)


def vector(node: Node) -> Array:
    if node.numbers is not None:
        return np.array(node.numbers, dtype=np.float64)  # (d,)
    entries = items(node, Msg.of("a list of numbers"))
    return np.array([number(cell) for cell in entries], dtype=np.float64)  # (d,)


# Sizes of a shape an error line shows; past them it gives their first and last and their count
# (a .npy header may give thousands: 3,300 of them made a line of 13 KB)
SHOWN_DIMENSIONS = 8


def shape_text(shape: tuple[int | str, ...]) -> Shape | Msg:
    """`shape` for an error line: `3 × 2`, each size grouped as the line's language groups a
    count (`1 × 100 000 000` in Russian); past SHOWN_DIMENSIONS sizes, the first and last four
    and the count of them all (`2 × 2 × 2 × 2 × … × 2 × 2 × 2 × 9 (3,300 dimensions)`)."""
    sizes = Shape(int(s) if not isinstance(s, str) else s for s in shape)
    if len(sizes) <= SHOWN_DIMENSIONS:
        return sizes
    half = SHOWN_DIMENSIONS // 2
    return Msg.plural_of("{shape} ({count} dimension)", "{shape} ({count} dimensions)",
                         Count(len(sizes)), shape=Shape((*sizes[:half], "…", *sizes[-half:])))


def check_shape(node: Node, array: Array, expected: tuple[int, ...], names: str | Msg,
                head: int | None = None) -> None:
    """Refuse `array` unless it has the `expected` shape; `head` names the head of `heads: [...]`
    the array was given for."""
    if array.shape == expected:
        return
    found, wanted = shape_text(array.shape), shape_text(expected)
    if head is None:
        message = Msg.of("{path} is {found}, expected {names} = {expected}",
                         path=node.where.path, found=found, names=names, expected=wanted)
    else:
        message = Msg.of("{path} is {found}, expected {names} = {expected} (head {index})",
                         path=node.where.path, found=found, names=names, expected=wanted,
                         index=head)
    raise SpecError(message, node.where)


def tokens(node: Node) -> tuple[str, ...]:
    entries = items(node, Msg.of("a list of tokens"))
    found = []
    for entry in entries:
        token = text(entry)
        if not token.strip():
            fail(entry, "expected a token, found an empty text")
        found.append(token)
    return tuple(found)


def localized(node: Node) -> dict[str, str]:
    """A text for every language (`"..."`) or per language (`{en: ..., pl: ...}`)."""
    if isinstance(node.value, dict):
        return {lang: text(child) for lang, child in check_keys(node, LANGUAGES).items()}
    return {"": text(node)}


def optional(mapping: dict[str, Node], key: str, read: Callable[[Node], T], default: T) -> T:
    node = mapping.get(key)
    return default if node is None else read(node)
