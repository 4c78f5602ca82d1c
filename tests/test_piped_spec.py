"""A spec piped on standard input (`attn export - … < spec.yaml`) is an input as much as one
named: no output may be written over it, whatever name or hard link leads to it, and a refusal
writes nothing, not even an output named before the refused one."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).parent.parent
SPEC = ("tokens: [a, b]\nembeddings: [[1, 0], [0, 1]]\n"
        "weights: {W_Q: identity, W_K: identity, W_V: identity}\n")


def export_piped(folder: Path, *options: str) -> subprocess.CompletedProcess[str]:
    """`attn export - OPTIONS < spec.yaml` in `folder`, in English."""
    with open(folder / "spec.yaml", "rb") as piped:
        return subprocess.run([sys.executable, "-m", "attncli", "export", "-", *options],
                              cwd=folder, stdin=piped, capture_output=True, text=True,
                              env={**os.environ, "PYTHONPATH": str(ROOT), "ATTN_LANG": ""},
                              timeout=60)


@pytest.mark.parametrize(("options", "named"), [
    (["--latex", "-o", "spec.yaml"], "spec.yaml"),
    (["--heatmap", "spec.yaml"], "spec.yaml"),
    (["--latex", "--worksheet", "-o", "sheet.tex", "--answers", "spec.yaml"], "spec.yaml"),
    (["--xlsx", "-o", "spec.yaml"], "spec.yaml"),
    (["--latex", "-o", "linked.yaml"], "linked.yaml"),  # a second name of the piped file
    (["--heatmap", "weights.svg", "--latex", "-o", "spec.yaml"], "spec.yaml"),
])
def test_an_output_that_is_the_piped_spec_is_refused_and_nothing_written(
        tmp_path: Path, options: list[str], named: str) -> None:
    (tmp_path / "spec.yaml").write_text(SPEC, encoding="utf-8")
    os.link(tmp_path / "spec.yaml", tmp_path / "linked.yaml")
    run = export_piped(tmp_path, *options)
    assert (run.returncode, run.stderr) == (2, f"attn: refusing to write over the input {named}; "
                                               "choose another output file\n")
    assert (tmp_path / "spec.yaml").read_text(encoding="utf-8") == SPEC
    assert sorted(os.listdir(tmp_path)) == ["linked.yaml", "spec.yaml"]


def test_a_piped_spec_is_still_exported_to_another_file(tmp_path: Path) -> None:
    (tmp_path / "spec.yaml").write_text(SPEC, encoding="utf-8")
    run = export_piped(tmp_path, "--latex", "-o", "out.tex")
    assert (run.returncode, run.stderr) == (0, "")
    assert (tmp_path / "spec.yaml").read_text(encoding="utf-8") == SPEC
    assert r"\begin{" in (tmp_path / "out.tex").read_text(encoding="utf-8")
