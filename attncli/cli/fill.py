"""`attn fill FILE…`: write each attn block's walkthrough into the document right after it
(or --check, --diff), with a one-line summary whose exit code says whether every document is
up to date."""

# No `from __future__ import annotations`: Typer reads the command's parameter types at run
# time, and each written as a string would be compiled and evaluated on every run.
import shlex
from typing import TYPE_CHECKING, Annotated

import typer

from attncli.cli.command_help import COMMAND_HELP
from attncli.cli.inputs import language, languages, loading
from attncli.cli.options import DebugOpt, MaxCellsOpt, MessagesLangOpt
from attncli.cli.places import once_each
from attncli.cli.running import fail, run, say
from attncli.cli.streams import check_stdout, write_stdout
from attncli.errors import AttnError, CheckFailed, SpecError
from attncli.i18n import N_, Msg
from attncli.i18n.visible import visible_document
from attncli.spec.limits import DEFAULT_MAX_CELLS

if TYPE_CHECKING:
    from attncli.fill.document import Filled

app = typer.Typer()  # merged into `attn` by attncli/cli/app.py


@app.command(help=COMMAND_HELP["fill"])
def fill(
    files: Annotated[list[str], typer.Argument(
        help=N_("The documents: Markdown (.md, .markdown), Quarto (.qmd), LaTeX (.tex) or "
                "notebooks (.ipynb); a document named more than once is filled once."),
        show_default=False)],
    check: Annotated[bool, typer.Option(
        "--check", help=N_("Write nothing; exit 1 if any block's output is stale or missing."))
    ] = False,
    diff: Annotated[bool, typer.Option(
        "--diff", help=N_("Write nothing; print what would change as unified diffs."))] = False,
    max_cells: MaxCellsOpt = DEFAULT_MAX_CELLS,
    lang: MessagesLangOpt = None,
    debug: DebugOpt = False,
) -> None:
    asked, lang = lang, language(lang)

    def action() -> str:
        from attncli.cli.places import from_deleted_folder
        from attncli.fill.document import fill as fill_document
        from attncli.fill.document import unified_diff, write_filled

        languages(asked)  # a bad --lang or $ATTN_LANG is a usage error, as in every command
        reading = loading(False, max_cells)
        if diff:  # the diffs go to standard output: a closed one is said before any work
            check_stdout()
        writing = not (check or diff)
        counts = {"filled": 0, "unchanged": 0, "failed": 0, "stale": 0}
        # said once the documents are written or the diffs printed: a run that ends with one
        # line (a document saved meanwhile, a full stdout) ends with that line alone
        report: list[AttnError] = []
        changed: list[Filled] = []
        for name in once_each(files):
            try:
                filled = fill_document(from_deleted_folder(name), reading.max_cells)
            except AttnError as error:
                report.append(error)
                counts["failed"] += 1
                continue
            fix = "attn fill " + shlex.quote(name)
            if not writing:
                report += [CheckFailed(Msg.of("the output of this attn block is stale; run: "
                                              "{command}", command=fix), where)
                           for where in filled.stale]
                report += [CheckFailed(Msg.of("this attn block has no output yet; run: "
                                              "{command}", command=fix), where)
                           for where in filled.missing]
            if filled.new == filled.old:
                counts["unchanged"] += 1
            elif writing or diff:  # --check needs no more than the count
                changed.append(filled)
            else:
                counts["stale"] += 1
        if writing:  # all or none: see write_filled
            refused = write_filled(changed)
            report += refused
            counts["filled"], counts["failed"] = (len(changed) - len(refused),
                                                  counts["failed"] + len(refused))
        elif diff:
            counts["stale"] = len(changed)
        if diff and changed:  # the documents are the tree's (a pull request's): shown inert
            write_stdout(inert("".join(unified_diff(filled) for filled in changed)))
        for problem in report:
            fail(problem, lang)
        finish(counts, writing, check, lang)
        return ""

    run(action, lang, debug)


def inert(diff: str) -> str:
    """The diff with no control character raw but the CR of a CRLF line ending, which `git
    apply` needs for a CRLF document and a terminal shows as nothing."""
    return "".join(visible_document(line[:-2]) + "\r\n" if line.endswith("\r\n")
                   else visible_document(line) for line in diff.splitlines(keepends=True))


def finish(counts: dict[str, int], writing: bool, check: bool, lang: str) -> None:
    """The one-line summary: said on success, raised (with its exit code) otherwise."""
    failed = Msg.plural_of("{count} failed", "{count} failed", counts["failed"])
    if writing:
        first = Msg.plural_of("{count} document filled", "{count} documents filled",
                              counts["filled"])
    else:
        first = Msg.plural_of("{count} stale", "{count} stale", counts["stale"])
    second = Msg.plural_of("{count} up to date", "{count} up to date", counts["unchanged"])
    summary = Msg.of("{first}, {second}, {third}", first=first, second=second, third=failed)
    if counts["failed"]:
        raise SpecError(summary)
    if check and counts["stale"]:
        raise CheckFailed(summary)
    say(summary, lang)
