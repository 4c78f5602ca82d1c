"""`attn export --xlsx`: the live spreadsheet (attncli/render/xlsx), written to the file -o
names; it is binary, so never to standard output."""

from __future__ import annotations

from dataclasses import replace

from attncli.cli.inputs import (
    check_outputs,
    check_precision,
    decimal_option,
    inputs_of,
    languages,
    load_walkthrough,
    loading,
    only_with,
    shaped_by,
)
from attncli.errors import UsageError
from attncli.i18n import Msg
from attncli.spec.view import Inline, View


def check_spreadsheet(output: str | None, view: View, other: bool) -> str:
    """--xlsx writes one binary file of every step and head, and nothing else; the file."""
    if output is None or output == "-":
        raise UsageError(Msg.of("--xlsx writes a binary file: name it with -o FILE.xlsx"))
    if other or view.steps is not None or view.head is not None or view.matrix is not None:
        raise UsageError(Msg.of("--xlsx writes every step of every head on its own; it takes "
                                "no other format, --steps, --head, --matrix or --worksheet"))
    return output


def check_spreadsheet_page(**given: bool) -> None:
    """Refuse an option of a written page (`given`: each as the user gave it, and whether it is)
    that a workbook has nothing of: every number is in its cells, and no header or reading."""
    for option, on in given.items():
        if on:
            raise only_with(option, shaped_by(option), "--xlsx")



def write_spreadsheet(spec: str | None, output: str | None, view: View, other: bool,
                      lang: str | None, decimal_comma: bool | None, allow_outside: bool,
                      max_cells: int) -> str:
    from attncli.files.writing import write_atomic
    from attncli.render import RenderOptions
    from attncli.render.xlsx import workbook
    from attncli.spec.files import recording

    target = check_spreadsheet(output, view, other)
    chosen = languages(lang)
    check_precision(view.precision)
    check_outputs(target, None)
    with recording() as named:  # every file the spec reads is an input, not an output
        shown = load_walkthrough(spec, Inline(), replace(view, steps="all", head="all"),
                                 loading(allow_outside, max_cells), "--xlsx")
    assert shown.spec is not None
    book = workbook(shown.spec, shown.walkthrough, RenderOptions(
        lang=chosen[0], precision=view.precision, decimal=decimal_option(decimal_comma)))
    write_atomic(target, book.data, protect=inputs_of(spec, named))
    return ""
