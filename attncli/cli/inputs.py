"""What the options shared by the commands mean: the languages asked for, the decimals, how to
read spec files, which spec, and the walkthrough they ask to show.

Each function raises UsageError for a value it cannot take; commands call them inside `run`.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Literal

from attncli.cli.language import root_option
from attncli.errors import UsageError
from attncli.i18n import DEFAULT_LANG, Msg, first_known
from attncli.spec.limits import MAX_PRECISION
from attncli.spec.view import Inline, Loading, View, parse_languages

if TYPE_CHECKING:
    from collections.abc import Iterable
    from pathlib import Path

    from attncli.steps.show import Shown



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


def loading(allow_outside: bool, max_cells: int) -> Loading:
    """How to read spec files; UsageError if --max-cells is not a positive number."""
    if max_cells < 1:
        raise UsageError(Msg.of("{option}: expected a whole number of at least {low}, found "
                                "{value}", option="--max-cells", low=1, value=max_cells))
    return Loading(allow_outside, max_cells)


def jobs_asked(jobs: int | None) -> int | None:
    """`--jobs` as given, None when not given (as many processes as attn may use, counted
    when they are about to start: a small walkthrough starts none); UsageError if --jobs is
    not a positive number."""
    if jobs is not None and jobs < 1:
        raise UsageError(Msg.of("{option}: expected a whole number of at least {low}, found "
                                "{value}", option="--jobs", low=1, value=jobs))
    return jobs


def jobs_option(jobs: int | None) -> int:
    """How many processes a command works in: `--jobs`, at most the processors attn may use
    (attncli/workers/pool.py), which is also the default; UsageError if --jobs is not a positive
    number."""
    from attncli.workers.pool import usable_processors

    asked = jobs_asked(jobs)
    usable = usable_processors()
    return usable if asked is None else min(asked, usable)


def spec_path(spec: str | None) -> str:
    """The spec file to read: SPEC, or the bundled example when none is given."""
    if spec is not None:
        return spec
    from attncli.spec.examples import example_path

    return str(example_path())


def inputs_of(spec: str | None, named: Iterable[str | Path]) -> list[str | Path | int]:
    """What no output may be written over: the spec file, or for `-` standard input (a file
    piped with `< spec.yaml` is as much the input as its name), and the files it reads."""
    from attncli.files.reading import STANDARD_INPUT

    return [STANDARD_INPUT if spec == "-" else spec_path(spec), *named]


def load_walkthrough(spec: str | None, inline: Inline, view: View,
                     reading: Loading | None = None, shows: str = "--full") -> Shown:
    """The walkthrough the shared options ask for: from SPEC, from the calculator options, or
    the bundled example. Call it inside `run`, so its errors become one line and exit 2.
    Unless the view elides, what it shows is bounded first (attncli/steps/budget.py), `shows` naming
    the option that asks for every number."""
    from attncli.spec import load_spec
    from attncli.spec.inline import inline_spec
    from attncli.steps.show import prepare

    reading = reading or Loading()
    if inline.given():
        if spec is not None:
            raise UsageError(Msg.of("give either SPEC or --tokens/--embeddings, not both"))
        loaded = inline_spec(inline, reading.max_cells)
    else:
        loaded = load_spec(spec_path(spec), **vars(reading))
    from attncli.steps.budget import check_view

    check_view(loaded, view, reading.max_cells, shows)
    return prepare(loaded, view, reading.max_cells)


STDOUT = "-"  # an output named so is standard output, as `attn explain -` reads standard input


def one_standard_output(document: bool, heatmap: str | None, answers: str | None) -> None:
    """Refuse, before any work, two documents on standard output (`document`: the one of -o,
    which goes there without -o or with -o -): a reader of the stream could not tell where one
    ends and the next begins."""
    there = [option for option, on in (("--output", document), ("--heatmap", heatmap == STDOUT),
                                       ("--answers", answers == STDOUT)) if on]
    if len(there) > 1:
        raise UsageError(Msg.of("{first} and {second} would both write to standard output; name "
                                "a file for one of them", first=there[0], second=there[1]))


def one_standard_input(spec: str | None, answer: str) -> None:
    """Refuse `attn check - -a -`: the answer would read all of standard input, and the spec
    find it empty (the spec's text was judged as the answer)."""
    if spec == "-" and answer == "-":
        raise UsageError(Msg.of("{first} and {second} would both read standard input; name a "
                                "file for one of them", first="SPEC", second="--answer"))


def check_outputs(output: str | None, heatmap: str | None, answers: str | None = None) -> None:
    """Refuse, before any work, an output that is not a regular file (see
    attncli/files/writing.py) or cannot be written now (see cli/outputs.py), and two outputs
    that are one file (-o key.md --answers key.md would leave only the key)."""
    from itertools import combinations
    from pathlib import Path

    from attncli.cli.outputs import check_writable
    from attncli.files.reading import same_file

    named = [(option, path) for option, path in (("--output", output), ("--heatmap", heatmap),
                                                 ("--answers", answers))
             if path is not None and path != STDOUT]
    for _, path in named:
        check_writable(path)
    for (first, one), (second, other) in combinations(named, 2):
        if same_file(Path(one), Path(other)):
            raise UsageError(Msg.of("{first} and {second} name the same file {file}; choose "
                                    "two files", first=first, second=second, file=one))


def check_matrix_alone(sheet: dict[str, bool], page: dict[str, bool]) -> None:
    """--matrix writes one matrix, every number in it, to paste into a formula: refuse an option
    of a worksheet (`sheet`) or of a whole document (`page`), each option's name and whether it
    is given, rather than write the matrix without it."""
    for option, on in sheet.items():
        if on:
            raise UsageError(Msg.of("{option} works only with the whole walkthrough, not with "
                                    "--matrix; for a worksheet of one step, use --steps, as in "
                                    "{example}", option=option,
                                    example="--steps weights --blank weights"))
    for option, on in page.items():
        if on:
            raise UsageError(Msg.of("{option} works only with the whole walkthrough, not with "
                                    "--matrix, which writes one matrix to paste into a "
                                    "document of your own", option=option))


def walkthrough_only(expand: object, header: bool | None, reading: bool | None) -> dict[str, bool]:
    """The options that shape the walkthrough's text, each as the user gave it and whether it is
    given: --matrix writes no written-out cell, no header and no reading, so it refuses them."""
    return {"--expand": expand is not None,
            "--no-header" if header is False else "--header": header is not None,
            "--no-reading" if reading is False else "--reading": reading is not None}


def alternatives(options: list[str]) -> Msg | str:
    """`--latex or --typst` (a list of two at most, as SHAPES holds)."""
    if len(options) == 1:
        return options[0]
    return Msg.of("{first} or {second}", first=options[0], second=options[1])


def on_command_line(name: str) -> bool:
    """Whether the command line gave option `name`, not its default (--aspect 169 is given); False
    outside Click (a test calling the command's function)."""
    from typer._click.core import ParameterSource
    from typer._click.globals import get_current_context

    ctx = get_current_context(silent=True)
    return ctx is not None and ctx.get_parameter_source(name) in (
        ParameterSource.COMMANDLINE, ParameterSource.ENVIRONMENT)


def check_explained(format: str, matrix: bool, **given: bool) -> None:
    """Refuse an option of `explain` that shapes nothing of what it writes: --width, --jobs and
    --heatmap (the terminal's: `--heatmap` or `--no-heatmap` given) lay out the rich and text
    views only, --header only those; with one matrix alone (`matrix`), none of them but --width,
    which splits it into blocks. `given`: each option as given, and whether it is given."""
    if matrix:  # one matrix alone is still split into column blocks that fit --width
        check_matrix_alone({}, {option: on for option, on in given.items() if option != "--width"})
    if format in ("rich", "text"):
        return
    for option, on in given.items():
        if on:
            raise only_with(option, alternatives(["--format rich", "--format text"]),
                            "--format " + format)


def check_whole_numbers(format: str, found: str, matrix: bool, **given: bool) -> None:
    """JSON writes every number whole: refuse --full with it (`found`: the format as the command
    line chose it, `--json` or `--format json`) and, for one matrix alone (`matrix`), the other
    options of `given` (each as the user gave it, and whether it is), which round or write its
    numbers. --matrix writes every number of its matrix in any format: --full is refused there."""
    full = given.pop("--full", False)
    if full and matrix:
        check_matrix_alone({}, {"--full": True})
    if format != "json":
        return
    if full:
        raise only_with("--full", shaped_by("--full"), found)
    for option, on in given.items():
        if on and matrix:
            raise UsageError(Msg.of("{option} works only with a format that prints the matrix's "
                                    "numbers rounded; --matrix in JSON writes them whole",
                                    option=option))


def shaped_by(option: str) -> Msg:
    """The formats an option of a written page shapes: --full those that shorten a matrix,
    --header those that write a page around the steps, --reading every walkthrough."""
    if option == "--full":
        return Msg.of("a format that shortens a large matrix in the middle")
    if option in ("--header", "--no-header"):
        return Msg.of("a format that writes a page (--latex, --beamer, --markdown, --svg, "
                      "--html, --typst)")
    return Msg.of("a format that writes the walkthrough (--latex, --beamer, --markdown, --json, "
                  "--svg, --html, --typst)")


def only_with(option: str, formats: Msg | str, found: str) -> UsageError:
    """The refusal of an option given with a format it does not shape (`found`): the formats
    it does shape, `formats`."""
    return UsageError(Msg.of("{option} works only with {formats}; the format chosen is {found}",
                             option=option, formats=formats, found=found))

