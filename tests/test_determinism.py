"""The same spec gives the same bytes in every process, locale, time zone and terminal."""

from __future__ import annotations

import json
import os
import subprocess
from importlib.metadata import version
from pathlib import Path

import pytest
from typer.testing import CliRunner

from attncli.cli.app import app
from tests.conftest import EXAMPLES, attn_executable
from tests.matrix import turn

# Two machines that disagree on everything attn must not look at.
ENVIRONMENTS = (
    {"LC_ALL": "C", "LANG": "C", "TZ": "UTC", "PYTHONHASHSEED": "0", "COLUMNS": "200"},
    {"LC_ALL": "pl_PL.UTF-8", "LANG": "ru_RU.UTF-8", "LANGUAGE": "pl:ru", "TZ": "Asia/Tokyo",
     "PYTHONHASHSEED": "4242", "COLUMNS": "37", "LINES": "5"},
)


def explain(spec: Path, fmt: str, env: dict[str, str]) -> bytes:
    keep = {key: value for key, value in os.environ.items()
            if key not in ("ATTN_LANG", "LANGUAGE") and not key.startswith("LC_")}
    result = subprocess.run([attn_executable(), "explain", str(spec), "--format", fmt],
                            env={**keep, **env}, capture_output=True, check=True)
    return result.stdout


# every example in both formats in CI, else in one, turning (tests/matrix.py)
PAIRS = [(spec, fmt) for i, spec in enumerate(EXAMPLES)
         for fmt in turn("tests/test_determinism.py: two processes", ("text", "json"), i)]


@pytest.mark.parametrize(("spec", "fmt"), PAIRS, ids=lambda x: getattr(x, "stem", str(x)))
def test_two_processes_write_the_same_bytes(spec: Path, fmt: str) -> None:
    first, second = (explain(spec, fmt, env) for env in ENVIRONMENTS)
    assert first == second
    assert first.endswith(b"\n") and not first.endswith(b"\n\n")
    assert b"\r" not in first
    assert version("attn").encode() not in first
    if fmt == "json":
        json.loads(first)


def test_minus_zero_is_printed_as_zero(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    Path("tiny.yaml").write_text("tokens: [a, b]\nembeddings: [[-0.001, 1], [1, -0.004]]\n")
    Path("attn.toml").write_text('[[snippets]]\nspecs = "tiny.yaml"\nformats = ["text", "json"]\n'
                                 'output = "{name}.{ext}"\n')
    assert CliRunner().invoke(app, ["snippets"]).exit_code == 0
    text = Path("tiny.txt").read_text("utf-8")
    assert "-0.00" not in text
    assert "a  0.00  1.00" in text and "b  1.00  0.00" in text
    # JSON keeps the numbers themselves, sign included
    assert json.loads(Path("tiny.json").read_text("utf-8"))["steps"][0]["matrices"][0][
        "values"] == [[-0.001, 1.0], [1.0, -0.004]]
