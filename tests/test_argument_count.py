"""A command line of more than MAX_ARGUMENTS arguments is refused before Click parses it: Click
takes each argument off the front of its list and tries each `-x …` as a long option with
difflib's close matches, so 60,000 `-x` cost 2.8 s before a word of attn ran. Work is counted
(the parser's runs, the modules imported), never timed (docs/limits.md, "The command line")."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from typer._click import parser

from attncli.cli.language import MAX_ARGUMENTS
from tests.conftest import CONFIGS, run

ROOT = Path(__file__).resolve().parent.parent
SPEC = str(CONFIGS / "cat_chases_mouse.yaml")


@pytest.fixture
def parses(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """How many arguments each run of Click's parser was given."""
    seen: list[int] = []
    parse = parser._OptionParser.parse_args

    def counted(self: parser._OptionParser, args: list[str]) -> object:
        seen.append(len(args))
        return parse(self, args)

    monkeypatch.setattr(parser._OptionParser, "parse_args", counted)
    return seen


def expand(times: int) -> list[str]:
    return ["explain", SPEC, "--steps", "weights", *["-x", "weights:cat"] * times]


@pytest.mark.parametrize(("lang", "line"), [
    ("en", "attn: the command line holds 10,006 arguments; the limit is 10,000"),
    ("pl", "attn: wiersz poleceń zawiera 10\u00a0006 argumentów; limit to 10\u00a0000"),
    ("ru", "attn: в\u00a0командной строке 10\u00a0006 аргументов; предел\u00a0— 10\u00a0000"),
])
def test_one_argument_too_many_is_refused_unparsed(lang: str, line: str,
                                                   parses: list[int]) -> None:
    args = ["--lang", lang, *expand(5000)]  # 2 + 4 + 10,000 arguments
    assert len(args) == MAX_ARGUMENTS + 6
    result = run(*args)
    assert (result.exit_code, result.stdout, result.stderr) == (2, "", line + "\n")
    assert parses == []  # Click's parser never ran


def test_the_refusal_the_limits_page_quotes(parses: list[int]) -> None:
    result = run(*expand(60_000))
    line = result.stderr.rstrip("\n")
    assert line == "attn: the command line holds 120,004 arguments; the limit is 10,000"
    written = " ".join((ROOT / "docs" / "limits.md").read_text(encoding="utf-8").split())
    assert line in written  # the page wraps its lines
    assert parses == []


def test_the_limit_itself_is_parsed_and_worked(parses: list[int]) -> None:
    args = expand((MAX_ARGUMENTS - 4) // 2)
    assert len(args) == MAX_ARGUMENTS
    result = run(*args)
    assert result.exit_code == 0, result.stderr
    assert "cat" in result.stdout
    assert parses[0] == MAX_ARGUMENTS  # the group's parse, given every argument


def test_plural_forms_of_the_refusal() -> None:
    from attncli.i18n import Count, Msg, translate

    def line(count: int, lang: str) -> str:
        return translate(Msg.plural_of(
            "the command line holds {count} argument; the limit is {limit}",
            "the command line holds {count} arguments; the limit is {limit}",
            Count(count), limit=Count(MAX_ARGUMENTS)), lang)

    assert line(10_002, "pl").startswith("wiersz poleceń zawiera 10\u00a0002 argumenty;")
    assert line(10_021, "ru").startswith("в\u00a0командной строке 10\u00a0021 аргумент;")
    assert line(10_022, "ru").startswith("в\u00a0командной строке 10\u00a0022 аргумента;")


def test_the_refusal_imports_no_numpy(tmp_path: Path) -> None:
    """As a real process: the refusal comes before NumPy, YAML or the command is imported."""
    script = ("import sys\nsys.argv = ['attn', *sys.argv[1:]]\nfrom attncli.cli import main\n"
              "try:\n    main()\nexcept SystemExit as end:\n"
              "    print(end.code, sorted(m for m in ('numpy', 'yaml', 'attncli.cli.explain')"
              " if m in sys.modules))\n")
    done = subprocess.run([sys.executable, "-c", script, *expand(6000)], capture_output=True,
                          text=True, cwd=tmp_path, stdin=subprocess.DEVNULL,
                          env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"}, check=False)
    assert done.stdout == "2 []\n", done.stderr
    assert done.stderr == "attn: the command line holds 12,004 arguments; the limit is 10,000\n"
