"""A pool of worker processes: as many as asked and the system gives, never one left behind.

`attn snippets` renders specs, and `attn explain` writes a large walkthrough's parts, in forked
processes. A worker is forked with the list of tasks in hand and is sent only a task's number;
it sends back what the task returns (pickled). Here they are started and ended:

- they are forked one by one; where the system refuses a fork (a process limit, no memory),
  the work goes to the workers already there, or with none to this process;
- a worker ignores Ctrl-C and dies at SIGTERM without a word: the command (the parent) answers
  the signal and kills its workers, so one signal gives one exit, not a traceback per worker;
- workers left by an error or a signal are killed and waited for; and on Linux a worker is
  killed by the system when its parent dies, even by SIGKILL, so no worker outlives the command;
- a worker killed from outside (SIGKILL, the kernel's out-of-memory killer) leaves its task to
  this process, as a refused fork does: the work is done, not reported as an internal error.

How many workers a command may start (the processors attn may use) is `usable_processors`.
"""

from __future__ import annotations

import contextlib
import math
import os
import signal
import sys
from collections import deque
from collections.abc import Callable, Iterator, Sequence
from typing import TYPE_CHECKING, Any, Generic, TypeVar

from attncli.workers.cgroup import cpu_quota

if TYPE_CHECKING:
    from multiprocessing.connection import Connection

PR_SET_PDEATHSIG = 1  # prctl(2): the signal a process gets when its parent dies
T = TypeVar("T")


def usable_processors() -> int:
    """The processors attn may use: those it may run on (its CPU affinity), fewer when its
    control group's CPU quota allows less (a container limited to two CPUs on a larger host,
    under cgroup v2 or v1: cgroup.py)."""
    count = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (
        os.cpu_count() or 1)
    quota = cpu_quota()
    if quota is not None:
        count = min(count, max(1, math.ceil(quota)))
    return max(1, count)


def can_fork() -> bool:
    import multiprocessing  # here and below, not at the top: `attn explain` of a small spec
    # asks only usable_processors, and multiprocessing costs more than the rest of its start

    return "fork" in multiprocessing.get_all_start_methods()


class WorkerLost(RuntimeError):
    """A task that no worker has and this process was not given: a fault of the pool's use."""


def _attempt(task: Callable[[], Any]) -> tuple[bool, Any]:
    """What a worker sends back for `task`, made in this process."""
    try:
        return True, task()
    except Exception as error:
        return False, error


class Workers(Generic[T]):
    """Up to `jobs` forked processes, each running `tasks[k]()` for the numbers k it is sent.
    Use `start`, which gives None when not even one process could be forked."""

    def __init__(self, tasks: Sequence[Callable[[], T]], jobs: int) -> None:
        self.tasks = tasks
        self.pids: list[int] = []
        self.idle: list[Connection] = []
        self.busy: dict[Connection, int] = {}
        self.queue: deque[int] = deque()
        self.done: dict[int, tuple[bool, Any]] = {}
        import multiprocessing

        parent = os.getpid()
        for _ in range(jobs):
            try:
                ours, theirs = multiprocessing.Pipe()
            except OSError:  # EMFILE (ulimit -n): no descriptors for a pipe, as for a fork
                break
            try:
                pid = os.fork()
            except OSError:  # EAGAIN (a process limit), ENOMEM: the workers there are will do
                ours.close()
                theirs.close()
                break
            if pid == 0:
                ours.close()
                _serve(theirs, tasks, parent, self.idle)  # never returns
            theirs.close()
            self.pids.append(pid)
            self.idle.append(ours)

    def submit(self, k: int) -> None:
        self.queue.append(k)
        self._dispatch()

    def result(self, k: int) -> T:
        """What `tasks[k]()` returned (or raised) in a worker; submit(k) first."""
        while k not in self.done:
            self._dispatch()
            if not self.busy:  # every worker is gone (killed from outside): the rest is done here
                if k not in self.queue:
                    raise WorkerLost(f"task {k} was never submitted")
                self.queue.remove(k)
                self.done[k] = _attempt(self.tasks[k])
                break
            self._receive()
        ok, value = self.done.pop(k)
        if not ok:
            raise value
        return value

    def finish(self) -> None:
        """Tell the workers there is no more work and wait for them to end."""
        for link in [*self.idle, *self.busy]:
            link.close()
        self.idle, self.busy = [], {}
        for pid in self.pids:
            with contextlib.suppress(ChildProcessError):
                os.waitpid(pid, 0)
        self.pids = []

    def stop(self) -> None:
        """Kill the workers and wait for them: work not done is not done."""
        for pid in self.pids:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
        self.finish()

    def _dispatch(self) -> None:
        while self.idle and self.queue:
            link, k = self.idle.pop(), self.queue.popleft()
            link.send(k)
            self.busy[link] = k

    def _receive(self) -> None:
        from multiprocessing.connection import Connection, wait

        for link in wait(list(self.busy)):
            assert isinstance(link, Connection)
            k = self.busy.pop(link)
            try:
                self.done[k] = link.recv()
            except (EOFError, OSError):  # its worker was killed: its task is done here
                link.close()
                self.done[k] = _attempt(self.tasks[k])
                continue
            self.idle.append(link)


