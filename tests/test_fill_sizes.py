"""What a document or a notebook holds is counted before it is read: a notebook's JSON values
(commas and opening brackets outside its texts), a document's lines and the fences that may open
an attn block. Each was an object of its own once read: 13 million `{}` in a 39 MB notebook took
4.6 s and 1.9 GB, 5 MB of one-letter lines 3.3 s and 408 MB, 416,666 empty blocks alike 3.3 GB
(each held its line's count of newlines). Refused at the first past the limit, exit 2."""

from __future__ import annotations

import json
import random
import sys
import tracemalloc
from pathlib import Path

import pytest

from attncli.errors import SpecError
from attncli.fill import blocks
from attncli.fill.blocks import LATEX, MARKDOWN, find_blocks
from attncli.spec import json_separators
from attncli.spec.limits import (
    MAX_BLOCK_CELL_STRINGS,
    MAX_BLOCKS_WRITTEN,
    MAX_DOCUMENT_LINES,
    MAX_NOTEBOOK_VALUES,
)
from tests.test_fill_hostile import SPEC, fill, notebook
from tests.test_limits import peak_rss_mb

BLOCK = "```attn\nspec: s.yaml\nsteps: [weights]\n```\n"


def separators(text: str) -> list[int]:
    """Where each comma and opening bracket outside the JSON texts of `text` is, read a
    character at a time (the test's own reader)."""
    found, inside, escaped = [], False, False
    for at, char in enumerate(text):
        if inside:
            if escaped:
                escaped = False
            elif char == "\\":
                escaped = True
            elif char == '"':
                inside = False
        elif char == '"':
            inside = True
        elif char in ",[{":
            found.append(at)
    return found


def test_the_separators_are_counted_outside_texts_whatever_their_escapes(
        monkeypatch: pytest.MonkeyPatch) -> None:
    # texts full of commas, brackets, escaped quotes and backslash runs, cut into pieces of 7
    # characters so that escapes and texts fall across the cuts
    monkeypatch.setattr(json_separators, "PIECE", 7)
    rng = random.Random(5)
    words = ["a,b", "[{", "\\", '"', "x\\\\", "ą,ę", "\\\\\\", ",,"]
    for _ in range(200):
        value = [["".join(rng.choices(words, k=rng.randint(0, 6))) for _ in range(3)], {}, [1, []],
                 {"k,[": rng.random()}]
        text = json.dumps(value, ensure_ascii=rng.random() < 0.5)
        seps = separators(text)
        assert json_separators.separator_past(text, len(seps) + 1) is None
        for limit in range(1, len(seps) + 1):
            # value limit + 1 opens at separator number limit (the first value is the root)
            assert json_separators.separator_past(text, limit) == seps[limit - 1]


def test_a_notebook_of_too_many_json_values_is_refused_before_it_is_read(tmp_path: Path) -> None:
    # 600,000 empty mappings in the notebook's metadata: 1.2 million separators (a comma and a
    # brace each), refused at the 500,000th outside texts, where value 500,001 opens
    (tmp_path / "s.yaml").write_text(SPEC, encoding="utf-8")
    cell = {"cell_type": "markdown", "metadata": {}, "source": ["text, [with] {commas}\n", BLOCK]}
    text = ('{"cells": [' + json.dumps(cell) + '], "metadata": {"x": [' + ",".join(["{}"] * 600_000)
            + ']}, "nbformat": 4, "nbformat_minor": 5}')
    (tmp_path / "n.ipynb").write_text(text, encoding="utf-8")
    at = separators(text)[MAX_NOTEBOOK_VALUES - 1]
    code, stderr, megabytes = peak_rss_mb("fill", "--check", "n.ipynb", cwd=tmp_path)
    assert (code, stderr.splitlines()[0]) == (
        2, f"n.ipynb:1:{at + 1}: the notebook has more than 500,000 commas and opening brackets "
           "outside its texts, the limit of one notebook")
    assert megabytes < 100  # read, 600,000 mappings took 180 MB more
    # a notebook of plotly figures has a few tens of thousands: 400,000 numbers are read
    numbers = ",".join(["1.5"] * 400_000)
    (tmp_path / "m.ipynb").write_text(text.split('"x": [')[0] + '"x": [' + numbers + "]}, "
                                      '"nbformat": 4, "nbformat_minor": 5}', encoding="utf-8")
    run = fill("m.ipynb", tmp_path)
    assert run.returncode == 0, run.stderr


