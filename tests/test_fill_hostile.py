"""A notebook nested past any Jupyter's: its reader recurses a level a list or mapping, so the
depth is held to the spec's limit (MAX_DEPTH) and refused where it passes it; 10,000 nested
lists were an internal error (RecursionError, exit 3). Nothing is written."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.test_files import AS_ROOT, NOBODY
from tests.test_limits import peak_rss_mb

ROOT = Path(__file__).parent.parent
SPEC = ("tokens: [a, b]\nembeddings: [[1, 0], [0, 1]]\n"
        "weights: {W_Q: identity, W_K: identity, W_V: identity}\n")


def fill(name: str, folder: Path, timeout: int = 60) -> subprocess.CompletedProcess[str]:
    """`attn fill name` in `folder`, in English, as a process of its own."""
    return subprocess.run([sys.executable, "-m", "attncli", "fill", name], cwd=folder,
                          env={**os.environ, "PYTHONPATH": str(ROOT), "ATTN_LANG": ""},
                          capture_output=True, text=True, timeout=timeout)


def notebook(cells: list[dict[str, Any]], folder: Path, name: str = "n.ipynb") -> str:
    """A notebook of `cells` (nbformat 4.5) written as Jupyter writes it, one key a line;
    its text."""
    text = json.dumps({"cells": cells, "metadata": {}, "nbformat": 4, "nbformat_minor": 5},
                      indent=1)
    (folder / name).write_text(text, encoding="utf-8")
    return text


def test_a_notebook_nested_too_deep_is_refused_where_it_passes_the_limit(
        tmp_path: Path) -> None:
    text = '{"cells": ' + "[" * 10_000 + "]" * 10_000 + "}"
    (tmp_path / "n.ipynb").write_text(text, encoding="utf-8")
    run = fill("n.ipynb", tmp_path)
    # the mapping is level 1 and 64 levels are read: the 64th list, level 65, opens at column
    # 11 + 63 = 74
    assert run.returncode == 2
    assert run.stderr.splitlines()[0] == (
        "n.ipynb:1:74: the notebook nests lists and mappings more than 64 levels deep")
    assert (tmp_path / "n.ipynb").read_text(encoding="utf-8") == text
    assert sorted(os.listdir(tmp_path)) == ["n.ipynb"]


def test_a_notebook_number_python_cannot_hold_is_refused_where_it_is(tmp_path: Path) -> None:
    # 100,000 digits: Python's int refuses more than 4,300 (an internal error, exit 3)
    text = '{"cells": [], "metadata": {"x": ' + "9" * 100_000 + "}}"
    (tmp_path / "n.ipynb").write_text(text, encoding="utf-8")
    run = fill("n.ipynb", tmp_path)
    assert run.returncode == 2
    assert run.stderr.splitlines()[0] == "n.ipynb:1:33: malformed notebook: expected JSON here"
    assert sorted(os.listdir(tmp_path)) == ["n.ipynb"]


def test_a_notebook_on_one_line_is_filled_into_valid_json(tmp_path: Path) -> None:
    # the text before a cell on its line was taken for its indent: the JSON before it was
    # copied into every line of each generated cell, an invalid notebook of 76 MB for 80 cells
    (tmp_path / "s.yaml").write_text(SPEC, encoding="utf-8")
    block = "```attn\nspec: s.yaml\n```\n"
    cells = [{"cell_type": "markdown", "metadata": {}, "source": [block]}] * 3
    text = json.dumps({"cells": cells, "metadata": {}, "nbformat": 4, "nbformat_minor": 4})
    assert "\n" not in text
    (tmp_path / "n.ipynb").write_text(text, encoding="utf-8")
    assert fill("n.ipynb", tmp_path).returncode == 0
    filled = json.loads((tmp_path / "n.ipynb").read_text(encoding="utf-8"))
    assert [c["source"] for c in filled["cells"][0::2]] == [[block]] * 3
    generated = filled["cells"][1::2]
    assert len(generated) == 3 and generated[0] == generated[1] == generated[2]
    assert generated[0]["metadata"] == {"attn": {"generated": True}}
    again = fill("n.ipynb", tmp_path)
    assert (again.returncode, again.stderr) == (
        0, "attn: 0 documents filled, 1 up to date, 0 failed\n")


def test_a_block_written_many_times_is_filled_as_once(tmp_path: Path) -> None:
    # 2,000 blocks of one spec took 10 s, each worked out anew; the block is worked out once,
    # and every copy gets what a document of that one block gets
    (tmp_path / "s.yaml").write_text("tokens: [a, b]\nembeddings: [[1, 0], [0, 1]]\n"
                                     "weights: {W_Q: identity, W_K: identity, W_V: identity}\n",
                                     encoding="utf-8")
    block = "```attn\nspec: s.yaml\nsteps: [weights]\n```\n"
    other = "```attn\nspec: s.yaml\nsteps: [scores]\n```\n"
    (tmp_path / "one.md").write_text(block, encoding="utf-8")
    (tmp_path / "many.md").write_text("# T\n\n" + (block + "\n") * 300 + other,
                                      encoding="utf-8")
    for name in ("one.md", "many.md"):
        run = fill(name, tmp_path)
        assert run.returncode == 0, run.stderr
    one = (tmp_path / "one.md").read_text(encoding="utf-8")
    many = (tmp_path / "many.md").read_text(encoding="utf-8")
    assert many.count(one) == 300
    assert many.count("## ") > 300  # the last block's scores are its own
    assert "S = Q K" in many.rsplit(one, 1)[1]


def test_a_document_of_more_blocks_than_the_limit_is_refused_at_the_first_past_it(
        tmp_path: Path) -> None:
    # 500 blocks of 500 specs took 2.6 s, and a document's bytes hold thousands; each block is
    # a walkthrough of its own: the blocks are counted before any is worked out, and block 201
    # is refused where it opens
    spec = ("tokens: [a, b]\nembeddings: [[1, 0], [0, 1]]\n"
            "weights: {W_Q: identity, W_K: identity, W_V: identity}\n")
    for i in range(201):
        (tmp_path / f"s{i}.yaml").write_text(spec, encoding="utf-8")
    text = "".join(f"```attn\nspec: s{i}.yaml\n```\n\n" for i in range(201))
    (tmp_path / "p.md").write_text(text, encoding="utf-8")
    run = fill("p.md", tmp_path, timeout=120)
    assert run.returncode == 2
    # each block is 4 lines: block 201 opens on line 4 · 200 + 1
    assert run.stderr.splitlines()[0] == (
        "p.md:801:1: this is attn block 201 of the document; a document holds at most 200")
    assert (tmp_path / "p.md").read_text(encoding="utf-8") == text


def test_a_notebook_of_more_blocks_than_the_limit_is_refused_before_any_is_worked_out(
        tmp_path: Path) -> None:
    # 201 Markdown cells of one block each, every block naming a spec that is not there: had a
    # block been read before the count, the line would say "no such file" at the first one; a
    # notebook's blocks were counted as they were worked out, so 200 were worked out first
    text = notebook([{"cell_type": "markdown", "metadata": {},
                      "source": f"```attn\nspec: s{i}.yaml\n```\n"} for i in range(201)],
                    tmp_path)
    run = fill("n.ipynb", tmp_path)
    assert run.returncode == 2
    # `{` and ` "cells": [` are lines 1 and 2; each cell takes 5 lines, its source the fourth:
    # cell 201's is line 2 + 5 · 200 + 4; the block opens after `   "source": "`, column 15
    assert run.stderr.splitlines()[0] == (
        "n.ipynb:1006:15: this is attn block 201 of the document; a document holds at most 200")
    assert (tmp_path / "n.ipynb").read_text(encoding="utf-8") == text
    assert sorted(os.listdir(tmp_path)) == ["n.ipynb"]


def test_a_notebook_of_many_cells_is_read_once() -> None:
    # each cell's Positions found the notebook's lines anew: 20,000 Markdown cells (1.2 MB)
    # took 7.6 s of processor time; and every cell was walked at Python's pace
    from attncli.fill.notebook import fill_notebook
    from attncli.fill.notebook_json import Reader

    cells = [{"cell_type": "markdown", "metadata": {}, "source": f"cell {i}"}
             for i in range(10_000)]  # the most one notebook may have
    text = json.dumps({"cells": cells, "metadata": {}, "nbformat": 4, "nbformat_minor": 5})
    walked: list[Any] = []
    children = Reader.children

    def spy(self: Reader, node: Any) -> Any:
        walked.append(node.data)
        return children(self, node)

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(Reader, "children", spy)
        assert fill_notebook(text, Path("n.ipynb"), 1_000_000) == (text, (), (), 0)
    # the notebook and its list of cells are walked as they are read, none of its cells
    assert not any(isinstance(data, dict) and "cell_type" in data for data in walked)


def test_a_cell_s_metadata_is_read_twice(tmp_path: Path) -> None:
    # read whole with the notebook, again with its list of cells, with its cell and for its own
    # place: 499,000 numbers in a cell's metadata were built four times (1.4 s of fill --check)
    from attncli.fill import notebook, notebook_json

    cell = {"cell_type": "markdown", "metadata": {"a": [1.5e-300] * 1000},
            "source": "```attn\nspec: s.yaml\n```\n"}
    text = json.dumps({"cells": [cell], "metadata": {}, "nbformat": 4, "nbformat_minor": 5})
    (tmp_path / "s.yaml").write_text(SPEC, encoding="utf-8")
    built: list[int] = []  # the numbers of the metadata each whole reading built
    decode = notebook_json.DECODE

    def spy(text: str, at: int) -> Any:
        data, end = decode(text, at)
        built.append(text.count("1.5e-300", at, end))
        return data, end

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(notebook_json, "DECODE", spy)
        _, _, missing, blocks = notebook.fill_notebook(text, tmp_path / "n.ipynb", 1_000_000)
    assert (len(missing), blocks) == (1, 1)
    assert sum(built) == 2 * 1000  # the cell, then its metadata for its place


def test_a_notebook_holding_a_large_image_is_read_within_its_size(tmp_path: Path) -> None:
    # the offset of every character of every string was kept, a Python int each: a 9 MB
    # image (12 MB of base64) took 570 MB; now only a block cell's source is so read
    image = "iVBORw0KGgo" * 1_000_000
    cells = [{"cell_type": "code", "metadata": {}, "source": "plot()", "execution_count": 1,
              "outputs": [{"output_type": "display_data", "metadata": {},
                           "data": {"image/png": image}}]},
             {"cell_type": "markdown", "metadata": {}, "source": "```attn\nspec: s.yaml\n```\n"}]
    (tmp_path / "s.yaml").write_text(SPEC, encoding="utf-8")
    text = json.dumps({"cells": cells, "metadata": {}, "nbformat": 4, "nbformat_minor": 5},
                      indent=1)
    (tmp_path / "n.ipynb").write_text(text, encoding="utf-8")
    code, stderr, megabytes = peak_rss_mb("fill", "n.ipynb", cwd=tmp_path)
    assert code == 0, stderr
    assert megabytes < 200  # attn's whole process, its peak
    filled = json.loads((tmp_path / "n.ipynb").read_text(encoding="utf-8"))
    assert filled["cells"][0]["outputs"][0]["data"]["image/png"] == image
    assert filled["cells"][2]["metadata"]["attn"] == {"generated": True}


def test_a_long_document_that_never_names_attn_is_not_cut_into_lines() -> None:
    # 3,500,000 short lines (38 MB): cut into lines to find no block, 6 s and 790 MB
    from attncli.fill import blocks
    from attncli.fill.blocks import MARKDOWN, find_blocks

    text = "prose line\n" * 3_500_000
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(blocks, "_passed", lambda *args: pytest.fail("scanned"))
        assert find_blocks(text, "p.md", MARKDOWN) == []


def test_a_cell_whose_source_holds_a_number_is_no_markdown_jupyter_shows(tmp_path: Path) -> None:
    # a source list of texts and a number: joined as texts, an internal error (exit 3)
    cell = {"cell_type": "markdown", "metadata": {}, "source": ["```attn\n", 1, "spec: s\n```\n"]}
    text = json.dumps({"cells": [cell], "metadata": {}, "nbformat": 4, "nbformat_minor": 5})
    (tmp_path / "n.ipynb").write_text(text, encoding="utf-8")
    run = fill("n.ipynb", tmp_path)
    assert (run.returncode, run.stderr) == (0, "attn: 0 documents filled, 1 up to date, 0 failed\n")
    assert (tmp_path / "n.ipynb").read_text(encoding="utf-8") == text


def test_a_notebook_of_more_cells_than_the_limit_is_refused_before_it_is_read(
        tmp_path: Path) -> None:
    # 600,000 cells of a 35 MB notebook took 2.3 s and 450 MB; the cells are counted as they
    # are read, each refused unread past the limit. With indent=1 a cell is 7 lines and the
    # first opens on line 3, at column 3: cell 10,001 on line 3 + 7 · 10,000 = 70,003
    cells = [{"cell_type": "markdown", "metadata": {}, "source": ["x"]} for _ in range(10_001)]
    notebook(cells, tmp_path)
    run = fill("n.ipynb", tmp_path)
    assert run.returncode == 2
    assert run.stderr.splitlines()[0] == (
        "n.ipynb:70003:3: the notebook has more than 10,000 cells, the limit of one notebook")
    notebook(cells[:10_000], tmp_path, "m.ipynb")
    assert fill("m.ipynb", tmp_path).returncode == 0  # 10,000 are read


def test_a_markdown_document_is_held_to_an_eighth_of_the_byte_limit(tmp_path: Path) -> None:
    # a 38 MB chapter of 3.5 million lines holding one block took 5.3 s and 810 MB: cut into
    # lines of about 230 bytes each; a document may have 40,000,000 / 8 = 5,000,000 bytes, and
    # this one has 2 · 2,500,000 and the block's 8 + 13 + 4
    (tmp_path / "s.yaml").write_text(SPEC, encoding="utf-8")
    block = "```attn\nspec: s.yaml\n```\n"
    (tmp_path / "big.md").write_text("x\n" * 2_500_000 + block, encoding="utf-8")
    run = fill("big.md", tmp_path)
    assert (run.returncode, run.stderr.splitlines()[0]) == (
        2, "big.md: the file has 5,000,025 bytes; the limit is 5,000,000 bytes, which "
           "--max-cells sets")
    # (within the byte limit in lines of 21 bytes: 200,000 lines is the limit of lines)
    (tmp_path / "ok.md").write_text(("x" * 20 + "\n") * 190_000 + block, encoding="utf-8")
    assert fill("ok.md", tmp_path).returncode == 0


@pytest.mark.parametrize(("encoding", "where"), [
    ("utf-16", "1:1: expected UTF-8 text, found the byte 0xff"),  # its mark FF FE first
    ("utf-32", "1:1: expected UTF-8 text, found the byte 0xff"),  # FF FE 00 00
    ("utf-16-le", "1:2: expected UTF-8 text, found the byte 0x00"),  # `#`, then 00
    ("utf-16-be", "1:1: expected UTF-8 text, found the byte 0x00"),  # 00, then `#`
])
def test_a_document_in_utf16_or_utf32_is_refused_as_a_spec_is(encoding: str, where: str,
                                                              tmp_path: Path) -> None:
    # it was reported "1 up to date": no block is found in bytes that are not UTF-8
    (tmp_path / "s.yaml").write_text(SPEC, encoding="utf-8")
    text = "# Post\n\n```attn\nspec: s.yaml\n```\n"
    (tmp_path / "p.md").write_bytes(text.encode(encoding))
    run = fill("p.md", tmp_path)
    assert (run.returncode, run.stderr.splitlines()[0]) == (2, "p.md:" + where)
    assert sorted(os.listdir(tmp_path)) == ["p.md", "s.yaml"]


@pytest.mark.parametrize(("nbformat", "minor", "ids"), [
    ("4", 5, False), (None, 5, False), (4, "5", False), (4.0, 5, False), (4, 5, True)])
def test_a_notebook_version_that_is_no_number_gives_cells_no_id(
        tmp_path: Path, nbformat: Any, minor: Any, ids: bool) -> None:
    # "nbformat": "4" was compared with 4 (TypeError: exit 3); only a notebook of 4.5 or
    # later, in whole numbers, has its generated cell given an id (after its block cell's)
    (tmp_path / "s.yaml").write_text(SPEC, encoding="utf-8")
    cells = [{"cell_type": "markdown", "id": "c1", "metadata": {},
              "source": "```attn\nspec: s.yaml\n```\n"}]
    text = json.dumps({"cells": cells, "metadata": {}, "nbformat": nbformat,
                       "nbformat_minor": minor}, indent=1)
    (tmp_path / "n.ipynb").write_text(text, encoding="utf-8")
    result = fill("n.ipynb", tmp_path)
    assert (result.returncode, result.stderr) == (
        0, "attn: 1 document filled, 0 up to date, 0 failed\n")
    filled = json.loads((tmp_path / "n.ipynb").read_text(encoding="utf-8"))
    assert len(filled["cells"]) == 2
    assert ("id" in filled["cells"][1]) is ids


@pytest.mark.parametrize(("name", "document", "line"), [
    # a Latin-1 é in a block of a Markdown post, and a file name of a byte that is no UTF-8: the
    # rest of such a document is kept byte for byte, but a block is a spec, which is UTF-8
    ("post.md", b"# Caf\xe9\n\n```attn\ntokens: [caf\xe9, b]\nembeddings: [[1, 0], [0, 1]]\n```\n",
     "post.md:4:13: expected UTF-8 text, found the byte 0xe9"),
    ("post.md", b"```attn\nspec: \xfe.yaml\n```\n",
     "post.md:2:7: expected UTF-8 text, found the byte 0xfe"),
])
def test_a_block_holding_a_byte_that_is_no_utf8_is_refused_where_it_is(
        tmp_path: Path, name: str, document: bytes, line: str) -> None:
    # it reached the C YAML parser as a lone surrogate: internal error (UnicodeEncodeError)
    (tmp_path / name).write_bytes(document)
    result = fill(name, tmp_path)
    assert (result.returncode, result.stderr) == (
        2, f"{line}\nattn: 0 documents filled, 0 up to date, 1 failed\n")
    assert (tmp_path / name).read_bytes() == document


def test_the_magic_refuses_a_lone_surrogate_where_it_is(capsys: pytest.CaptureFixture[str]) -> None:
    from IPython.testing.globalipapp import start_ipython

    from attncli.fill.magic import attn

    start_ipython()
    assert attn("", "tokens: [\udcff, b]\nembeddings: [[1, 0], [0, 1]]\n") is None
    assert capsys.readouterr().err == "<cell>:2:10: expected UTF-8 text, found the byte 0xff\n"


@pytest.mark.parametrize(("kind", "mark"), [("code", True), ("raw", True), ("markdown", 1)])
def test_a_cell_attn_did_not_make_is_kept_whatever_its_metadata_says(
        tmp_path: Path, kind: str, mark: object) -> None:
    """attn makes only Markdown cells marked `"generated": true`: a code or raw cell carrying
    the mark (Jupyter copies metadata with a cell) and a mark of `1` are the user's, so the
    generated cell goes in before them and they stay as they were; replaced, a code cell's
    source and outputs were lost."""
    (tmp_path / "s.yaml").write_text(SPEC, encoding="utf-8")
    theirs: dict[str, Any] = {"cell_type": kind, "metadata": {"attn": {"generated": mark}},
                              "source": "USER-KEEP"}
    if kind == "code":
        theirs |= {"execution_count": 3, "outputs": [
            {"output_type": "stream", "name": "stdout", "text": "kept\n"}]}
    notebook([{"cell_type": "markdown", "metadata": {}, "source": "```attn\nspec: s.yaml\n```\n"},
              theirs], tmp_path)
    run = fill("n.ipynb", tmp_path)
    assert (run.returncode, run.stderr) == (0, "attn: 1 document filled, 0 up to date, 0 failed\n")
    cells = json.loads((tmp_path / "n.ipynb").read_text(encoding="utf-8"))["cells"]
    assert [c["cell_type"] for c in cells] == ["markdown", "markdown", kind]
    assert cells[1]["metadata"] == {"attn": {"generated": True}} and cells[2] == theirs
    again = fill("n.ipynb", tmp_path)
    assert (again.returncode, again.stderr) == (
        0, "attn: 0 documents filled, 1 up to date, 0 failed\n")


@AS_ROOT
def test_root_filling_another_users_document_leaves_it_theirs(tmp_path: Path) -> None:
    (tmp_path / "s.yaml").write_text(SPEC, encoding="utf-8")
    post = tmp_path / "post.md"
    post.write_text("# Post\n\n```attn\nspec: s.yaml\n```\n", encoding="utf-8")
    os.chown(post, NOBODY, NOBODY)
    post.chmod(0o640)
    run = fill("post.md", tmp_path)
    assert (run.returncode, run.stderr) == (0, "attn: 1 document filled, 0 up to date, 0 failed\n")
    done = post.stat()
    assert "attn fill: generated" in post.read_text(encoding="utf-8")
    assert (done.st_uid, done.st_gid, done.st_mode & 0o777) == (NOBODY, NOBODY, 0o640)
