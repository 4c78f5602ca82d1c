"""The checked examples of docs/backward.md and docs/worksheets.md print what they show, as the
README's do (tests/test_readme_examples.py has the format), each page in its own folder."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from tests.conftest import CONFIGS, ROOT
from tests.test_readme_examples import blocks, commands, run

PAGES = ("docs/backward.md", "docs/worksheets.md")


@pytest.mark.parametrize("name", PAGES)
def test_every_checked_example_of_the_page_prints_what_it_shows(name: str,
                                                                 tmp_path: Path) -> None:
    shutil.copytree(CONFIGS, tmp_path / "configs")
    found = blocks((ROOT / name).read_text("utf-8"))
    assert len(found) >= 3 and {block.kind for block in found} == {"console"}
    for block in found:
        for command, expected in commands(block.body):
            assert run(["bash", "-c", command], tmp_path) == expected, f"{name}:{block.line}: " \
                f"$ {command}"
    if name == "docs/worksheets.md":  # the commands wrote the sheets and keys they name
        for made in ("sheet.tex", "key.tex", "slides.tex", "slides-key.tex", "sheet.md"):
            assert (tmp_path / made).stat().st_size > 1000, made
