"""The command line in Polish and Russian: every --help and every usage error (Click's), with
--lang on every command and $ATTN_LANG, one line `attn: …` and exit code 2."""

from __future__ import annotations

import re

import pytest
import typer
from typer._click import exceptions as click_errors
from typer.testing import CliRunner

from attncli.cli.app import app
from attncli.cli.language import help_language, usage_message
from attncli.i18n import catalog
from attncli.i18n.extract import extract
from attncli.i18n.typography import group_digits

NBSP = "\u00a0"


def invoke(*args: str, env: dict[str, str] | None = None) -> tuple[int, str, str]:
    result = CliRunner().invoke(app, list(args), env={"ATTN_LANG": "", **(env or {})})
    return result.exit_code, result.stdout, result.stderr


def commands() -> list[str]:
    group = typer.main.get_command(app)
    assert isinstance(group, typer.core.TyperGroup)
    return list(group.commands)


def help_msgids() -> list[str]:
    """The help texts of the options and the commands (msgids found only in cli.py and
    attncli/cli/)."""
    return [m.msgid for m in extract().messages.values()
            if all(r == "attncli/cli/app.py" or r.startswith("attncli/cli/")
                   for r in m.references)
            and m.plural is None and not m.msgid[:1].islower()]


def test_every_command_takes_lang() -> None:
    group = typer.main.get_command(app)
    assert isinstance(group, typer.core.TyperGroup)
    assert len(commands()) >= 6
    for name, command in [("attn", group), *group.commands.items()]:
        assert "--lang" in [opt for p in command.params for opt in getattr(p, "opts", [])], name


@pytest.mark.parametrize("name", ["explain", "snippets", "validate", "schema", "examples",
                                  "export"])
@pytest.mark.parametrize(("lang", "usage", "options", "english"), [
    ("pl", "Użycie: attn {name} [OPCJE]", "Opcje:", "Show this message"),
    ("ru", "Использование: attn {name} [ПАРАМЕТРЫ]", "Параметры:", "Show this message"),
])
def test_every_command_help_is_in_the_language(name: str, lang: str, usage: str, options: str,
                                               english: str) -> None:
    for code, out, _ in (invoke(name, "--lang", lang, "--help"),
                         invoke(name, "--help", env={"ATTN_LANG": lang})):
        assert code == 0
        assert out.startswith(usage.format(name=name))
        assert f"\n{options}\n" in out and "\nOptions:" not in out and english not in out
    # no English help text is left: the start of each would show (Click rewraps lines)
    flat = " ".join(out.replace(NBSP, " ").split())
    for msgid in help_msgids():
        start = " ".join(msgid.split())[:40]
        assert start not in flat or " ".join(catalog(lang).gettext(msgid).split())[:40] == start
    assert len(help_msgids()) >= 30


@pytest.mark.parametrize(("name", "line"), [
    ("validate", "Usage: attn validate [OPTIONS] specs...\n"),
    ("fill", "Usage: attn fill [OPTIONS] files...\n"),
    ("explain", "Usage: attn explain [OPTIONS] [spec]\n"),
])
def test_a_required_argument_is_written_bare_and_an_optional_one_in_brackets(name: str,
                                                                             line: str) -> None:
    code, out, _ = invoke(name, "--help")
    assert code == 0
    assert out.startswith(line)


def test_the_program_help_lists_commands_in_russian() -> None:
    code, out, _ = invoke("--lang", "ru", "--help")
    assert code == 0
    assert out.startswith("Использование: attn [ПАРАМЕТРЫ] КОМАНДА [АРГУМЕНТЫ]...\n")
    assert "\nКоманды:\n" in out and "  explain   Показать каждый шаг внимания" in out
    assert "[по умолчанию:" not in out or "[default:" not in out


def test_defaults_required_and_value_placeholders_are_translated() -> None:
    _, out, _ = invoke("explain", "--lang", "pl", "--help")
    assert "[domyślnie: rich]" in out and "-p, --precision <liczba>" in out
    _, out, _ = invoke("validate", "--lang", "ru", "--help")
    assert "[обязательный]" in out and "--max-cells <число>" in out


@pytest.mark.parametrize(("lang", "default"), [
    ("en", "[default: 10,000,000]"),
    ("pl", f"[domyślnie: 10{NBSP}000{NBSP}000]"),
    ("ru", f"[по умолчанию: 10{NBSP}000{NBSP}000]"),
])
def test_a_default_number_has_its_digits_grouped(lang: str, default: str) -> None:
    """--max-cells's default, 10000000, as docs/limits.md writes it in English; Polish and Russian
    group with a no-break space, so the number never breaks across a line; 169 stays as it is."""
    for command in ("explain", "validate"):
        _, out, _ = invoke(command, "--lang", lang, "--help")
        assert default in re.sub("[ \n]+", " ", out)  # Click's wrapping undone, NBSP kept


