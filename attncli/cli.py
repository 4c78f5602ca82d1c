"""The `attn` command: parses options, calls the library, turns AttnError into exit codes.

The only module that imports typer. NumPy, YAML and Rich are imported inside the commands,
so `attn --help` and `attn --version` stay fast.
"""

from __future__ import annotations

import os
import shlex
import signal
import sys
import traceback
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from enum import Enum
from typing import TYPE_CHECKING, Annotated, Literal, Optional

import typer

from attncli.cli_i18n import AttnGroup, root_option
from attncli.errors import EXIT_BAD_INPUT, AttnError, CheckFailed, SpecError, UsageError
from attncli.i18n import DEFAULT_LANG, N_, Msg, first_known, parse_languages, translate
from attncli.limits import DEFAULT_MAX_CELLS
from attncli.render import ELIDING
from attncli.view import Inline, Loading, View
from attncli.visible import visible, visible_document

if TYPE_CHECKING:
    from attncli.show import Shown
    from attncli.snippets import Report

INTERNAL_ERROR = 3
MAX_PRECISION = 12


app = typer.Typer(
    cls=AttnGroup,
    name="attn",
    help=N_("Worked examples of transformer attention, step by step."),
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
        bool, typer.Option("--version", callback=_version, is_eager=True,
                           help=N_("Show the version."))
    ] = False,
    lang: MessagesLangOpt = None,
) -> None:
    """Worked examples of transformer attention, step by step."""


def fail(error: AttnError, lang: str) -> None:
    """Print one line for `error` on stderr: where, then what was expected and found."""
    where = error.where.prefix() + ": " if error.where is not None else "attn: "
    echo_error(where + translate(error.message, lang))


def echo_error(text: str) -> None:
    """`text` on stderr as one line: what it quotes from the input (a token, a key, a file name)
    may hold a line break or a terminal escape, which is shown `visible` (`\\n`, `\\x1b`)."""
    typer.echo(visible(text), err=True)


def say(message: Msg, lang: str) -> None:
    """One line for the user on stderr (stdout is kept for what the command produces)."""
    echo_error("attn: " + translate(message, lang))


class Terminated(BaseException):
    """SIGTERM or SIGHUP, raised where the program is, so that a file being written is removed
    (files.write_atomic) as for Ctrl-C."""

    def __init__(self, signum: int) -> None:
        super().__init__(signum)
        self.signum = signum


def _terminated(signum: int, frame: object) -> None:
    raise Terminated(signum)


@contextmanager
def terminable() -> Iterator[None]:
    """SIGTERM and SIGHUP end the command like Ctrl-C: temporary files removed, exit 128 + the
    signal's number."""
    kept = {}
    try:
        for signum in (signal.SIGTERM, signal.SIGHUP):
            kept[signum] = signal.signal(signum, _terminated)
    except ValueError:  # not the main thread: leave the signals alone
        pass
    try:
        yield
    except Terminated as stop:
        raise typer.Exit(128 + stop.signum) from None
    finally:
        for signum, handler in kept.items():
            signal.signal(signum, handler)


def write_stdout(text: str) -> None:
    """Write `text` to stdout; a full disk or a closed stdout is one line and exit 2."""
    try:
        if sys.stdout is None:
            raise OSError(9, os.strerror(9))
        sys.stdout.write(text)
        sys.stdout.flush()
    except (OSError, ValueError) as error:
        # nothing more may reach the broken stdout, not even Python's flush on exit
        with suppress(OSError, ValueError, AttributeError):
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, sys.stdout.fileno())
        reason = error.strerror if isinstance(error, OSError) and error.strerror else str(error)
        raise UsageError(Msg.of("cannot write to standard output: {reason}",
                                reason=reason)) from None


def run(action: Callable[[], str], lang: str, debug: bool) -> None:
    """Run `action` and write what it returns; the one place errors become exit codes."""
    try:
        with terminable():
            write_stdout(action())
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
        message = Msg.of("internal error: {kind}: {detail} (run with --debug for the traceback)",
                         kind=type(exc).__name__, detail=str(exc))
        try:
            line = translate(message, lang)
        except Exception:  # the catalog itself may be what is broken
            line = translate(message, DEFAULT_LANG)
        echo_error("attn: " + line)
        raise typer.Exit(INTERNAL_ERROR) from None


