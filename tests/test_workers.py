"""Worker processes (attncli/workers/): `--jobs` is capped at the processors attn may use, a
fork the system refuses leaves fewer workers (not a hang), and a signal ends every worker
quietly, leaving none behind.

The cases of issue #28 (item 4 of its list): 128 forks on 2 processors; `--jobs 200` under a
process limit printed "Resource temporarily unavailable", wrote nothing and hung; SIGTERM then
gave a traceback per worker; `--jobs 100000` left orphans. A process limit cannot be set for
root (CI runs as root), so a refused fork is made by a stand-in for `os.fork` that refuses once
a number of forked processes is alive, as the kernel's RLIMIT_NPROC does.
"""

from __future__ import annotations

import errno
import os
import resource
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from functools import partial
from pathlib import Path

import pytest

from attncli.cli.inputs import jobs_option
from attncli.workers import bounded, cgroup, pool
from tests.conftest import run

# attn with its renderer of one spec's snippets slowed in the workers (so a signal finds them
# busy; the first spec, made by the command itself before it forks, is not), or with a process
# limit of FAKE_NPROC forked processes alive at once.
PRELUDE = """
import errno, os, sys, time
if "SLOW" in os.environ:
    import attncli.snippets.run as snippets
    made, command = snippets._spec_snippets, os.getpid()
    def slow(work):
        if os.getpid() != command:
            time.sleep(float(os.environ["SLOW"]))
        return made(work)
    snippets._spec_snippets = slow
if "FAKE_NPROC" in os.environ:
    limit, forked, fork = int(os.environ["FAKE_NPROC"]), [], os.fork
    def alive(pid):
        try:
            return open(f"/proc/{pid}/stat").read().split()[2] != "Z"
        except OSError:
            return False
    def limited():
        if sum(map(alive, forked)) >= limit:
            raise BlockingIOError(errno.EAGAIN, os.strerror(errno.EAGAIN))
        pid = fork()
        if pid:
            forked.append(pid)
        return pid
    os.fork = limited
from attncli.cli import main
sys.argv = ["attn", *sys.argv[1:]]
main()
"""

SPEC = "tokens: [cat, mouse]\nembeddings: [[1, 0], [0, 1]]\n"


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    """Six specs, one snippet each."""
    for k in range(6):
        (tmp_path / f"s{k}.attn.yaml").write_text(SPEC, encoding="utf-8")
    (tmp_path / "attn.toml").write_text('[[snippets]]\nspecs = "*.attn.yaml"\nformats = '
                                        '["text"]\noutput = "out/{name}.{ext}"\n',
                                        encoding="utf-8")
    return tmp_path


def attn(tree: Path, *args: str, **env: str) -> subprocess.Popen[str]:
    return subprocess.Popen([sys.executable, "-c", PRELUDE, *args], cwd=tree, text=True,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            start_new_session=True, env={**os.environ, **env})


def children(pid: int) -> list[int]:
    try:
        return [int(k) for k in Path(f"/proc/{pid}/task/{pid}/children").read_text().split()]
    except OSError:
        return []


def alive(pid: int) -> bool:
    try:
        return Path(f"/proc/{pid}/stat").read_text().split()[2] != "Z"
    except OSError:
        return False


@pytest.fixture
def usable(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Iterator[Path]:
    """Eight processors to run on, in the root group of cgroup v2 (a fake /proc/self/cgroup and
    /sys/fs/cgroup under tmp_path); the root's quota written to the returned file."""
    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: set(range(8)), raising=False)
    (tmp_path / "sys").mkdir()
    quota = tmp_path / "sys" / "cpu.max"
    quota.write_text("max 100000\n", encoding="ascii")
    (tmp_path / "cgroup").write_text("0::/\n", encoding="ascii")
    monkeypatch.setattr(cgroup, "PROC_CGROUP", tmp_path / "cgroup")
    monkeypatch.setattr(cgroup, "CGROUP_ROOT", tmp_path / "sys")
    yield quota


def v1_quota(folder: Path, quota: str, period: str = "100000") -> None:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "cpu.cfs_quota_us").write_text(quota + "\n", encoding="ascii")
    (folder / "cpu.cfs_period_us").write_text(period + "\n", encoding="ascii")


