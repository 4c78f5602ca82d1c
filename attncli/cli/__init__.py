"""The command line: the Typer app (`app`), one module per command or family of commands, the
options they share (`options`), what those options mean (`inputs`), the command line's language
(`language`), and the one place that turns errors into exit codes (`running.run`).

Only this package imports Typer. `main` is light: the app is imported when it runs.
"""

from __future__ import annotations

import gc

INTERRUPTED = 130  # 128 + SIGINT, as a run that Ctrl-C ends exits


def main() -> None:
    """The `attn` command."""
    try:
        from attncli.cli.app import main as run
    except KeyboardInterrupt:  # Ctrl-C while the command line loads: ended as a run ended by it
        raise SystemExit(INTERRUPTED) from None

    try:
        run()
    except KeyboardInterrupt:  # Ctrl-C while Typer builds the command, before a command's own
        raise SystemExit(INTERRUPTED) from None  # handling (cli/running.py) begins
    finally:
        # The command is done and the process ends: the interpreter's last garbage collections
        # would walk every object the run made (NumPy's, YAML's, Typer's and attn's; about 40
        # million instructions, a twentieth of a plain explain) only to free memory the process
        # gives back anyway. Nothing of attn waits for them: its files are closed by their
        # `with` blocks, the standard streams are flushed and atexit handlers run as before.
        gc.freeze()
