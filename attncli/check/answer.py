"""A student's answer: which matrix, and every number as it was written.

An answer is typed like a calculator's matrix (`"1 0 0; 0.35 0.65 0"`: numbers separated by
spaces or commas, rows by `;` or line breaks; with spaces between the numbers, a decimal
comma as attn prints it with --decimal-comma: `"1 0; 0,35 0,65"`) or written in a YAML/JSON
file that maps step ids to matrices (`weights: [[1, 0], [0.35, 0.65]]`, or the same calculator
text). Each number keeps its text, because the precision a student wrote (how many decimals) is
the precision the answer is checked at.
"""

from __future__ import annotations

import math
import re
from dataclasses import replace
from decimal import Decimal, InvalidOperation
from functools import cached_property
from typing import TYPE_CHECKING

from attncli.check.answer_file import of_the_answer_file
from attncli.errors import Location, SpecError
from attncli.i18n import Count, Msg
from attncli.i18n.quoting import shown
from attncli.records import record
from attncli.spec.inline import DECIMAL_COMMA, as_e_notation, comma_is_decimal
from attncli.spec.limits import DEFAULT_MAX_CELLS, max_bytes
from attncli.spec.source import Node, parse, read_text
from attncli.spec.values import describe

if TYPE_CHECKING:
    import numpy as np

# What a person may write for a hidden score, besides plain numbers.
_SPECIAL = {"-inf": float("-inf"), "−∞": float("-inf"), "-∞": float("-inf"), "-.inf": float("-inf"),
            "inf": float("inf"), "∞": float("inf"), ".inf": float("inf")}
# a number as most answers write it: at most 15 decimals (MAX_DECIMALS), no exponent, no spaces
_PLAIN = re.compile(r"-?[0-9]{1,300}(?:\.([0-9]{1,15}))?").fullmatch
_NUMBER = re.compile(r"[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?").fullmatch
# a number as attn writes one of a million or more, m × 10^k with its exponent in superscripts
# (`1.23×10²⁰`, `1,23×10²⁰` with a decimal comma), is read as 1.23e20 (numbers.as_e_notation)
# and checked at its own place
FILE_SUFFIXES = (".yaml", ".yml", ".json")
# No walkthrough holds NaN, so a NaN written is bad input (as in a JSON answer file), never a
# wrong number; more decimals than a float carries, or a number no float holds, is too.
MAX_DECIMALS = 15
STEP_OPTION, HEAD_OPTION = Location("--step"), Location("--head")
EXAMPLE = '"weights: [[1, 0], [0.35, 0.65]]"'  # a spec key, never translated


@record
class Written:
    """One number of an answer: its text, its value and how many decimals it was written with;
    a number written with an exponent counts its place as decimals too (`1.23e20` is written to
    the 10^18 place: -18), so it is checked at the precision its mantissa shows."""

    text: str
    value: float
    decimals: int


@record
class Answer:
    """The matrix a student gives for one step (of one head)."""

    step: str
    cells: tuple[tuple[Written, ...], ...]  # (rows, columns)
    where: Location
    head: int | None = None  # 1-based; None: not said
    # where the step and the head were named: the options, or the keys of an answer file
    step_where: Location = STEP_OPTION
    head_where: Location = HEAD_OPTION

    @property
    def shape(self) -> tuple[int, int]:
        return (len(self.cells), len(self.cells[0]))

    @cached_property
    def values(self) -> np.ndarray:
        """Every number's value, (rows, columns), read once for every slip compared."""
        import numpy as np  # a verdict compares arrays; reading an answer needs none

        return np.array([[cell.value for cell in row] for row in self.cells])

    @cached_property
    def places(self) -> np.ndarray:
        """Every number's decimals (see Written), (rows, columns)."""
        import numpy as np

        return np.array([[cell.decimals for cell in row] for row in self.cells])

    @property
    def decimals(self) -> int:
        """The most decimals any number was written with: the precision the student works at
        (0 for an answer of whole numbers or numbers written with a positive exponent)."""
        return max(0, max(cell.decimals for row in self.cells for cell in row))


def written(text: str, where: Location) -> Written:
    """`0.35` (or `0,35`) -> 0.35 written with 2 decimals; `−∞` -> -inf; SpecError for anything
    else. The text is kept as it was written."""
    plain = _PLAIN(text)
    if plain is not None:  # most of an answer: no Decimal needed (float() rounds as it does)
        value = float(text)
        if math.isfinite(value):
            return Written(text, value, len(plain.group(1) or ""))
    word = as_e_notation(text.strip()) if text.strip() != "−∞" else "−∞"
    if DECIMAL_COMMA.fullmatch(word):
        word = word.replace(",", ".")
    special = _SPECIAL.get(word.lower())
    if special is not None:
        return Written(text.strip(), special, 0)
    if not _NUMBER(word):
        raise SpecError(Msg.of("expected a number, found {found}", found=quoted(text)), where)
    try:
        exact = Decimal(word)
    except InvalidOperation:  # an exponent of 19 digits or more, past what Decimal holds
        exact = _past_decimal(word, text, where)
    exponent = exact.as_tuple().exponent
    assert isinstance(exponent, int)
    if -exponent > MAX_DECIMALS:  # 1e-999999999 has 999,999,999 decimals to round to
        raise SpecError(Msg.plural_of(
            "{found} has {count} decimal; an answer is checked to at most {limit}",
            "{found} has {count} decimals; an answer is checked to at most {limit}",
            Count(-exponent), found=quoted(text), limit=MAX_DECIMALS), where)
    value = float(exact)
    if math.isinf(value):
        raise SpecError(Msg.of("{found} is larger than any number attn computes with (about "
                               "1.8e308)", found=quoted(text)), where)
    return Written(text.strip(), value, -exponent)  # 1.23e20: -18, the place of its last digit


