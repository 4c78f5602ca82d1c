"""Bad input beyond the catalogue (tests/bad_inputs/, run by test_bad_inputs.py): --debug shows
the traceback, and a bad option is a usage error."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from tests.conftest import run


def test_debug_shows_the_traceback(write: Callable[[str, str], Path]) -> None:
    path = write("tokens: [a]\n", "spec.yaml")
    result = run("explain", str(path), "--debug")
    assert result.exit_code == 2
    assert "Traceback" in result.stderr
    assert result.stderr.rstrip().endswith("the key embeddings is missing")


def test_bad_option_is_a_usage_error() -> None:
    result = run("explain", "--format", "pdf")
    assert result.exit_code == 2
    assert "Traceback" not in result.stderr