def start(tasks: Sequence[Callable[[], T]], jobs: int) -> Workers[T] | None:
    """Workers for `tasks`: `jobs` of them, fewer where the system refuses a fork; None when
    there is none (or no fork on this platform): do the work in this process."""
    if jobs < 1 or not can_fork():
        return None
    workers = Workers(tasks, jobs)
    return workers if workers.pids else None


def end(workers: Workers[Any] | None, done: bool) -> None:
    """Finish the workers when their work is `done`; otherwise kill them."""
    if workers is not None:
        (workers.finish if done else workers.stop)()


def each(tasks: Sequence[Callable[[], T]], jobs: int, first_here: bool = False) -> Iterator[T]:
    """What each task returns, in order, made by up to `jobs` workers when there are two
    tasks or more; an error or a signal that ends the loop kills the workers.

    With `first_here`, the first task is done in this process before any worker is forked:
    what it loads (modules, message catalogs, caches) is then inherited by every worker
    instead of being loaded again in each; for tasks that are alike and many, that is most
    of what a worker would otherwise spend beyond the task itself."""
    if first_here and jobs > 1 and len(tasks) > 2:
        yield tasks[0]()
        tasks = tasks[1:]
    workers = start(tasks, min(jobs, len(tasks))) if jobs > 1 and len(tasks) > 1 else None
    if workers is None:
        yield from (task() for task in tasks)
        return
    done = False
    try:
        for k in range(len(tasks)):
            workers.submit(k)
        for k in range(len(tasks)):
            yield workers.result(k)
        done = True
    finally:
        end(workers, done)


def _serve(link: Connection, tasks: Sequence[Callable[[], Any]], parent: int,
           siblings: list[Connection]) -> None:
    """A worker's life: run the tasks it is sent until its link closes, then exit (never
    returning into the parent's code it was forked from)."""
    try:
        for sibling in siblings:  # so that closing a link reaches its worker alone
            sibling.close()
        settle(parent)
        while True:
            try:
                k = link.recv()
            except EOFError:
                break
            try:
                answer: tuple[bool, Any] = (True, tasks[k]())
            except Exception as error:
                answer = (False, error)
            try:
                link.send(answer)
            except Exception as error:  # an answer that cannot be pickled
                link.send((False, RuntimeError(f"{type(error).__name__}: {error}")))
    finally:
        os._exit(0)


def settle(parent: int) -> None:
    """The parent answers signals for its workers, and a worker ends with its parent."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C reaches the whole group: one answer
    # SIGPIPE sent to the group (`kill -PIPE -PGID`, `timeout -s PIPE`) is ignored here as the
    # parent ignores it (Python's default): at its default it ended the workers while the
    # parent went on, which then found them gone ("internal error: WorkerLost", exit 3). A
    # worker writes only to its parent, and a link whose parent is gone raises, then exits.
    signal.signal(signal.SIGPIPE, signal.SIG_IGN)
    for signum in (signal.SIGTERM, signal.SIGHUP):
        signal.signal(signum, signal.SIG_DFL)  # not the parent's handlers, which raise
    if sys.platform.startswith("linux"):
        with contextlib.suppress(OSError, AttributeError):
            import ctypes

            libc = ctypes.CDLL(None, use_errno=True)
            libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
    if os.getppid() != parent:  # the parent died before the line above
        os._exit(1)