def test_jobs_are_capped_at_the_processors_attn_may_run_on(usable: Path) -> None:
    assert pool.usable_processors() == 8
    assert jobs_option(None) == 8
    assert jobs_option(3) == 3
    assert jobs_option(128) == 8
    assert jobs_option(100_000) == 8


def test_a_cpu_quota_lowers_the_cap(usable: Path) -> None:
    usable.write_text("150000 100000\n", encoding="ascii")  # one and a half processors
    assert jobs_option(128) == 2 and jobs_option(None) == 2
    usable.write_text("50000 100000\n", encoding="ascii")
    assert jobs_option(128) == 1


@pytest.mark.parametrize(("quota", "period", "cap"), [
    ("150000", "100000", 2),  # one and a half processors
    ("50000", "100000", 1),
    ("400000", "100000", 4),
    ("-1", "100000", 8),  # no quota
    ("100000", "0", 8),  # a period of nothing: read as no quota, never a division by zero
])
def test_a_cgroup_v1_quota_lowers_the_cap(usable: Path, quota: str, period: str,
                                          cap: int) -> None:
    usable.unlink()  # a cgroup v1 host has no cpu.max
    (usable.parent.parent / "cgroup").write_text("2:cpuacct:/\n1:cpu:/\n", encoding="ascii")
    v1_quota(usable.parent / "cpu", quota, period)
    assert pool.usable_processors() == cap
    assert jobs_option(128) == cap


def test_the_tightest_of_v2_and_v1_counts(usable: Path) -> None:
    """A hybrid host: the unified hierarchy and a v1 cpu controller; each quota applies."""
    usable.write_text("200000 100000\n", encoding="ascii")
    (usable.parent.parent / "cgroup").write_text("1:cpu:/\n0::/\n", encoding="ascii")
    v1_quota(usable.parent / "cpu", "300000")
    assert pool.usable_processors() == 2
    v1_quota(usable.parent / "cpu", "100000")
    assert pool.usable_processors() == 1


def test_a_v2_group_is_held_to_its_tightest_ancestor(usable: Path) -> None:
    """/user.slice/attn.scope: the scope sets no quota, its slice 1.5 processors, the root none;
    then a scope of 0.5 under a slice of 4."""
    (usable.parent.parent / "cgroup").write_text("0::/user.slice/attn.scope\n", encoding="ascii")
    scope = usable.parent / "user.slice" / "attn.scope"
    scope.mkdir(parents=True)
    (scope / "cpu.max").write_text("max 100000\n", encoding="ascii")
    (scope.parent / "cpu.max").write_text("150000 100000\n", encoding="ascii")
    assert cgroup.cpu_quota() == 1.5 and pool.usable_processors() == 2
    (scope / "cpu.max").write_text("50000 100000\n", encoding="ascii")
    (scope.parent / "cpu.max").write_text("400000 100000\n", encoding="ascii")
    assert cgroup.cpu_quota() == 0.5 and pool.usable_processors() == 1


def test_a_v1_cpu_controller_is_found_from_proc(usable: Path) -> None:
    """`4:cpu,cpuacct:/docker/abc`: the group sets no quota (-1), its parent /docker 2.5
    processors, read under the controllers' own folder, cpu,cpuacct."""
    usable.unlink()
    (usable.parent.parent / "cgroup").write_text(
        "5:memory:/docker/abc\n4:cpu,cpuacct:/docker/abc\n", encoding="ascii")
    mount = usable.parent / "cpu,cpuacct"
    v1_quota(mount / "docker" / "abc", "-1")
    v1_quota(mount / "docker", "250000")
    v1_quota(usable.parent / "cpu", "100000")  # a folder of another name is not this group's
    assert cgroup.cpu_quota() == 2.5 and pool.usable_processors() == 3


def test_a_container_sees_its_group_as_the_root(usable: Path) -> None:
    """The path /proc names (the host's) is not under the container's mount, nor is one outside
    a cgroup namespace (`/../..`): the walk up reaches the root, the container's own group."""
    usable.write_text("300000 100000\n", encoding="ascii")
    for path in ("/kubepods/pod1/abc", "/../../other"):
        (usable.parent.parent / "cgroup").write_text(f"0::{path}\n", encoding="ascii")
        assert cgroup.cpu_quota() == 3.0 and pool.usable_processors() == 3


