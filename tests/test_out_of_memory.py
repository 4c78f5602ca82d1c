"""A MemoryError (`ulimit -v 100000`: NumPy cannot load) is the machine's limit, as a full disk
is: one line, exit 2. It was "internal error", whose own message then ran out of memory too:
three tracebacks and exit 1."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
import typer

from attncli.cli import memory, running

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


@pytest.mark.parametrize("limit", ["RLIMIT_AS", "RLIMIT_DATA"])
def test_numpy_s_room_is_the_limit_less_what_the_process_takes(
        monkeypatch: pytest.MonkeyPatch, limit: str) -> None:
    import resource

    monkeypatch.delitem(sys.modules, "numpy", raising=False)
    field, room = {"RLIMIT_AS": (b"VmSize:", memory.NUMPY_ROOM),
                   "RLIMIT_DATA": (b"VmData:", memory.NUMPY_DATA_ROOM)}[limit]
    status = Path("/proc/self/status").read_bytes()
    taken = int(status.split(field)[1].split()[0]) * 1024
    for left, fits in ((room + (1 << 20), True), (room - (1 << 20), False)):
        monkeypatch.setattr(resource, "getrlimit", lambda which, cap=taken + left: (
            cap if which == getattr(resource, limit) else resource.RLIM_INFINITY, -1))
        assert memory.room_for_numpy() is fits


def limited_run(limit: str, kb: int, *args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    """attn `args` as a process of its own under `ulimit -d` (RLIMIT_DATA) or `-v` (RLIMIT_AS)."""
    import resource

    def limited() -> None:
        resource.setrlimit(getattr(resource, limit), (kb * 1024, resource.RLIM_INFINITY))

    return subprocess.run([sys.executable, "-m", "attncli", *args], cwd=cwd, capture_output=True,
                          text=True, stdin=subprocess.DEVNULL, preexec_fn=limited, timeout=120,
                          env={**os.environ, "PYTHONPATH": str(ROOT)})


NO_MEMORY_RU = ("attn: недостаточно памяти: система не выделила attn нужную память (сработало "
                "ограничение, например ulimit -v, или на машине закончилась свободная память)\n")


@pytest.mark.parametrize("limit_kb", [30_000, 50_000, 80_000])
def test_a_data_limit_too_small_for_numpy_is_said_before_openblas_ends_the_process(
        tmp_path: Path, limit_kb: int) -> None:
    """`ulimit -d` of 20 to 80 MB was not looked at: OpenBLAS printed its own English line and
    ended the process with exit 1 (at 48 to 50 MB, `attn fill` ended in a traceback)."""
    done = limited_run("RLIMIT_DATA", limit_kb, "--lang", "ru", "explain",
                       str(ROOT / "configs" / "cat_chases_mouse.yaml"), cwd=tmp_path)
    assert (done.returncode, done.stdout, done.stderr) == (2, "", NO_MEMORY_RU)


def test_a_large_spec_just_past_numpy_s_room_is_refused_not_ended_by_openblas(
        tmp_path: Path) -> None:
    """With room for NumPy's import, OpenBLAS took its buffer (32 MB) only at the first large
    product, once a spec of 1,024 tokens had taken its own arrays: under `ulimit -v` of 143 to
    151 MB it was refused and ended the process. The buffer is now taken with NumPy's import,
    while the room is known; what the walkthrough asks after it is a MemoryError."""
    import numpy as np

    np.save(tmp_path / "X.npy", np.random.default_rng(0).normal(size=(1024, 16)))
    tokens = ", ".join(f"t{k}" for k in range(1024))
    (tmp_path / "s.yaml").write_text(f"tokens: [{tokens}]\nembeddings: {{file: X.npy}}\n"
                                     "weights: {W_Q: identity, W_K: identity, W_V: identity}\n",
                                     encoding="utf-8")
    done = limited_run("RLIMIT_AS", 147_000, "--lang", "ru", "validate", "s.yaml", cwd=tmp_path)
    assert (done.returncode, done.stdout, done.stderr) == (2, "", NO_MEMORY_RU)
    assert limited_run("RLIMIT_AS", 400_000, "validate", "s.yaml", cwd=tmp_path).stderr == (
        "attn: 1 spec is valid\n")


def test_a_system_error_as_numpy_is_imported_is_out_of_memory(
        capfd: pytest.CaptureFixture[str]) -> None:
    """Under `ulimit -d 48000` NumPy's import failed with "SystemError: error return without
    exception set": its C code was refused memory. Raised by NumPy's own module code as it is
    run, it is the memory line; a SystemError anywhere else is still an internal error."""
    def importing() -> str:
        exec(compile("raise SystemError('error return without exception set')",
                     "numpy/_core/multiarray.py", "exec"), {"__name__": "numpy._core.multiarray"})
        return ""

    def elsewhere() -> str:
        raise SystemError("error return without exception set")

    with pytest.raises(typer.Exit) as caught:
        running.run(importing, "ru", debug=False)
    assert (caught.value.exit_code, capfd.readouterr().err) == (2, NO_MEMORY_RU)
    with pytest.raises(typer.Exit) as caught:
        running.run(elsewhere, "en", debug=False)
    assert (caught.value.exit_code, capfd.readouterr().err) == (
        3, "attn: internal error: SystemError: error return without exception set (run with "
           "--debug for the traceback)\n")


def test_an_internal_error_whose_line_finds_no_memory_is_out_of_memory(
        monkeypatch: pytest.MonkeyPatch, capfd: pytest.CaptureFixture[str]) -> None:
    # the line's own regular expression (quoting.clipped) was refused memory: a MemoryError
    # went out through Click as a second traceback, exit 1
    def refusing(*_: object) -> str:
        raise MemoryError

    def broken() -> str:
        monkeypatch.setattr(running, "clipped", refusing)
        raise RuntimeError("a bug")

    with pytest.raises(typer.Exit) as caught:
        running.run(broken, "ru", debug=False)
    assert (caught.value.exit_code, capfd.readouterr().err) == (2, NO_MEMORY_RU)
