"""A sentence that names the command-line switch showing every number (`--full shows them`)
makes no sense on a printed page or in a document: there it is said without the switch.
Terminal output keeps the hint; the document formats (LaTeX, Beamer, Markdown, Typst, HTML)
read `on_paper(msg)` instead, unless they are told another way to ask (a notebook's full=True).
"""

from __future__ import annotations

from collections.abc import Callable

from attncli.i18n import Msg, Param

# The formats whose output is a document to print or publish.
PAPER_FORMATS = frozenset(("latex", "beamer", "markdown", "typst", "html"))


def _without_switch(msg: Msg) -> dict[str, Param]:
    return {name: value for name, value in msg.params if name not in ("switch", "count")}


def _count(msg: Msg) -> int:
    return msg.count if msg.count is not None else 0


# msgid of a sentence with {switch} -> the same sentence without it
PAPER: dict[str, Callable[[Msg], Msg]] = {
    "The other {count} query is not read here; {switch} reads every one.":
        lambda msg: Msg.plural_of("The other {count} query is not read here.",
                                  "The other {count} queries are not read here.", _count(msg),
                                  **_without_switch(msg)),
    "{names} is the {size} × {size} identity matrix I ({switch} shows it).":
        lambda msg: Msg.plural_of("{names} is the {size} × {size} identity matrix I.",
                                  "{names} are the {size} × {size} identity matrix I.",
                                  _count(msg), **_without_switch(msg)),
    "[elided in the middle; {switch} shows all {rows} × {columns}]":
        lambda msg: Msg.of("[elided in the middle; {rows} × {columns} in all]",
                           **_without_switch(msg)),
    "The queries × keys matrices are summaries here: their errors, overflows and underflows are "
    "those of the rows shown ({switch} counts every row).":
        lambda msg: Msg.of("The queries × keys matrices are summaries here: their errors, "
                           "overflows and underflows are those of the rows shown."),
}


def on_paper(msg: Msg) -> Msg:
    """`msg` as a printed document says it: without the command-line switch."""
    paper = PAPER.get(msg.msgid)
    return paper(msg) if paper is not None else msg
