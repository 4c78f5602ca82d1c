"""What the suite skipped, and the one command that installs what those tests need.

Every skip in the suite is a test whose tool is missing (pdflatex, Chromium, pandoc,
LibreOffice, the npm packages of tests/render, PyTorch, a package of the test extra), or that
needs root (`chattr +a`, tests/test_append_only.py). The
summary names each reason with its count and then the command, made from .ci/run's own install
lines (so the versions are those CI pins). Under CI=true a skip is a failure: .ci/run installs
every tool, and a test that did not run must not pass unseen.
"""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path

CI_RUN = Path(__file__).resolve().parent.parent / ".ci" / "run"

# what a skip's reason names -> which install of .ci/run brings it
NEEDS = (
    (re.compile(r"torch"), "torch"),
    (re.compile(r"node|npm|tests/render", re.I), "npm"),
    (re.compile(r"pdflatex|pdftotext|beamer|chromium|pandoc|libreoffice|soffice", re.I), "apt"),
    (re.compile(r"chattr"), "root"),  # an append-only folder: root's, not a tool's
)


def install_lines(ci_run: Path = CI_RUN) -> dict[str, str]:
    """.ci/run's install commands, by what they install: apt, npm, torch."""
    text = ci_run.read_text(encoding="utf-8")
    apt = re.search(r"apt-get install -y -qq --no-install-recommends \\\n(.*?)>/dev/null", text,
                    re.S)
    torch = re.search(r"pip install -q (torch==\S+)", text)
    assert apt and torch, ".ci/run no longer installs the renderers and torch as read here"
    packages = " ".join(apt.group(1).replace("\\", " ").split())
    return {"apt": f"sudo apt-get install -y --no-install-recommends {packages}",
            "npm": "(cd tests/render && npm ci --no-audit --no-fund)",
            "torch": f".venv/bin/pip install {torch.group(1)}",
            "extra": '.venv/bin/pip install ".[test]"',
            "root": "sudo .venv/bin/python -m pytest -q -n 0 tests/test_append_only.py"}


def what_installs(reason: str) -> str:
    for pattern, need in NEEDS:
        if pattern.search(reason):
            return need
    return "extra"  # "could not import 'transformers'": a package of the test extra


def summary(reasons: list[str]) -> list[str]:
    """The lines that say what was skipped and the one command that installs it all."""
    if not reasons:
        return []
    counts = Counter(reasons)
    lines = [f"skipped {len(reasons)} tests, each for a missing tool:"]
    lines += [f"  {count:>4} x {reason}" for reason, count in counts.most_common()]
    commands = install_lines()
    needed = {what_installs(reason) for reason in counts}
    order = ("apt", "npm", "extra", "torch", "root")
    lines.append("to run them, install what they need:")
    lines.append("  " + " && ".join(commands[need] for need in order if need in needed))
    return lines
