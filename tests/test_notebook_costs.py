"""What a notebook costs to place is bounded before the work: its line:column found from the
nearest place found before (counted from the notebook's start for each cell, 4,000 filled cells
took 17.7 s for `fill --check`), its cells counted as they are read whatever escapes their keys
hold (160,000 cells keyed `"cell_typ\\u0065"` were read), its blocks counted with those written
again as a document's are, and the strings of the sources that name attn counted together
(24 cells of 19,994 strings took 2.3 to 3.1 s and 190 MB)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from attncli.errors import SpecError
from attncli.fill import notebook as filling
from tests.test_fill_hostile import SPEC, fill, notebook

BLOCK = "```attn\nspec: s.yaml\n```\n"


class Counted(str):
    """A notebook's text that adds up the characters its line breaks are counted over."""

    counted = 0

    def count(self, sub: str, start: int | None = None, end: int | None = None) -> int:  # type: ignore[override]
        Counted.counted += (len(self) if end is None else end) - (start or 0)
        return str.count(self, sub, start, end)


def test_the_cells_are_placed_in_one_pass_over_the_notebook(tmp_path: Path) -> None:
    # a code cell of 1,000,000 characters, then 500 cells of one block each: each cell's place
    # was counted from the notebook's first character, 500 times its length
    (tmp_path / "s.yaml").write_text(SPEC, encoding="utf-8")
    cells = [{"cell_type": "code", "metadata": {}, "source": "a" * 1_000_000,
              "execution_count": None, "outputs": []}]
    cells += [{"cell_type": "markdown", "metadata": {}, "source": BLOCK}] * 500
    text = notebook(cells, tmp_path)
    Counted.counted = 0
    _, _, missing, count = filling.fill_notebook(Counted(text), tmp_path / "n.ipynb", 10**7)
    assert (count, len(missing)) == (500, 500)
    # `{` and ` "cells": [`, the code cell's 7 lines, then 5 a Markdown cell, its source the
    # fourth: the last block opens on line 2 + 7 + 5 · 499 + 4, after `   "source": "`
    assert (missing[-1].line, missing[-1].column) == (2508, 15)
    assert Counted.counted <= 4 * len(text)  # was 2,000 times the notebook's length


def test_a_notebook_of_more_blocks_written_than_the_limit_is_refused_where_the_first_past_opens(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # 2,100 cells of one block alike: one walkthrough, but each block an object of its own,
    # each cell read; refused at block 2,001 before the cells after it are read
    (tmp_path / "s.yaml").write_text(SPEC, encoding="utf-8")
    read: list[int] = []
    cell_blocks = filling.cell_blocks
    monkeypatch.setattr(filling, "cell_blocks", lambda cell, reader: read.append(cell.start)
                        or cell_blocks(cell, reader))
    text = notebook([{"cell_type": "markdown", "metadata": {}, "source": BLOCK}] * 2_100, tmp_path)
    with pytest.raises(SpecError) as refused:
        filling.fill_notebook(text, tmp_path / "n.ipynb", 10**7)
    # each cell takes 5 lines after `{` and ` "cells": [`, its source the fourth: cell 2,001's
    # is line 2 + 5 · 2,000 + 4; the block opens after `   "source": "`, column 15
    assert str(refused.value) == (
        f"{tmp_path / 'n.ipynb'}:10006:15: this is attn block 2001 of the document, counting the "
        "blocks written again; a document holds at most 2,000 in all")
    assert len(read) == 2_001
    # as a command: one line, exit 2, nothing written
    run = fill("n.ipynb", tmp_path)
    assert (run.returncode, run.stderr.splitlines()[0]) == (
        2, "n.ipynb:10006:15: this is attn block 2001 of the document, counting the blocks "
           "written again; a document holds at most 2,000 in all")
    assert (tmp_path / "n.ipynb").read_text(encoding="utf-8") == text


def test_cells_are_counted_whatever_escapes_their_keys_hold(tmp_path: Path) -> None:
    # `"cell_typ\u0065"` is the key "cell_type" to JSON: 10,001 such cells on one line are
    # refused at the `{` of the 10,001st, before any is looked at
    cell = '{"cell_typ\\u0065": "markdown", "metadata": {}, "source": "x"}'
    for name, cells in (("m.ipynb", 10_000), ("n.ipynb", 10_001)):
        text = ('{"cells": [' + ", ".join([cell] * cells)
                + '], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}')
        (tmp_path / name).write_text(text, encoding="utf-8")
        assert json.loads(text)["cells"][0]["cell_type"] == "markdown"
        run = fill(name, tmp_path)
        if cells == 10_000:
            assert (run.returncode, run.stderr) == (0, "attn: 0 documents filled, 1 up to date, "
                                                       "0 failed\n")
            continue
        column = len('{"cells": [') + 10_000 * len(cell + ", ") + 1
        assert (run.returncode, run.stderr.splitlines()[0]) == (
            2, f"n.ipynb:1:{column}: the notebook has more than 10,000 cells, the limit of one "
               "notebook")


def test_the_sources_that_name_attn_are_held_together_to_a_cells_strings(
        tmp_path: Path, strings_placed: list[int]) -> None:
    # two cells of 10,001 strings each are each within a cell's 20,000: together they pass it,
    # refused at the second's source before any string's place is found
    walked = strings_placed
    (tmp_path / "s.yaml").write_text(SPEC, encoding="utf-8")
    block = ["```attn\n", "spec: s.yaml\n", "```\n"]
    for strings in (10_000, 10_001):
        walked.clear()
        source = block + ["x"] * (strings - len(block))
        text = notebook([{"cell_type": "markdown", "metadata": {}, "source": source}] * 2,
                        tmp_path)
        if strings == 10_000:
            _, _, missing, count = filling.fill_notebook(text, tmp_path / "n.ipynb", 10**7)
            assert (len(walked), count, len(missing)) == (20_000, 2, 2)
            continue
        # `{`, ` "cells": [`, then the first cell: `  {`, its type, metadata, `"source": [`,
        # its strings, `]`, `}`: the second's source is on line 2 + 3 + 10,001 + 3 + 3 + 1
        at = text.rindex('"source": [') + len('"source": ')
        line, column = text.count("\n", 0, at) + 1, at - text.rfind("\n", 0, at)
        assert (line, column) == (10_013, 14)
        with pytest.raises(SpecError) as refused:
            filling.fill_notebook(text, tmp_path / "n.ipynb", 10**7)
        assert str(refused.value) == (
            f"{tmp_path / 'n.ipynb'}:10013:14: the Markdown cells that name attn, up to this one, "
            "have sources of more than 20,000 JSON strings in all, the limit of one notebook")
        assert walked == []