def requested_languages(lang: str | None) -> tuple[str, str]:
    """The comma list of languages asked for and where it was asked: --lang, else $ATTN_LANG
    (never the system locale, so the output is the same on every machine), else English."""
    lang = lang if lang is not None else root_option("lang")
    if lang is not None:
        return lang, "--lang"
    env = os.environ.get("ATTN_LANG")
    if env:
        return env, "ATTN_LANG"
    return DEFAULT_LANG, "--lang"


def languages(lang: str | None) -> tuple[str, ...]:
    """The languages to write in, in order; UsageError if the list is not valid."""
    text, source = requested_languages(lang)
    return parse_languages(text, source)


def language(lang: str | None) -> str:
    """The language of messages and errors: the first valid one asked for (--lang, then
    $ATTN_LANG), else English; so even an error in the list itself is in a language asked for."""
    return first_known(lang, root_option("lang"), os.environ.get("ATTN_LANG"))


def decimal_option(decimal_comma: bool | None) -> Literal["dot", "comma"] | None:
    """--decimal-comma / --decimal-dot, or None to keep the spec's display.decimal."""
    if decimal_comma is None:
        return None
    return "comma" if decimal_comma else "dot"


def check_precision(precision: int | None) -> None:
    if precision is not None and not 0 <= precision <= MAX_PRECISION:
        raise UsageError(Msg.of("{option}: expected a whole number from {low} to {high}, found "
                                "{value}", option="--precision", low=0, high=MAX_PRECISION,
                                value=precision))


SpecArg = Annotated[
    Optional[str],  # noqa: UP045 - typer reads the annotation at runtime on Python 3.10
    typer.Argument(
        help=N_("The spec file (YAML or JSON); - reads standard input. "
        "Without it, the bundled example 'cat chases mouse'."),
        show_default=False,
    ),
]
PrecisionOpt = Annotated[
    Optional[int],  # noqa: UP045
    typer.Option("--precision", "-p",
                 help=N_("Decimals to show, 0 to 12 (default: the spec's display.precision, "
                         "or 2).")),
]
LangOpt = Annotated[
    Optional[str],  # noqa: UP045
    typer.Option("--lang", help=N_("Language of the output: en, pl or ru, or a comma list such as "
                 "pl,en for one section per language (default: $ATTN_LANG or en)."),
                 show_default=False),
]
DecimalOpt = Annotated[
    Optional[bool],  # noqa: UP045
    typer.Option("--decimal-comma/--decimal-dot",
                 help=N_("Write 0,35 instead of 0.35 (default: the spec's display.decimal, "
                         "or dot)."),
                 show_default=False),
]
MessagesLangOpt = Annotated[
    Optional[str],  # noqa: UP045
    typer.Option("--lang", help=N_("Language of the messages and of --help: en, pl or ru "
                                   "(default: $ATTN_LANG or en)."), show_default=False),
]
DebugOpt = Annotated[bool, typer.Option("--debug", help=N_("Show a traceback on errors."))]
AllowOutsideOpt = Annotated[bool, typer.Option(
    "--allow-outside", help=N_("Read the matrices a spec names with file: from outside the "
                               "spec's folder too "
    "(by default only that folder and below it)."))]
MaxCellsOpt = Annotated[int, typer.Option(
    "--max-cells", help=N_("Refuse a spec with more numbers than this: the values written in it "
    "and the matrices it makes; its walkthrough may compute 32 times as many, and a spec file "
    "may have 4 bytes per cell (at least 1 MiB)."))]


def loading(allow_outside: bool, max_cells: int) -> Loading:
    """How to read spec files; UsageError if --max-cells is not a positive number."""
    if max_cells < 1:
        raise UsageError(Msg.of("{option}: expected a whole number of at least {low}, found "
                                "{value}", option="--max-cells", low=1, value=max_cells))
    return Loading(allow_outside, max_cells)

