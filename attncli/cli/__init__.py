"""The command line: the Typer app (`app`), one module per command or family of commands, the
options they share (`options`), what those options mean (`inputs`), the command line's language
(`language`), and the one place that turns errors into exit codes (`running.run`).

Only this package imports Typer. `main` is light: the app is imported when it runs.
"""

from __future__ import annotations


def main() -> None:
    """The `attn` command."""
    from attncli.cli.app import main as run

    run()
