"""A MemoryError (`ulimit -v 100000`: NumPy cannot load) is the machine's limit, as a full disk
is: one line, exit 2. It was "internal error", whose own message then ran out of memory too:
three tracebacks and exit 1."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
import typer

from attncli.cli import running

ROOT = Path(__file__).resolve().parent.parent


def no_memory() -> str:
    raise MemoryError


@pytest.mark.parametrize(("lang", "line"), [
    ("en", "attn: not enough memory: the system refused attn the memory it needs (a limit such "
           "as ulimit -v, or a machine whose memory is used up)\n"),
    ("ru", "attn: недостаточно памяти: система не выделила attn нужную память (сработало "
           "ограничение, например ulimit -v, или на машине закончилась свободная память)\n"),
])
def test_a_memory_error_is_one_line_exit_2(capfd: pytest.CaptureFixture[str], lang: str,
                                           line: str) -> None:
    with pytest.raises(typer.Exit) as caught:
        running.run(no_memory, lang, debug=False)
    assert caught.value.exit_code == 2
    assert capfd.readouterr() == ("", line)


def test_the_line_is_made_before_the_command_runs_so_it_needs_no_memory_then(
        monkeypatch: pytest.MonkeyPatch, capfd: pytest.CaptureFixture[str]) -> None:
    """Once memory is refused, the catalogue may find none either: the line was then English
    in every language. It is made in the user's language before the command runs."""
    def refusing(*_: object) -> str:
        raise MemoryError

    def runs_out() -> str:
        monkeypatch.setattr(running, "translate", refusing)  # nothing can be translated now
        raise MemoryError

    with pytest.raises(typer.Exit) as caught:
        running.run(runs_out, "pl", debug=False)
    assert caught.value.exit_code == 2
    assert capfd.readouterr() == ("", "attn: za mało pamięci: system nie przydzielił attn "
                                      "potrzebnej pamięci (przyczyną może być limit, np. ulimit "
                                      "-v, albo wyczerpana pamięć komputera)\n")


def test_with_no_memory_even_before_the_command_a_fixed_line_is_written(
        monkeypatch: pytest.MonkeyPatch, capfd: pytest.CaptureFixture[str]) -> None:
    def refusing(*_: object) -> str:
        raise MemoryError

    monkeypatch.setattr(running, "translate", refusing)
    with pytest.raises(typer.Exit) as caught:
        running.run(no_memory, "pl", debug=False)
    assert caught.value.exit_code == 2
    assert capfd.readouterr() == ("", "attn: not enough memory\n")


def test_debug_shows_the_memory_error() -> None:
    with pytest.raises(MemoryError):
        running.run(no_memory, "en", debug=True)


def test_a_library_with_no_memory_to_be_mapped_is_out_of_memory_too(
        capfd: pytest.CaptureFixture[str]) -> None:
    """Under `ulimit -v 60000` NumPy's import fails with an ImportError that quotes the
    loader's ENOMEM ("failed to map segment from shared object"): it was "internal error",
    exit 3. Any other ImportError still is."""
    def unmapped() -> str:
        raise ImportError("Original error was: libgfortran-040039e1.so.5.0.0: failed to map "
                          "segment from shared object")

    def missing() -> str:
        raise ImportError("No module named 'nowhere'")

    with pytest.raises(typer.Exit) as caught:
        running.run(unmapped, "en", debug=False)
    assert caught.value.exit_code == 2
    assert capfd.readouterr().err.startswith("attn: not enough memory: ")
    with pytest.raises(typer.Exit) as caught:
        running.run(missing, "en", debug=False)
    assert caught.value.exit_code == 3
    assert capfd.readouterr().err == ("attn: internal error: ImportError: No module named "
                                       "'nowhere' (run with --debug for the traceback)\n")


@pytest.mark.parametrize("limit_kb", [80_000, 130_000])
def test_a_limit_too_small_for_numpy_is_said_before_openblas_ends_the_process(
        tmp_path: Path, limit_kb: int) -> None:
    """Under `ulimit -v` of 80 to 140 MB, NumPy's import made OpenBLAS print its own English and
    end the process with exit 1, which no handler sees; the room is looked at first."""
    import resource

    def limited() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (limit_kb * 1024, resource.RLIM_INFINITY))

    done = subprocess.run([sys.executable, "-m", "attncli", "--lang", "pl", "explain",
                           str(ROOT / "configs" / "cat_chases_mouse.yaml")], cwd=tmp_path,
                          capture_output=True, text=True, stdin=subprocess.DEVNULL,
                          preexec_fn=limited)
    assert (done.returncode, done.stdout) == (2, "")
    assert done.stderr == ("attn: za mało pamięci: system nie przydzielił attn potrzebnej "
                           "pamięci (przyczyną może być limit, np. ulimit -v, albo wyczerpana "
                           "pamięć komputera)\n")


def test_numpy_s_room_is_the_limit_less_what_the_process_takes(
        monkeypatch: pytest.MonkeyPatch) -> None:
    import resource

    monkeypatch.delitem(sys.modules, "numpy", raising=False)
    status = Path("/proc/self/status").read_bytes()
    taken = int(status.split(b"VmSize:")[1].split()[0]) * 1024
    for room, fits in ((running.NUMPY_ROOM + (1 << 20), True), (running.NUMPY_ROOM - (1 << 20),
                                                                   False)):
        monkeypatch.setattr(resource, "getrlimit", lambda _, limit=taken + room: (limit, -1))
        assert running.room_for_numpy() is fits
