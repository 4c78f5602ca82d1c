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

import bisect
import json
import re
from dataclasses import dataclass
from functools import cached_property, partial
from pathlib import Path
from typing import Any

from attncli.errors import AttnError, Location, SpecError
from attncli.fill.block import named_spec, read_block, walkthrough_text, work_out
from attncli.fill.blocks import MARKDOWN, Block, check_count, find_blocks, newline_of
from attncli.fill.json_values import (
    check_cell_strings,
    check_cell_text,
    check_cells_together,
    check_values,
)
from attncli.i18n import Count, Msg
from attncli.spec.limits import MAX_DEPTH, MAX_NOTEBOOK_CELLS

SCALAR = re.compile(r"-?\d+(\.\d+)?([eE][-+]?\d+)?|true|false|null")
SPACE = re.compile(r"[ \t\r\n]*")
GENERATED = {"generated": True}
SCAN_STRING = json.decoder.scanstring  # type: ignore[attr-defined]  # JSON's own string reader


def _no_constant(name: str) -> Any:
    raise ValueError(name)  # NaN and Infinity are no JSON: read by `Reader.container`, refused


# JSON's own reader, at C speed: a list or mapping read whole, and where it ends.
DECODE = json.JSONDecoder(parse_constant=_no_constant).raw_decode


@dataclass
class Value:
    """A JSON value and where it was written: [start, end) in the text, a container's children
    by key or index. A container read whole by `DECODE` finds its children's places only when
    they are asked for (`Reader.children`): a notebook's cells with no block are never walked
    at Python's pace (600,000 cells of a 35 MB notebook took 27 s and 1.7 GB). Where each
    character of a string was written is found only for the source of a cell that holds a
    block (`char_offsets`): for every string, a notebook holding a 9 MB image took 570 MB."""

    start: int
    end: int
    data: Any
    kids: dict[Any, Value] | None = None
    reader: Reader | None = None

    @property
    def children(self) -> dict[Any, Value]:
        if self.kids is None:
            self.kids = {} if self.reader is None else self.reader.children(self)
        return self.kids


class Reader:
    def __init__(self, text: str, name: str) -> None:
        self.text, self.name = text, name

    @cached_property
    def line_starts(self) -> list[int]:
        """Where each line of the notebook begins: found once, for every cell's Positions (found
        anew for each cell, 20,000 cells of a 1 MB notebook took 9 s)."""
        return [0] + [m.end() for m in re.finditer("\n", self.text)]

    def where(self, at: int) -> Location:
        line = self.text.count("\n", 0, at) + 1
        column = at - (self.text.rfind("\n", 0, at) + 1) + 1
        return Location(self.name, line=line, column=column)

    def fail(self, at: int) -> SpecError:
        return SpecError(Msg.of("malformed notebook: expected JSON here"), self.where(at))

    def skip(self, at: int) -> int:
        match = SPACE.match(self.text, at)
        assert match is not None
        return match.end()

    def value(self, at: int, depth: int = 0, walk: frozenset[str] | None = None) -> Value:
        """The value at `at`: a container read whole, or with `walk` (the keys of a mapping whose
        values are walked in turn) walked at Python pace, its children read whole."""
        at = self.skip(at)
        first = self.text[at:at + 1]
        if first == '"':
            return self.string(at)
        if first in ("{", "["):
            if depth >= MAX_DEPTH:  # a notebook nests a few levels; this reader recurses
                raise SpecError(Msg.plural_of(
                    "the notebook nests lists and mappings more than {count} level deep",
                    "the notebook nests lists and mappings more than {count} levels deep",
                    Count(MAX_DEPTH)), self.where(at))
            if walk is not None:
                return self.container(at, depth + 1, walk)
            try:
                data, end = DECODE(self.text, at)
            except (ValueError, RecursionError):  # read again below, where it is refused
                return self.container(at, depth + 1)
            if depth + levels(data) > MAX_DEPTH:
                return self.container(at, depth + 1)
            return Value(at, end, data, reader=self)
        match = SCALAR.match(self.text, at)
        if match is None:
            raise self.fail(at)
        try:
            return Value(at, match.end(), json.loads(match[0]))
        except ValueError:  # a whole number of more than 4,300 digits: Python refuses it
            raise self.fail(at) from None

    def string(self, at: int) -> Value:
        try:
            data, end = SCAN_STRING(self.text, at + 1)
        except ValueError:
            raise self.fail(at) from None
        return Value(at, end, data)

    def children(self, node: Value) -> dict[Any, Value]:
        """The places of the children of a container read whole, its data theirs (a key
        written twice: the last, as JSON's reader keeps it)."""
        found: dict[Any, Value] = {}
        mapping = isinstance(node.data, dict)
        at, index = self.skip(node.start + 1), 0
        while self.text[at] not in "]}":
            if index:
                at = self.skip(at + 1)  # the comma
            if mapping:
                key, at = SCAN_STRING(self.text, at + 1)
                at = self.skip(self.skip(at) + 1)  # the colon
                data = node.data[key]
            else:
                key, data = index, node.data[index]
            first = self.text[at]
            if first == '"':
                end = SCAN_STRING(self.text, at + 1)[1]
            elif first in "{[":
                end = DECODE(self.text, at)[1]
            else:
                match = SCALAR.match(self.text, at)
                assert match is not None
                end = match.end()
            found[key] = Value(at, end, data, reader=self if first in "{[" else None)
            at, index = self.skip(end), index + 1
        return found

    def container(self, at: int, depth: int, walk: frozenset[str] = frozenset()) -> Value:
        mapping = self.text[at] == "{"
        closing = "}" if mapping else "]"
        node = Value(at, at, {} if mapping else [], kids={})
        children = node.children
        at = self.skip(at + 1)
        while self.text[at:at + 1] != closing:
            if children:
                if self.text[at:at + 1] != ",":
                    raise self.fail(at)
                at = self.skip(at + 1)
            if mapping:
                key = self.string(at)
                at = self.skip(key.end)
                if self.text[at:at + 1] != ":":
                    raise self.fail(at)
                child = self.value(at + 1, depth, frozenset() if key.data in walk else None)
                node.data[key.data] = child.data
                children[key.data] = child
            else:
                child = self.value(at, depth)
                children[len(node.data)] = child
                node.data.append(child.data)
            at = self.skip(child.end)
            if at >= len(self.text):
                raise self.fail(at)
        node.end = at + 1
        return node


