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
from typing import TYPE_CHECKING, Annotated, Optional

import typer

from attncli.errors import EXIT_BAD_INPUT, AttnError, UsageError
from attncli.i18n import DEFAULT_LANG, LANGUAGES, Msg, translate
from attncli.view import Inline, View

if TYPE_CHECKING:
    from attncli.model import Walkthrough

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

# --- what to show: shared by every command that prints a walkthrough (see show_options) ---
ExpandOpt = Annotated[
    Optional[list[str]],  # noqa: UP045
    typer.Option("--expand", "-x", show_default=False,
                 help="Cells to write out with their numbers: auto (one row per step on a small "
                 "spec), all, none, STEP:ROW or STEP:ROW,COLUMN (e.g. scores:chases,mouse). "
                 "Repeatable."),
]
RoundOpt = Annotated[
    Optional[bool],  # noqa: UP045
    typer.Option("--round-intermediates/--full-precision", show_default=False,
                 help="Hand calculation: carry every intermediate rounded to the display "
                 "precision, as a person with a calculator does (default: the spec's "
                 "display.round_intermediates)."),
]
StepsOpt = Annotated[
    Optional[str],  # noqa: UP045
    typer.Option("--steps", show_default=False,
                 help="Only these steps, by id, separated by commas: embeddings, parameters, "
                 "projections, scores, scaled, masked, weights, output."),
]
HeadOpt = Annotated[
    Optional[int],  # noqa: UP045
    typer.Option("--head", show_default=False, help="Only this head (1-based)."),
]
FullOpt = Annotated[
    bool, typer.Option("--full", help="Show every row and column of a large matrix and every "
                       "term of a long sum, instead of eliding the middle."),
]
HeatmapOpt = Annotated[
    bool, typer.Option("--heatmap/--no-heatmap", help="Also show the weights as a heatmap."),
]
# --- the calculator form: a spec from options instead of a file ---
_NOTATION = ' in calculator notation: "1 0; 0.2 1" (rows separated by ;)'
TokensOpt = Annotated[
    Optional[str],  # noqa: UP045
    typer.Option("--tokens", show_default=False,
                 help='The tokens, separated by spaces: "cat chases mouse" (instead of SPEC).'),
]
EmbeddingsOpt = Annotated[
    Optional[str],  # noqa: UP045
    typer.Option("--embeddings", show_default=False,
                 help="The embeddings, one row per token," + _NOTATION + "."),
]
MaskOpt = Annotated[
    Optional[str],  # noqa: UP045
    typer.Option("--mask", show_default=False,
                 help="causal, none, or a 0/1 matrix" + _NOTATION + "."),
]
WqOpt = Annotated[
    Optional[str],  # noqa: UP045
    typer.Option("--wq", show_default=False, help="W_Q" + _NOTATION + " (default: identity)."),
]
WkOpt = Annotated[
    Optional[str],  # noqa: UP045
    typer.Option("--wk", show_default=False, help="W_K" + _NOTATION + " (default: identity)."),
]
WvOpt = Annotated[
    Optional[str],  # noqa: UP045
    typer.Option("--wv", show_default=False, help="W_V" + _NOTATION + " (default: identity)."),
]
ScaleOpt = Annotated[
    Optional[str],  # noqa: UP045
    typer.Option("--scale", show_default=False,
                 help="What the scores are divided by: sqrt_dk (default), none, or a number."),
]


def load_walkthrough(spec: str | None, inline: Inline, view: View) -> Walkthrough:
    """The walkthrough the shared options ask for: from SPEC, from the calculator options, or
    the bundled example. Call it inside `run`, so its errors become one line and exit 2."""
    from attncli.examples import example_path
    from attncli.show import prepare
    from attncli.spec import load_spec
    from attncli.spec.inline import inline_spec

    if inline.given():
        if spec is not None:
            raise UsageError(Msg.of("give either SPEC or --tokens/--embeddings, not both"))
        loaded = inline_spec(inline)
    else:
        loaded = load_spec(spec if spec is not None else str(example_path()))
    return prepare(loaded, view)


@app.command()
def explain(
    spec: SpecArg = None,
    precision: PrecisionOpt = None,
    format: Annotated[
        Format, typer.Option("--format", "-f", help="rich (terminal), text (plain) or json.")
    ] = Format.rich,
    lang: LangOpt = None,
    expand: ExpandOpt = None,
    round_intermediates: RoundOpt = None,
    steps: StepsOpt = None,
    head: HeadOpt = None,
    full: FullOpt = False,
    heatmap: HeatmapOpt = True,
    tokens: TokensOpt = None,
    embeddings: EmbeddingsOpt = None,
    mask: MaskOpt = None,
    wq: WqOpt = None,
    wk: WkOpt = None,
    wv: WvOpt = None,
    scale: ScaleOpt = None,
    debug: DebugOpt = False,
) -> None:
    """Print every step of attention on SPEC, labelled with its tokens, with the work shown.

    Example: attn explain configs/cat_chases_mouse.yaml --format text --round-intermediates

    Without a file: attn explain --tokens "cat chases mouse" --embeddings "1 0; 0.2 1; 0.8 0"
    --mask causal
    """
    chosen = language(lang)
    inline = Inline(tokens, embeddings, mask, wq, wk, wv, scale)
    view = View(precision, round_intermediates, tuple(expand or ()), steps, head)

    def action() -> str:
        from attncli.render import render

        walkthrough = load_walkthrough(spec, inline, view)
        width = 80
        color = False
        if format is Format.rich:
            import shutil

            color = sys.stdout.isatty() and "NO_COLOR" not in os.environ
            width = shutil.get_terminal_size((80, 24)).columns if sys.stdout.isatty() else 80
        return render(walkthrough, format.value, chosen, width=width, color=color, full=full,
                      heatmap=heatmap)

    run(action, chosen, debug)


def main() -> None:
    app(prog_name="attn")


__all__ = ["EXIT_BAD_INPUT", "app", "main"]
