"""The commands about spec files themselves, printing no walkthrough: `attn validate` checks
them, `attn schema` prints their JSON Schema, `attn examples` lists or prints the bundled ones."""

from __future__ import annotations

from typing import Annotated, Optional

import typer

from attncli.cli.inputs import language, languages, load_walkthrough, loading
from attncli.cli.options import AllowOutsideOpt, DebugOpt, MaxCellsOpt, MessagesLangOpt
from attncli.cli.running import fail, run, say
from attncli.errors import AttnError, SpecError
from attncli.i18n import N_, Msg
from attncli.spec.limits import DEFAULT_MAX_CELLS
from attncli.spec.view import Inline, View

app = typer.Typer()  # merged into `attn` by attncli/cli/app.py


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

    Example:

    \b
    attn validate configs/*.yaml
    """
    asked, lang = lang, language(lang)

    def action() -> str:
        languages(asked)  # a bad --lang or $ATTN_LANG is a usage error
        reading = loading(allow_outside, max_cells)
        broken = 0
        for spec in specs:
            try:  # what `attn explain --format text` makes of it, without writing it out
                load_walkthrough(spec, Inline(), View(summary=True), reading)
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

    Write it to a file, then start a spec with the line
    `# yaml-language-server: $schema=attn.schema.json`. With --lang, the schema describes the
    keys in that language.

    Example:

    \b
    attn schema > attn.schema.json
    """

    def action() -> str:
        from attncli.spec.schema import schema_text

        languages(lang)
        return schema_text(language(lang))

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

    With --lang, the comments of the spec are in that language.

    Example:

    \b
    attn examples cat_chases_mouse > my_first.yaml
    """
    asked, lang = lang, language(lang)

    def action() -> str:
        languages(asked)  # a bad --lang or $ATTN_LANG is a usage error
        from attncli.spec.examples import example_names, example_text, example_title

        if name is not None:
            return example_text(name, lang)
        names = example_names()
        width = max(map(len, names), default=0)
        return "".join(f"{n:<{width}}  {example_title(n, lang)}".rstrip() + "\n" for n in names)

    run(action, lang, debug)
