"""The command line in the user's language: every `--help` and every usage error.

Click, which Typer bundles, writes its help and its usage errors in English. `AttnGroup` is the
Click group of the `attn` app: before Click parses anything it reads the language the way every
command does (`--lang`, else $ATTN_LANG, else English; never the system locale), puts the
translated help texts into the command tree, and turns each of Click's usage errors into one
translated line, `attn: …`, exit 2, like attn's other errors.

The help texts are the commands' (attncli/cli/command_help.py) and the options'
`help=N_("…")`; both are msgids that `python -m attncli.i18n.extract` collects. Click's own
words (Usage, the headings, the usage line's placeholders, `[default: …]`) are msgids here.
Usage errors are read from Click's exception types and their fields, never by translating
Click's English sentence; one Click has no mapping for says so in the user's language and
names Click.
"""

from __future__ import annotations

import ast
import os
import re
import sys
from collections.abc import Iterable, Iterator, MutableMapping, Sequence
from contextlib import contextmanager
from functools import cache
from typing import Any, NoReturn

import typer
from typer import _click as click
from typer._click import exceptions as errors
from typer._click import types
from typer._click.core import Context
from typer._types import TyperChoice
from typer.core import TyperCommand, TyperGroup, TyperOption

from attncli.cli.streams import EXIT_BROKEN_PIPE, echo_error, lost_stdout, unencodable
from attncli.i18n import DEFAULT_LANG, N_, Count, Msg, catalog, first_known, suggesting, translate
from attncli.i18n.quoting import clipped
from attncli.i18n.suggest import closest
from attncli.i18n.typography import bind_units, group_digits, typeset
from attncli.i18n.visible import visible
from attncli.spec.view import EXPANDABLE, STEP_IDS

EXIT_USAGE = 2
# Arguments of one command line. Click's parser takes each argument off the front of the list
# (quadratic in their number) and tries each `-x …` as a long option with difflib's close
# matches: 60,000 `-x` took 2.8 s before a word of attn ran. A shell glob of a course's specs
# (`attn validate specs/*.yaml`) holds hundreds.
MAX_ARGUMENTS = 10_000

# Click's words in a help page, by the English text Click writes.
_HEADINGS = {"Arguments": N_("Arguments"), "Options": N_("Options"),
             "Commands": N_("Commands")}
_USAGE = N_("Usage:")
_OPTIONS_METAVAR = N_("[OPTIONS]")
_COMMAND_METAVAR = N_("COMMAND [ARGS]...")
_HELP_OPTION = N_("Show this message and exit.")
# the placeholders Click writes for an option's value, by type
_METAVARS = {"<int>": N_("<int>"), "<str>": N_("<str>"), "<float>": N_("<float>"),
             "FILE": N_("FILE"), "DIR": N_("DIR")}
# what a help text names by a field, so that the catalog holds the sentence once
# Every value a closed option accepts, listed in its help from the tuple that checks it
HELP_FIELDS = {"{steps}": ", ".join(STEP_IDS), "{expandable}": ", ".join(EXPANDABLE),
               "{answer_steps}": ", ".join(answer for step in STEP_IDS for answer in (
                   ("Q", "K", "V") if step == "projections" else
                   () if step in ("latent_q", "latent_kv") else (step,)))}  # their Q, K, V
_DEFAULT = re.compile(r"\[default: (?P<value>[^\]]*)\]")
_REQUIRED = "[required]"
# Typer braces a required argument (`{specs}...`); the usage line writes it bare, as Click and
# every manual page do, beside an optional one in brackets (`[spec]`)
_REQUIRED_ARGUMENT = re.compile(r"\{(\w+)\}")


def help_language(args: Sequence[str], environ: Any = None) -> str:
    """The language of help and usage errors, read from the raw arguments before Click parses
    them: the last `--lang X` / `--lang=X` before `--`, else $ATTN_LANG, else English."""
    environ = os.environ if environ is None else environ
    asked: str | None = None
    for index, arg in enumerate(args):
        if arg == "--":
            break
        if arg == "--lang" and index + 1 < len(args):
            asked = args[index + 1]
        elif arg.startswith("--lang="):
            asked = arg.split("=", 1)[1]
    return first_known(asked, environ.get("ATTN_LANG"))


