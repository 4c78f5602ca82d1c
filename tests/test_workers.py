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
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from attncli.cli.inputs import jobs_option
from attncli.workers import bounded, pool
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
    """Eight processors to run on; the control group's quota written to the returned file."""
    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: set(range(8)), raising=False)
    quota = tmp_path / "cpu.max"
    quota.write_text("max 100000\n", encoding="ascii")
    monkeypatch.setattr(pool, "CPU_MAX", quota)
    monkeypatch.setattr(pool, "CPU_V1", tmp_path / "v1")  # none unless a test writes it
    yield quota


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
    v1 = usable.parent / "v1"
    v1.mkdir()
    (v1 / "cpu.cfs_quota_us").write_text(quota + "\n", encoding="ascii")
    (v1 / "cpu.cfs_period_us").write_text(period + "\n", encoding="ascii")
    assert pool.usable_processors() == cap
    assert jobs_option(128) == cap


def test_cgroup_v2_is_read_before_v1(usable: Path) -> None:
    usable.write_text("200000 100000\n", encoding="ascii")
    v1 = usable.parent / "v1"
    v1.mkdir()
    (v1 / "cpu.cfs_quota_us").write_text("100000\n", encoding="ascii")
    (v1 / "cpu.cfs_period_us").write_text("100000\n", encoding="ascii")
    assert pool.usable_processors() == 2


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


@pytest.mark.parametrize("limit", ["3", "1", "0"])
def test_jobs_200_under_a_process_limit_writes_everything(tree: Path, limit: str) -> None:
    process = attn(tree, "snippets", "--jobs", "200", FAKE_NPROC=limit)
    out, err = process.communicate(timeout=120)
    assert (process.returncode, out, err) == (0, "", "attn: 6 written, 0 unchanged, 0 failed\n")
    assert sorted(p.name for p in (tree / "out").iterdir()) == [f"s{k}.txt" for k in range(6)]


def started_busy(tree: Path) -> tuple[subprocess.Popen[str], list[int]]:
    """`attn snippets --jobs 2` with both workers busy for a minute."""
    process = attn(tree, "snippets", "--jobs", "2", SLOW="60")
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
    assert not overrun.value.timed_out


def test_an_answer_larger_than_allowed_is_no_answer() -> None:
    with pytest.raises(bounded.Overrun):
        bounded.bounded(lambda: "x" * 5000, seconds=30, megabytes=64, largest=1000)