def test_without_proc_the_roots_are_read(usable: Path) -> None:
    (usable.parent.parent / "cgroup").unlink()
    usable.write_text("200000 100000\n", encoding="ascii")
    assert pool.usable_processors() == 2
    usable.unlink()
    v1_quota(usable.parent / "cpu", "100000")
    assert pool.usable_processors() == 1


def test_the_help_says_the_cap() -> None:
    for command in ("snippets", "explain"):
        help_text = " ".join(run(command, "--help", env={"COLUMNS": "200"}).stdout.split())
        assert "at most: the processors attn may use" in help_text.replace("│", " ").replace(
            "  ", " "), command


def _pid() -> int:
    time.sleep(0.2)  # long enough that each worker takes a task
    return os.getpid()


def test_a_refused_fork_leaves_the_workers_given(monkeypatch: pytest.MonkeyPatch) -> None:
    forked: list[int] = []
    fork = os.fork

    def limited() -> int:  # at most two forked processes alive at once
        if sum(map(alive, forked)) >= 2:
            raise BlockingIOError(errno.EAGAIN, os.strerror(errno.EAGAIN))
        pid = fork()
        if pid:
            forked.append(pid)
        return pid

    monkeypatch.setattr(os, "fork", limited)
    pids = list(pool.each([_pid] * 6, jobs=6))
    assert len(set(pids)) == 2 and os.getpid() not in pids
    assert not any(map(alive, forked))  # each ended and waited for


def test_no_fork_at_all_is_work_in_this_process(monkeypatch: pytest.MonkeyPatch) -> None:
    def refused() -> int:
        raise BlockingIOError(errno.EAGAIN, os.strerror(errno.EAGAIN))

    monkeypatch.setattr(os, "fork", refused)
    assert pool.start([_pid] * 4, 4) is None
    assert list(pool.each([_pid] * 4, jobs=4)) == [os.getpid()] * 4


def _loads() -> int:
    """A task that loads something (a module attribute standing for a catalog) when first
    run, and says in which process it ran and whether that was already loaded there."""
    global _LOADED
    was, _LOADED = _LOADED, True
    return os.getpid() * 2 + was


_LOADED = False


