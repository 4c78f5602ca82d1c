"""`attn snippets`: write (or --check, --diff) every snippet a manifest lists, with a one-line
summary whose exit code says whether the tree is up to date."""

# No `from __future__ import annotations`: Typer reads the command's parameter types at run
# time, and each written as a string would be compiled and evaluated on every run.
import shlex
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Annotated, Optional

import typer

from attncli.cli.command_help import COMMAND_HELP
from attncli.cli.inputs import jobs_option, language, languages, loading
from attncli.cli.options import AllowOutsideOpt, DebugOpt, MaxCellsOpt, MessagesLangOpt
from attncli.cli.running import fail, run, say
from attncli.cli.streams import check_stdout, write_stdout
from attncli.errors import CheckFailed, SpecError
from attncli.i18n import N_, Msg
from attncli.i18n.visible import visible_document
from attncli.spec.limits import DEFAULT_MAX_CELLS

if TYPE_CHECKING:
    from attncli.snippets.run import Report

app = typer.Typer()  # merged into `attn` by attncli/cli/app.py

# Below this many snippets a progress bar would only flicker.
PROGRESS_MIN = 20


@contextmanager
def progress_bar(total: int) -> Iterator[Callable[[], None]]:
    """A progress bar on stderr when there are many snippets and stderr is a terminal that
    writes text (not one under PYTHONIOENCODING=idna or undefined: exit 3 as the bar was
    drawn); otherwise, and with stderr closed (`2>&-`, no sys.stderr: exit 3 too), a tick
    that does nothing."""
    from attncli.cli.streams import writes_text

    err = sys.stderr
    if total < PROGRESS_MIN or err is None or not err.isatty() or not writes_text(err):
        yield lambda: None
        return
    from rich.console import Console
    from rich.progress import Progress

    from attncli.render.terminal_size import console_environ

    with Progress(console=Console(stderr=True, _environ=console_environ()),
                  transient=True) as bar:
        task = bar.add_task("attn snippets", total=total)
        yield lambda: bar.advance(task)


@app.command(help=COMMAND_HELP["snippets"])
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
    jobs: Annotated[Optional[int], typer.Option(  # noqa: UP045
        "--jobs", "-j", help=N_("How many specs to render at once, each in a process of its "
                                "own (default, and at most: the processors attn may use)."),
        show_default=False)] = None,
    allow_outside: AllowOutsideOpt = False,
    max_cells: MaxCellsOpt = DEFAULT_MAX_CELLS,
    lang: MessagesLangOpt = None,
    debug: DebugOpt = False,
) -> None:
    asked, lang = lang, language(lang)

    def action() -> str:
        from pathlib import Path

        from attncli.cli.places import from_deleted_folder
        from attncli.snippets.manifest import find_manifest, load_manifest, targets
        from attncli.snippets.run import generate

        languages(asked)  # a bad --lang or $ATTN_LANG is a usage error
        reading = loading(allow_outside, max_cells)
        processes = jobs_option(jobs)
        if diff:  # the diffs go to standard output: a closed one is said before any work
            check_stdout()
        path = (from_deleted_folder(manifest) if manifest is not None
                else find_manifest(Path(".")))
        planned = targets(load_manifest(path))
        writing = not (check or diff)
        with progress_bar(len(planned)) as tick:
            report = generate(planned, write=writing, tick=tick, loading=reading,
                              jobs=processes, diff=diff)
        stale = [o for o in report.outcomes if o.status in ("stale", "missing")]
        if diff:  # first: a stdout that takes nothing (a full disk) is then the one line said
            # the old files are the tree's (a pull request's): what they hold is shown inert
            write_stdout(visible_document("".join(outcome.diff or "" for outcome in stale)))
        for error in report.errors():
            fail(error, lang)
        fix = "attn snippets" + ("" if manifest is None else " " + shlex.quote(manifest))
        for outcome in stale:
            where = outcome.target.output.as_posix()
            if outcome.status == "stale":
                say(Msg.of("{path} is stale; run: {command}", path=where, command=fix), lang)
            else:
                say(Msg.of("{path} is missing; run: {command}", path=where, command=fix), lang)
        finish(report, writing, check, lang)
        return ""

    run(action, lang, debug)


def finish(report: "Report", writing: bool, check: bool, lang: str) -> None:
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
