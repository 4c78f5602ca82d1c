"""The examples of the README and of the documentation (docs/*.md), run against the real `attn`:
a block preceded by `<!-- check -->` is a console transcript (`$ command` lines, each followed by
the output it must print, stdout and stderr together) or a Python program followed by a ```text
block with its stdout; a block preceded by `<!-- check: file NAME -->` is written to NAME first.
A page's blocks run in order, in one temporary folder holding a copy of configs/, so the
documentation cannot drift from what attn does."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.conftest import CONFIGS, ROOT, attn_executable

MARK = re.compile(r"<!-- check(?:: file (?P<file>\S+))? -->")


@dataclass(frozen=True)
class Block:
    line: int  # where the block starts in README.md, 1-based
    kind: str  # console, python or file
    body: str
    expected: str = ""  # a python block's output
    file: str = ""


def fence(lines: list[str], start: int) -> tuple[str, str, int]:
    """(language, body, index after the closing fence) of the fenced block at `start`."""
    opening = lines[start]
    assert opening.startswith("```"), f"line {start + 1}: expected a fenced block"
    end = lines.index("```", start + 1)
    return opening[3:].strip(), "".join(line + "\n" for line in lines[start + 1:end]), end + 1


def blocks(page: str) -> list[Block]:
    lines = page.splitlines()
    found = []
    for i, line in enumerate(lines):
        mark = MARK.fullmatch(line.strip())
        if not mark:
            continue
        language, body, after = fence(lines, i + 1)
        if mark["file"]:
            found.append(Block(i + 2, "file", body, file=mark["file"]))
        elif language == "console":
            found.append(Block(i + 2, "console", body))
        else:
            assert language == "python", f"line {i + 2}: cannot check a {language} block"
            while not lines[after].strip():
                after += 1
            output_language, expected, _ = fence(lines, after)
            assert output_language == "text", f"line {after + 1}: expected a text block"
            found.append(Block(i + 2, "python", body, expected))
    return found


def commands(transcript: str) -> list[tuple[str, str]]:
    """(command, expected output) pairs of a console transcript."""
    pairs: list[tuple[str, str]] = []
    for line in transcript.splitlines(keepends=True):
        if line.startswith("$ "):
            pairs.append((line[2:].rstrip("\n"), ""))
        else:
            assert pairs, f"output before the first command: {line!r}"
            pairs[-1] = (pairs[-1][0], pairs[-1][1] + line)
    return pairs


def environment() -> dict[str, str]:
    env = {key: value for key, value in os.environ.items() if key != "ATTN_LANG"}
    env["PATH"] = str(Path(attn_executable()).parent) + os.pathsep + env.get("PATH", "")
    return env


def run(command: list[str], folder: Path) -> str:
    result = subprocess.run(command, cwd=folder, env=environment(), stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, text=True, check=False)
    return result.stdout


PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]


def text(name: str) -> str:
    return (ROOT / name).read_text("utf-8")


def test_every_page_that_shows_commands_checks_them() -> None:
    """The pages whose examples were checked when they were README sections still are, under
    every section that had them."""
    found = {page.relative_to(ROOT).as_posix(): blocks(page.read_text("utf-8")) for page in PAGES}
    for name in ("docs/explain.md", "docs/spec-modern.md", "docs/languages.md", "docs/check.md",
                 "docs/backward.md", "docs/worksheets.md", "docs/snippets.md", "docs/validate.md",
                 "docs/library.md", "docs/limits.md"):
        assert found[name], f"no checked example in {name}"
    page = text("docs/validate.md")
    starts = {title: page[: page.index(title)].count("\n") + 1 for title in (
        "`attn validate SPEC...`", "`attn schema` prints", "`attn examples` lists")}
    for title, line in starts.items():
        assert any(block.line > line for block in found["docs/validate.md"]), title
    kinds = {block.kind for page_blocks in found.values() for block in page_blocks}
    assert kinds == {"console", "python", "file"}


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.relative_to(ROOT).as_posix())
def test_every_checked_example_prints_what_it_shows(page: Path, tmp_path: Path) -> None:
    shutil.copytree(CONFIGS, tmp_path / "configs")
    name = page.relative_to(ROOT).as_posix()
    for block in blocks(page.read_text("utf-8")):
        where = f"{name}:{block.line}"
        if block.kind == "file":
            (tmp_path / block.file).write_text(block.body, "utf-8")
        elif block.kind == "python":
            python = str(Path(attn_executable()).parent / "python")
            output = run([python, "-c", block.body], tmp_path)
            assert output == block.expected, where
        else:
            for command, expected in commands(block.body):
                output = run(["bash", "-c", command], tmp_path)
                assert output == expected, f"{where}: $ {command}"
    if name == "docs/worksheets.md":  # its commands wrote the sheets and keys they name
        for made in ("sheet.tex", "key.tex", "slides.tex", "slides-key.tex", "sheet.md"):
            assert (tmp_path / made).stat().st_size > 1000, made