# --- what to show: shared by every command that prints a walkthrough (see show_options) ---
ExpandOpt = Annotated[
    Optional[list[str]],  # noqa: UP045
    typer.Option("--expand", "-x", show_default=False,
                 help=N_("Cells to write out with their numbers: auto (one row per step on a small "
                 "spec), all, none, STEP:ROW or STEP:ROW,COLUMN (e.g. `scores:chases,mouse`); "
                 "STEP is `projections`, `scores`, `scaled`, `weights`, `output` or "
                 "`out_projection`. Repeatable.")),
]
RoundOpt = Annotated[
    Optional[bool],  # noqa: UP045
    typer.Option("--round-intermediates/--full-precision", show_default=False,
                 help=N_("Hand calculation: carry every intermediate rounded to the display "
                 "precision, as a person with a calculator does (default: the spec's "
                 "display.round_intermediates).")),
]
StepsOpt = Annotated[
    Optional[str],  # noqa: UP045
    typer.Option("--steps", show_default=False,
                 help=N_("Only these steps, by id, separated by commas; each keeps its number "
                         "(--steps weights prints \"7. Attention weights\"): {steps}; all: every "
                         "step, whatever the spec's display.steps says.")),
]
HeadOpt = Annotated[
    Optional[str],  # noqa: UP045
    typer.Option("--head", show_default=False,
                 help=N_("Only this head (1-based), e.g. --head 2; all: every head, whatever "
                         "the spec's display.head says.")),
]
ReadingOpt = Annotated[
    Optional[bool],  # noqa: UP045
    typer.Option("--reading/--no-reading", show_default=False,
                 help=N_("The weights in words, after the steps (default: on, or the spec's "
                 "display.reading); shown only when the weights step is.")),
]
HeaderOpt = Annotated[
    Optional[bool],  # noqa: UP045
    typer.Option("--header/--no-header", show_default=False,
                 help=N_("The title and the facts about the example before the steps (default: "
                 "on, or the spec's display.header); --no-header for a post or slide that has "
                 "its own, e.g. --steps weights --no-header.")),
]
MatrixOpt = Annotated[
    Optional[str],  # noqa: UP045
    typer.Option("--matrix", show_default=False,
                 help=N_("Only this matrix, by its symbol as shown, for pasting into a formula: "
                 "--matrix A, --matrix A:2 for head 2's, --matrix W_Q, --matrix \"S' + M\". "
                 "LaTeX: a bare bmatrix; Markdown: a math block; text and JSON: the matrix.")),
]
WidthOpt = Annotated[
    Optional[int],  # noqa: UP045
    typer.Option("--width", show_default=False,
                 help=N_("Columns to fit, at least 40 (default: 80; rich and text on a terminal: "
                 "its width; rich piped: $COLUMNS when set).")),
]
MIN_WIDTH = 40
FullOpt = Annotated[
    bool, typer.Option("--full", help=N_("Show every row and column of a large matrix and every "
                       "term of a long sum, instead of eliding the middle.")),
]
BackwardOpt = Annotated[
    bool, typer.Option("--backward", help=N_("Add the backward pass after the forward steps, with "
                       "dO all ones, when the spec has no backward section.")),
]
HeatmapOpt = Annotated[
    bool, typer.Option("--heatmap/--no-heatmap", help=N_("Also show the weights as a heatmap.")),
]
# --- the calculator form: a spec from options instead of a file ---
TokensOpt = Annotated[
    Optional[str],  # noqa: UP045
    typer.Option("--tokens", show_default=False,
                 help=N_('The tokens, separated by spaces: "cat chases mouse" (instead of SPEC).')),
]
EmbeddingsOpt = Annotated[
    Optional[str],  # noqa: UP045
    typer.Option("--embeddings", show_default=False,
                 help=N_('The embeddings, one row per token, in calculator notation: '
                         '"1 0; 0.2 1" (numbers separated by spaces, rows by ;); a decimal '
                         'comma works too: "1 0; 0,2 1".')),
]
MaskOpt = Annotated[
    Optional[str],  # noqa: UP045
    typer.Option("--mask", show_default=False,
                 help=N_('causal, none, or a 0/1 matrix in calculator notation: "1 0; 1 1" '
                         '(rows separated by ;).')),
]
WqOpt = Annotated[
    Optional[str],  # noqa: UP045
    typer.Option("--wq", show_default=False,
                 help=N_('W_Q in calculator notation: "1 0; 0.2 1" (rows separated by ;; '
                         'default: identity).')),
]
WkOpt = Annotated[
    Optional[str],  # noqa: UP045
    typer.Option("--wk", show_default=False,
                 help=N_('W_K in calculator notation: "1 0; 0.2 1" (rows separated by ;; '
                         'default: identity).')),
]
WvOpt = Annotated[
    Optional[str],  # noqa: UP045
    typer.Option("--wv", show_default=False,
                 help=N_('W_V in calculator notation: "1 0; 0.2 1" (rows separated by ;; '
                         'default: identity).')),
]
ScaleOpt = Annotated[
    Optional[str],  # noqa: UP045
    typer.Option("--scale", show_default=False,
                 help=N_("What the scores are divided by: sqrt_dk (default), none, or a number.")),
]


