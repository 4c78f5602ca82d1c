"""A spec from command-line options, for using attn as a calculator without a file.

Matrices are written the way people type them into calculators: numbers separated by spaces (or
commas), rows by semicolons: `"1 0; 0.2 1; 0.8 0"`. With spaces between the numbers, a comma
inside a number is a decimal comma, as Polish and Russian users type: `"0,5 1; 1 0,25"` is 2 × 2.
A form that could be read either way (`"1,5; 2,5"`, `"1, 0,5"`) is an error. The notation is
checked here, so an error names the option (`--embeddings: row 2 has 3 numbers, expected 2`); the
result is the same Node tree a spec file gives, so every other check, and every other error, is
the spec file's own, with the option in place of the file name.
"""

from __future__ import annotations

import math
import re

from attncli.errors import Location, SpecError, UsageError
from attncli.i18n import PLAIN_DIGITS, Msg
from attncli.spec.limits import DEFAULT_MAX_CELLS
from attncli.spec.model import Spec
from attncli.spec.parse import load
from attncli.spec.source import Node
from attncli.spec.view import Inline

SOURCE = "attn explain"


OPTIONS = {"tokens": "--tokens", "embeddings": "--embeddings", "mask": "--mask", "W_Q": "--wq",
           "W_K": "--wk", "W_V": "--wv", "scale": "--scale"}


def _fail(option: str | Location, msgid: str, **params: str | int) -> SpecError:
    where = option if isinstance(option, Location) else Location(option)
    return SpecError(Msg.of(msgid, **params), where)


# a decimal comma, also in m × 10^k as attn writes a number of a million or more (`1,23×10²⁰`)
DECIMAL_COMMA = re.compile(r"[+\-−]?[0-9]+,[0-9]+(?:[eE][+-]?[0-9]+|×10[⁻⁺]?[⁰¹²³⁴⁵⁶⁷⁸⁹]+"
                           r"|[×*·x]10\^(?:[+\-−]?[0-9]+|\([+\-−]?[0-9]+\)|\{[+\-−]?[0-9]+\}))?")
_POWER = re.compile(r"([^×]+)×10([⁻⁺]?[⁰¹²³⁴⁵⁶⁷⁸⁹]+)").fullmatch
# m × 10^k as a person types it on one line: `1.2×10^-3`, `1.2*10^(-3)`, `1,2·10^{-3}` (TeX's
# braces), `10^-3` alone; m and k without spaces, as every number of a matrix is
CARET = re.compile(r"(?:([^×*·x^]+)([×*·x]))?10\^(?:([+-]?[0-9]+)|\(([+-]?[0-9]+)\)"
                   r"|\{([+-]?[0-9]+)\})").fullmatch


def as_e_notation(text: str) -> str:
    """A number as attn writes it, with a minus sign (U+2212) and m × 10^k's exponent in
    superscripts (`−1.23×10²⁰`, `1,23×10²⁰` with a decimal comma), or typed with a caret
    (`1.23×10^20`, `1.23*10^(-3)`, `10^-3`), in the notation float() and Decimal() read
    (`-1.23e20`; the comma left for the caller to decide on); other text with its minus signs
    made ASCII."""
    word = text.replace("−", "-")
    power = _POWER(word)
    if power is not None:
        return power.group(1) + "e" + power.group(2).translate(PLAIN_DIGITS)
    caret = CARET(word)
    if caret is None:
        return word
    m, _times, *exponents = caret.groups()
    return (m or "1") + "e" + next(k for k in exponents if k is not None)


def number(text: str, option: str, path: str) -> Node:
    word = as_e_notation(text)  # −1,00×10⁶ as attn prints it reads back
    try:
        if not word.isascii() or "_" in word:  # float() reads ٣ as 3 and 1_000 as 1000: not here
            raise ValueError(word)
        value = float(word.replace(",", ".") if DECIMAL_COMMA.fullmatch(word) else word)
    except ValueError:
        raise _fail(option, "expected a number, found {found}", found=text) from None
    if not math.isfinite(value):
        raise _fail(option, "expected a finite number, found {found}", found=text)
    return Node(value, Location(option, path), text)