@pytest.mark.parametrize("newline", ["\n", "\r\n", "\r"])
def test_a_document_of_too_many_lines_is_refused_before_it_is_cut(
        tmp_path: Path, newline: str, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "s.yaml").write_text(SPEC, encoding="utf-8")
    lines = BLOCK.splitlines() + ["x"] * (MAX_DOCUMENT_LINES - 4)
    ok = newline.join(lines) + newline  # 200,000 lines
    (tmp_path / "ok.md").write_bytes(ok.encode())
    run = fill("ok.md", tmp_path)
    assert run.returncode == 0, run.stderr
    cut = []
    monkeypatch.setattr(blocks, "_passed", lambda *args: cut.append(args) or 0)
    for text in (ok + "x", ok + newline):  # line 200,001, with its line ending or none
        with pytest.raises(SpecError) as refused:
            find_blocks(text, "d.md", MARKDOWN)
        assert str(refused.value) == (
            "d.md:200001:1: the document has more than 200,000 lines, the limit of one document")
    assert cut == []


def test_blocks_alike_are_counted_before_they_are_built(tmp_path: Path) -> None:
    # every block counts, alike or not, from the fences before the document is cut into lines:
    # block 2,001 opens on line 4,001 (two lines each), at its fence after a `%` in LaTeX
    text = "```attn\n```\n" * (MAX_BLOCKS_WRITTEN + 1)
    with pytest.raises(SpecError) as refused:
        find_blocks(text.replace("\n", "\r"), "d.md", MARKDOWN)
    assert str(refused.value) == (
        "d.md:4001:1: this is attn block 2001 of the document, counting the blocks written "
        "again; a document holds at most 2,000 in all")
    with pytest.raises(SpecError) as refused:
        find_blocks(text.replace("```", " %  ```"), "d.tex", LATEX)
    assert str(refused.value).startswith("d.tex:4001:5: this is attn block 2001")
    # whatever the whitespace between the fence and its attn: a vertical tab let 99,000 by
    text = "```\vattn\n```\n" * (MAX_BLOCKS_WRITTEN + 1)
    with pytest.raises(SpecError) as refused:
        find_blocks(text, "d.md", MARKDOWN)
    assert str(refused.value).startswith("d.md:4001:1: this is attn block 2001")
    # 2,000 empty blocks alike after 190,000 lines: each held its line's count of newlines
    # (2,000 · 190,000 bytes, 380 MB); now its own lines only
    text = "x\n" * 190_000 + "```attn\n```\n" * MAX_BLOCKS_WRITTEN
    tracemalloc.start()
    try:
        found = find_blocks(text, "d.md", MARKDOWN)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert len(found) == 2000 and found[-1].line == 190_000 + 2 * 1999 + 1
    assert found[-1].yaml == "\n" * found[-1].line  # its lines kept where they were written
    assert peak < 100 * 2**20


def python_calls(text: str, style: blocks.Style) -> tuple[list[tuple[int, int]], int]:
    """Where the blocks of `text` open, and how many functions written in Python finding them
    called (the regexes of fences.py run in C), once what a first call sets up is made."""
    find_blocks(text, "d", style)
    calls = 0

    def count(frame: object, event: str, arg: object) -> None:
        nonlocal calls
        calls += event == "call"

    sys.setprofile(count)
    try:
        found = find_blocks(text, "d", style)
    finally:
        sys.setprofile(None)
    return [(block.line, block.column) for block in found], calls


def test_unclosed_fences_in_latex_comments_are_passed_at_once() -> None:
    # each of n unclosed fences searched to the end of the comment lines: n²/2 lines looked at
    # (200,000 such lines did not finish); an unclosed fence runs to the end of its comment lines
    # as one in Markdown runs to the end of the document, and the block after them is found
    def document(n: int) -> str:
        return "% ```x\n" * n + "\\section{A}\n% ```attn\n% spec: s.yaml\n% ```\n"

    few, many = python_calls(document(2000), LATEX), python_calls(document(20_000), LATEX)
    assert few[0] == [(2002, 3)] and many[0] == [(20_002, 3)]
    assert few[1] == many[1] < 60