def spec_path(spec: str | None) -> str:
    """The spec file to read: SPEC, or the bundled example when none is given."""
    if spec is not None:
        return spec
    from attncli.examples import example_path

    return str(example_path())


def output_width(width: int | None, rich: bool) -> int:
    """Columns to fit: --width; on a terminal its width ($COLUMNS first); the rich view piped,
    $COLUMNS when set; else 80, so that text in a file is the same on every machine."""
    if width is not None:
        if width < MIN_WIDTH:
            raise UsageError(Msg.of("{option}: expected a whole number of at least {low}, found "
                                    "{value}", option="--width", low=MIN_WIDTH, value=width))
        return width
    if sys.stdout is not None and sys.stdout.isatty():
        import shutil

        return max(MIN_WIDTH, shutil.get_terminal_size((80, 24)).columns)
    columns = os.environ.get("COLUMNS", "").strip()
    if rich and columns.isdigit():
        return max(MIN_WIDTH, int(columns))
    return 80


def load_walkthrough(spec: str | None, inline: Inline, view: View,
                     reading: Loading | None = None, shows: str = "--full") -> Shown:
    """The walkthrough the shared options ask for: from SPEC, from the calculator options, or
    the bundled example. Call it inside `run`, so its errors become one line and exit 2.
    Unless the view elides, what it shows is bounded first (attncli/budget.py), `shows` naming
    the option that asks for every number."""
    from attncli.show import prepare
    from attncli.spec import load_spec
    from attncli.spec.inline import inline_spec

    reading = reading or Loading()
    if inline.given():
        if spec is not None:
            raise UsageError(Msg.of("give either SPEC or --tokens/--embeddings, not both"))
        loaded = inline_spec(inline, reading.max_cells)
    else:
        loaded = load_spec(spec_path(spec), **vars(reading))
    from attncli.budget import check_view

    check_view(loaded, view, reading.max_cells, shows)
    return prepare(loaded, view)


@app.command()
def explain(
    spec: SpecArg = None,
    precision: PrecisionOpt = None,
    format: Annotated[
        Format, typer.Option("--format", "-f", help=N_("rich (terminal), text (plain) or json."))
    ] = Format.rich,
    lang: LangOpt = None,
    expand: ExpandOpt = None,
    round_intermediates: RoundOpt = None,
    steps: StepsOpt = None,
    head: HeadOpt = None,
    reading: ReadingOpt = None,
    header: HeaderOpt = None,
    matrix: MatrixOpt = None,
    full: FullOpt = False,
    width: WidthOpt = None,
    heatmap: HeatmapOpt = True,
    backward: BackwardOpt = False,
    tokens: TokensOpt = None,
    embeddings: EmbeddingsOpt = None,
    mask: MaskOpt = None,
    wq: WqOpt = None,
    wk: WkOpt = None,
    wv: WvOpt = None,
    scale: ScaleOpt = None,
    decimal_comma: DecimalOpt = None,
    allow_outside: AllowOutsideOpt = False,
    max_cells: MaxCellsOpt = DEFAULT_MAX_CELLS,
    debug: DebugOpt = False,
) -> None:
    """Print every step of attention on SPEC, labelled with its tokens, with the work shown.

    Example: attn explain configs/cat_chases_mouse.yaml --format text --round-intermediates

    One step for a slide, numbered as in the whole example: attn explain --steps weights
    --no-header --format text; one matrix: attn explain --matrix A --format text; text for a
    60-column page: attn explain --format text --width 60

    Without a file: attn explain --tokens "cat chases mouse" --embeddings "1 0; 0.2 1; 0.8 0"
    --mask causal
    """
    inline = Inline(tokens, embeddings, mask, wq, wk, wv, scale)
    view = View(precision, round_intermediates, tuple(expand or ()), steps, head,
                reading=reading, header=header, matrix=matrix,
                summary=format.value in ELIDING and not full, backward=backward)

    def action() -> str:
        from attncli.render import render

        chosen = languages(lang)
        check_precision(precision)
        columns = output_width(width, format is Format.rich)
        shown = load_walkthrough(spec, inline, view, loading(allow_outside, max_cells),
                                 shows="--full" if full else "--format " + format.value)
        color = (format is Format.rich and sys.stdout is not None and sys.stdout.isatty()
                 and "NO_COLOR" not in os.environ)
        options = {"width": columns, "color": color, "full": full, "heatmap": heatmap,
                   "decimal": decimal_option(decimal_comma)}
        if shown.matrix is not None:
            from attncli.render.bare import render_matrix

            return render_matrix(shown.walkthrough, shown.matrix, format.value, **options)
        return render(shown.walkthrough, format.value, chosen, **options)

    run(action, language(lang), debug)


