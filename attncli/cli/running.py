"""Running a command's action: the one place where errors become a line on stderr and an exit
code (0 ok, 1 check failed, 2 bad input or usage, 3 a bug in attn)."""

from __future__ import annotations

import os
import sys
import traceback
from collections.abc import Callable, Iterable
from contextlib import suppress

import typer

from attncli.cli.streams import echo_error, terminable, write_stdout
from attncli.errors import NO_MEMORY, NO_ROOM_TO_LOAD, AttnError, Location
from attncli.i18n import DEFAULT_LANG, Msg, translate
from attncli.i18n.quoting import clipped, quoted_name
from attncli.spec.scope import ONE_RUN_PROCESS, scoped

INTERNAL_ERROR = 3
OUT_OF_MEMORY = 2  # as a full disk: what the machine refused, not a bug in attn
OUT_OF_MEMORY_LINE = b"attn: not enough memory\n"  # when not even the line can be made


def fail(error: AttnError, lang: str) -> None:
    """Print one line for `error` on stderr: where, then what was expected and found.

    The one prefix rule (docs/limits.md): a problem in a file starts with where it is
    (`spec.yaml:2:13: `, or `spec.yaml: ` for the whole file); any other with `attn: `, then
    the option it is about, if one (`attn: --answer: `)."""
    message = clipped(error.message)
    echo_error(prefix(error.where) + translate(message, lang),
               prefix(error.where) + translate(message, DEFAULT_LANG))


def prefix(where: Location | None) -> str:
    if where is None:
        return "attn: "
    if where.source.startswith("-") and where.line is None:  # an option, not a file
        return "attn: " + where.prefix() + ": "
    # a file name no file has can be as long as the command line: quoted as any other value
    return Location(quoted_name(where.source), where.path, where.line, where.column).prefix() + ": "


def say(message: Msg, lang: str) -> None:
    """One line for the user on stderr (stdout is kept for what the command produces)."""
    echo_error("attn: " + translate(clipped(message), lang),
               "attn: " + translate(clipped(message), DEFAULT_LANG))


def run(action: Callable[[], str | Iterable[str]], lang: str, debug: bool) -> None:
    """Run `action` and write what it returns; the one place errors become exit codes."""
    memory_line = prepared_memory_line(lang)
    quiet_float_warnings()
    if not room_for_numpy():
        out_of_memory(memory_line)
        raise typer.Exit(OUT_OF_MEMORY)
    try:
        with terminable(), scoped(ONE_RUN_PROCESS, True):
            write_stdout(action())
    except AttnError as error:
        if debug:
            traceback.print_exc()
        fail(error, lang)
        raise typer.Exit(error.exit_code) from None
    except (KeyboardInterrupt, typer.Exit):
        raise
    except MemoryError:  # the machine's limit (ulimit -v, a full machine), as a full disk is
        if debug:
            raise
        out_of_memory(memory_line)
        raise typer.Exit(OUT_OF_MEMORY) from None
    except Exception as exc:  # a bug in attn, not in the input: still one line unless --debug
        if debug:
            raise
        if isinstance(exc, ImportError) and NO_ROOM_TO_LOAD in str(exc):
            out_of_memory(memory_line)  # NumPy's libraries under `ulimit -v 60000`
            raise typer.Exit(OUT_OF_MEMORY) from None
        message = Msg.of("internal error: {kind}: {detail} (run with --debug for the traceback)",
                         kind=type(exc).__name__, detail=str(exc))
        message = clipped(message)
        try:
            line = translate(message, lang)
        except Exception:  # the catalog itself may be what is broken
            line = translate(message, DEFAULT_LANG)
        echo_error("attn: " + line)
        raise typer.Exit(INTERNAL_ERROR) from None


def quiet_float_warnings() -> None:
    """NumPy's floating-point warnings (`RuntimeWarning: overflow encountered in matmul`, with
    attn's own source line) are English on stderr beside attn's one line: every result is
    checked for ∞ and NaN where it is made (steps/base.py `finite`, the low precision's
    findings), which says what overflowed, in the user's language."""
    import warnings

    warnings.filterwarnings("ignore", category=RuntimeWarning,
                            message=r"(overflow|invalid value|divide by zero|underflow) "
                                    r"encountered")


# Address space a command takes from here to its first number: NumPy's import, with one BLAS
# thread, takes 82 MB (OpenBLAS's buffers most of it). Under a limit (`ulimit -v`) that left
# 117 MB, OpenBLAS printed its own English ("Memory allocation still failed after 10 retries,
# giving up") and ended the process with exit 1; with 122 MB the bundled example ran. The
# import cannot be caught, so the room is looked at before.
NUMPY_ROOM = 118 << 20


def room_for_numpy() -> bool:
    """Whether NumPy, not imported yet, can be: the address-space limit less what the process
    takes now (Linux's /proc/self/status) leaves NUMPY_ROOM. True where either is not known."""
    if "numpy" in sys.modules:
        return True
    try:
        import resource

        limit = resource.getrlimit(resource.RLIMIT_AS)[0]
        if limit == resource.RLIM_INFINITY:
            return True
        with open("/proc/self/status", "rb") as status:
            for line in status:
                if line.startswith(b"VmSize:"):
                    return limit - int(line.split()[1]) * 1024 >= NUMPY_ROOM
    except (ImportError, OSError, ValueError, IndexError):
        pass
    return True


def prepared_memory_line(lang: str) -> bytes:
    """The line for a MemoryError, made in the user's language before the command runs: once
    memory is refused, making it (the catalogue, a regular expression compiled on first use)
    may be refused too, and the line was then English in every language. A terminal that
    cannot show the language gets it in English; no memory even now, a fixed English line."""
    try:
        encoding = getattr(sys.stderr, "encoding", None) or "utf-8"
        try:
            return ("attn: " + translate(NO_MEMORY, lang) + "\n").encode(encoding)
        except (UnicodeError, LookupError):  # idna and undefined raise the base class
            return ("attn: " + translate(NO_MEMORY, DEFAULT_LANG) + "\n").encode("ascii",
                                                                             "replace")
    except MemoryError:
        return OUT_OF_MEMORY_LINE


def out_of_memory(line: bytes) -> None:
    """Write the prepared line (prepared_memory_line) as it is: nothing is made now. Python's own
    report of a second MemoryError was three tracebacks and exit 1."""
    with suppress(OSError, ValueError, AttributeError):
        sys.stderr.flush()
    with suppress(OSError):
        os.write(2, line)
