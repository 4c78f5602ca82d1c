"""The suite's summary of what it skipped (tests/skips.py): each reason counted, and one command
made from .ci/run's own install lines."""

from __future__ import annotations

from tests.skips import install_lines, summary, what_installs


def test_the_install_lines_are_read_from_ci_run() -> None:
    lines = install_lines()
    assert lines["torch"].startswith(".venv/bin/pip install torch==")
    assert "texlive-latex-base" in lines["apt"] and "chromium" in lines["apt"]
    assert "libreoffice-calc-nogui" in lines["apt"] and ">/dev/null" not in lines["apt"]


def test_each_reason_goes_to_the_install_that_brings_its_tool() -> None:
    assert what_installs("could not import 'torch': No module named 'torch'") == "torch"
    assert what_installs("chromium is not installed (apt-get install chromium)") == "apt"
    assert what_installs("tests/render/node_modules is not installed (cd tests/render && npm "
                         "ci)") == "npm"
    assert what_installs("could not import 'transformers': No module named 'x'") == "extra"
    assert what_installs("chattr +a needs root and a file system that keeps the flag: chattr: "
                         "Operation not permitted while setting flags on /tmp/x") == "root"


def test_the_summary_counts_the_reasons_and_gives_one_command() -> None:
    torch = "could not import 'torch': No module named 'torch'"
    lines = summary([torch, torch, "pdflatex is not installed"])
    assert lines[0] == "skipped 3 tests, each for a missing tool:"
    assert lines[1:3] == [f"     2 x {torch}", "     1 x pdflatex is not installed"]
    command = lines[-1].strip()
    assert command.startswith("sudo apt-get install") and command.count(" && ") == 1
    assert command.endswith(install_lines()["torch"])
    assert summary([]) == []