# Below this many snippets a progress bar would only flicker.
PROGRESS_MIN = 20


@contextmanager
def progress_bar(total: int) -> Iterator[Callable[[], None]]:
    """A progress bar on stderr when there are many snippets and stderr is a terminal;
    otherwise a tick that does nothing."""
    if total < PROGRESS_MIN or not sys.stderr.isatty():
        yield lambda: None
        return
    from rich.console import Console
    from rich.progress import Progress

    with Progress(console=Console(stderr=True), transient=True) as bar:
        task = bar.add_task("attn snippets", total=total)
        yield lambda: bar.advance(task)


@app.command()
def snippets(
    manifest: Annotated[
        Optional[str],  # noqa: UP045
        typer.Argument(help=N_("The manifest (attn.toml or snippets.yaml); default: the one in the "
                       "current folder."), show_default=False),
    ] = None,
    check: Annotated[bool, typer.Option(
        "--check", help=N_("Write nothing; exit 1 if any snippet is stale or missing."))] = False,
    diff: Annotated[bool, typer.Option(
        "--diff", help=N_("Write nothing; print what would change as unified diffs."))] = False,
    allow_outside: AllowOutsideOpt = False,
    max_cells: MaxCellsOpt = DEFAULT_MAX_CELLS,
    lang: MessagesLangOpt = None,
    debug: DebugOpt = False,
) -> None:
    """Write every snippet that the manifest lists, rewriting only files whose content changed.

    Exit 0 when all is well, 1 when --check finds a stale or missing snippet, 2 for a bad
    manifest or spec.

    Example: attn snippets --check --diff
    """
    asked, lang = lang, language(lang)

    def action() -> str:
        from pathlib import Path

        from attncli.manifest import find_manifest, load_manifest, targets
        from attncli.snippets import generate, unified_diff

        languages(asked)  # a bad --lang or $ATTN_LANG is a usage error
        reading = loading(allow_outside, max_cells)
        path = Path(manifest) if manifest is not None else find_manifest(Path("."))
        planned = targets(load_manifest(path))
        writing = not (check or diff)
        with progress_bar(len(planned)) as tick:
            report = generate(planned, write=writing, tick=tick, loading=reading)
        for error in report.errors():
            fail(error, lang)
        fix = "attn snippets" + ("" if manifest is None else " " + shlex.quote(manifest))
        stale = [o for o in report.outcomes if o.status in ("stale", "missing")]
        for outcome in stale:
            where = outcome.target.output.as_posix()
            if outcome.status == "stale":
                say(Msg.of("{path} is stale; run: {command}", path=where, command=fix), lang)
            else:
                say(Msg.of("{path} is missing; run: {command}", path=where, command=fix), lang)
        if diff:  # before the summary, which may end the command with an exit code
            # the old files are the tree's (a pull request's): what they hold is shown inert
            write_stdout(visible_document("".join(unified_diff(outcome) for outcome in stale)))
        finish(report, writing, check, lang)
        return ""

    run(action, lang, debug)


def finish(report: Report, writing: bool, check: bool, lang: str) -> None:
    """The one-line summary: said on success, raised (with its exit code) otherwise."""
    failed = Msg.plural_of("{count} failed", "{count} failed", report.count("failed"))
    if writing:
        counts = (Msg.plural_of("{count} written", "{count} written", report.count("written")),
                  Msg.plural_of("{count} unchanged", "{count} unchanged",
                                report.count("unchanged")), failed)
    else:
        counts = (Msg.plural_of("{count} stale", "{count} stale", report.count("stale", "missing")),
                  Msg.plural_of("{count} up to date", "{count} up to date",
                                report.count("unchanged")), failed)
    summary = Msg.of("{first}, {second}, {third}", first=counts[0], second=counts[1],
                     third=counts[2])
    if report.count("failed"):
        raise SpecError(summary)
    if check and report.count("stale", "missing"):
        raise CheckFailed(summary)
    say(summary, lang)


