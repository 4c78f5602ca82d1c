"""The README's examples, run against the real `attn`: a block preceded by `<!-- check -->` is
a console transcript (`$ command` lines, each followed by the output it must print, stdout and
stderr together) or a Python program followed by a ```text block with its stdout; a block
preceded by `<!-- check: file NAME -->` is written to NAME first. All run in order, in one
temporary folder holding a copy of configs/, so the README cannot drift from what attn does."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

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
    assert opening.startswith("```"), f"README.md:{start + 1}: expected a fenced block"
    end = lines.index("```", start + 1)
    return opening[3:].strip(), "".join(line + "\n" for line in lines[start + 1:end]), end + 1


def blocks(readme: str) -> list[Block]:
    lines = readme.splitlines()
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
            assert language == "python", f"README.md:{i + 2}: cannot check a {language} block"
            while not lines[after].strip():
                after += 1
            output_language, expected, _ = fence(lines, after)
            assert output_language == "text", f"README.md:{after + 1}: expected a text block"
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


README = (ROOT / "README.md").read_text("utf-8")


def test_the_readme_has_checked_examples_in_every_section_of_this_feature() -> None:
    found = blocks(README)
    starts = {title: README[: README.index(title)].count("\n") + 1 for title in (
        "## Snippets in CI", "## Library API", "## Validate, schema, examples")}
    for title, line in starts.items():
        assert any(block.line > line for block in found), f"no checked example under {title}"
    assert {block.kind for block in found} == {"console", "python", "file"}


def test_every_checked_readme_example_prints_what_it_shows(tmp_path: Path) -> None:
    shutil.copytree(CONFIGS, tmp_path / "configs")
    for block in blocks(README):
        where = f"README.md:{block.line}"
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
