"""The text output of every example in configs/, compared byte for byte with tests/golden/.

When a change alters the output on purpose, regenerate with `ATTN_UPDATE_GOLDEN=1 pytest
tests/test_golden.py` and read the diff of the golden files like code before committing.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.conftest import EXAMPLES, run

GOLDEN = Path(__file__).parent / "golden"


@pytest.mark.parametrize("example", EXAMPLES, ids=[e.stem for e in EXAMPLES])
def test_text_output_matches_golden(example: Path) -> None:
    result = run("explain", str(example), "--format", "text", "--lang", "en")
    assert result.exit_code == 0, result.stderr
    golden = GOLDEN / f"{example.stem}.en.txt"
    if os.environ.get("ATTN_UPDATE_GOLDEN"):
        golden.write_text(result.stdout, encoding="utf-8", newline="\n")
    assert golden.exists(), f"no golden file {golden.name}; run with ATTN_UPDATE_GOLDEN=1"
    assert result.stdout == golden.read_text(encoding="utf-8")


def test_every_golden_file_has_an_example() -> None:
    names = {e.stem for e in EXAMPLES}
    orphans = [g.name for g in GOLDEN.glob("*.txt") if g.name.split(".")[0] not in names]
    assert orphans == []
