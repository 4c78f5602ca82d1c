"""A file written over in place (an append-only folder, files/writing.py `write_in_place`) is
whole when a signal comes mid-copy: Ctrl-C, `kill` or a closed terminal left the new text's first
pieces over the old file's last ones (7 of 9 runs of a 12.6 MB export). The signal waits for the
copy (files/held.py), then ends the command as it would have.

Each case runs in a Python process of its own, which signals itself as the copy's second piece is
read: a signal sent to the test's own process would reach its test runner too."""

from __future__ import annotations

import signal
import subprocess
import sys
from pathlib import Path

import pytest

from attncli.files.reading import PIECE

ROOT = Path(__file__).resolve().parent.parent

# Python gives SIGINT its KeyboardInterrupt only where SIGINT is not ignored when it starts; a
# background job of a shell without job control starts with it ignored: set as in a terminal.
AS_IN_A_TERMINAL = "signal.signal(signal.SIGINT, signal.default_int_handler)\n"

HELD = """
import os, signal, sys
from attncli.files.held import signals_held
""" + AS_IN_A_TERMINAL + """
taken = []
try:
    with signals_held():
        os.kill(os.getpid(), signal.SIGINT)
        taken.append("within")
except KeyboardInterrupt:
    taken.append("after")
print(",".join(taken))
"""

COPY = """
import os, signal, sys
from pathlib import Path
from attncli.files.writing import write_in_place
""" + AS_IN_A_TERMINAL + """

sig, target, staged = int(sys.argv[1]), Path(sys.argv[2]), Path(sys.argv[3])


class Interrupted:
    # the staged text, whose second piece is read as the signal comes
    def __init__(self):
        self.file, self.reads = staged.open("rb"), 0

    def fileno(self):
        return self.file.fileno()

    def seek(self, at):
        return self.file.seek(at)

    def read(self, size=-1):
        self.reads += 1
        if self.reads == 2:
            os.kill(os.getpid(), sig)
        return self.file.read(size)


write_in_place(Interrupted(), target, plain=True)
print("not stopped")
"""


def python(code: str, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-c", code, *args], capture_output=True, text=True,
                          timeout=60, cwd=ROOT, stdin=subprocess.DEVNULL)


def test_a_signal_within_waits_until_the_end() -> None:
    done = python(HELD)
    assert (done.returncode, done.stdout) == (0, "within,after\n"), done.stderr


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM])
def test_a_file_written_over_in_place_is_whole_after_a_signal(tmp_path: Path, sig: int) -> None:
    target, staged = tmp_path / "o.json", tmp_path / "staged"
    target.write_bytes(b"OLD " * PIECE)  # 4 pieces of the user's own bytes
    new = b"NEW!" * (PIECE // 2)  # 2 pieces: the signal comes after the first
    staged.write_bytes(new)
    done = python(COPY, str(int(sig)), str(target), str(staged))
    # the signal ended it (Python ends on a KeyboardInterrupt by the signal too)
    assert (done.returncode, done.stdout) == (-sig, ""), done.stderr
    assert target.read_bytes() == new


DROPPED = """
import gc, os, signal, sys, weakref
import typer
from attncli.cli.streams import terminable
from attncli.files.writing import write_atomic


class Held:
    pass


def gone(_):
    # the signal comes inside a callback Python runs for itself (here a weak reference's, as an
    # import's module lock has one): the handler's exception is printed as ignored and dropped
    os.kill(os.getpid(), int(sys.argv[2]))
    sum(range(1000))


try:
    with terminable():
        held = Held()
        ref = weakref.ref(held, gone)
        del held
        gc.collect()
        write_atomic(sys.argv[1], "the walkthrough\\n")
        print("written")
except typer.Exit as stop:
    print("exit", stop.exit_code)
"""


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGHUP])
def test_a_signal_whose_exception_python_dropped_still_ends_the_command(
        tmp_path: Path, sig: int) -> None:
    out = tmp_path / "o.md"
    done = python(DROPPED, str(out), str(int(sig)))
    assert "Exception ignored" in done.stderr  # the handler's exception was dropped
    assert (done.stdout, out.exists(), list(tmp_path.iterdir())) == (
        f"exit {128 + sig}\n", False, [])


IMPORTED = """
import sys
sys.argv[0] = sys.argv[1]


class CtrlC:
    # Ctrl-C landing while the package imports what it binds (attncli.render, ~45 ms of the
    # command's start, before attncli.cli's `main` can catch it)
    def find_spec(self, name, path=None, target=None):
        if name == "attncli.render":
            raise KeyboardInterrupt
        return None


sys.meta_path.insert(0, CtrlC())
from attncli.cli import main
"""


@pytest.mark.parametrize("program", ["/usr/local/bin/attn", "C:\\\\Scripts\\\\attn.exe"])
def test_ctrl_c_while_the_command_imports_its_package_ends_it_quietly(program: str) -> None:
    done = python(IMPORTED, program)
    assert (done.returncode, done.stderr) == (130, "")


def test_a_program_importing_attn_gets_its_ctrl_c() -> None:
    done = python(IMPORTED, "lecture.py")
    # Python ends on an uncaught KeyboardInterrupt by SIGINT itself, with its traceback
    assert done.returncode == -signal.SIGINT and done.stderr.rstrip().endswith("KeyboardInterrupt")
