"""The commands of `attn`, each made into a Click command only when it is run or its own help is
asked for.

Typer makes a command by reading its function's signature and evaluating every option's type,
about a tenth of a second for all of attn's commands: `attn explain` needs only its own, and
`attn --help` only each command's name and the first sentence of its docstring.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Iterable, Iterator, Mapping
from types import ModuleType
from typing import Any

import typer
from typer import _click as click
from typer._click.utils import make_default_short_help
from typer.models import CommandInfo

from attncli.cli.language import AttnGroup, help_text, install_help


def command_infos(modules: tuple[ModuleType, ...]) -> dict[str, CommandInfo]:
    """The commands each module's Typer app holds, by name, in the modules' order."""
    infos = {}
    for module in modules:
        for info in module.app.registered_commands:
            assert info.callback is not None
            infos[info.name or info.callback.__name__.lower().replace("_", "-")] = info
    return infos


class Commands(Mapping[str, click.Command]):
    """Click commands by name, each made on first use and then passed to `made` (which puts
    the help texts of the language asked for into it)."""

    def __init__(self, infos: dict[str, CommandInfo],
                 made: Callable[[click.Command], None]) -> None:
        self.infos = infos
        self.made = made
        self.built: dict[str, click.Command] = {}

    def __getitem__(self, name: str) -> click.Command:
        if name not in self.built:
            command = typer.main.get_command_from_info(
                self.infos[name], pretty_exceptions_short=True, rich_markup_mode=None)
            self.built[name] = command
            self.made(command)
        return self.built[name]

    def __iter__(self) -> Iterator[str]:
        return iter(self.infos)

    def __len__(self) -> int:
        return len(self.infos)

    def help(self, name: str) -> str:
        """A command's help text (its docstring) without making the command."""
        info = self.infos[name]
        if info.help is not None:
            return inspect.cleandoc(info.help)
        return inspect.getdoc(info.callback) or ""

def lazy_group(modules: tuple[ModuleType, ...]) -> type[AttnGroup]:
    """The `attn` group over the commands of `modules`, each made when it is first used."""
    infos = command_infos(modules)

    class LazyGroup(AttnGroup):
        def __init__(self, *args: Any, **kwargs: Any) -> None:
            super().__init__(*args, **kwargs)
            self.commands = Commands(  # type: ignore[assignment]
                infos, lambda command: install_help(command, self.help_lang))

        def made_commands(self) -> Iterable[click.Command]:
            return self.commands.built.values()  # type: ignore[attr-defined]

        def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
            """Each command's name and the start of its help, from its docstring alone."""
            commands: Commands = self.commands  # type: ignore[assignment]
            limit = formatter.width - 6 - max(len(name) for name in commands)
            rows = [(name, make_default_short_help(help_text(commands.help(name), self.help_lang),
                                                   limit).strip()) for name in commands]
            with formatter.section("Commands"):
                formatter.write_dl(rows)

    return LazyGroup
