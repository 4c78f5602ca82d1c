"""The commands about spec files themselves, printing no walkthrough: `attn validate` checks
them, `attn schema` prints their JSON Schema, `attn examples` lists or prints the bundled ones."""

# No `from __future__ import annotations`: Typer reads the command's parameter types at run
# time, and each written as a string would be compiled and evaluated on every run.
from typing import Annotated, Optional

import typer

from attncli.cli.command_help import COMMAND_HELP
from attncli.cli.inputs import language, languages, load_walkthrough, loading
from attncli.cli.options import AllowOutsideOpt, DebugOpt, MaxCellsOpt, MessagesLangOpt
from attncli.cli.places import once_each
from attncli.cli.running import fail, run, say
from attncli.errors import AttnError, SpecError, UsageError
from attncli.i18n import N_, Msg
from attncli.spec.limits import DEFAULT_MAX_CELLS
from attncli.spec.view import Inline, View

app = typer.Typer()  # merged into `attn` by attncli/cli/app.py


@app.command(help=COMMAND_HELP["validate"])
def validate(
    specs: Annotated[list[str], typer.Argument(help=N_("Spec files to check (a file named more "
                                                       "than once is checked once); - reads "
                                                       "standard input."),
                                               show_default=False)],
    allow_outside: AllowOutsideOpt = False,
    max_cells: MaxCellsOpt = DEFAULT_MAX_CELLS,
    lang: MessagesLangOpt = None,
    debug: DebugOpt = False,
) -> None:
    asked, lang = lang, language(lang)

    def action() -> str:
        languages(asked)  # a bad --lang or $ATTN_LANG is a usage error
        reading = loading(allow_outside, max_cells)
        broken = 0
        named = once_each(specs)
        for spec in named:
            try:  # what `attn explain --format text` makes of it, without writing it out
                load_walkthrough(spec, Inline(), View(summary=True, read=False), reading)
            except AttnError as error:
                broken += 1
                fail(error, lang)
        if broken:
            raise SpecError(Msg.plural_of("{count} spec of {total} has errors",
                                          "{count} specs of {total} have errors",
                                          broken, total=len(named)))
        say(Msg.plural_of("{count} spec is valid", "{count} specs are valid", len(named)), lang)
        return ""

    run(action, lang, debug)


@app.command(help=COMMAND_HELP["schema"])
def schema(lang: MessagesLangOpt = None, debug: DebugOpt = False) -> None:
    def action() -> str:
        from attncli.spec.schema import schema_text

        languages(lang)
        return schema_text(language(lang))

    run(action, language(lang), debug)


@app.command(help=COMMAND_HELP["examples"])
def examples(
    name: Annotated[
        Optional[str],  # noqa: UP045
        typer.Argument(help=N_("Print this example's spec; without it, list the examples."),
                       show_default=False),
    ] = None,
    to: Annotated[
        Optional[str],  # noqa: UP045
        typer.Option("--to", metavar="DIR", show_default=False, help=N_(
            "Write the example's spec into this folder with the files it reads (an image, a "
            "checkpoint), beside it as in attn's own; writes over no file. - is standard "
            "output, as without --to.")),
    ] = None,
    lang: MessagesLangOpt = None,
    debug: DebugOpt = False,
) -> None:
    asked, lang = lang, language(lang)

    def action() -> str:
        languages(asked)  # a bad --lang or $ATTN_LANG is a usage error
        from attncli.spec.examples import example_names, example_title

        if name is not None and to is not None and to != "-":  # -: printed, as -o - prints
            return written(name, to, lang)
        if to is not None and to != "-":
            raise UsageError(Msg.of("--to writes one example: name it, as in {command}",
                                    command="attn examples vit_digit --to my_vit"))
        if name is not None:
            return printed(name, lang)
        names = example_names()
        width = max(map(len, names), default=0)
        return "".join(f"{n:<{width}}  {example_title(n, lang)}".rstrip() + "\n" for n in names)

    run(action, lang, debug)


def printed(name: str, lang: str) -> str:
    """The example's spec for standard output; on stderr, the files it reads beside it, which a
    copy of the text alone leaves behind, and how to take them too."""
    from attncli.spec.examples import example_files, example_text

    text = example_text(name, lang)
    files = example_files(name)
    if files:
        say(Msg.plural_of("this spec reads {count} file beside it ({files}); to copy it with "
                          "the spec, run attn examples {name} --to DIR", "this spec reads "
                          "{count} files beside it ({files}); to copy them with the spec, run "
                          "attn examples {name} --to DIR", len(files), files=", ".join(files),
                          name=name), lang)
    return text


def written(name: str, to: str, lang: str) -> str:
    """`attn examples NAME --to DIR`: the spec and its files written; on stderr, what was
    written and the command that runs it."""
    import shlex
    from pathlib import Path

    from attncli.spec.examples import write_example

    if not to:  # "$DIR" unset in a script: not the current folder
        raise UsageError(Msg.of("--to: expected a folder, found an empty text"))
    spec, *files = write_example(name, Path(to), lang)
    # the command as a shell takes it: `my dir`, `x;y` quoted, `-x/` not read as an option
    command = "attn explain " + shlex.quote(str(spec) if not str(spec).startswith("-")
                                           else f"./{spec}")
    say(Msg.plural_of("wrote {spec} and {count} file it reads; run {command}",
                      "wrote {spec} and {count} files it reads; run {command}", len(files),
                      spec=str(spec), command=command) if files else
        Msg.of("wrote {spec}; run {command}", spec=str(spec), command=command), lang)
    return ""
