"""`attn export`: the walkthrough as LaTeX, Beamer, Markdown, JSON or SVG (and a heatmap), to
stdout or written safely to a file, optionally as a worksheet with its answer key."""

# No `from __future__ import annotations`: Typer reads the command's parameter types at run
# time, and each written as a string would be compiled and evaluated on every run.
from collections.abc import Iterable
from enum import Enum
from pathlib import Path
from typing import Annotated, Optional

import typer

from attncli.cli.command_help import COMMAND_HELP
from attncli.cli.inputs import (
    STDOUT,
    alternatives,
    check_matrix_alone,
    check_outputs,
    check_precision,
    check_whole_numbers,
    decimal_option,
    inputs_of,
    language,
    languages,
    load_walkthrough,
    loading,
    on_command_line,
    one_standard_output,
    only_with,
    shaped_by,
    walkthrough_only,
)
from attncli.cli.options import (
    AllowOutsideOpt,
    AnswersOpt,
    BackwardOpt,
    BlankCellsOpt,
    BlankOpt,
    DebugOpt,
    DecimalOpt,
    ExpandOpt,
    FullOpt,
    HeaderOpt,
    HeadOpt,
    LangOpt,
    MatrixOpt,
    MaxCellsOpt,
    PrecisionOpt,
    ReadingOpt,
    RoundOpt,
    SeedOpt,
    SpecArg,
    StepsOpt,
    WorksheetOpt,
)
from attncli.cli.running import run
from attncli.cli.streams import check_stdout, write_stdout
from attncli.errors import UsageError
from attncli.i18n import N_, Msg
from attncli.spec.limits import DEFAULT_MAX_CELLS
from attncli.spec.view import Inline, View

app = typer.Typer()  # merged into `attn` by attncli/cli/app.py


class ExportFormat(str, Enum):
    latex = "latex"
    markdown = "markdown"
    json = "json"
    svg = "svg"
    beamer = "beamer"
    html = "html"
    typst = "typst"


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
        raise UsageError(Msg.of("choose one of --latex, --beamer, --markdown, --json, --svg, "
                                "--html, --typst; found {found}",
                                found=", ".join("--" + name for name in chosen)))
    return ExportFormat(chosen[0]) if chosen else None


# the options that shape one format's file, and the formats each shapes: given with another
# format, an option would be dropped without a word, so it is refused; "slides" is Typst with
# --slides, the one Typst page that has an aspect
SHAPES = {"standalone": ("latex", "typst"), "fragment": ("html",), "slides": ("typst",),
          "frames_only": ("beamer",), "front_matter": ("markdown",), "md_flavor": ("markdown",),
          "aspect": ("beamer", "slides")}


def check_shape(chosen: str, **given: bool) -> None:
    """Refuse an option of `SHAPES` given with a format (`chosen`) it does not shape."""
    kinds = {chosen} | ({"slides"} if chosen == "typst" and given.get("slides") else set())
    if "slides" in kinds and given.get("standalone"):  # slides are always a whole document
        raise only_with("--standalone", alternatives(["--latex", "--typst"]), "--typst --slides")
    for name, on in given.items():
        formats = SHAPES[name]
        if on and not kinds.intersection(formats):
            raise only_with("--" + name.replace("_", "-"),
                            alternatives(["--" + f for f in formats]), "--" + chosen)


def check_page(chosen: str, **given: bool) -> None:
    """Refuse --header or --no-header (`given`: as the user gave it, and whether it is) with a
    format that writes no page around the steps: JSON holds the header's facts as data."""
    for option, on in given.items():
        if on and chosen == "json":
            raise only_with(option, shaped_by(option), "--json")


def check_picture_alone(**page: bool) -> None:
    """--heatmap with no format writes the picture of the weights alone: refuse an option that
    shapes the walkthrough's page (`page`: each option's name as given, and whether it is)."""
    for option, on in page.items():
        if on:
            raise UsageError(Msg.of("{option} works only with a format that writes the "
                                    "walkthrough (--latex, --beamer, --markdown, --json, --svg, "
                                    "--html, --typst); --heatmap alone draws the weights",
                                    option=option))


SVG_WIDTH = 100  # columns of the terminal picture: fixed, so the file is the same everywhere


