"""Shared helpers: run the CLI in-process, write specs to temporary files."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from attncli.cli.app import app
from tests import matrix, skips

ROOT = Path(__file__).resolve().parent.parent
CONFIGS = ROOT / "configs"
EXAMPLES = sorted(CONFIGS.glob("*.yaml"))
BAD_INPUTS = ROOT / "tests" / "bad_inputs"  # one folder per mistake: spec, files, expected line


@dataclass
class Result:
    exit_code: int
    stdout: str
    stderr: str

    def json(self) -> Any:
        return json.loads(self.stdout, parse_constant=_no_constants)


def _no_constants(name: str) -> None:
    raise AssertionError(f"non-standard JSON constant {name}")


def run(*args: str, input: str | None = None, env: dict[str, str] | None = None) -> Result:
    """attn with `args`, in-process; stdout and stderr apart."""
    result = CliRunner().invoke(app, list(args), input=input, env=env)
    return Result(result.exit_code, result.stdout, result.stderr)


def run_apart(folder: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """attn with `args` in a process of its own (`python -m attncli`), run in `folder` with no
    standard input: what reaches stderr there (a warning NumPy prints, a traceback) is what a
    user sees, which the in-process `run` cannot show."""
    return subprocess.run([sys.executable, "-m", "attncli", *args], cwd=folder,
                          capture_output=True, text=True, stdin=subprocess.DEVNULL)


@pytest.fixture
def catalogue(catalogue_copy: tuple[Path, dict[str, tuple[int, int]]],
              monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """A copy of tests/bad_inputs to run in, so that nothing a case might write reaches the
    repo. One copy serves a worker's tests; a test that changes it gets the change reported by
    its own snapshot check and the copy is made again for the next one."""
    folder, before = catalogue_copy
    monkeypatch.chdir(folder)
    yield folder
    if stamps(folder) != before:
        shutil.rmtree(folder)
        shutil.copytree(BAD_INPUTS, folder)


@pytest.fixture
def strings_placed(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Where a notebook's fill found the place of each JSON string of a cell's source
    (attncli/fill/notebook.py `char_offsets`, called once a string): the work counted, not
    timed."""
    from attncli.fill import notebook as filling

    walked: list[int] = []
    offsets = filling.char_offsets
    monkeypatch.setattr(filling, "char_offsets", lambda text, start, stop: walked.append(start)
                        or offsets(text, start, stop))
    return walked


@pytest.fixture(scope="session")
def catalogue_copy(tmp_path_factory: pytest.TempPathFactory
                   ) -> tuple[Path, dict[str, tuple[int, int]]]:
    folder = tmp_path_factory.mktemp("catalogue") / "cases"
    shutil.copytree(BAD_INPUTS, folder)
    return folder, stamps(folder)


def stamps(folder: Path) -> dict[str, tuple[int, int]]:
    """Every entry under `folder`: its size and the time it last changed, in nanoseconds."""
    out = {}
    for path in sorted(folder.rglob("*")):
        st = path.lstat()
        out[path.relative_to(folder).as_posix()] = (st.st_size, st.st_mtime_ns)
    return out


@pytest.fixture
def write(tmp_path: Path):  # type: ignore[no-untyped-def]
    """write(text, name='spec.yaml') -> path of a spec file in a temporary folder."""

    def _write(text: str, name: str = "spec.yaml") -> Path:
        path = tmp_path / name
        path.write_text(text, encoding="utf-8")
        return path

    return _write


def attn_executable() -> str:
    """The installed console script, as a user runs it."""
    script = Path(sys.executable).parent / "attn"
    assert script.exists(), "attn is not installed in this environment"
    return str(script)


def skip_reason(report: pytest.TestReport) -> str:
    longrepr = report.longrepr
    text = longrepr[2] if isinstance(longrepr, tuple) else str(longrepr)
    return text.removeprefix("Skipped: ")


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]):  # type: ignore[no-untyped-def]
    """Under CI=true a skip (a missing tool: tests/skips.py) is a failure."""
    outcome = yield
    report = outcome.get_result()
    if report.skipped and os.environ.get("CI") == "true" and not hasattr(report, "wasxfail"):
        report.outcome = "failed"
        report.longrepr = f"skipped under CI=true, where .ci/run installs every tool: " \
                          f"{skip_reason(report)}"


# The modules whose module fixtures take minutes (pdflatex over every case, Chromium over every
# page, LibreOffice over every workbook, torch checkpoints), heaviest first. Under `-n auto` each
# goes to one worker whole, which builds its fixtures once (xdist's own `load` hands a module's
# tests to whichever worker asks, and each worker that gets one builds the fixture again), and
# they are handed out first, so that no worker is left alone at the end with one of them.
HEAVY_MODULES = ("test_conformance.py", "test_markdown_render.py", "test_notebook_render.py",
                 "test_docs_site.py", "test_html_page.py", "test_xlsx.py",
                 "test_elided_exports.py", "test_checkpoints.py")
# Slow tests without a shared fixture (a Typst compile of every example, a Beamer deck a test):
# handed out right after those, each test on its own, for the same reason.
SLOW_MODULES = ("test_typst.py", "test_latex_pages.py", "test_long_names_latex.py")
FIRST = HEAVY_MODULES + SLOW_MODULES


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """The modules of FIRST first, in its order; each module's own order is kept (stable sort),
    so that `-n 0` too builds each module fixture once."""
    first = {name: k for k, name in enumerate(FIRST)}
    items.sort(key=lambda item: first.get(item.path.name, len(FIRST)))


@pytest.hookimpl(optionalhook=True)  # a hook of pytest-xdist, absent under -p no:xdist
def pytest_xdist_make_scheduler(config: pytest.Config, log: Any) -> Any:
    """`-n auto`'s `load`, except that a module of HEAVY_MODULES is one unit of work, and the
    units go out in the order collected (above), not the largest count of tests first."""
    if config.getvalue("dist") != "load":
        return None
    from xdist.scheduler import LoadScopeScheduling

    class HeavyModulesWhole(LoadScopeScheduling):  # type: ignore[misc]
        def _split_scope(self, nodeid: str) -> str:
            module = nodeid.split("::", 1)[0]
            return module if module.rsplit("/", 1)[-1] in HEAVY_MODULES else nodeid

    config.option.loadscopereorder = False
    return HeavyModulesWhole(config, log)


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    """What was skipped, by reason, and the one command that installs what it needs; what the
    sample of the renderer matrices left to CI (tests/matrix.py)."""
    lines = skips.summary([skip_reason(r) for r in terminalreporter.stats.get("skipped", [])])
    if lines:
        terminalreporter.write_sep("=", "skipped: missing tools")
        for line in lines:
            terminalreporter.write_line(line)
    ran = {report.nodeid.split("::")[0] for reports in terminalreporter.stats.values()
           for report in reports if isinstance(report, pytest.TestReport)}
    lines = matrix.summary(ran)
    if lines:
        terminalreporter.write_sep("=", "sampled: the renderer matrices")
        for line in lines:
            terminalreporter.write_line(line)