@app.command()
def validate(
    specs: Annotated[list[str], typer.Argument(help=N_("Spec files to check; - reads standard "
                                                       "input."),
                                               show_default=False)],
    allow_outside: AllowOutsideOpt = False,
    max_cells: MaxCellsOpt = DEFAULT_MAX_CELLS,
    lang: MessagesLangOpt = None,
    debug: DebugOpt = False,
) -> None:
    """Check spec files without printing their walkthroughs: one line per broken file.

    Each file is loaded and built, so a valid spec is one that `attn explain` accepts. A file's
    first error is reported (with file:line:column), then the next file is checked. Exit 2 if
    any file is broken.

    Example: attn validate posts/*.attn.yaml
    """
    asked, lang = lang, language(lang)

    def action() -> str:
        languages(asked)  # a bad --lang or $ATTN_LANG is a usage error
        from attncli.spec import load_spec
        from attncli.walkthrough import build

        reading = loading(allow_outside, max_cells)
        broken = 0
        for spec in specs:
            try:
                build(load_spec(spec, **vars(reading)))
            except AttnError as error:
                broken += 1
                fail(error, lang)
        if broken:
            raise SpecError(Msg.plural_of("{count} spec of {total} has errors",
                                          "{count} specs of {total} have errors",
                                          broken, total=len(specs)))
        say(Msg.plural_of("{count} spec is valid", "{count} specs are valid", len(specs)), lang)
        return ""

    run(action, lang, debug)


@app.command()
def schema(lang: MessagesLangOpt = None, debug: DebugOpt = False) -> None:
    """Print the JSON Schema of the spec format, for editors that validate YAML as you type.

    Example: attn schema > attn.schema.json, then start a spec with the line
    # yaml-language-server: $schema=attn.schema.json
    """

    def action() -> str:
        from attncli.schema import schema_text

        languages(lang)
        return schema_text()

    run(action, language(lang), debug)


@app.command()
def examples(
    name: Annotated[
        Optional[str],  # noqa: UP045
        typer.Argument(help=N_("Print this example's spec; without it, list the examples."),
                       show_default=False),
    ] = None,
    lang: MessagesLangOpt = None,
    debug: DebugOpt = False,
) -> None:
    """List the bundled example specs, or print one to start from a copy.

    Example: attn examples cat_chases_mouse > my_first.yaml
    """
    asked, lang = lang, language(lang)

    def action() -> str:
        languages(asked)  # a bad --lang or $ATTN_LANG is a usage error
        from attncli.examples import example_names, example_text, example_title

        if name is not None:
            return example_text(name)
        names = example_names()
        width = max(map(len, names), default=0)
        return "".join(f"{n:<{width}}  {example_title(n, lang)}".rstrip() + "\n" for n in names)

    run(action, lang, debug)