def gettext(text: str, lang: str) -> str:
    """A help text or one of Click's words in `lang`, typeset (in English too, a number and its
    unit are bound: `1 MiB`); example commands (a `\\b` paragraph, a `code` span) are left as
    typed, so they run when copied."""
    if lang != DEFAULT_LANG:
        text = catalog(lang).gettext(text)
    elif " " not in text:  # Click's words and metavars: nothing to bind
        return text
    paragraphs = text.split("\n\n")
    return "\n\n".join(part if part.startswith("\b") else _typeset_prose(part, lang)
                       for part in paragraphs)


def _typeset_prose(text: str, lang: str) -> str:
    pieces = re.split(r"(`[^`]*`)", text)
    return "".join(piece if piece.startswith("`") else bind_units(typeset(piece, lang))
                   for piece in pieces)


@cache
def _formatter(lang: str) -> type[click.HelpFormatter]:
    class Formatter(click.HelpFormatter):
        """Click's help formatter, with Click's own words in `lang`."""

        def write_usage(self, prog: str, args: str = "", prefix: str | None = None) -> None:
            super().write_usage(prog, _REQUIRED_ARGUMENT.sub(r"\1", args),
                                gettext(_USAGE, lang) + " ")

        @contextmanager
        def section(self, name: str) -> Iterator[None]:
            with super().section(gettext(_HEADINGS.get(name, name), lang)):
                yield

        def write_dl(self, rows: Sequence[tuple[str, str]], col_max: int = 30,
                     col_spacing: int = 2) -> None:
            super().write_dl([(term, _extras(text, lang)) for term, text in rows],
                             col_max, col_spacing)

    return Formatter


def _extras(text: str, lang: str) -> str:
    """The `[default: x]` and `[required]` that Click appends to an option's help, in `lang`;
    a whole number with its digits grouped as the language writes them (10,000,000)."""
    text = _DEFAULT.sub(lambda m: "[" + gettext(N_("default: {default}"), lang).format(
        default=_default(m.group("value"), lang)) + "]", text)
    return text.replace(_REQUIRED, "[" + gettext(N_("required"), lang) + "]")


def _default(value: str, lang: str) -> str:
    return group_digits(int(value), lang) if value.isdigit() else value


@cache
def _context(lang: str) -> type[Context]:
    """Click's context, which writes a help page or a usage line in `lang`: the help texts are
    translated (and typeset) only then, not on every run."""

    class HelpContext(Context):
        formatter_class = _formatter(lang)

        def get_usage(self) -> str:
            install_help(self.find_root().command, lang)
            return super().get_usage()

        def get_help(self) -> str:
            install_help(self.find_root().command, lang)
            return super().get_help()

    HelpContext.__name__ = HelpContext.__qualname__ = f"Context_{lang}"
    return HelpContext


def in_language(command: click.Command, lang: str) -> None:
    """Make `command` write its help page and usage line in `lang` when it writes them."""
    command.context_class = _context(lang)


def install_help(command: click.Command, lang: str) -> None:
    """Put `lang`'s help texts into `command` and every command below it (again and again:
    the English msgid of each text is kept aside the first time)."""
    in_language(command, lang)
    command.help = _translated(command, "help", lang)
    command.options_metavar = gettext(_OPTIONS_METAVAR, lang)
    if isinstance(command, TyperGroup):
        command.subcommand_metavar = gettext(_COMMAND_METAVAR, lang)
        made = command.made_commands() if isinstance(command, AttnGroup) else \
            command.commands.values()
        for sub in made:
            install_help(sub, lang)
    params = list(command.params)
    helper = command.get_help_option(Context(command))
    if helper is not None:
        helper.help = _HELP_OPTION
        params.append(helper)
    for param in params:
        _translate_attr(param, "help", lang)
        if isinstance(param, TyperOption):
            _translate_metavar(param, lang)


def _translate_metavar(option: TyperOption, lang: str) -> None:
    english = getattr(option, "_attn_metavar", None)
    if english is None:
        english = option.metavar or option.make_metavar(Context(TyperCommand(name=None)))
        option._attn_metavar = english  # type: ignore[attr-defined]
    msgid = _METAVARS.get(english)
    if msgid is not None:
        option.metavar = gettext(msgid, lang)


