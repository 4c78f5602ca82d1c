"""Filling a notebook (.ipynb) without rewriting its JSON: only the generated cells change.

An attn block is a fence in a Markdown cell; its walkthrough (katex Markdown, which Jupyter
renders) goes into the Markdown cell right after it, marked in its metadata as generated
(`"attn": {"generated": true}`). A generated cell is written as nbformat writes cells (one
space of indent per level, keys sorted), so Jupyter saving the notebook later changes nothing;
every other byte of the file stays as it was. The JSON is read by a small reader that keeps
where each value was written, so an error in a block is reported at the notebook's own
line:column.
"""

from __future__ import annotations

import json
from functools import partial
from pathlib import Path
from typing import Any

from attncli.errors import AttnError, Location, SpecError
from attncli.fill.block import named_spec, read_block, walkthrough_text, work_out
from attncli.fill.blocks import (
    MARKDOWN,
    Block,
    check_count,
    check_written,
    find_blocks,
    newline_of,
)
from attncli.fill.json_values import (
    check_cell_text,
    check_cells_together,
    check_sources_together,
    check_values,
)
from attncli.fill.notebook_json import Reader, Value, char_offsets
from attncli.i18n import Msg

GENERATED = {"generated": True}


def fill_notebook(old: str, path: Path, max_cells: int
                  ) -> tuple[str, tuple[Location, ...], tuple[Location, ...], int]:
    """The notebook with each generated cell made anew, the blocks whose output is stale,
    those that have none yet, and how many blocks there are."""
    name = path.as_posix()
    check_values(old, name)
    reader = Reader(old, name)
    # the root and its cells walked, each cell read whole once: read whole, then its children's
    # places found by reading each again, a cell's metadata was read four times (499,000
    # numbers in it: 1.4 s)
    root = reader.value(0, walk=frozenset({"cells"}))
    cells = root.children.get("cells") if isinstance(root.data, dict) else None
    if cells is None or not isinstance(cells.data, list):
        raise SpecError(Msg.of("malformed notebook: expected a list named cells"),
                        Location(name))
    newline = newline_of(old)
    version = (root.data.get("nbformat"), root.data.get("nbformat_minor", 0))
    with_ids = all(type(part) is int for part in version) and version >= (4, 5)
    edits: list[tuple[int, int, str]] = []
    stale: list[Location] = []
    missing: list[Location] = []
    count = 0
    # the cells' places are found only if one may hold a block: up to the last such cell
    if not any(is_block_cell(cell) for cell in cells.data):
        return old, (), (), 0
    items = [cells.children[k] for k in range(len(cells.data))]
    sources = [cell.children["source"] for cell in items if is_block_cell(cell.data)]
    check_cells_together([(cell_text(cell), partial(reader.where, cell.children["source"].start))
                          for cell in items if is_block_cell(cell.data)])
    check_sources_together([(len(source.data), partial(reader.where, source.start))
                            for source in sources if isinstance(source.data, list)])
    found = blocks_found(items, reader)
    distinct: set[str] = set()
    for _, _, blocks, where in found:  # counted before any is worked out, as in a document
        for block in blocks:
            distinct.add(block.key)
            check_count(len(distinct), where.location(block.line, block.column, reader.name))
    made: dict[str, str] = {}  # each block's walkthrough, by its text: a block written again
    worked_in_spec_order(found, path, max_cells, made, reader.name)
    for k, cell, blocks, where in found:
        outputs = worked_out(blocks, where, path, max_cells, made, reader.name)
        if not outputs:
            continue
        count += len(outputs)
        opened = [where.location(block.line, block.column, reader.name) for block in blocks]
        # (named apart from `made`, the walkthroughs by block, which it replaced: each later
        # cell then worked its blocks out again, uncounted, 8 GB for 1,000 copies of one)
        generated = generated_cell(outputs, cell.data.get("id") if with_ids else None)
        indent = old[old.rfind("\n", 0, cell.start) + 1:cell.start]
        if indent.strip():  # a notebook on one line: what precedes the cell is JSON, no indent
            indent = ""
        written = json.dumps(generated, indent=1, sort_keys=True, ensure_ascii=False)
        written = written.replace("\n", newline + indent)
        after = items[k + 1] if k + 1 < len(items) else None
        if after is not None and is_generated(after.data):
            if old[after.start:after.end] != written:
                edits.append((after.start, after.end, written))
                stale += opened
        else:
            edits.append((cell.end, cell.end, "," + newline + indent + written))
            missing += opened
    pieces, last = [], 0  # joined once: a copy of the notebook per edit was 1,000 copies
    for start, end, written in edits:  # in the cells' order
        pieces += [old[last:start], written]
        last = end
    return "".join([*pieces, old[last:]]), tuple(stale), tuple(missing), count


def is_block_cell(cell: Any) -> bool:
    """A Markdown cell that may hold a block: its source names attn (a fence's info string)."""
    if not (isinstance(cell, dict) and cell.get("cell_type") == "markdown"
            and not is_generated(cell)):
        return False
    source = cell.get("source")
    if isinstance(source, list):  # of texts, as Jupyter writes it; else no Markdown it shows
        return all(isinstance(piece, str) for piece in source) and "attn" in "".join(source)
    return isinstance(source, str) and "attn" in source


def cell_text(cell: Value) -> str:
    source = cell.data["source"]
    return "".join(source) if isinstance(source, list) else str(source)


