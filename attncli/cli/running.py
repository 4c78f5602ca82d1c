"""Running a command's action: the one place where errors become a line on stderr and an exit
code (0 ok, 1 check failed, 2 bad input or usage, 3 a bug in attn)."""

from __future__ import annotations

import os
import sys
import traceback
from collections.abc import Callable, Iterable
from contextlib import suppress

import typer

from attncli.cli.memory import numpy_taken, room_for_numpy
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
    if not room_for_numpy() or not numpy_taken():
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
        if (isinstance(exc, ImportError) and NO_ROOM_TO_LOAD in str(exc)) or (
                isinstance(exc, SystemError) and numpy_import_failed(exc)):
            out_of_memory(memory_line)  # NumPy's libraries under `ulimit -v 60000`, `-d 48000`
            raise typer.Exit(OUT_OF_MEMORY) from None
        try:
            echo_error("attn: " + internal_error_line(exc, lang))
        except MemoryError:  # the line itself refused memory (`ulimit -d`): what is, is said
            out_of_memory(memory_line)
            raise typer.Exit(OUT_OF_MEMORY) from None
        raise typer.Exit(INTERNAL_ERROR) from None


def internal_error_line(exc: Exception, lang: str) -> str:
    message = clipped(Msg.of("internal error: {kind}: {detail} (run with --debug for the "
                             "traceback)", kind=type(exc).__name__, detail=str(exc)))
    try:
        return translate(message, lang)
    except MemoryError:
        raise
    except Exception:  # the catalog itself may be what is broken
        return translate(message, DEFAULT_LANG)


def numpy_import_failed(exc: BaseException) -> bool:
    """Whether `exc` was raised while NumPy was being imported (a frame of a NumPy module's own
    code, run as it is imported, in its traceback or in that of what caused it): a
    SystemError there is the memory NumPy's C code was refused (`ulimit -d 48000`)."""
    seen: BaseException | None = exc
    while seen is not None:
        frame = seen.__traceback__
        while frame is not None:
            code = frame.tb_frame
            if code.f_code.co_name == "<module>" and str(code.f_globals.get(
                    "__name__", "")).split(".")[0] == "numpy":
                return True
            frame = frame.tb_next
        seen = seen.__cause__ or seen.__context__
    return False


def quiet_float_warnings() -> None:
    """NumPy's floating-point warnings (`RuntimeWarning: overflow encountered in matmul`, with
    attn's own source line) are English on stderr beside attn's one line: every result is
    checked for ∞ and NaN where it is made (steps/base.py `finite`, the low precision's
    findings), which says what overflowed, in the user's language."""
    import warnings

    warnings.filterwarnings("ignore", category=RuntimeWarning,
                            message=r"(overflow|invalid value|divide by zero|underflow) "
                                    r"encountered")


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