def _translated(owner: Any, attr: str, lang: str) -> Any:
    _translate_attr(owner, attr, lang)
    return getattr(owner, attr)


def _translate_attr(owner: Any, attr: str, lang: str) -> None:
    key = f"_attn_msgid_{attr}"
    msgid = getattr(owner, key, None)
    if msgid is None:
        msgid = getattr(owner, attr, None)
        if not msgid:
            return
        setattr(owner, key, msgid)
    setattr(owner, attr, help_text(msgid, lang))


def help_text(msgid: str, lang: str) -> str:
    """A help text in `lang`, with the fields it names filled in."""
    text = gettext(msgid, lang)
    for field, value in HELP_FIELDS.items():
        text = text.replace(field, value)
    return text


# --- usage errors ------------------------------------------------------------------------------

def usage_message(error: errors.UsageError) -> Msg:
    """What went wrong on the command line, as a catalogue message built from Click's
    exception type and fields."""
    ctx = error.ctx
    if isinstance(error, errors.NoSuchOption):
        option = error.option_name
        known = [name for param in (ctx.command.params if ctx is not None else ())
                 for name in (*param.opts, *param.secondary_opts) if name.startswith("--")]
        close = closest(option, [*known, "--help"])
        if close:
            return Msg.of("unknown option {option}; did you mean {options}?", option=option,
                          options=close)
        return Msg.of("unknown option {option}", option=option)
    if isinstance(error, errors.BadOptionUsage):
        option = error.option_name
        if "does not take a value" in error.message:
            return Msg.of("{option} takes no value", option=option)
        return Msg.of("{option} needs a value", option=option)
    if isinstance(error, errors.MissingParameter):
        param = error.param
        if isinstance(param, TyperOption):
            return Msg.of("the option {option} is missing", option=" / ".join(param.opts))
        name = param.name if param is not None and param.name else "?"
        return Msg.of("the argument {name} is missing", name=name)
    if isinstance(error, errors.BadParameter) and error.param is not None:
        return _bad_value(error, error.param)
    extra = re.fullmatch(r"Got unexpected extra argument\(s\) \((?P<args>.*)\)", error.message)
    if extra:
        found = extra.group("args").split(" ")
        return Msg.plural_of("unexpected argument {found}", "unexpected arguments {found}",
                             len(found), found=" ".join(found))
    command = re.fullmatch(r"No such command (?P<name>'.*'|\".*\")\..*", error.message, re.S)
    if command and ctx is not None and isinstance(ctx.command, TyperGroup):
        name = ast.literal_eval(command.group("name"))
        known = list(ctx.command.commands)
        close = closest(name, known)
        if close:
            return Msg.of("unknown command {name}; did you mean {names}?", name=name,
                          names=close)
        return Msg.of("unknown command {name}; expected one of {known}", name=name,
                      known=", ".join(known))
    if error.message.startswith("Missing command") and ctx is not None \
            and isinstance(ctx.command, TyperGroup):
        return Msg.of("a command is missing; expected one of {known}",
                      known=", ".join(ctx.command.commands))
    return _unmapped(error.format_message())


def _bad_value(error: errors.BadParameter, param: click.Parameter) -> Msg:
    name = " / ".join(param.opts) if isinstance(param, TyperOption) else (param.name or "?")
    value = _quoted_value(error.message)
    kind = param.type
    if value is not None and isinstance(kind, TyperChoice):
        choices = [str(c) for c in kind.choices]
        return suggesting(Msg.of("{option}: expected one of {choices}, found {found}",
                                 option=name, choices=", ".join(choices), found=value),
                          value, choices)
    if value is not None and isinstance(kind, types.IntParamType):
        return Msg.of("{option}: expected a whole number, found {found}", option=name,
                      found=value)
    if value is not None and isinstance(kind, types.FloatParamType):
        return Msg.of("{option}: expected a number, found {found}", option=name, found=value)
    return Msg.of("{option}: {problem}", option=name,
                  problem=_unmapped(error.message))


