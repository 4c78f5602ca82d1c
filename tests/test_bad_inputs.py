"""The bad-input catalogue: every file in tests/bad_inputs/ is a spec a user might write (or a
folder, or bytes that are not text) and beside it `<case>.expected`, the one line attn must print.
A `<case>.expected` with no spec beside it names a spec that does not exist.

Each case goes through `attn explain`, `attn export -o` and `attn validate`: exit 2, nothing on
stdout, exactly the expected line on stderr (validate adds its summary line), no traceback, and
no file written or changed in the folder (each entry's size and time of change are compared).
The files in data/ are the matrices the specs read (made by data/make.py).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import BAD_INPUTS, run
from tests.conftest import stamps as snapshot

CATALOGUE = BAD_INPUTS
CASES = sorted(p.stem + "".join(p.suffixes[:-1]) for p in CATALOGUE.glob("*.expected"))


def spec_name(case: str) -> str:
    """The spec file of `case`: the one entry beside its .expected with another suffix."""
    found = [p.name for p in CATALOGUE.iterdir()
             if p.name.startswith(case + ".") and p.suffix != ".expected"
             and p.name[len(case) + 1:].count(".") == 0]
    assert len(found) <= 1, found
    return found[0] if found else case + ".yaml"


def expected_line(case: str) -> str:
    text = (CATALOGUE / f"{case}.expected").read_text(encoding="utf-8")
    assert text.endswith("\n") and text.count("\n") == 1, f"{case}.expected: one line"
    return text


def assert_refused(result_code: int, stdout: str, stderr: str, expected: str) -> None:
    assert (result_code, stdout) == (2, "")
    assert "Traceback" not in stderr
    assert stderr == expected


def test_the_catalogue_covers_the_issue() -> None:
    assert len(CASES) >= 150
    for case in CASES:
        assert spec_name(case)  # every case names a spec


@pytest.mark.parametrize("case", CASES)
def test_explain_refuses_with_one_line(case: str, catalogue: Path) -> None:
    before = snapshot(catalogue)
    result = run("explain", spec_name(case), "--format", "text")
    assert_refused(result.exit_code, result.stdout, result.stderr, expected_line(case))
    assert snapshot(catalogue) == before


@pytest.mark.parametrize("case", CASES)
def test_export_writes_nothing(case: str, catalogue: Path) -> None:
    before = snapshot(catalogue)
    result = run("export", spec_name(case), "--latex", "-o", "out.tex", "--heatmap", "out.svg")
    assert_refused(result.exit_code, result.stdout, result.stderr, expected_line(case))
    assert snapshot(catalogue) == before


@pytest.mark.parametrize("case", CASES)
def test_validate_says_the_same_line_then_sums_up(case: str, catalogue: Path) -> None:
    result = run("validate", spec_name(case))
    assert_refused(result.exit_code, result.stdout, result.stderr,
                   expected_line(case) + "attn: 1 spec of 1 has errors\n")
