"""The library's own arguments (attncli.load_spec, loads_spec, spec_of, build, walkthrough_of),
checked before they are used: a wrong type is a UsageError naming the function and the argument,
what was expected and what was found (`walkthrough_of: lang: expected a language code such as
"pl" or a comma list such as "pl,en", found None`), never Python's AttributeError or TypeError
from deep inside. `lang=os.environ.get("ATTN_LANG")` gives None when the variable is unset."""

from __future__ import annotations

import os
from collections.abc import Iterator
from numbers import Integral
from typing import Any

from attncli.errors import Location, UsageError
from attncli.i18n import Count, Msg
from attncli.spec.limits import MAX_TEXT, max_texts

# A text given where another type was expected is quoted up to this many characters
SHOWN_TEXT = 40


def given(value: Any) -> str:
    """What was found, as a refusal says it: a number, None, True or a short text as Python
    writes it; anything else by its type (`list`, `bytes`, `ndarray`)."""
    if value is None or isinstance(value, (bool, int, float)):
        return repr(value)
    if isinstance(value, str) and len(value) <= SHOWN_TEXT:
        return repr(value)
    return type(value).__name__


def refused(function: str, argument: str, expected: Msg, value: Any) -> UsageError:
    return UsageError(Msg.of("{path}: {problem}", path=argument, problem=Msg.of(
        "expected {expected}, found {found}", expected=expected, found=given(value))),
        Location(function, argument))


def cell_limit(value: Any, function: str) -> int:
    """`max_cells`: a whole number of at least 1 (a NumPy integer too; True and 2.5 are not)."""
    if isinstance(value, Integral) and not isinstance(value, bool) and int(value) >= 1:
        return int(value)
    raise UsageError(Msg.of("{option}: expected a whole number of at least {low}, found {value}",
                            option="max_cells", low=1, value=given(value)),
                     Location(function, "max_cells"))


def language_codes(value: Any, function: str) -> str:
    """`lang`: a text of language codes; its codes are checked by view.parse_languages."""
    if isinstance(value, str):
        return value
    raise refused(function, "lang", Msg.of("a language code such as \"pl\" or a comma list such "
                                           "as \"pl,en\""), value)


def file_name(value: Any, function: str, argument: str) -> str | os.PathLike[str]:
    """A file's name: a str, or anything os.fspath takes (pathlib.Path, bytes)."""
    if isinstance(value, (str, bytes, os.PathLike)):
        return value  # type: ignore[return-value]  # bytes: decoded by os.fsdecode
    raise refused(function, argument, Msg.of("a file name (a str or a path object)"), value)


def spec_text(value: Any, function: str) -> str:
    """`text`: the spec as a str (bytes are decoded by the caller, who knows their encoding)."""
    if isinstance(value, str):
        return value
    raise refused(function, "text", Msg.of("the spec's text as a str (decode bytes first)"),
                  value)


def flag(value: Any, function: str, argument: str) -> bool:
    """`allow_outside`, `summary`: True or False (a text "no" is true to Python, not to a
    reader)."""
    if isinstance(value, bool):
        return value
    raise refused(function, argument, Msg.of("True or False"), value)


def cells(value: Any, function: str, max_cells: int) -> Iterator[str]:
    """`expand`: as a spec's display.expand takes it (walkthrough_of passes it there): `auto`,
    `all`, `none`, one cell (`weights:chases`) or a list of them; --expand's values. The values
    are code in the message: a translation keeps them as written.

    The list is held to the texts a spec may hold (limits.max_texts, 50,000 by default), as a
    display.expand is, before any item is read, and each item to MAX_TEXT characters as the
    item is read: a list of three million cells took 17 s and 1 GB before its first was found
    to name no row."""
    if isinstance(value, str):
        return iter((cell_text(value, function, "expand"),))
    if isinstance(value, (list, tuple)):
        if len(value) > max_texts(max_cells):
            raise UsageError(Msg.of("{path}: {problem}", path="expand", problem=Msg.plural_of(
                "the list holds {count} cell; the limit is {limit}, which {option} sets",
                "the list holds {count} cells; the limit is {limit}, which {option} sets",
                Count(len(value)), limit=Count(max_texts(max_cells)), option="max_cells")),
                Location(function, "expand"))
        return (cell_text(cell, function, f"expand[{place}]")  # each as it is read
                for place, cell in enumerate(value))
    raise refused(function, "expand", Msg.of("`auto`, `all`, `none`, a cell such as "
                                             "`weights:chases`, or a list of cells"), value)


def cell_text(value: Any, function: str, path: str) -> str:
    """One cell of `expand`: a text of at most MAX_TEXT characters, as any label."""
    if not isinstance(value, str):  # the item, not the list: `expand[0]: … found None`
        raise refused(function, path, Msg.of("a cell such as `weights:chases`"), value)
    if len(value) > MAX_TEXT:
        raise UsageError(Msg.of("{path}: {problem}", path=path, problem=Msg.plural_of(
            "expected a text of at most {count} character, found {length}",
            "expected a text of at most {count} characters, found {length}", Count(MAX_TEXT),
            length=Count(len(value)))), Location(function, path))
    return value
