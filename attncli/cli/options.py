"""The command-line options of `attn`: one Annotated type per option, shared by the commands.

A command names its parameter with one of these types (`lang: LangOpt = None`), so an option's
flags and help text are written once however many commands take it. The help texts are msgids
(N_), translated at --help time by attncli/cli/language.py.
"""

from __future__ import annotations

from typing import Annotated, Optional

import typer

from attncli.i18n import N_

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
    "--max-cells", help=N_("Refuse a spec with more numbers than this in the matrices it makes "
    "(and with more values written in it than a hundredth of it, at least 150,000); its "
    "walkthrough may compute 32 times as many, a spec file may have 32 bytes for each value it "
    "may hold, and a .csv file 4 bytes per cell (each at least 1 MiB)."))]


# --- what to show: shared by every command that prints a walkthrough ---
ExpandOpt = Annotated[
    Optional[list[str]],  # noqa: UP045
    typer.Option("--expand", "-x", show_default=False,
                 help=N_("Cells to write out with their numbers: auto (one row per step on a small "
                 "spec), all, none, shown (every cell shown: all but the middle of a large "
                 "matrix; --html's default), STEP:ROW or STEP:ROW,COLUMN (e.g. "
                 "`scores:chases,mouse`); STEP is one of {expandable}. Repeatable.")),
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
                 help=N_("Columns to fit, from 40 to 1000 (default: 80; rich and text on a "
                 "terminal: its width; rich piped: $COLUMNS when set; either held to 1000).")),
]
FullOpt = Annotated[
    bool, typer.Option("--full", help=N_("Show every row and column of a large matrix and every "
                       "term of a long sum, instead of eliding the middle; on a large spec the "
                       "output can be large.")),
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


# --- worksheets (export) ---
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
    typer.Option("--answers", metavar="FILE", show_default=False, help=N_(
        "Worksheet: also write the answer key (the same document with every box filled in) to "
        "FILE; - is standard output.")),
]
