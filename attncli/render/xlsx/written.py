"""The sheet of the cells written out: every expansion of the walkthrough, as text, under the
heading of its step (the same lines as `attn explain` writes out)."""

from __future__ import annotations

from attncli.arithmetic.numbers import NumberFormat
from attncli.i18n import Msg
from attncli.model import Walkthrough
from attncli.render.common import Translate, expansion_text, step_heading
from attncli.render.xlsx.sheets import Sheets


def written_out(sheets: Sheets, name: str, walkthrough: Walkthrough, number: NumberFormat,
                t: Translate) -> None:
    sheets.add(name)
    sheets.note(name, t(Msg.of("The cells written out, as text: the numbers are attn's, "
                               "rounded as printed; they do not follow an edit.")))
    for step in walkthrough.steps:
        if not step.expansions:
            continue
        sheets.heading(name, step_heading(step.number, step, t))
        for expansion in step.expansions:
            sheets.note(name, expansion_text(expansion, number, t, full=True))