def levels(data: Any) -> int:
    """How many levels of lists and mappings `data` nests (a number or a text: none), counted
    to MAX_DEPTH + 1 at most."""
    count, layer = 0, [data]
    while count <= MAX_DEPTH:
        layer = [item for item in layer if isinstance(item, (dict, list))]
        if not layer:
            break
        count += 1
        layer = [child for item in layer
                 for child in (item.values() if isinstance(item, dict) else item)]
    return count


def char_offsets(text: str, start: int, stop: int) -> list[int]:
    """The offset in `text` where each character of the JSON string between `start` and
    `stop` (its quotes excluded) was written."""
    found = []
    at = start
    while at < stop:
        found.append(at)
        if text[at] != "\\":
            at += 1
        elif text[at + 1] != "u":
            at += 2
        else:  # a surrogate pair is one character written as two escapes
            pair = (0xD800 <= int(text[at + 2:at + 6], 16) < 0xDC00
                    and text[at + 6:at + 8] == "\\u")
            at += 12 if pair else 6
    return found


def check_cells(text: str, name: str) -> None:
    """SpecError at the cell past MAX_NOTEBOOK_CELLS, counted from the `"cell_type"` keys before
    the notebook is read (a text in a cell holds its quotes escaped, so is not counted)."""
    at = -1
    for _ in range(MAX_NOTEBOOK_CELLS + 1):
        at = text.find('"cell_type"', at + 1)
        if at < 0:
            return
    line = text.count("\n", 0, at) + 1
    column = at - text.rfind("\n", 0, at)
    raise SpecError(Msg.plural_of(
        "the notebook has more than {count} cell, the limit of one notebook",
        "the notebook has more than {count} cells, the limit of one notebook",
        Count(MAX_NOTEBOOK_CELLS)), Location(name, "", line, column))


def fill_notebook(old: str, path: Path, max_cells: int
                  ) -> tuple[str, tuple[Location, ...], tuple[Location, ...], int]:
    """The notebook with each generated cell made anew, the blocks whose output is stale,
    those that have none yet, and how many blocks there are."""
    name = path.as_posix()
    check_cells(old, name)
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
    check_cells_together([(cell_text(cell), partial(reader.where, cell.children["source"].start))
                          for cell in items if is_block_cell(cell.data)])
    found = [(k, cell, *cell_blocks(cell, reader)) for k, cell in enumerate(items)
             if is_block_cell(cell.data)]
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


def cell_blocks(cell: Value, reader: Reader) -> tuple[list[Block], Positions]:
    """The attn blocks of a Markdown cell, and the way from its text's line:column to the
    notebook's; a malformed block is refused at the notebook's line:column."""
    source = cell.children["source"]
    text = cell_text(cell)
    check_cell_text(text, reader.where(source.start))
    if isinstance(source.data, list):  # before the strings' places are found
        check_cell_strings(len(source.data), reader.where(source.start))
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
            request = read_block(block.yaml, cell_name, path, "katex", max_cells)
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
                request = read_block(block.yaml, cell_name, path, "katex", max_cells)
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
        starts = self.reader.line_starts
        row = bisect.bisect_right(starts, at)
        return Location(name, line=row, column=at - starts[row - 1] + 1)

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