@app.command(help=COMMAND_HELP["export"])
def export(
    spec: SpecArg = None,
    latex: Annotated[bool, typer.Option("--latex", help=N_("LaTeX (amsmath), a fragment for "
                                        "\\input; see --standalone."))] = False,
    markdown: Annotated[bool, typer.Option("--markdown", help=N_("Markdown with $$ math; "
                                           "see --md-flavor."))] = False,
    json: Annotated[bool, typer.Option("--json", help=N_("Strict JSON, full precision."))] = False,
    svg: Annotated[bool, typer.Option("--svg", help=N_("The terminal view as an SVG."))] = False,
    xlsx: Annotated[bool, typer.Option("--xlsx", help=N_(
        "A live spreadsheet (.xlsx, needs -o FILE): every computed cell a formula, so an edited "
        "embedding changes every later step."))] = False,
    beamer: Annotated[bool, typer.Option("--beamer", help=N_("Beamer slides for pdflatex: one "
                                         "frame per step; see --frames-only, --aspect."))] = False,
    html: Annotated[bool, typer.Option("--html", help=N_(
        "One self-contained HTML page to explore offline: click or tab to any number to see how "
        "it was computed; see --fragment."))] = False,
    fragment: Annotated[bool, typer.Option("--fragment", help=N_(
        "HTML: one block to paste into a blog post, its styles and script scoped to it."))
    ] = False,
    typst: Annotated[bool, typer.Option("--typst", help=N_(
        "Typst, a fragment for #include; see --standalone and --slides."))] = False,
    slides: Annotated[bool, typer.Option("--slides", help=N_(
        "Typst: slides, one page per step; see --aspect."))] = False,
    frames_only: Annotated[bool, typer.Option(
        "--frames-only", help=N_("Beamer: only the frames, for \\input into a deck."))] = False,
    aspect: Annotated[Aspect, typer.Option(
        "--aspect", help=N_("Beamer and Typst slides: the aspect ratio, 169 (16:9) or 43 "
                            "(4:3)."))
    ] = Aspect.wide,
    output: Annotated[
        Optional[str],  # noqa: UP045
        typer.Option("--output", "-o", metavar="FILE", show_default=False, help=N_(
            "Write to FILE (safely: a temporary file renamed over it) instead of standard "
            "output; - is standard output.")),
    ] = None,
    standalone: Annotated[bool, typer.Option(
        "--standalone", help=N_("LaTeX or Typst: a whole document (for pdflatex or typst "
                                "compile), not a fragment."))] = False,
    md_flavor: Annotated[Optional[MdFlavor], typer.Option(  # noqa: UP045
        "--md-flavor", show_default=False,
        help=N_("Markdown: github (default: ```math blocks and $`..`$), katex ($$ and $..$) or "
        "plain (tables and code blocks, no math); default: the spec's display.md_flavor, or "
        "github."))] = None,
    front_matter: Annotated[bool, typer.Option(
        "--front-matter", help=N_("Markdown: YAML front matter for pandoc, Hugo and "
        "Jekyll (title, lang, description, math) with title_<lang> and "
        "description_<lang>."))] = False,
    heatmap: Annotated[
        Optional[str],  # noqa: UP045
        typer.Option("--heatmap", metavar="FILE", show_default=False, help=N_(
            "Also write the attention weights as a heatmap SVG to FILE (one panel per head); - is "
            "standard output.")),
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
    # a format that elides the middle of a large matrix needs only the rows it shows (build's
    # summary); a worksheet draws its blanks from every cell, --matrix shows one whole
    eliding = bool(svg or latex or beamer or markdown or html or typst) and not full and (
        heatmap is None)
    sheet = worksheet or blank is not None or blank_cells is not None or answers is not None
    # a page whose every number explains itself writes out every cell it shows
    view = View(precision, round_intermediates, tuple(expand or (("shown",) if html else ())),
                steps, head,
                reading=reading, header=header, matrix=matrix,
                md_flavor=md_flavor.value if md_flavor is not None else None,
                summary=eliding and not sheet and matrix is None, backward=backward,
                # the page keeps a softmax row's lines of its shown cells alone: only those are
                # written out
                terms_shown=html and not expand and not full and not sheet and heatmap is None)

    if output == STDOUT:  # standard output, as `attn explain -` reads standard input
        output = None

    def action() -> str | Iterable[str]:
        from attncli.files.writing import check_not_input
        from attncli.render import render, stream
        from attncli.spec.files import recording

        shaped = {"standalone": standalone, "fragment": fragment, "slides": slides,
                  "frames_only": frames_only, "front_matter": front_matter,
                  "md_flavor": md_flavor is not None, "aspect": on_command_line("aspect")}
        if on_command_line("seed") and blank_cells is None:  # it draws nothing else
            raise UsageError(Msg.of("{option} works only with {other}", option="--seed",
                                    other="--blank-cells"))
        if xlsx:
            from attncli.check.worksheet import check_worksheet
            from attncli.cli.spreadsheet import check_spreadsheet_page, write_spreadsheet

            check_shape("xlsx", **shaped)
            check_spreadsheet_page(**{  # a sheet's cells are every number, with no prose
                "--full": full, "--no-header" if header is False else "--header":
                header is not None, "--no-reading" if reading is False else "--reading":
                reading is not None})
            if sheet and not worksheet:  # --answers, --blank or --blank-cells: a worksheet's
                check_worksheet(worksheet, "xlsx")
            other = bool(latex or beamer or markdown or json or svg or heatmap or worksheet)
            return write_spreadsheet(spec, output, view, other, lang, decimal_comma,
                                     allow_outside, max_cells)
        fmt = export_format(latex=latex, beamer=beamer, markdown=markdown, json=json, svg=svg,
                            html=html, typst=typst)
        if fmt is None and heatmap is None:
            raise UsageError(Msg.of("choose one of --latex, --beamer, --markdown, --json, --svg, "
                                    "--html, --typst (or --heatmap FILE)"))
        check_shape(fmt.value if fmt is not None else "heatmap", **shaped)
        if fmt is not None:
            check_whole_numbers(fmt.value, "--" + fmt.value, matrix is not None, **{
                "--full": full, "--precision": precision is not None,
                "--decimal-comma" if decimal_comma else "--decimal-dot":
                decimal_comma is not None})
            check_page(fmt.value, **{"--no-header" if header is False else "--header":
                                     header is not None})
        if matrix is not None:
            check_matrix_alone(
                {"--worksheet": worksheet, "--blank": blank is not None,
                 "--blank-cells": blank_cells is not None, "--answers": answers is not None},
                {"--standalone": standalone, "--front-matter": front_matter,
                 **walkthrough_only(expand, header, reading)})
        if fmt is None:
            check_picture_alone(**{
                "-o": output is not None,  # the picture goes to --heatmap's own file
                "--steps": steps is not None, "--expand": expand is not None, "--full": full,
                "--matrix": matrix is not None, "--backward": backward,
                "--no-header" if header is False else "--header": header is not None,
                "--no-reading" if reading is False else "--reading": reading is not None})
        chosen = languages(lang)
        check_precision(precision)
        check_outputs(output, heatmap, answers)
        one_standard_output(fmt is not None and output is None, heatmap, answers)
        to_stdout = STDOUT in (heatmap, answers) or (fmt is not None and output is None)
        if to_stdout and any(path not in (None, STDOUT) for path in (output, heatmap, answers)):
            check_stdout()  # a file besides: a closed stdout refused before the work
        shows = "--full" if full else "--" + (fmt.value if fmt is not None else "heatmap")
        with recording() as named:  # the matrices, tokenizer and checkpoint the spec reads
            shown = load_walkthrough(spec, Inline(), view, loading(allow_outside, max_cells),
                                     shows)
        walkthrough = shown.walkthrough
        protect = inputs_of(spec, named)
        for path in (output, heatmap, answers):  # refused before any of them is written
            if path is not None and path != STDOUT:
                check_not_input(path, protect)
        decimal = decimal_option(decimal_comma)
        key = walkthrough
        if sheet:
            from attncli.check.worksheet import answer_key, worksheet_of

            walkthrough = worksheet_of(walkthrough, worksheet, fmt and fmt.value, blank,
                                       blank_cells, seed, full)
            key = answer_key(key)
        on_stdout: str | Iterable[str] = ""  # --heatmap - or --answers -: at most one of them
        files: list[tuple[str, str | Iterable[str], list[str | Path | int]]] = []
        if heatmap is not None:  # a picture: its labels in the first language asked for
            picture = render(walkthrough, "heatmap", chosen[0], decimal=decimal)
            if heatmap == STDOUT:
                on_stdout = picture
            else:
                files.append((heatmap, picture, protect))
        if fmt is None:
            return written_together(files, on_stdout)
        options = {"full": full, "width": SVG_WIDTH if fmt is ExportFormat.svg else 80,
                   "decimal": decimal}
        if shown.matrix is not None:
            from attncli.render.bare import render_matrix

            text: str | Iterable[str] = render_matrix(walkthrough, shown.matrix, fmt.value,
                                                      **options)
        else:
            shape = {"standalone": standalone, "front_matter": front_matter,
                     "frames_only": frames_only, "aspect": aspect.value, "fragment": fragment,
                     "slides": slides}
            text = stream(walkthrough, fmt.value, chosen, **shape, **options)
            if answers == STDOUT:
                on_stdout = stream(key, fmt.value, chosen, **shape, **options)
            elif answers is not None:
                files.append((answers, stream(key, fmt.value, chosen, **shape, **options),
                              [*protect, *([output] if output else [])]))
        if output is not None:
            files.append((output, text, protect))
        return written_together(files, text if output is None else on_stdout)

    run(action, language(lang), debug)


def written_together(files: list[tuple[str, str | Iterable[str], list[str | Path | int]]],
                     on_stdout: str | Iterable[str]) -> str | Iterable[str]:
    """Write the files all or none (attncli/cli/outputs.py) and give back what goes to stdout.
    Beside a file, stdout is written first: a stdout that is closed or full (`>/dev/full`, a
    full disk) refuses the command before any file is made, and the files, whose folders and
    room are checked before, are written once stdout has taken the rest."""
    from attncli.cli.outputs import write_together

    if files and on_stdout:
        write_stdout(on_stdout)
        on_stdout = ""
    write_together(files)
    return on_stdout
