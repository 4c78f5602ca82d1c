"""attn loads what the command in hand uses: the command table of attncli/cli/lazy.py agrees
with the commands' modules, and a plain `attn explain` of the bundled example imports no other
command and nothing that only tiles, the backward pass, low precision, checkpoints, tokenizers
or the processes of a large `-x all` need. (What it costs in time is benchmarks/run.py's job.)"""

from __future__ import annotations

import subprocess
import sys
from importlib import import_module

from attncli.cli.command_help import COMMAND_HELP
from attncli.cli.lazy import COMMANDS, command_name
from tests.conftest import ROOT, run

# Modules a plain explain of a small spec never uses, each loaded only by what needs it.
NOT_FOR_A_PLAIN_EXPLAIN = (
    "attncli.cli.check", "attncli.cli.export", "attncli.cli.fill", "attncli.cli.snippets",
    "attncli.cli.specs",
    "attncli.steps.tiling", "attncli.steps.backward", "attncli.steps.decode",
    "attncli.steps.rope", "attncli.compute.gradients",
    "attncli.compute.lowprec", "attncli.compute.online_softmax",
    "attncli.arithmetic.expand_tiles", "attncli.spec.checkpoint", "attncli.spec.tokenizer",
    "ml_dtypes", "multiprocessing", "concurrent.futures",
)


def loaded_after(*args: str) -> set[str]:
    probe = ("import sys\nfrom attncli.cli import main\n"
             f"sys.argv = ['attn', *{list(args)!r}]\n"
             "try:\n    main()\nexcept SystemExit:\n    pass\n"
             "print(' '.join(sorted(sys.modules)), file=sys.stderr)\n")
    done = subprocess.run([sys.executable, "-c", probe], cwd=ROOT, capture_output=True,
                          text=True, check=True)
    return set(done.stderr.split())


def test_the_command_table_names_every_command_of_every_module() -> None:
    modules = sorted(set(COMMANDS.values()))
    found = {}
    for name in modules:
        for info in import_module(f"attncli.cli.{name}").app.registered_commands:
            found[command_name(info)] = name
    assert found == COMMANDS
    assert list(COMMANDS)[:2] == ["explain", "snippets"]  # the order --help lists them in


def test_every_command_takes_its_help_from_the_table_that_attn_help_reads() -> None:
    """`attn --help` lists the commands from COMMAND_HELP without importing them: each
    command's own help is that text, and none has a docstring that could say otherwise."""
    assert list(COMMAND_HELP) == list(COMMANDS)
    for name, module in COMMANDS.items():
        info = next(i for i in import_module(f"attncli.cli.{module}").app.registered_commands
                    if command_name(i) == name)
        assert info.help is COMMAND_HELP[name]
        assert info.callback is not None and info.callback.__doc__ is None


def test_attn_help_imports_no_command() -> None:
    loaded = loaded_after("--help")
    assert sorted(m for m in loaded if m.startswith("attncli.cli.") and m.rsplit(".", 1)[1]
                  in COMMANDS.values()) == []


def test_the_help_lists_each_command_with_the_start_of_its_docstring() -> None:
    out = run("--help").stdout
    listed = [line.split()[0] for line in out.split("Commands:\n", 1)[1].splitlines() if line]
    assert listed == list(COMMANDS)
    assert "  validate  Check spec files without printing their walkthroughs" in out


def test_a_plain_explain_imports_only_what_it_uses() -> None:
    loaded = loaded_after("explain", "--format", "text")
    assert "attncli.cli.explain" in loaded and "attncli.steps.softmax" in loaded
    assert sorted(loaded & set(NOT_FOR_A_PLAIN_EXPLAIN)) == []


def test_a_spec_with_tiles_loads_the_tiles_when_it_needs_them() -> None:
    loaded = loaded_after("explain", "configs/online_softmax_tiling.yaml", "--format", "text")
    assert {"attncli.steps.tiling", "attncli.arithmetic.expand_tiles"} <= loaded



def test_the_commands_parameter_types_are_objects_not_strings() -> None:
    """Typer reads every parameter's type when it makes a command: a type written as a string
    (`from __future__ import annotations`) is compiled and evaluated on every run."""
    from attncli.cli.app import root

    modules = [import_module(f"attncli.cli.{name}") for name in set(COMMANDS.values())]
    callbacks = [root] + [info.callback for module in modules
                          for info in module.app.registered_commands]
    for callback in callbacks:
        assert callback is not None
        assert not any(isinstance(kind, str) for kind in callback.__annotations__.values()), \
            callback.__name__