@app.command()
def check(
    answer: Annotated[str, typer.Option(
        "--answer", "-a", show_default=False,
        help=N_('Your matrix in calculator notation ("1 0; 0.35 0.65"), or a YAML/JSON file '
        "(.yaml, .yml, .json; - reads standard input) mapping step ids to matrices."))],
    spec: SpecArg = None,
    step: Annotated[
        Optional[str],  # noqa: UP045
        typer.Option("--step", "-s", show_default=False,
                     help=N_("The step your matrix is for: Q, K, V, scores, scaled, masked, "
                     "weights, output, concat, out_projection ... (needed with a matrix typed "
                     "in; with a file, only this step is checked).")),
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
    """Check a hand calculation: each number at the precision you wrote it, and the known slip
    that explains the numbers that differ (no scaling, softmax over columns, ...).

    Exit 0 when every number is right, 1 when one is wrong, 2 for bad input.

    Example: attn check configs/cat_chases_mouse.yaml --step weights
    --answer "1 0 0; 0.36 0.64 0; 0.4 0.25 0.35"
    """
    chosen = language(lang)

    def action() -> str:
        from attncli.check import answers_of, check_answers, report, summary
        from attncli.spec import load_spec

        reading = loading(allow_outside, max_cells)
        answers = answers_of(answer, step, reading.max_cells)
        verdicts = check_answers(load_spec(spec_path(spec), **vars(reading)), answers, head,
                                 round_intermediates)
        sys.stdout.write(report(verdicts, chosen))
        if not all(v.ok for v in verdicts):
            sys.stdout.flush()
            raise CheckFailed(summary(verdicts))
        return ""

    run(action, chosen, debug)


class ExportFormat(str, Enum):
    latex = "latex"
    markdown = "markdown"
    json = "json"
    svg = "svg"
    beamer = "beamer"


class Aspect(str, Enum):
    wide = "169"
    four_three = "43"


class MdFlavor(str, Enum):
    github = "github"
    katex = "katex"
    plain = "plain"


def export_format(**flags: bool) -> ExportFormat | None:
    chosen = [name for name, on in flags.items() if on]
    if len(chosen) > 1:
        raise UsageError(Msg.of("choose one of --latex, --beamer, --markdown, --json, --svg; "
                                "found {found}", found=", ".join("--" + name for name in chosen)))
    return ExportFormat(chosen[0]) if chosen else None


WorksheetOpt = Annotated[bool, typer.Option(
    "--worksheet", help=N_("Leave chosen cells as boxes to fill in (LaTeX, Beamer, Markdown); the "
    "cells of weights and output unless --blank or --blank-cells says otherwise."))]
BlankOpt = Annotated[
    Optional[str],  # noqa: UP045
    typer.Option("--blank", show_default=False, help=N_("Worksheet: blank every computed cell of "
                 "these steps, by id, separated by commas: weights,output.")),
]
BlankCellsOpt = Annotated[
    Optional[int],  # noqa: UP045
    typer.Option("--blank-cells", show_default=False, help=N_("Worksheet: blank this many cells "
                 "drawn from every computed step (the same ones for the same --seed).")),
]
SeedOpt = Annotated[int, typer.Option("--seed", help=N_("Worksheet: the seed that draws the cells "
                                      "of --blank-cells."))]
AnswersOpt = Annotated[
    Optional[str],  # noqa: UP045
    typer.Option("--answers", show_default=False, help=N_(
        "Worksheet: also write the answer key (the same document with every box filled in) to "
        "FILE.")),
]
SVG_WIDTH = 100  # columns of the terminal picture: fixed, so the file is the same everywhere


@app.command()
def export(
    spec: SpecArg = None,
    latex: Annotated[bool, typer.Option("--latex", help=N_("LaTeX (amsmath), a fragment for "
                                        "\\input; see --standalone."))] = False,
    markdown: Annotated[bool, typer.Option("--markdown", help=N_("Markdown with $$ math; "
                                           "see --md-flavor."))] = False,
    json: Annotated[bool, typer.Option("--json", help=N_("Strict JSON, full precision."))] = False,
    svg: Annotated[bool, typer.Option("--svg", help=N_("The terminal view as an SVG."))] = False,
    beamer: Annotated[bool, typer.Option("--beamer", help=N_("Beamer slides for pdflatex: one "
                                         "frame per step; see --frames-only, --aspect."))] = False,
    frames_only: Annotated[bool, typer.Option(
        "--frames-only", help=N_("Beamer: only the frames, for \\input into a deck."))] = False,
    aspect: Annotated[Aspect, typer.Option(
        "--aspect", help=N_("Beamer: the frames' aspect ratio, 169 (16:9) or 43 (4:3)."))
    ] = Aspect.wide,
    output: Annotated[
        Optional[str],  # noqa: UP045
        typer.Option("--output", "-o", help=N_("Write to FILE (safely: a temporary file renamed "
                     "over it) instead of standard output."), show_default=False),
    ] = None,
    standalone: Annotated[bool, typer.Option(
        "--standalone", help=N_("LaTeX: a whole document for pdflatex, not a fragment."))] = False,
    md_flavor: Annotated[Optional[MdFlavor], typer.Option(  # noqa: UP045
        "--md-flavor", show_default=False,
        help=N_("Markdown: github (default: ```math blocks and $`..`$), katex ($$ and $..$) or "
        "plain (tables and code blocks, no math); default: the spec's display.md_flavor, or "
        "github."))] = None,
    front_matter: Annotated[bool, typer.Option(
        "--front-matter", help=N_("Markdown: YAML front matter with title_<lang> and "
        "description_<lang>."))] = False,
    heatmap: Annotated[
        Optional[str],  # noqa: UP045
        typer.Option("--heatmap", help=N_("Also write the attention weights as a heatmap SVG to "
                     "FILE (one panel per head)."), show_default=False),
    ] = None,
    precision: PrecisionOpt = None,
    lang: LangOpt = None,
    expand: ExpandOpt = None,
    round_intermediates: RoundOpt = None,
    steps: StepsOpt = None,
    head: HeadOpt = None,
    reading: ReadingOpt = None,
    header: HeaderOpt = None,
    matrix: MatrixOpt = None,
    full: FullOpt = False,
    decimal_comma: DecimalOpt = None,
    backward: BackwardOpt = False,
    worksheet: WorksheetOpt = False,
    blank: BlankOpt = None,
    blank_cells: BlankCellsOpt = None,
    seed: SeedOpt = 0,
    answers: AnswersOpt = None,
    allow_outside: AllowOutsideOpt = False,
    max_cells: MaxCellsOpt = DEFAULT_MAX_CELLS,
    debug: DebugOpt = False,
) -> None:
    """Write the walkthrough of SPEC as LaTeX, Beamer, Markdown, JSON or SVG, for a post or slides.

    With --worksheet, chosen cells are boxes to fill in and --answers FILE writes the key:
    attn export SPEC --latex --standalone --worksheet --blank-cells 6 --seed 1 -o sheet.tex
    --answers key.tex

    Example: attn export configs/cat_chases_mouse.yaml --latex --standalone -o cat.tex

    For a slide: attn export SPEC --latex --steps weights --expand none --no-header; a matrix
    to paste into a formula: attn export SPEC --latex --matrix A:2
    """
    # svg is the one export format that elides the middle of a large matrix (see build's summary)
    view = View(precision, round_intermediates, tuple(expand or ()), steps, head,
                reading=reading, header=header, matrix=matrix,
                md_flavor=md_flavor.value if md_flavor is not None else None,
                summary=svg and not full and heatmap is None, backward=backward)

    def action() -> str:
        from attncli.files import write_atomic
        from attncli.render import render

        fmt = export_format(latex=latex, beamer=beamer, markdown=markdown, json=json, svg=svg)
        if fmt is None and heatmap is None:
            raise UsageError(Msg.of("choose one of --latex, --beamer, --markdown, --json, --svg "
                                    "(or --heatmap FILE)"))
        chosen = languages(lang)
        check_precision(precision)
        check_outputs(output, heatmap)
        shows = "--full" if full else "--" + (fmt.value if fmt is not None else "heatmap")
        shown = load_walkthrough(spec, Inline(), view, loading(allow_outside, max_cells), shows)
        walkthrough = shown.walkthrough
        protect = [spec_path(spec)] if spec != "-" else []
        decimal = decimal_option(decimal_comma)
        key = walkthrough
        if worksheet or blank is not None or blank_cells is not None or answers is not None:
            from attncli.worksheet import worksheet_of

            walkthrough = worksheet_of(walkthrough, worksheet, fmt and fmt.value, blank,
                                       blank_cells, seed)
        if heatmap is not None:  # a picture: its labels in the first language asked for
            write_atomic(heatmap, render(walkthrough, "heatmap", chosen[0], decimal=decimal),
                         protect=protect)
        if fmt is None:
            return ""
        options = {"full": full, "width": SVG_WIDTH if fmt is ExportFormat.svg else 80,
                   "decimal": decimal}
        if shown.matrix is not None:
            from attncli.render.bare import render_matrix

            text = render_matrix(walkthrough, shown.matrix, fmt.value, **options)
        else:
            text = render(walkthrough, fmt.value, chosen, standalone=standalone,
                          front_matter=front_matter, frames_only=frames_only,
                          aspect=aspect.value, **options)
            if answers is not None:
                write_atomic(answers, render(key, fmt.value, chosen, standalone=standalone,
                                             front_matter=front_matter, frames_only=frames_only,
                                             aspect=aspect.value, **options),
                             protect=protect + ([output] if output else []))
        if output is None:
            return text
        write_atomic(output, text, protect=protect)
        return ""

    run(action, language(lang), debug)


def check_outputs(output: str | None, heatmap: str | None) -> None:
    """Refuse, before any work, an output that is not a regular file (see attncli/files.py) and
    two outputs that are one file."""
    from pathlib import Path

    from attncli.files import output_target, same_file

    for path in (output, heatmap):
        if path is not None:
            output_target(path)
    if output is not None and heatmap is not None and same_file(Path(output), Path(heatmap)):
        raise UsageError(Msg.of("{first} and {second} name the same file {file}; choose two "
                                "files", first="--output", second="--heatmap", file=output))


def main() -> None:
    app(prog_name="attn")


__all__ = ["EXIT_BAD_INPUT", "app", "main"]