def is_generated(cell: Any) -> bool:
    """Whether `cell` is one attn made: a Markdown cell marked `"attn": {"generated": true}`.
    A code or raw cell carrying the mark (Jupyter copies a cell's metadata with it) is the
    user's, and so is a mark that is not `true` itself (`1`)."""
    if not (isinstance(cell, dict) and cell.get("cell_type") == "markdown"):
        return False
    metadata = cell.get("metadata")
    mark = metadata.get("attn") if isinstance(metadata, dict) else None
    return mark == GENERATED and mark["generated"] is True


def blocks_found(items: list[Value], reader: Reader
                 ) -> list[tuple[int, Value, list[Block], Positions]]:
    """The blocks of each Markdown cell that may hold one, with its index, the cell and its
    Positions; refused at the block past MAX_BLOCKS_WRITTEN before the later cells are read
    (4,000 cells of one block each took 1.2 s to be refused after all were read)."""
    found = []
    written = 0
    for k, cell in enumerate(items):
        if is_block_cell(cell.data):
            blocks, where = cell_blocks(cell, reader)
            for block in blocks:
                written += 1
                check_written(written, where.location(block.line, block.column, reader.name))
            found.append((k, cell, blocks, where))
    return found


def cell_blocks(cell: Value, reader: Reader) -> tuple[list[Block], Positions]:
    """The attn blocks of a Markdown cell, and the way from its text's line:column to the
    notebook's; a malformed block is refused at the notebook's line:column."""
    source = cell.children["source"]
    text = cell_text(cell)
    check_cell_text(text, reader.where(source.start))
    offsets = [at for piece in (source.children.values() if source.children else [source])
               for at in char_offsets(reader.text, piece.start + 1, piece.end - 1)]
    where = Positions(reader, offsets)
    cell_name = f"{reader.name}#cell"  # files in a block are read from the notebook's folder
    try:
        return find_blocks(text, cell_name, MARKDOWN), where
    except AttnError as error:
        raise where.moved(error, cell_name) from None


def worked_in_spec_order(found: list[tuple[int, Value, list[Block], Positions]], path: Path,
                         max_cells: int, made: dict[str, str], name: str) -> None:
    """Every block's walkthrough made into `made` in the order of the spec file it names, so that
    the cells naming one file read it once (block.work_out), 200 cells naming two specs in turn
    having read them 200 times; the first bad block of the notebook is raised, at its place."""
    cell_name = f"{name}#cell"
    first: dict[str, tuple[Block, Positions]] = {}
    for _, _, blocks, where in found:
        for block in blocks:
            first.setdefault(block.key, (block, where))

    def make(text: str) -> str:
        block, where = first[text]
        try:
            request = read_block(block.yaml, cell_name, path, "katex", max_cells,
                                 Location(cell_name, line=block.line, column=block.column))
            return walkthrough_text(request, "markdown", max_cells)
        except AttnError as error:
            raise where.moved(error, cell_name) from None

    failed = work_out(list(first), sorted(first, key=named_spec), made, make)
    if failed:
        raise next(iter(failed.values()))


def worked_out(blocks: list[Block], where: Positions, path: Path, max_cells: int,
               made: dict[str, str], name: str) -> list[str]:
    """The walkthrough of each of a cell's attn blocks (those `made` before reused, the new
    ones added to it); an error in a block is moved to the notebook's line:column."""
    cell_name = f"{name}#cell"
    outputs = []
    try:
        for block in blocks:
            key = block.key
            if key not in made:
                request = read_block(block.yaml, cell_name, path, "katex", max_cells,
                                     Location(cell_name, line=block.line, column=block.column))
                made[key] = walkthrough_text(request, "markdown", max_cells)
            outputs.append(made[key])
    except AttnError as error:
        raise where.moved(error, cell_name) from None
    return outputs


class Positions:
    """From a line:column of a cell's text to the notebook's own line:column."""

    def __init__(self, reader: Reader, offsets: list[int]) -> None:
        self.offsets = offsets  # where each character of the cell's text was written
        self.reader = reader
        text = reader.text
        # a newline in the cell's text is written `\n` in the notebook
        self.cell_starts = [0] + [i + 1 for i, at in enumerate(offsets)
                                  if text[at:at + 2] == "\\n"]

    def location(self, line: int, column: int, name: str = "") -> Location:
        index = self.cell_starts[min(line, len(self.cell_starts)) - 1] + column - 1
        at = self.offsets[min(index, len(self.offsets) - 1)] if self.offsets else 0
        found = self.reader.where(at)
        return Location(name, line=found.line, column=found.column)

    def moved(self, error: AttnError, cell_name: str) -> AttnError:
        where = error.where
        if where is None or where.source != cell_name:
            return error
        notebook = cell_name.removesuffix("#cell")
        if where.line is None or where.column is None:
            return type(error)(error.message, Location(notebook, where.path))
        found = self.location(where.line, where.column, notebook)
        return type(error)(error.message, Location(notebook, where.path, found.line,
                                                   found.column))


def generated_cell(outputs: list[str], after_id: str | None) -> dict[str, Any]:
    """The Markdown cell that holds the walkthroughs, as nbformat writes a cell."""
    text = "\n".join([MARKDOWN.begin.replace("block", "cell"), "", *outputs])
    lines = text.rstrip("\n").split("\n")
    cell: dict[str, Any] = {"cell_type": "markdown", "metadata": {"attn": GENERATED},
                            "source": [line + "\n" for line in lines[:-1]] + lines[-1:]}
    if after_id is not None:
        cell["id"] = (str(after_id) + "-attn")[-64:]
    return cell
