"""Shared helpers: run the CLI in-process, write specs to temporary files."""

from __future__ import annotations

import json
import os
import shutil
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from attncli.cli.app import app
from tests import skips

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


@pytest.fixture
def catalogue(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A copy of tests/bad_inputs to run in, so that nothing a case might write reaches the
    repo."""
    folder = tmp_path / "cases"
    shutil.copytree(BAD_INPUTS, folder)
    monkeypatch.chdir(folder)
    return folder


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


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    """What was skipped, by reason, and the one command that installs what it needs."""
    lines = skips.summary([skip_reason(r) for r in terminalreporter.stats.get("skipped", [])])
    if lines:
        terminalreporter.write_sep("=", "skipped: missing tools")
        for line in lines:
            terminalreporter.write_line(line)