def _past_decimal(word: str, text: str, where: Location) -> Decimal:
    """A number whose exponent Decimal cannot hold (`0e99999999999999999999`): a zero checked
    at its place as `0e999999999999999999` is (every number attn computes rounds to 0 there);
    else refused as larger than any double, or as having more decimals than an answer is
    checked to."""
    mantissa, _, power = word.lower().partition("e")
    if not power.startswith("-"):
        if not mantissa.strip("+-.0"):
            return Decimal("0e999999999999999999")
        raise SpecError(Msg.of("{found} is larger than any number attn computes with (about "
                               "1.8e308)", found=quoted(text)), where)
    raise SpecError(Msg.of("{found} has more decimals than an answer is checked to (at most "
                           "{limit})", found=quoted(text), limit=MAX_DECIMALS), where)


def quoted(text: str) -> str:
    """`text` as every refusal quotes a value: a long one by its ends around an ellipsis."""
    return shown(text.strip())


def from_text(text: str, step: str, where: Location, head: int | None = None) -> Answer:
    """An answer in calculator notation; SpecError naming the row for a ragged one."""
    lines = [part for part in re.split(r"[;\n]", text)]
    if len(lines) > 1 and not lines[-1].strip():
        lines = lines[:-1]  # a trailing semicolon or line break
    decimal_comma = comma_is_decimal(lines, where)
    rows: list[tuple[Written, ...]] = []
    for r, line in enumerate(lines, start=1):
        entries = line.split() if decimal_comma else line.replace(",", " ").split()
        if not entries:
            raise SpecError(Msg.of("row {row} is empty; write numbers separated by spaces and "
                                   'rows separated by ";", like "1 0; 0 1"', row=r), where)
        if rows and len(entries) != len(rows[0]):
            raise SpecError(Msg.plural_of("row {row} has {count} number, expected {expected}",
                                          "row {row} has {count} numbers, expected {expected}",
                                          len(entries), row=r, expected=len(rows[0])), where)
        rows.append(tuple(written(entry, where) for entry in entries))
    return Answer(step, tuple(rows), where, head)


def from_file(path: str, max_cells: int = DEFAULT_MAX_CELLS) -> tuple[Answer, ...]:
    """Every answer in a YAML/JSON file: `{head: 2, weights: ..., output: ...}`, in file order."""
    try:
        name, text = read_text(path, max_cells, max_bytes(max_cells))  # 4 bytes a number
        root = parse(name, text, max_cells)
    except SpecError as error:
        raise of_the_answer_file(error) from None
    if not isinstance(root.value, dict) or not root.value:
        raise SpecError(Msg.of("expected a mapping of step ids to matrices, like {example}",
                               example=EXAMPLE), root.where)
    head, head_where = None, HEAD_OPTION
    answers = []
    for key, node in root.value.items():
        if key == "head":
            head, head_where = _head(node), node.where
            continue
        answers.append(replace(_matrix(node, key), step_where=root.keys.get(key, node.where)))
    if not answers:
        raise SpecError(Msg.of("expected a mapping of step ids to matrices, like {example}",
                               example=EXAMPLE), root.where)
    return tuple(replace(a, head=head, head_where=head_where) for a in answers)


def _head(node: Node) -> int:
    value = node.value
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise SpecError(Msg.of("{path}: expected a head number (1, 2, ...), found {found}",
                               path=node.where.path, found=describe(node)), node.where)
    return value


def _matrix(node: Node, step: str) -> Answer:
    if isinstance(node.value, str):
        return from_text(node.value, step, node.where)
    rows = node.value
    if not isinstance(rows, list) or not rows or not all(isinstance(r.value, list) and r.value
                                                          for r in rows):
        raise SpecError(Msg.of("{path}: expected a matrix: a list of rows of numbers, or text "
                               'like "1 0; 0.35 0.65"', path=node.where.path), node.where)
    cells: list[tuple[Written, ...]] = []
    for r, row in enumerate(rows, start=1):
        if cells and len(row.value) != len(cells[0]):
            raise SpecError(Msg.plural_of("{path}: row {row} has {count} number, expected "
                                          "{expected}", "{path}: row {row} has {count} numbers, "
                                          "expected {expected}", len(row.value),
                                          path=node.where.path, row=r, expected=len(cells[0])),
                            row.where)
        cells.append(tuple(_number(cell) for cell in row.value))
    return Answer(step, tuple(cells), node.where)


def _number(node: Node) -> Written:
    value = node.value
    if isinstance(value, bool) or not isinstance(value, (int, float, str)):
        raise SpecError(Msg.of("{path}: expected a number, found {found}", path=node.where.path,
                               found=node.text or describe(node)), node.where)
    try:
        return written(node.text if node.text is not None else str(value), node.where)
    except SpecError as error:
        raise SpecError(Msg.of("{path}: {problem}", path=node.where.path, problem=error.message),
                        node.where) from None


def is_file(answer: str) -> bool:
    """Whether --answer names a file (by its suffix, or `-` for standard input)."""
    return answer == "-" or answer.lower().endswith(FILE_SUFFIXES)