@pytest.mark.parametrize(("lang", "number", "written"), [
    ("en", 169, "169"), ("en", 1000, "1,000"), ("pl", 1000, "1000"), ("ru", 9999, "9999"),
    ("pl", 10000, f"10{NBSP}000"), ("ru", 1234567, f"1{NBSP}234{NBSP}567"),
])
def test_group_digits(lang: str, number: int, written: str) -> None:
    assert group_digits(number, lang) == written


def test_english_help_is_unchanged() -> None:
    _, out, _ = invoke("explain", "--help")
    assert out.startswith("Usage: attn explain [OPTIONS] [spec]\n")
    assert "\nOptions:\n" in out and "[default: rich]" in out


@pytest.mark.parametrize(("args", "env", "line"), [
    (["explain", "--xylophone", "--lang", "pl"], {},
     "attn: nieznana opcja --xylophone (zob. attn explain --help)"),
    (["explain", "--jbos", "--lang", "pl"], {},
     "attn: nieznana opcja --jbos; czy chodziło o\u00a0--jobs? (zob. attn explain --help)"),
    # --bogus is nothing like --jobs: no suggestion rather than a wrong one
    (["explain", "--bogus", "--lang", "pl"], {},
     "attn: nieznana opcja --bogus (zob. attn explain --help)"),
    (["explain", "--fromat", "text"], {"ATTN_LANG": "ru"},
     "attn: неизвестный параметр --fromat; может быть, --format? (см. attn explain --help)"),
    (["explain", "-f", "nope", "--lang", "pl"], {},
     "attn: --format / -f: oczekiwano jednej z\u00a0wartości rich, text, json, otrzymano: nope "
     "(zob. attn explain --help)"),
    (["explain", "-p", "x", "--lang", "ru"], {},
     "attn: --precision / -p: ожидается целое число, получено: x (см. attn explain --help)"),
    (["validate"], {"ATTN_LANG": "pl"},
     "attn: brak argumentu specs (zob. attn validate --help)"),
    (["explian", "--lang", "pl"], {},
     "attn: nieznane polecenie explian; czy chodziło o\u00a0explain? (zob. attn --help)"),
    (["frobnicate"], {"ATTN_LANG": "ru"},
     "attn: неизвестная команда frobnicate; доступные команды: explain, snippets, fill, validate, "
     "schema, examples, check, export (см. attn --help)"),
    (["schema", "extra", "more", "--lang", "ru"], {},
     "attn: лишние аргументы extra more (см. attn schema --help)"),
    (["explain", "--lang"], {"ATTN_LANG": "pl"}, "attn: --lang wymaga wartości"),
    (["explain", "--full=yes", "--lang", "ru"], {},
     "attn: --full не принимает значения"),
])
def test_usage_errors_are_one_translated_line(args: list[str], env: dict[str, str],
                                              line: str) -> None:
    assert invoke(*args, env=env) == (2, "", line + "\n")


def test_usage_errors_stay_english_by_default() -> None:
    assert invoke("explain", "-f", "nope") == (2, "", (
        "attn: --format / -f: expected one of rich, text, json, found nope "
        "(see attn explain --help)\n"))


def test_a_control_character_in_a_bad_option_is_escaped() -> None:
    code, _, err = invoke("explain", "--bo\x1bgus")
    assert code == 2 and "\x1b" not in err and "--bo\\x1bgus" in err


def test_a_click_message_with_no_mapping_says_so_and_names_click() -> None:
    message = usage_message(click_errors.UsageError("A brand new complaint."))
    assert message.msgid == ("the command line is wrong; Click's message has no translation: "
                             "{detail}")


def test_help_language_is_read_before_click_parses() -> None:
    assert help_language(["explain", "--lang", "ru", "--help"], {}) == "ru"
    assert help_language(["explain", "--lang=pl,en"], {}) == "pl"
    assert help_language(["explain", "--help"], {"ATTN_LANG": "ru"}) == "ru"
    assert help_language(["explain", "--lang", "xx"], {"ATTN_LANG": "pl"}) == "pl"
    assert help_language(["--", "--lang", "ru"], {}) == "en"
    assert help_language([], {"LANG": "ru_RU.UTF-8"}) == "en"  # never the system locale
