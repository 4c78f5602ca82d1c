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

from attncli.errors import EXIT_BAD_INPUT, AttnError
from attncli.i18n import DEFAULT_LANG, LANGUAGES, translate

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
        from attncli.render import render

        walkthrough = load_walkthrough(spec)
        width = 80
        color = False
        if format is Format.rich:
            import shutil

            color = sys.stdout.isatty() and "NO_COLOR" not in os.environ
            width = shutil.get_terminal_size((80, 24)).columns if sys.stdout.isatty() else 80
        return render(walkthrough, format.value, chosen, precision=precision, width=width,
                      color=color)

    run(action, chosen, debug)


def spec_path(spec: str | None) -> str:
    """The spec file to read: SPEC, or the bundled example when none is given."""
    if spec is not None:
        return spec
    from attncli.examples import example_path

    return str(example_path())


def load_walkthrough(spec: str | None) -> Walkthrough:
    """Load SPEC and build its walkthrough: what explain and export share (the options that
    change the walkthrough itself are applied here, once, for every command)."""
    from attncli.spec import load_spec
    from attncli.walkthrough import build

    return build(load_spec(spec_path(spec)))


class ExportFormat(str, Enum):
    latex = "latex"
    markdown = "markdown"
    json = "json"
    svg = "svg"


class MdFlavor(str, Enum):
    github = "github"
    katex = "katex"
    plain = "plain"


def export_format(**flags: bool) -> ExportFormat | None:
    chosen = [name for name, on in flags.items() if on]
    if len(chosen) > 1:
        raise typer.BadParameter("choose one of --latex, --markdown, --json, --svg; found "
                                 + ", ".join("--" + name for name in chosen))
    return ExportFormat(chosen[0]) if chosen else None


SVG_WIDTH = 100  # columns of the terminal picture: fixed, so the file is the same everywhere


@app.command()
def export(
    spec: SpecArg = None,
    latex: Annotated[bool, typer.Option("--latex", help="LaTeX (amsmath), a fragment for "
                                        "\\input; see --standalone.")] = False,
    markdown: Annotated[bool, typer.Option("--markdown", help="Markdown with $$ math; "
                                           "see --md-flavor.")] = False,
    json: Annotated[bool, typer.Option("--json", help="Strict JSON, full precision.")] = False,
    svg: Annotated[bool, typer.Option("--svg", help="The terminal view as an SVG.")] = False,
    output: Annotated[
        Optional[str],  # noqa: UP045
        typer.Option("--output", "-o", help="Write to FILE (safely: a temporary file renamed "
                     "over it) instead of standard output.", show_default=False),
    ] = None,
    standalone: Annotated[bool, typer.Option(
        "--standalone", help="LaTeX: a whole document for pdflatex, not a fragment.")] = False,
    md_flavor: Annotated[MdFlavor, typer.Option(
        "--md-flavor", help="Markdown: github ($$ and $`..`$), katex ($$ and $..$) or plain "
        "(tables and code blocks, no math).")] = MdFlavor.github,
    front_matter: Annotated[bool, typer.Option(
        "--front-matter", help="Markdown: YAML front matter with title_<lang> and "
        "description_<lang>.")] = False,
    heatmap: Annotated[
        Optional[str],  # noqa: UP045
        typer.Option("--heatmap", help="Also write the attention weights as a heatmap SVG to "
                     "FILE (one panel per head).", show_default=False),
    ] = None,
    precision: PrecisionOpt = None,
    lang: LangOpt = None,
    debug: DebugOpt = False,
) -> None:
    """Write the walkthrough of SPEC as LaTeX, Markdown, JSON or SVG, for a post or a slide.

    Example: attn export configs/cat_chases_mouse.yaml --latex --standalone -o cat.tex
    """
    chosen = language(lang)
    fmt = export_format(latex=latex, markdown=markdown, json=json, svg=svg)
    if fmt is None and heatmap is None:
        raise typer.BadParameter("choose one of --latex, --markdown, --json, --svg "
                                 "(or --heatmap FILE)")

    def action() -> str:
        from attncli.files import write_atomic
        from attncli.render import render

        walkthrough = load_walkthrough(spec)
        protect = [spec_path(spec)] if spec != "-" else []
        if heatmap is not None:
            write_atomic(heatmap, render(walkthrough, "heatmap", chosen, precision=precision),
                         protect=protect)
        if fmt is None:
            return ""
        text = render(walkthrough, fmt.value, chosen, precision=precision,
                      width=SVG_WIDTH if fmt is ExportFormat.svg else 80,
                      standalone=standalone, md_flavor=md_flavor.value,
                      front_matter=front_matter)
        if output is None:
            return text
        write_atomic(output, text, protect=protect)
        return ""

    run(action, chosen, debug)


def main() -> None:
    app(prog_name="attn")


__all__ = ["EXIT_BAD_INPUT", "app", "main"]
