"""The README's Quickstart is what CI runs: the test command in .ci/run is the README's, word for
word; and the sample output in the README is real. (The examples of the documentation, docs/,
are run by test_readme_examples.py; test_docs_site.py checks the README's length and links.)"""

from __future__ import annotations

import re

from tests.conftest import ROOT, run


def quickstart_commands() -> list[str]:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    section = readme.split("## Quickstart", 1)[1].split("\n## ", 1)[0]
    return re.findall(r"```sh\n(.+?)\n```", section)


def test_quickstart_has_two_commands_and_ci_runs_the_second() -> None:
    commands = quickstart_commands()
    assert len(commands) == 2
    install, test = commands
    assert install.endswith("attn explain")
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8").splitlines()
    assert test in ci


def test_sample_output_in_readme_is_real() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    sample = readme.split("## What it prints", 1)[1].split("```text\n", 1)[1].split("```", 1)[0]
    out = run("explain", "--format", "text").stdout
    assert sample in out