def test_the_first_task_here_leaves_what_it_loaded_to_every_worker() -> None:
    global _LOADED
    _LOADED = False
    answers = list(pool.each([_loads] * 5, jobs=2, first_here=True))
    assert answers[0] == os.getpid() * 2  # made here, loading
    workers = {answer // 2 for answer in answers[1:]}
    assert os.getpid() not in workers and len(workers) == 2  # the rest in two workers,
    assert all(answer % 2 for answer in answers[1:])  # which found it loaded: inherited
    _LOADED = False
    fresh = [a % 2 for a in pool.each([_loads] * 5, jobs=2)]
    assert fresh.count(0) == 2  # without it, each of the two workers loads it again


def _fails() -> int:
    raise ValueError("from a worker")


def test_an_error_in_a_task_is_raised_here_and_the_workers_end() -> None:
    started = pool.start([_pid, _fails, _pid], 2)
    assert started is not None
    pids = list(started.pids)
    for k in range(3):
        started.submit(k)
    assert started.result(0) != os.getpid()
    with pytest.raises(ValueError, match="from a worker"):
        started.result(1)
    pool.end(started, done=False)
    assert not any(map(alive, pids))


_HOME = os.getpid()


def _killed_in_a_worker(k: int) -> int:
    """Task k: SIGKILL to the worker that runs it (as the out-of-memory killer sends), k here."""
    if os.getpid() != _HOME:
        os.kill(os.getpid(), signal.SIGKILL)
    return k * k


@pytest.mark.parametrize("jobs", [2, 3])
def test_workers_killed_from_outside_leave_their_work_to_this_process(jobs: int) -> None:
    """`pkill -9` of both workers of `attn snippets --jobs 2` was 'internal error: WorkerLost:
    a worker ended before it wrote part 5', exit 3; the parts they held are now made here."""
    global _HOME
    _HOME = os.getpid()
    tasks = [lambda k=k: _killed_in_a_worker(k) for k in range(7)]
    assert list(pool.each(tasks, jobs=jobs)) == [k * k for k in range(7)]


@pytest.mark.parametrize("limit", ["3", "1", "0"])
def test_jobs_200_under_a_process_limit_writes_everything(tree: Path, limit: str) -> None:
    process = attn(tree, "snippets", "--jobs", "200", FAKE_NPROC=limit)
    out, err = process.communicate(timeout=120)
    assert (process.returncode, out, err) == (0, "", "attn: 6 written, 0 unchanged, 0 failed\n")
    assert sorted(p.name for p in (tree / "out").iterdir()) == [f"s{k}.txt" for k in range(6)]


def started_busy(tree: Path, slow: str = "60") -> tuple[subprocess.Popen[str], list[int]]:
    """`attn snippets --jobs 2` with both workers busy, each spec taking `slow` seconds."""
    process = attn(tree, "snippets", "--jobs", "2", SLOW=slow)
    deadline = time.monotonic() + 60
    while len(children(process.pid)) < 2 and time.monotonic() < deadline:
        time.sleep(0.05)
    busy = children(process.pid)
    assert len(busy) == 2
    time.sleep(0.3)  # each has its spec
    return process, busy


@pytest.mark.parametrize(("signum", "group", "code"), [
    (signal.SIGTERM, False, 143),  # `kill PID`
    (signal.SIGTERM, True, 143),   # a CI runner ending the job's process group
    (signal.SIGINT, True, 130),    # Ctrl-C in a terminal reaches the whole group
])
def test_a_signal_ends_every_worker_quietly(tree: Path, signum: int, group: bool,
                                            code: int) -> None:
    process, busy = started_busy(tree)
    began = time.monotonic()
    if group:
        os.killpg(process.pid, signum)
    else:
        os.kill(process.pid, signum)
    out, err = process.communicate(timeout=30)
    assert time.monotonic() - began < 10  # not the minute the workers had left
    assert (process.returncode, out, err) == (code, "", "")
    assert not any(map(alive, busy))
    assert not (tree / "out").exists()


def test_a_sigpipe_sent_to_the_group_is_ignored_by_the_workers_as_by_the_command(
        tree: Path) -> None:
    """Python ignores SIGPIPE (a reader that went away is EPIPE on a write, exit 141); the
    workers took it back to its default, so `kill -PIPE -PGID` (or `timeout -s PIPE`, which
    signals its group) ended them while the command went on: "internal error: WorkerLost: a
    worker ended before it wrote part 4", exit 3. They ignore it too, and the work is done."""
    process, busy = started_busy(tree, slow="1.5")
    os.killpg(process.pid, signal.SIGPIPE)
    out, err = process.communicate(timeout=60)
    assert (process.returncode, out, err) == (0, "", "attn: 6 written, 0 unchanged, 0 failed\n")
    assert sorted(p.name for p in (tree / "out").iterdir()) == [f"s{k}.txt" for k in range(6)]
    assert not any(map(alive, busy))


def test_no_worker_outlives_a_killed_command(tree: Path) -> None:
    process, busy = started_busy(tree)
    process.kill()  # SIGKILL: the command has no say
    process.communicate(timeout=30)  # returns only once no worker holds its pipes
    deadline = time.monotonic() + 10
    while any(map(alive, busy)) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not any(map(alive, busy))


# What a tokenizer may do (issue #28, item 3 of its list), in a bounded process.

def _forever() -> None:
    while True:
        pass


def _allocate() -> int:
    return len(bytearray(2 << 30))  # 2 GiB


def _abort() -> None:
    os.abort()  # as a Rust abort ends a process: SIGABRT, no answer


def _answer() -> tuple[str, int]:
    return "tokens", os.getpid()


def test_a_bounded_task_answers_from_another_process() -> None:
    kind, pid = bounded.bounded(_answer, seconds=30, megabytes=64, largest=1000)
    assert kind == "tokens" and pid != os.getpid() and not alive(pid)


def test_a_bounded_task_that_runs_on_is_stopped_in_its_time() -> None:
    began = time.monotonic()
    with pytest.raises(bounded.Overrun) as overrun:
        bounded.bounded(_forever, seconds=1, megabytes=64, largest=1000)
    assert overrun.value.timed_out
    assert time.monotonic() - began < 5


def test_a_bounded_task_cannot_take_more_memory_than_given() -> None:
    began = time.monotonic()
    with pytest.raises(MemoryError):
        bounded.bounded(_allocate, seconds=30, megabytes=64, largest=1000)
    assert time.monotonic() - began < 5


def test_a_bounded_task_that_aborts_is_an_overrun_not_a_crash() -> None:
    with pytest.raises(bounded.Overrun) as overrun:
        bounded.bounded(_abort, seconds=30, megabytes=64, largest=1000)
    assert (overrun.value.timed_out, overrun.value.ended_by) == (False, "SIGABRT")


def _spend(seconds: float) -> tuple[float, float]:
    """Past `seconds` of the processor in a budget of them, or, if not stopped, the interval
    timer left once the budget is over."""
    with bounded.processor_budget(seconds):
        while resource.getrusage(resource.RUSAGE_SELF).ru_utime < 1000:  # never ends
            pass
    return signal.getitimer(signal.ITIMER_PROF)


def _within_budget() -> tuple[float, float]:
    with bounded.processor_budget(30):
        pass
    return signal.getitimer(signal.ITIMER_PROF)


def test_a_task_past_its_processor_budget_is_ended_by_sigprof() -> None:
    """The loop has 30 s of the clock and 30 s of RLIMIT_CPU; SIGPROF ends it after 50 ms of
    the processor, which no Python handler is set to catch."""
    with pytest.raises(bounded.Overrun) as overrun:
        bounded.bounded(partial(_spend, 0.05), seconds=30, megabytes=64, largest=1000)
    assert (overrun.value.timed_out, overrun.value.ended_by) == (False, "SIGPROF")


def test_a_budget_kept_leaves_no_timer_behind() -> None:
    assert bounded.bounded(_within_budget, seconds=30, megabytes=64, largest=1000) == (0, 0)


def test_a_budget_outside_a_bounded_process_sets_nothing() -> None:
    """Without a fork the task runs in attn's own process, which the budget must not end."""
    with bounded.processor_budget(0.001):
        assert signal.getitimer(signal.ITIMER_PROF) == (0, 0)


def test_an_answer_larger_than_allowed_is_no_answer() -> None:
    with pytest.raises(bounded.Overrun):
        bounded.bounded(lambda: "x" * 5000, seconds=30, megabytes=64, largest=1000)


def test_ctrl_c_while_the_command_line_loads_is_a_quiet_exit_130() -> None:
    """Ctrl-C in the first tenth of a second, while Typer, Click and Rich are imported, printed
    Python's traceback of the import it stopped; it ends as a run ended by Ctrl-C does. The
    interrupt is raised by the import itself, at the moment the app's module is asked for."""
    probe = (
        "import sys\n"
        "class Stop:\n"
        "    def find_spec(self, name, path=None, target=None):\n"
        "        if name == 'attncli.cli.app':\n"
        "            raise KeyboardInterrupt\n"
        "sys.meta_path.insert(0, Stop())\n"
        "from attncli.cli import main\n"
        "main()\n")
    child = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                           stdin=subprocess.DEVNULL, timeout=60)
    assert (child.returncode, child.stdout, child.stderr) == (130, "", "")


