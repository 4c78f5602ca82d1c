"""One task run in a process of its own, bounded in time and memory: what a tokenizer.json
configures is run so (spec/tokenizer.py), as it can ask for more work or memory than its spec's
limits allow, or end in a panic or an abort of native code that would end attn too.

Within its bounds a task may hold a part of its work to a processor time of its own
(`processor_budget`): the tokenizer's reading of a large file is given its process's seconds,
the encoding of one text far less."""

from __future__ import annotations

import contextlib
import math
import os
import signal
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, TypeVar

from attncli.workers.pool import can_fork, settle

T = TypeVar("T")


class Overrun(Exception):
    """What `bounded` ran ended without an answer: it took more than its seconds (`timed_out`),
    or died (out of its memory, or a crash in native code), by the signal named `ended_by` if
    one ended it (SIGPROF: past its `processor_budget`)."""

    def __init__(self, timed_out: bool, ended_by: str | None = None) -> None:
        super().__init__("timed out" if timed_out else "ended without an answer")
        self.timed_out = timed_out
        self.ended_by = ended_by


# ITIMER_PROF's signal, named (a system without it has no fork either, and no budget)
BUDGET_SIGNAL = "SIGPROF"
_BOUNDED: list[int] = []  # the id of this process if it is a bounded one


@contextlib.contextmanager
def processor_budget(seconds: float) -> Iterator[None]:
    """In a bounded process: ended by BUDGET_SIGNAL if what is run inside takes more than
    `seconds` of the processor (user and system time of all its threads, counted to the
    microsecond, where RLIMIT_CPU counts whole seconds), which no code of it can put off, native
    code included. Elsewhere (no fork: the task runs in attn's own process) nothing is set."""
    if os.getpid() not in _BOUNDED:
        yield
        return
    signal.signal(signal.SIGPROF, signal.SIG_DFL)  # its default: the process ends
    signal.setitimer(signal.ITIMER_PROF, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_PROF, 0)


def bounded(task: Callable[[], T], seconds: float, megabytes: int, largest: int) -> T:
    """`task()` run in a forked process given `seconds` (of the clock and of the processor)
    and `megabytes` of memory more than this process holds, its answer of at most `largest`
    bytes; what it raises is raised here. Overrun when it ends without an answer; the process
    is killed and waited for whatever happens here (an error, a signal). Where there is no
    fork, `task()` is run here, unbounded."""
    import pickle
    import select
    import time

    if not can_fork():
        return task()
    readable, writable = os.pipe()
    try:
        pid = os.fork()
    except OSError:
        os.close(readable)
        os.close(writable)
        return task()
    if pid == 0:  # pragma: no cover - the child, measured by the parent's tests
        os.close(readable)
        _answer(writable, task, seconds, megabytes, largest)
    os.close(writable)
    pieces: list[bytes] = []
    size, ended = 0, False
    deadline = time.monotonic() + seconds
    try:
        while size <= largest:
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([readable], [], [], left)[0]:
                break
            piece = os.read(readable, 1 << 16)
            if not piece:
                ended = True
                break
            pieces.append(piece)
            size += len(piece)
    finally:
        os.close(readable)
        if not ended:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
        status = os.waitpid(pid, 0)[1]
    if not ended or not pieces:
        raise Overrun(timed_out=not ended, ended_by=signal.Signals(os.WTERMSIG(status)).name
                      if ended and os.WIFSIGNALED(status) else None)
    ok, value = pickle.loads(b"".join(pieces))
    if not ok:
        raise value
    return value


def _answer(writable: int, task: Callable[[], Any], seconds: float, megabytes: int,
            largest: int) -> None:
    """The bounded process: limits set, `task()` run, its answer (or its error) written."""
    import faulthandler
    import pickle
    import resource

    try:
        _BOUNDED[:] = [os.getpid()]
        settle(os.getppid())
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, 2)  # what native code prints as it fails (a Rust panic's lines)
        faulthandler.disable()  # which writes to a stderr of its own
        with contextlib.suppress(OSError, ValueError):  # a lower limit already set stays
            data = _data_bytes() + (megabytes << 20)
            resource.setrlimit(resource.RLIMIT_DATA, (data, data))
        with contextlib.suppress(OSError, ValueError):
            cpu = max(1, math.ceil(seconds))
            resource.setrlimit(resource.RLIMIT_CPU, (cpu, cpu + 1))
        try:
            answer = pickle.dumps((True, task()))
        except BaseException as error:  # a Rust panic is a BaseException (pyo3's)
            problem = error if isinstance(error, Exception) else RuntimeError(str(error))
            answer = pickle.dumps((False, problem))
        if len(answer) <= largest:
            with os.fdopen(writable, "wb") as out:
                out.write(answer)
    finally:
        os._exit(0)


def _data_bytes() -> int:
    """This process's data segment (VmData: heap and private mappings), which RLIMIT_DATA
    bounds."""
    for line in Path("/proc/self/status").read_text(encoding="ascii").splitlines():
        if line.startswith("VmData:"):
            return int(line.split()[1]) << 10
    raise OSError("no VmData")
