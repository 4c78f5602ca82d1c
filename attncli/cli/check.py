"""`attn check`: a hand calculation compared with the walkthrough, number by number, with the
known slip that explains the numbers that differ."""

# No `from __future__ import annotations`: Typer reads the command's parameter types at run
# time, and each written as a string would be compiled and evaluated on every run.
from typing import Annotated, Optional

import typer

from attncli.cli.command_help import COMMAND_HELP
from attncli.cli.inputs import language, languages, loading, one_standard_input, spec_path
from attncli.cli.options import (
    AllowOutsideOpt,
    DebugOpt,
    LangOpt,
    MaxCellsOpt,
    RoundOpt,
    SpecArg,
)
from attncli.cli.running import run
from attncli.cli.streams import write_stdout
from attncli.errors import CheckFailed
from attncli.i18n import N_
from attncli.spec.limits import DEFAULT_MAX_CELLS

app = typer.Typer()  # merged into `attn` by attncli/cli/app.py


@app.command(help=COMMAND_HELP["check"])
def check(
    answer: Annotated[str, typer.Option(
        "--answer", "-a", show_default=False,
        help=N_('Your matrix in calculator notation ("1 0; 0.35 0.65"), or a YAML/JSON file '
        "(.yaml, .yml, .json; - reads standard input) mapping step ids to matrices."))],
    spec: SpecArg = None,
    step: Annotated[
        Optional[str],  # noqa: UP045
        typer.Option("--step", "-s", show_default=False,
                     help=N_("The step your matrix is for: {answer_steps} (needed with a matrix "
                     "typed in; with a file, only this step is checked).")),
    ] = None,
    head: Annotated[
        Optional[int],  # noqa: UP045
        typer.Option("--head", show_default=False,
                     help=N_("The head your matrix is for (1-based), with several heads.")),
    ] = None,
    round_intermediates: RoundOpt = None,
    lang: LangOpt = None,
    allow_outside: AllowOutsideOpt = False,
    max_cells: MaxCellsOpt = DEFAULT_MAX_CELLS,
    debug: DebugOpt = False,
) -> None:
    chosen = language(lang)

    def action() -> str:
        from attncli.check import answers_of, check_answers, report, summary
        from attncli.spec import load_spec

        languages(lang)  # a bad --lang or $ATTN_LANG is a usage error, as in every command
        reading = loading(allow_outside, max_cells)
        one_standard_input(spec, answer)
        answers = answers_of(answer, step, reading.max_cells)
        verdicts = check_answers(load_spec(spec_path(spec), **vars(reading)), answers, head,
                                 round_intermediates, reading.max_cells)
        write_stdout(report(verdicts, chosen))
        if not all(v.ok for v in verdicts):
            raise CheckFailed(summary(verdicts))
        return ""

    run(action, chosen, debug)
