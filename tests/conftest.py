"""Shared helpers: run the CLI in-process, write specs to temporary files."""

from __future__ import annotations

import json
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from attncli.cli.app import app

ROOT = Path(__file__).resolve().parent.parent
CONFIGS = ROOT / "configs"
EXAMPLES = sorted(CONFIGS.glob("*.yaml"))


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
