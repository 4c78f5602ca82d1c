"""A manifest entry's `output`, the path each snippet is written to: its placeholders checked as
the manifest is read (`template`), and every name of a path it makes checked against what the
file system takes (`check_name_lengths`) before any folder is made.

A template holds text, `{{` and `}}` for a brace, and the placeholders `{name}`, `{dir}`,
`{lang}`, `{format}` and `{ext}`; anything else in braces is refused in attn's words (Python's
string.Formatter said its own, in English, in a Polish or Russian line).
"""

from __future__ import annotations

import os
from pathlib import Path, PurePosixPath
from typing import NoReturn

from attncli.errors import Location, SpecError
from attncli.i18n import Count, Msg
from attncli.spec.source import Node
from attncli.spec.values import fail, text

PLACEHOLDERS = ("name", "dir", "lang", "format", "ext")
NAME_MAX = 255  # bytes of one name in a path (Linux's NAME_MAX), where the system does not say


def template(node: Node) -> str:
    """The output path template, after checking that it names only known placeholders."""
    written = text(node)
    if PurePosixPath(written).is_absolute():
        fail(node, "expected a path relative to the manifest's folder, found {found}",
             found=written)
    for field in fields(node, written):
        if field not in PLACEHOLDERS:  # {name!r}, {name:>3}, {0}, {} are named as written
            fail(node, "unknown placeholder {{{field}}}; expected one of {known}",
                 field=field, known=", ".join("{" + p + "}" for p in PLACEHOLDERS))
    return written


def fields(node: Node, written: str) -> list[str]:
    """The text inside each `{…}` of `written`; SpecError at `node` for a brace that opens or
    closes nothing, or a `{` inside a placeholder."""
    found: list[str] = []
    at = 0
    while at < len(written):
        char = written[at]
        if char in "{}" and written[at:at + 2] == char * 2:  # `{{` and `}}`: a brace, written
            at += 2
        elif char == "}":
            refuse(node, written, Msg.of("a }} that no {{ opens; write }}}} for a }} in a name"))
        elif char == "{":
            end = min((i for i in (written.find("}", at + 1), written.find("{", at + 1))
                       if i >= 0), default=-1)
            if end < 0:
                refuse(node, written, Msg.of("a {{ that no }} closes; write {{{{ for a {{ in a "
                                             "name"))
            if written[end] == "{":
                refuse(node, written, Msg.of("a {{ inside a placeholder"))
            found.append(written[at + 1:end])
            at = end + 1
        else:
            at += 1
    return found


def refuse(node: Node, written: str, problem: Msg) -> NoReturn:
    fail(node, "expected a path with {{placeholders}}, found {found} ({problem})",
         found=written, problem=problem)


def name_max(folder: Path) -> int:
    """The bytes one name may have in `folder` (an existing folder), as its file system says."""
    try:
        return os.pathconf(folder, "PC_NAME_MAX")
    except (OSError, ValueError):
        return NAME_MAX


def check_name_lengths(output: PurePosixPath, limit: int, where: Location) -> None:
    """Refuse the snippet `output` when one of its names is longer than `limit` bytes: the
    system would refuse it only once the folders before it were made."""
    for name in output.parts:
        size = len(os.fsencode(name))
        if size > limit:
            raise SpecError(Msg.plural_of(
                "{path}: the snippet {output}: the name {name} has {count} byte; the file "
                "system takes names of up to {limit} bytes",
                "{path}: the snippet {output}: the name {name} has {count} bytes; the file "
                "system takes names of up to {limit} bytes",
                Count(size), path=where.path, output=output.as_posix(), name=name,
                limit=Count(limit)), where)
