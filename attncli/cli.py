"""The `attn` command: parses options, calls the library, turns AttnError into exit codes.

The only module that imports typer. NumPy, YAML and Rich are imported inside the commands,
so `attn --help` and `attn --version` stay fast.
"""

from __future__ import annotations

import os
import sys
import traceback
from collections.abc import Callable
from enum import Enum
from typing import Annotated, Optional

import typer

from attncli.errors import EXIT_BAD_INPUT, AttnError
from attncli.i18n import DEFAULT_LANG, LANGUAGES, translate

INTERNAL_ERROR = 3

app = typer.Typer(
    name="attn",
    help="Worked examples of transformer attention, step by step.",
    pretty_exceptions_enable=False,
    add_completion=False,
    no_args_is_help=True,
    rich_markup_mode=None,
)


class Format(str, Enum):
    rich = "rich"
    text = "text"
    json = "json"


def _version(value: bool) -> None:
    if value:
        from importlib.metadata import version

        typer.echo(f"attn {version('attn')}")
        raise typer.Exit()


@app.callback()
def root(
    version: Annotated[
        bool, typer.Option("--version", callback=_version, is_eager=True, help="Show the version.")
    ] = False,
) -> None:
    """Worked examples of transformer attention, step by step."""


def fail(error: AttnError, lang: str) -> None:
    """Print one line for `error` on stderr: where, then what was expected and found."""
    where = error.where.prefix() + ": " if error.where is not None else "attn: "
    typer.echo(where + translate(error.message, lang), err=True)


def run(action: Callable[[], str], lang: str, debug: bool) -> None:
    """Run `action` and write what it returns; the one place errors become exit codes."""
    try:
        text = action()
    except AttnError as error:
        if debug:
            traceback.print_exc()
        fail(error, lang)
        raise typer.Exit(error.exit_code) from None
    except (KeyboardInterrupt, typer.Exit):
        raise
    except Exception as exc:  # a bug in attn, not in the input: still one line unless --debug
        if debug:
            raise
        typer.echo(f"attn: internal error: {type(exc).__name__}: {exc} "
                   "(run with --debug for the traceback)", err=True)
        raise typer.Exit(INTERNAL_ERROR) from None
    sys.stdout.write(text)
    sys.stdout.flush()


def language(lang: str | None) -> str:
    chosen = lang or os.environ.get("ATTN_LANG") or DEFAULT_LANG
    if chosen not in LANGUAGES:
        raise typer.BadParameter(
            f"expected one of {', '.join(LANGUAGES)}, found {chosen!r}", param_hint="--lang"
        )
    return chosen


SpecArg = Annotated[
    Optional[str],  # noqa: UP045 - typer reads the annotation at runtime on Python 3.10
    typer.Argument(
        help="The spec file (YAML or JSON); - reads standard input. "
        "Without it, the bundled example 'cat chases mouse'.",
        show_default=False,
    ),
]
PrecisionOpt = Annotated[
    Optional[int],  # noqa: UP045
    typer.Option("--precision", "-p", min=0, max=12,
                  help="Decimals to show (default: the spec's display.precision, or 2)."),
]
LangOpt = Annotated[
    Optional[str],  # noqa: UP045
    typer.Option("--lang", help="Language of the output: en, pl or ru (default: $ATTN_LANG or en).",
                 show_default=False),
]
DebugOpt = Annotated[bool, typer.Option("--debug", help="Show a traceback on errors.")]


@app.command()
def explain(
    spec: SpecArg = None,
    precision: PrecisionOpt = None,
    format: Annotated[
        Format, typer.Option("--format", "-f", help="rich (terminal), text (plain) or json.")
    ] = Format.rich,
    lang: LangOpt = None,
    debug: DebugOpt = False,
) -> None:
    """Print every step of attention on SPEC, labelled with its tokens.

    Example: attn explain configs/cat_chases_mouse.yaml --format text
    """
    chosen = language(lang)

    def action() -> str:
        from attncli.examples import example_path
        from attncli.render import render
        from attncli.spec import load_spec
        from attncli.walkthrough import build

        walkthrough = build(load_spec(spec if spec is not None else str(example_path())))
        width = 80
        color = False
        if format is Format.rich:
            import shutil

            color = sys.stdout.isatty() and "NO_COLOR" not in os.environ
            width = shutil.get_terminal_size((80, 24)).columns if sys.stdout.isatty() else 80
        return render(walkthrough, format.value, chosen, precision=precision, width=width,
                      color=color)

    run(action, chosen, debug)


def main() -> None:
    app(prog_name="attn")


__all__ = ["EXIT_BAD_INPUT", "app", "main"]