def test_no_descriptor_for_a_pipe_leaves_the_work_to_the_command(tmp_path: Path) -> None:
    """Under `ulimit -n 5` the pipe to a worker cannot be made (EMFILE), as a fork can be
    refused: the command makes every snippet itself (it was an internal error, exit 3)."""
    import resource

    spec = (Path(__file__).parent.parent / "configs" / "cat_chases_mouse.yaml").read_text("utf-8")
    for name in ("a", "b"):
        (tmp_path / f"{name}.yaml").write_text(spec, encoding="utf-8")
    (tmp_path / "attn.toml").write_text('[[snippets]]\nspecs = "*.yaml"\nformats = ["text"]\n'
                                        'output = "out/{name}.{ext}"\n', encoding="utf-8")
    done = subprocess.run([sys.executable, "-m", "attncli", "snippets", "-j", "2"], cwd=tmp_path,
                          capture_output=True, text=True, stdin=subprocess.DEVNULL,
                          preexec_fn=lambda: resource.setrlimit(resource.RLIMIT_NOFILE, (5, 5)))
    assert (done.returncode, done.stderr) == (0, "attn: 2 written, 0 unchanged, 0 failed\n")
    assert sorted(p.name for p in (tmp_path / "out").iterdir()) == ["a.txt", "b.txt"]
