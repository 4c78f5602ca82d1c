"""The summary of the sampled renderer matrices (tests/matrix.py): each matrix is counted out of
the cases CI runs of it, so that "19 of 73 cases" is the share of CI's cases the run took (the
Beamer decks were counted out of the aspects of the examples taken, "19 of 38")."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).parent.parent
USERS = sorted(f"tests.{path.stem}" for path in (ROOT / "tests").glob("test_*.py")
               if path.name != "test_matrix.py" and "from tests.matrix import" in path.read_text(
                   encoding="utf-8"))
COUNT = ("import importlib, json, sys\nfrom tests import matrix\n"
         "for name in sys.argv[1:]:\n    importlib.import_module(name)\n"
         "print(json.dumps(matrix.TAKEN))\n")


def counts(whole: bool) -> dict[str, list[int]]:
    """Each matrix's (cases taken, cases counted in all) once its test modules are imported."""
    env = {k: v for k, v in os.environ.items() if k not in ("CI", "ATTN_MATRIX")}
    env["PYTHONPATH"] = str(ROOT)
    if whole:
        env["ATTN_MATRIX"] = "all"
    done = subprocess.run([sys.executable, "-c", COUNT, *USERS], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=300, check=True)
    return dict(json.loads(done.stdout))


def test_each_matrix_is_counted_out_of_the_cases_ci_runs() -> None:
    assert "tests.test_latex_pages" in USERS
    sampled, whole = counts(whole=False), counts(whole=True)
    assert all(got == total for got, total in whole.values())
    assert {name: total for name, (_, total) in sampled.items()} == {
        name: got for name, (got, _) in whole.items()}
    got, total = sampled["tests/test_latex_pages.py: Beamer decks"]
    assert 0 < got < total
