"""A refused `attn export` writes nothing: -o, --heatmap and --answers are each looked at before
any is written, and a file the command made is removed again when a later one fails while it
is written (a full disk; here a file-size limit). A file that was there before is never removed.

The bundled example's heatmap is 2,682 bytes, its Markdown 10,288: under a limit of 4,096 bytes
the picture can be written and the page cannot."""

from __future__ import annotations

import os
import resource
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import run

ROOT = Path(__file__).resolve().parent.parent
EXAMPLE = ROOT / "configs" / "cat_chases_mouse.yaml"


@pytest.fixture
def here(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    shutil.copy(EXAMPLE, tmp_path / "spec.yaml")
    monkeypatch.chdir(tmp_path)
    return tmp_path


def limited_to(size: int) -> subprocess.CompletedProcess[str]:
    """`attn export spec.yaml --markdown --heatmap h.svg -o o.md` with files of `size` bytes at
    most (`ulimit -f`), as a process of its own."""
    def limit() -> None:
        resource.setrlimit(resource.RLIMIT_FSIZE, (size, size))

    return subprocess.run([sys.executable, "-m", "attncli", "export", "spec.yaml", "--markdown",
                           "--heatmap", "h.svg", "-o", "o.md"], capture_output=True, text=True,
                          stdin=subprocess.DEVNULL, preexec_fn=limit, timeout=60,
                          env={**os.environ, "PYTHONPATH": str(ROOT)})


def test_an_output_in_a_missing_folder_is_refused_before_the_heatmap_is_written(
        here: Path) -> None:
    result = run("export", "spec.yaml", "--markdown", "--heatmap", "h.svg", "-o", "nodir/o.md")
    assert (result.exit_code, result.stdout) == (2, "")
    assert result.stderr == "attn: cannot write nodir/o.md: no such file or folder\n"
    assert sorted(os.listdir(here)) == ["spec.yaml"]


def test_a_heatmap_made_before_the_output_failed_is_removed(here: Path) -> None:
    result = limited_to(4096)
    assert (result.returncode, result.stdout) == (2, "")
    assert result.stderr == "attn: cannot write o.md: the file is too large for the file system\n"
    assert sorted(os.listdir(here)) == ["spec.yaml"]
    assert (limited_to(16384).returncode, sorted(os.listdir(here))) == (
        0, ["h.svg", "o.md", "spec.yaml"])  # the limit, not the command, refused it
    assert (here / "h.svg").stat().st_size == 2682


def test_a_heatmap_that_was_there_before_is_left_as_it_was(here: Path) -> None:
    # the new file is written first: replaced first, the old picture could not come back
    (here / "h.svg").write_text("my picture\n", encoding="utf-8")
    result = limited_to(4096)
    assert (result.returncode, result.stderr) == (
        2, "attn: cannot write o.md: the file is too large for the file system\n")
    assert (here / "h.svg").read_text(encoding="utf-8") == "my picture\n"
    assert sorted(os.listdir(here)) == ["h.svg", "spec.yaml"]


def test_an_answer_key_is_not_written_beside_a_worksheet_a_folder_refuses(here: Path) -> None:
    # root passes permissions: the capabilities that let it are dropped, as a user has none
    if not shutil.which("setpriv"):
        pytest.skip("setpriv is not installed (util-linux)")
    (here / "ro").mkdir(mode=0o555)
    result = subprocess.run(["setpriv", "--inh-caps=-all", "--bounding-set=-all", "--",
                             sys.executable, "-m", "attncli", "export", "spec.yaml", "--latex",
                             "--worksheet", "--answers", "k.tex", "-o", "ro/w.tex"],
                            capture_output=True, text=True, stdin=subprocess.DEVNULL, timeout=60,
                            env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert (result.returncode, result.stderr) == (
        2, "attn: cannot write ro/w.tex: permission denied\n")
    assert sorted(os.listdir(here)) == ["ro", "spec.yaml"]