def matrix(text: str, option: str, path: str) -> Node:
    """`"1 0; 0.2 1"` as a Node list of rows; rows are separated by `;`, numbers by spaces."""
    parts = text.split(";")
    if len(parts) > 1 and not parts[-1].strip():
        parts = parts[:-1]  # a trailing semicolon
    decimal_comma = comma_is_decimal(parts, option)
    rows: list[Node] = []
    width: int | None = None
    for r, part in enumerate(parts, start=1):
        entries = part.split() if decimal_comma else part.replace(",", " ").split()
        if not entries:
            raise _fail(option, "row {row} is empty; write numbers separated by spaces and rows "
                        'separated by ";", like "1 0; 0 1"', row=r)
        if width is None:
            width = len(entries)
        elif len(entries) != width:
            raise SpecError(Msg.plural_of("row {row} has {count} number, expected {expected}",
                                          "row {row} has {count} numbers, expected {expected}",
                                          len(entries), row=r, expected=width),
                            Location(option))
        row_path = f"{path}[{r - 1}]"
        rows.append(Node([number(e, option, f"{row_path}[{c}]") for c, e in enumerate(entries)],
                         Location(option, row_path)))
    return Node(rows, Location(option, path))


def comma_is_decimal(rows: list[str], option: str | Location) -> bool:
    """Whether the commas of a matrix are decimal commas (`0,5 1; 1 0,25`) or separate numbers
    (`1,0; 0,1`, `1, 0`); SpecError at `option` (an option's name or a place in a file) when
    it could be either. Every matrix a person types goes through here: a spec's inline form
    and an answer to `attn check`, so a number attn prints with a decimal comma reads back."""
    entries = [row.split() for row in rows]
    with_comma = [e for row in entries for e in row if "," in e]
    if not with_comma:
        return False
    decimals = [e for e in with_comma if DECIMAL_COMMA.fullmatch(e)]
    spaced = any(len(row) > 1 for row in entries)
    if decimals and (not spaced or len(decimals) < len(with_comma)):
        raise _fail(option, "{found} could be read with a decimal comma or with commas between "
                    'numbers; separate numbers by spaces and rows by ";", like "0,5 1; 1 0,25" '
                    'or "0.5 1; 1 0.25"', found=decimals[0])
    return bool(decimals)


def tokens(text: str) -> Node:
    words = text.split()
    if not words:
        raise _fail("--tokens", "expected tokens separated by spaces, found nothing")
    return Node([Node(w, Location("--tokens", f"tokens[{i}]"), w, True)
                 for i, w in enumerate(words)], Location("--tokens", "tokens"))


def word_or_matrix(text: str, option: str, path: str, words: tuple[str, ...]) -> Node:
    word = text.strip()
    if word in words:
        return Node(word, Location(option, path), word)
    if word.isalpha():
        raise _fail(option, 'expected {words} or a matrix like "1 0; 0 1", found {found}',
                    words=", ".join(words), found=word)
    return matrix(text, option, path)


def word_or_number(text: str, option: str, path: str, words: tuple[str, ...]) -> Node:
    if text.strip() in words:
        return Node(text.strip(), Location(option, path), text.strip())
    return number(text.strip(), option, path)


def inline_spec(given: Inline, max_cells: int = DEFAULT_MAX_CELLS) -> Spec:
    """The Spec the options describe; SpecError naming the option for bad input."""
    if given.tokens is None or given.embeddings is None:
        missing = "--tokens" if given.tokens is None else "--embeddings"
        raise UsageError(Msg.of("{missing} is needed to describe a spec without a file",
                                missing=missing))
    top: dict[str, Node] = {
        "tokens": tokens(given.tokens),
        "embeddings": matrix(given.embeddings, "--embeddings", "embeddings"),
    }
    weights = {key: word_or_matrix(text, OPTIONS[key], f"weights.{key}", ("identity",))
               for key in ("W_Q", "W_K", "W_V")
               if (text := getattr(given, key)) is not None}
    if weights:
        top["weights"] = Node(weights, Location(SOURCE, "weights"))
    if given.mask is not None:
        top["mask"] = word_or_matrix(given.mask, "--mask", "mask", ("causal", "none"))
    if given.scale is not None:
        top["scale"] = word_or_number(given.scale, "--scale", "scale", ("sqrt_dk", "none"))
    try:
        return load(Node(top, Location(SOURCE)), max_cells=max_cells)
    except SpecError as error:
        raise unrepeated(error) from None


def unrepeated(error: SpecError) -> SpecError:
    """`--embeddings: has 2 rows, …` rather than `--embeddings: embeddings: has 2 rows, …`: the
    option already names the key its value stands for."""
    message, where = error.message, error.where
    params = dict(message.params)
    if where is None or OPTIONS.get(str(params.get("path")).rpartition(".")[2]) != where.source:
        return error
    if message.msgid == "{path}: {problem}" and isinstance(params["problem"], Msg):
        return SpecError(params["problem"], where)
    if message.msgid == "{path} is {found}, expected {names} = {expected}":
        del params["path"]
        return SpecError(Msg.of("is {found}, expected {names} = {expected}", **params), where)
    return error