def _quoted_value(message: str) -> str | None:
    """The value Click quotes at the start of its message (`'nope' is not one of …`)."""
    match = re.match(r"('(?:[^'\\]|\\.)*'|\"(?:[^\"\\]|\\.)*\")", message)
    if match is None:
        return None
    try:
        value = ast.literal_eval(match.group(1))
    except (ValueError, SyntaxError):
        return None
    return str(value)  # made visible with the whole line, after it is cut (usage_line)


def _unmapped(detail: str) -> Msg:
    return Msg.of("the command line is wrong; Click's message has no translation: {detail}",
                  detail=detail)


def root_option(name: str) -> Any:
    """The value of the `attn` group's own option `name` (`attn --lang pl explain`), if the
    command runs under Click; None otherwise (a test calling a command's function)."""
    from typer._click.globals import get_current_context

    ctx = get_current_context(silent=True)
    return ctx.find_root().params.get(name) if ctx is not None else None


def usage_line(error: errors.UsageError, lang: str) -> str:
    """The one line for a usage error: `attn: what is wrong (see attn explain --help)`."""
    message = usage_message(error)
    if error.ctx is not None:
        message = Msg.of("{problem} (see {command} --help)", problem=message,
                         command=error.ctx.command_path)
    # escapes are made after the cut, so that it never falls inside one (`\u20…`)
    return "attn: " + visible(translate(clipped(message), lang))


class AttnGroup(TyperGroup):
    """The `attn` group: help and usage errors in the language asked for."""

    help_lang = DEFAULT_LANG  # the language of help and usage errors, once main has read it

    def made_commands(self) -> Iterable[click.Command]:
        """The commands made so far, which need the help texts of `help_lang`."""
        return self.commands.values()

    def main(self, args: Sequence[str] | None = None, prog_name: str | None = None,
             complete_var: str | None = None, standalone_mode: bool = True,
             windows_expand_args: bool = True, **extra: Any) -> Any:
        argv = list(sys.argv[1:] if args is None else args)
        lang = self.help_lang = help_language(argv)
        if len(argv) > MAX_ARGUMENTS and standalone_mode:
            too_many = Msg.plural_of(
                "the command line holds {count} argument; the limit is {limit}",
                "the command line holds {count} arguments; the limit is {limit}",
                Count(len(argv)), limit=Count(MAX_ARGUMENTS))
            echo_error("attn: " + translate(too_many, lang),
                       "attn: " + translate(too_many, DEFAULT_LANG))
            _exit(EXIT_USAGE)
        in_language(self, lang)
        try:
            code = super().main(argv, prog_name, complete_var, standalone_mode=False,
                                windows_expand_args=windows_expand_args, **extra)
        except errors.NoArgsIsHelpError as error:
            if not standalone_mode:
                raise
            error.show()
            _exit(error.exit_code)
        except errors.UsageError as error:
            if not standalone_mode:
                raise
            echo_error(usage_line(error, lang), usage_line(error, DEFAULT_LANG))
            _exit(EXIT_USAGE)
        except (UnicodeError, OSError) as error:  # --help or --version: stdout refused it
            if not standalone_mode:
                raise
            problem = (unencodable(error) if isinstance(error, UnicodeError)
                       else lost_stdout(error))
            if problem is None:  # a reader that went away (`attn --help | head -1`)
                _exit(EXIT_BROKEN_PIPE)
            echo_error("attn: " + translate(problem, lang), "attn: " + translate(problem, "en"))
            _exit(EXIT_USAGE)
        except typer.Abort:
            if not standalone_mode:
                raise
            click.echo("attn: " + translate(Msg.of("stopped"), lang), err=True)
            _exit(1)
        except errors.ClickException as error:
            if not standalone_mode:
                raise
            error.show()
            _exit(error.exit_code)
        if not standalone_mode:
            return code
        _exit(code if isinstance(code, int) else 0)

    def _main_shell_completion(self, ctx_args: MutableMapping[str, Any], prog_name: str,
                               complete_var: str | None = None) -> None:
        """Nothing: attn has no shell completion (`add_completion=False`), so $_ATTN_COMPLETE
        left in the environment is no request for it. Click read it before every command and
        printed its English 'Shell bash not supported.' instead of running it (exit 1)."""


def _exit(code: int) -> NoReturn:
    sys.exit(code)
