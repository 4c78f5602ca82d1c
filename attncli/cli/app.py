"""The `attn` command: the Typer app, its root options, and the commands wired into it.

Each command lives in its own module under attncli/cli/ (its options in
attncli/cli/options.py, the one place errors become exit codes in
attncli/cli/running.py). NumPy, YAML and Rich are imported inside the commands, so
`attn --help` and `attn --version` stay fast.
"""

# No `from __future__ import annotations`: Typer reads the command's parameter types at run
# time, and each written as a string would be compiled and evaluated on every run.
import os
from typing import Annotated

import typer

from attncli.cli.lazy import LazyGroup
from attncli.cli.options import MessagesLangOpt
from attncli.cli.streams import closed_stdout_says_so, utf8_unless_terminal
from attncli.errors import EXIT_BAD_INPUT
from attncli.i18n import N_

app = typer.Typer(
    cls=LazyGroup,  # the commands (attncli/cli/lazy.py), each imported when it is used
    name="attn",
    help=N_("Worked examples of transformer attention, step by step."),
    pretty_exceptions_enable=False,
    add_completion=False,
    no_args_is_help=True,
    rich_markup_mode=None,
)


def _version(value: bool) -> None:
    if value:
        from importlib.metadata import version

        typer.echo(f"attn {version('attn')}")
        raise typer.Exit()


@app.callback()
def root(
    version: Annotated[
        bool, typer.Option("--version", callback=_version, is_eager=True,
                           help=N_("Show the version."))
    ] = False,
    lang: MessagesLangOpt = None,
) -> None:
    """Worked examples of transformer attention, step by step."""


# attn's products are thin (d_k columns against thousands of keys) and taken in blocks of rows:
# a second BLAS thread gains nothing on them, and between calls it waits spinning, which doubled
# the processor time of 8,000 tokens (1.2 s against 0.7 s). One thread, unless the user says
# otherwise; set before NumPy is imported, which reads these once.
BLAS_THREADS = ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS")


def main() -> None:
    for name in BLAS_THREADS:
        os.environ.setdefault(name, "1")
    closed_stdout_says_so()
    utf8_unless_terminal()
    app(prog_name="attn")


__all__ = ["EXIT_BAD_INPUT", "app", "main"]
