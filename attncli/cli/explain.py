"""`attn explain`: every step of attention on a spec, in the terminal (rich or text) or as JSON.
"""

# No `from __future__ import annotations`: Typer reads the command's parameter types at run
# time, and each written as a string would be compiled and evaluated on every run.
import os
import sys
from collections.abc import Iterable
from enum import Enum
from typing import Annotated, Optional

import typer

from attncli.cli.command_help import COMMAND_HELP
from attncli.cli.inputs import (
    check_explained,
    check_matrix_alone,
    check_precision,
    check_whole_numbers,
    decimal_option,
    jobs_asked,
    language,
    languages,
    load_walkthrough,
    loading,
    on_command_line,
    walkthrough_only,
)
from attncli.cli.options import (
    AllowOutsideOpt,
    BackwardOpt,
    DebugOpt,
    DecimalOpt,
    EmbeddingsOpt,
    ExpandOpt,
    FullOpt,
    HeaderOpt,
    HeadOpt,
    HeatmapOpt,
    LangOpt,
    MaskOpt,
    MatrixOpt,
    MaxCellsOpt,
    PrecisionOpt,
    ReadingOpt,
    RoundOpt,
    ScaleOpt,
    SpecArg,
    StepsOpt,
    TokensOpt,
    WidthOpt,
    WkOpt,
    WqOpt,
    WvOpt,
)
from attncli.cli.running import run
from attncli.errors import UsageError
from attncli.i18n import N_
from attncli.render import ELIDING, MAX_WIDTH, MIN_WIDTH, width_problem
from attncli.spec.limits import DEFAULT_MAX_CELLS
from attncli.spec.view import Inline, View

app = typer.Typer()  # merged into `attn` by attncli/cli/app.py


class Format(str, Enum):
    rich = "rich"
    text = "text"
    json = "json"


def output_width(width: int | None, rich: bool) -> int:
    """Columns to fit: --width; on a terminal its width ($COLUMNS first); the rich view piped,
    $COLUMNS when set; else 80, so that text in a file is the same on every machine."""
    if width is not None:
        if not MIN_WIDTH <= width <= MAX_WIDTH:
            raise UsageError(width_problem("--width", width))
        return width
    from attncli.render.terminal_size import environ_size

    columns = environ_size("COLUMNS")  # held to what attn lays out; ² and ① are no width
    if sys.stdout is not None and sys.stdout.isatty():
        import shutil

        if not columns:  # shutil reads $COLUMNS too, and its 5,000 digits as no number
            columns = shutil.get_terminal_size((80, 24)).columns
        return min(MAX_WIDTH, max(MIN_WIDTH, columns))
    if rich and columns is not None:
        return max(MIN_WIDTH, columns)
    return 80



@app.command(help=COMMAND_HELP["explain"])
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
    jobs: Annotated[Optional[int], typer.Option(  # noqa: UP045
        "--jobs", "-j", help=N_("Processes that write the written-out cells of a large "
                                "walkthrough side by side, in the rich and text formats "
                                "(default, and at most: the processors attn may use)."),
        show_default=False)] = None,
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
    inline = Inline(tokens, embeddings, mask, wq, wk, wv, scale)
    view = View(precision, round_intermediates, tuple(expand or ()), steps, head,
                reading=reading, header=header, matrix=matrix,
                summary=format.value in ELIDING and not full, backward=backward)

    def action() -> str | Iterable[str]:
        from attncli.render import stream

        chosen = languages(lang)
        check_precision(precision)
        if matrix is not None:
            check_matrix_alone({}, walkthrough_only(expand, header, reading))
        check_whole_numbers(format.value, "--format " + format.value, matrix is not None, **{
            "--full": full, "--precision": precision is not None,
            "--decimal-comma" if decimal_comma else "--decimal-dot":
            decimal_comma is not None})
        check_explained(format.value, matrix is not None, **{
            "--width": width is not None, "--jobs": jobs is not None,
            "--no-heatmap" if heatmap is False else "--heatmap": on_command_line("heatmap"),
            "--no-header" if header is False else "--header": header is not None})
        processes = jobs_asked(jobs)
        columns = output_width(width, format is Format.rich)
        shown = load_walkthrough(spec, inline, view, loading(allow_outside, max_cells),
                                 shows="--full" if full else "--format " + format.value)
        color = (format is Format.rich and sys.stdout is not None and sys.stdout.isatty()
                 and "NO_COLOR" not in os.environ)
        options = {"width": columns, "color": color, "full": full, "heatmap": heatmap,
                   "decimal": decimal_option(decimal_comma), "jobs": processes}
        if shown.matrix is not None:
            from attncli.render.bare import render_matrix

            return render_matrix(shown.walkthrough, shown.matrix, format.value, **options)
        return stream(shown.walkthrough, format.value, chosen, **options)

    run(action, language(lang), debug)
