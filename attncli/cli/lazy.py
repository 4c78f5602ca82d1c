"""The commands of `attn`, each imported and made into a Click command only when it is run or
its own help is asked for.

Typer makes a command by reading its function's signature and evaluating every option's type,
about a tenth of a second for all of attn's commands: `attn explain` needs only its own module
and command, and `attn --help` only each command's name and help text (attncli/cli/command_help.py,
read without importing the commands' modules).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping
from importlib import import_module
from typing import Any

import typer
from typer import _click as click
from typer._click.utils import make_default_short_help
from typer.models import CommandInfo

from attncli.cli.command_help import COMMAND_HELP
from attncli.cli.language import AttnGroup, help_text, in_language

# Each command by name, in the order `attn --help` lists them, and its module in attncli/cli
# (whose Typer app holds it; tests/test_lazy_cli.py checks that the two agree).
COMMANDS = {
    "explain": "explain",
    "snippets": "snippets",
    "fill": "fill",
    "validate": "specs",
    "schema": "specs",
    "examples": "specs",
    "check": "check",
    "export": "export",
}


def command_name(info: CommandInfo) -> str:
    """The name Typer gives a command: its own, or its function's with - for _."""
    assert info.callback is not None
    return info.name or info.callback.__name__.lower().replace("_", "-")


def command_info(name: str) -> CommandInfo:
    """The command `name` as its module's Typer app holds it (the module imported now)."""
    module = import_module(f"attncli.cli.{COMMANDS[name]}")
    return next(i for i in module.app.registered_commands if command_name(i) == name)


class Commands(Mapping[str, click.Command]):
    """Click commands by name, each made on first use and then passed to `made` (which makes
    it write its help in the language asked for)."""

    def __init__(self, made: Callable[[click.Command], None]) -> None:
        self.made = made
        self.built: dict[str, click.Command] = {}

    def __getitem__(self, name: str) -> click.Command:
        if name not in self.built:
            command = typer.main.get_command_from_info(
                command_info(name), pretty_exceptions_short=True, rich_markup_mode=None)
            self.built[name] = command
            self.made(command)
        return self.built[name]

    def __iter__(self) -> Iterator[str]:
        return iter(COMMANDS)

    def __len__(self) -> int:
        return len(COMMANDS)


def help_of(name: str) -> str:
    """A command's help text, without importing its module (the command takes it from the
    same table)."""
    return COMMAND_HELP[name]


class LazyGroup(AttnGroup):
    """The `attn` group over COMMANDS, each made when it is first used."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.commands = Commands(  # type: ignore[assignment]
            lambda command: in_language(command, self.help_lang))

    def made_commands(self) -> Iterable[click.Command]:
        return self.commands.built.values()  # type: ignore[attr-defined]

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        """Each command's name and the start of its help, from COMMAND_HELP alone."""
        limit = formatter.width - 6 - max(len(name) for name in COMMANDS)
        rows = [(name, make_default_short_help(help_text(help_of(name), self.help_lang),
                                               limit).strip()) for name in COMMANDS]
        with formatter.section("Commands"):
            formatter.write_dl(rows)