def test_a_cell_holding_a_block_is_held_to_its_characters(tmp_path: Path) -> None:
    # where each character of such a cell was written is found one at a time: a cell of 20 MB
    # took 6.3 s and 1 GB. Refused at its source, whose `[` follows `"source": `
    (tmp_path / "s.yaml").write_text(SPEC, encoding="utf-8")
    lines = [line + "\n" for line in BLOCK.splitlines()]
    filler = 1_000_000 - len("".join(lines))  # characters to the limit
    for name, extra in (("ok.ipynb", 0), ("n.ipynb", 1)):
        source = lines + ["y" * 99 + "\n"] * (filler // 100) + ["y" * (filler % 100 + extra)]
        text = notebook([{"cell_type": "markdown", "metadata": {}, "source": source}], tmp_path,
                        name)
        assert len("".join(source)) == 1_000_000 + extra
        run = fill(name, tmp_path)
        if not extra:
            assert run.returncode == 0, run.stderr
            continue
        at = text.index('"source": ') + len('"source": ')
        line, column = text.count("\n", 0, at) + 1, at - text.rfind("\n", 0, at)
        assert (run.returncode, run.stderr.splitlines()[0]) == (
            2, f"n.ipynb:{line}:{column}: this Markdown cell holds an attn block and more than "
               "1,000,000 characters, the limit of such a cell")


@pytest.mark.parametrize(("filler", "said"), [
    ("y" * 99 + "\n", "the Markdown cells that name attn, up to this one, hold more than 1,000,000 "
                      "characters in all, the limit of one notebook"),
    ("\n", "the document has more than 200,000 lines, the limit of one document"),
])
def test_the_cells_that_name_attn_are_held_together_to_a_cells_characters_and_a_documents_lines(
        filler: str, said: str, tmp_path: Path) -> None:
    # each such cell is cut into lines and each character's place found at Python's pace: 95
    # cells of 199,990 lines, each within a cell's limits, took 41 s CPU and 1.6 GB. Three
    # cells of 400,000 characters (or 80,000 lines) are within each cell's limit; the third
    # passes what the cells may hold together and is refused at its source
    (tmp_path / "s.yaml").write_text(SPEC, encoding="utf-8")
    lines = [line + "\n" for line in BLOCK.splitlines()]
    count = 400_000 // len(filler) if len(filler) > 1 else 80_000
    # the empty lines in one string: a source is held to 20,000 strings
    source = lines + ([filler] * count if len(filler) > 1 else [filler * count])
    for name, cells in (("ok.ipynb", 2), ("n.ipynb", 3)):
        text = notebook([{"cell_type": "markdown", "metadata": {}, "source": source}] * cells,
                        tmp_path, name)
        run = fill(name, tmp_path)
        if cells == 2:
            assert run.returncode == 0, run.stderr
            continue
        at = text.rindex('"source": ') + len('"source": ')
        line, column = text.count("\n", 0, at) + 1, at - text.rfind("\n", 0, at)
        assert (run.returncode, run.stderr.splitlines()[0]) == (
            2, f"n.ipynb:{line}:{column}: {said}")


def test_a_cell_of_as_many_lines_as_a_document_may_have_leaves_the_next_cells_counted(
        tmp_path: Path) -> None:
    # a first cell of exactly 200,000 line breaks, the last ending its last line, is a
    # document within its limit, and stopped the count for every cell after it: 95 cells of
    # 199,990 lines took 28 s CPU and 1.68 GB. The second cell's 4 lines make 200,004
    (tmp_path / "s.yaml").write_text(SPEC, encoding="utf-8")
    first = BLOCK + "\n" * (MAX_DOCUMENT_LINES - BLOCK.count("\n"))
    assert first.count("\n") == 200_000
    text = notebook([{"cell_type": "markdown", "metadata": {}, "source": source}
                     for source in (first, BLOCK, BLOCK)], tmp_path)
    run = fill("n.ipynb", tmp_path)
    at = text.index('"source": ', text.index('"source": ') + 1) + len('"source": ')
    line, column = text.count("\n", 0, at) + 1, at - text.rfind("\n", 0, at)
    assert (run.returncode, run.stderr) == (2, (
        f"n.ipynb:{line}:{column}: the document has more than 200,000 lines, the limit of one "
        "document\nattn: 0 documents filled, 0 up to date, 1 failed\n"))


def test_a_cell_source_of_too_many_strings_is_refused_before_their_places_are_found(
        tmp_path: Path, strings_placed: list[int]) -> None:
    # where each string of a cell's source was written is found at Python's pace: 490,000
    # one-character strings (2.45 MB) took 2.75 s and 199 MB; 20,001 are refused at the source
    from attncli.fill import notebook as filling

    walked = strings_placed
    block = ["```attn\n", "spec: s.yaml\n", "```\n"]
    (tmp_path / "s.yaml").write_text(SPEC, encoding="utf-8")
    for strings in (MAX_BLOCK_CELL_STRINGS, MAX_BLOCK_CELL_STRINGS + 1):
        walked.clear()
        source = block + ["x"] * (strings - len(block))
        text = notebook([{"cell_type": "markdown", "metadata": {}, "source": source}], tmp_path)
        at = text.index('"source": [') + len('"source": ')
        line, column = text.count("\n", 0, at) + 1, at - text.rfind("\n", 0, at)
        if strings == MAX_BLOCK_CELL_STRINGS:
            _, _, missing, count = filling.fill_notebook(text, tmp_path / "n.ipynb", 10**7)
            assert (len(walked), count, len(missing)) == (MAX_BLOCK_CELL_STRINGS, 1, 1)
            continue
        with pytest.raises(SpecError) as refused:
            filling.fill_notebook(text, tmp_path / "n.ipynb", 10**7)
        assert str(refused.value) == (
            f"{tmp_path / 'n.ipynb'}:{line}:{column}: this Markdown cell holds an attn block and "
            "a source of more than 20,000 JSON strings, the limit of such a cell")
        assert walked == []


def test_verbatim_lines_are_passed_at_once() -> None:
    # 150,000 one-line verbatim environments before a block took 1.1 to 1.4 s for `fill
    # --check`: each line was searched for its environment twice, and its end looked for again,
    # a Python call each
    def document(n: int) -> str:
        return ("\\begin{verbatim}\\end{verbatim}\n" * n + "\\begin{verbatim}\n% ```attn\n"
                "\\end{verbatim}\n% ```attn\n% spec: s.yaml\n% ```\n")

    few, many = python_calls(document(1000), LATEX), python_calls(document(10_000), LATEX)
    assert few[0] == [(1004, 3)] and many[0] == [(10_004, 3)]  # the fence inside is text
    assert few[1] == many[1] < 60


@pytest.mark.parametrize(("fences", "block", "style"), [
    ("% ```\n", "% ```attn\n% spec: s.yaml\n% ```\n", LATEX),
    ("% ```\r", "% ```attn\r% spec: s.yaml\r% ```\r", LATEX),
    ("   ```\n", "```attn\nspec: s.yaml\n```\n", MARKDOWN),
    ("```\r```\n", "```attn\nspec: s.yaml\n```\n", MARKDOWN),
    ("~~~x\n~~~~\n", "```attn\nspec: s.yaml\n```\n", MARKDOWN),
])
def test_fences_that_do_not_name_attn_are_passed_at_once(
        fences: str, block: str, style: blocks.Style) -> None:
    # 199,990 fences that open and close in pairs before a block took 1.0 to 1.4 s of
    # fill --check: each line that may open a fence was a Python iteration (its comment read, its
    # closing searched for, its place found among the others); now the regex passes them all
    lines = len(fences.splitlines())
    few = python_calls(fences * 1000 + block, style)
    many = python_calls(fences * 10_000 + block, style)
    column = 3 if style.comment else 1
    assert few[0] == [(1000 * lines + 1, column)] and many[0] == [(10_000 * lines + 1, column)]
    assert few[1] == many[1] < 60
