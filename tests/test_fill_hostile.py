"""A notebook nested past any Jupyter's: its reader recurses a level a list or mapping, so the
depth is held to the spec's limit (MAX_DEPTH) and refused where it passes it; 10,000 nested
lists were an internal error (RecursionError, exit 3). Nothing is written."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).parent.parent


def test_a_notebook_nested_too_deep_is_refused_where_it_passes_the_limit(
        tmp_path: Path) -> None:
    text = '{"cells": ' + "[" * 10_000 + "]" * 10_000 + "}"
    (tmp_path / "n.ipynb").write_text(text, encoding="utf-8")
    run = subprocess.run([sys.executable, "-m", "attncli", "fill", "n.ipynb"], cwd=tmp_path,
                         env={**os.environ, "PYTHONPATH": str(ROOT), "ATTN_LANG": ""},
                         capture_output=True, text=True, timeout=60)
    # the mapping is level 1 and 64 levels are read: the 64th list, level 65, opens at column
    # 11 + 63 = 74
    assert run.returncode == 2
    assert run.stderr.splitlines()[0] == (
        "n.ipynb:1:74: the notebook nests lists and mappings more than 64 levels deep")
    assert (tmp_path / "n.ipynb").read_text(encoding="utf-8") == text
    assert sorted(os.listdir(tmp_path)) == ["n.ipynb"]
