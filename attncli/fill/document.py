"""Filling one document: every attn block's generated part made anew, everything else kept byte
for byte.

The document is read as bytes and decoded as UTF-8 with bytes that are not UTF-8 kept as they
are (surrogate escapes), so a Latin-1 chapter, a byte order mark, CRLF line endings and a
missing final newline all come back unchanged; the generated parts use the document's line
ending. `fill` writes nothing: it returns the new text, and `write_filled` replaces the files
atomically, never through a symbolic link, and only files that still hold the text `fill` read.
"""

from __future__ import annotations

import difflib
from pathlib import Path

from attncli.errors import AttnError, Location, SpecError
from attncli.files.reading import NotRegular, read_regular, still_holds
from attncli.files.writing import ChangedMeanwhile, write_atomic
from attncli.fill.block import named_spec, read_block, walkthrough_text, work_out
from attncli.fill.blocks import (
    LATEX,
    MARKDOWN,
    Block,
    Style,
    check_count,
    find_blocks,
    generated,
    newline_of,
)
from attncli.i18n import Count, Msg
from attncli.i18n.library_messages import os_problem
from attncli.records import record
from attncli.spec.limits import DEFAULT_MAX_CELLS, max_bytes, max_document_bytes

MARKDOWN_SUFFIXES = (".md", ".markdown", ".qmd")
SUFFIXES = (*MARKDOWN_SUFFIXES, ".tex", ".ipynb")
# Quarto and Jupyter render $$ math, not GitHub's ```math blocks
FLAVORS = {".qmd": "katex", ".ipynb": "katex"}


@record
class Filled:
    """A document before and after filling, and where each block whose output changes opens."""

    path: Path
    old: str
    new: str
    stale: tuple[Location, ...]
    missing: tuple[Location, ...]  # blocks with no generated part yet
    blocks: int


def kind(path: Path) -> str:
    """The document's kind by its suffix; SpecError for one attn fill does not know."""
    suffix = path.suffix.lower()
    if suffix not in SUFFIXES:
        raise SpecError(Msg.of("unknown kind of document {suffix}; expected one of {known}",
                               suffix=suffix or '""', known=", ".join(SUFFIXES)),
                        Location(path.as_posix()))
    return suffix


def read_document(path: Path, max_cells: int) -> str:
    """The document's text: a regular file (no link, device or FIFO), decoded so that every
    byte comes back when encoded again; a notebook up to the spec's byte limit (its images), a
    Markdown or LaTeX text up to an eighth of it (limits.max_document_bytes)."""
    name = path.as_posix()
    limit = (max_bytes(max_cells) if path.suffix.lower() == ".ipynb"
             else max_document_bytes(max_cells))
    try:
        data = read_regular(path, limit)
    except NotRegular as problem:
        raise SpecError(problem.message, Location(name)) from None
    except OSError as exc:
        raise SpecError(Msg.of("cannot read the file: {reason}", reason=os_problem(exc)),
                        Location(name)) from None
    if data is None:
        raise SpecError(Msg.of("no such file"), Location(name))
    # UTF-16 or UTF-32 (a byte-order mark, or a NUL in the first character's bytes) holds no
    # block attn can find: said as a spec in them is, not reported up to date with none found
    wide = next((at for at, byte in enumerate(data[:2]) if byte in (0x00, 0xFE, 0xFF)), None)
    if wide is not None:
        raise SpecError(Msg.of("expected UTF-8 text, found the byte 0x{byte}",
                               byte=f"{data[wide]:02x}"), Location(name, line=1, column=wide + 1))
    return data.decode("utf-8", "surrogateescape")


def fill(path: Path, max_cells: int = DEFAULT_MAX_CELLS) -> Filled:
    """The document at `path` with every block's output made anew; SpecError at the first
    problem (a bad block, at the document's line:column). The blocks share the files they
    read: each is read once for the document (see shared_reads)."""
    from attncli.spec.arrays import shared_reads

    with shared_reads():
        return _filled(path, max_cells)


def _filled(path: Path, max_cells: int) -> Filled:
    suffix = kind(path)
    old = read_document(path, max_cells)
    if suffix == ".ipynb":
        from attncli.fill.notebook import fill_notebook

        return Filled(path, old, *fill_notebook(old, path, max_cells))
    style: Style = LATEX if suffix == ".tex" else MARKDOWN
    fmt = "latex" if suffix == ".tex" else "markdown"
    name = path.as_posix()
    newline = newline_of(old)
    pieces: list[str] = []
    stale: list[Location] = []
    missing: list[Location] = []
    done = 0
    # a byte-order mark (an editor's "UTF-8 with BOM") is no part of the first line: read as a
    # space, of the same length, so that every place found is the document's own
    blocks = find_blocks(" " + old[1:] if old.startswith("\ufeff") else old, name, style)
    # a block written again is worked out once (2,000 of one took 10 s): its text, without the
    # blank lines before it that keep its line numbers, gives the same walkthrough
    made: dict[str, str] = {}
    distinct: set[str] = set()
    for block in blocks:  # counted before any is worked out
        distinct.add(block.key)
        check_count(len(distinct), Location(name, line=block.line, column=block.column))
    first: dict[str, Block] = {}
    for block in blocks:
        first.setdefault(block.key, block)
    def make(text: str) -> str:
        block = first[text]
        request = read_block(block.yaml, name, path, FLAVORS.get(suffix), max_cells,
                             Location(name, line=block.line, column=block.column))
        return walkthrough_text(request, fmt, max_cells)

    failed = work_out(list(first), sorted(first, key=named_spec), made, make)
    for block in blocks:
        text = block.key
        if text in failed:  # the first bad block of the document, as it reads
            raise failed[text]
        part = generated(made[text], style, newline)
        if old[block.start:block.end] != part:
            (missing if block.start == block.end else stale).append(
                Location(name, line=block.line, column=block.column))
        pieces += [old[done:block.start], part]
        done = block.end
    pieces.append(old[done:])
    return Filled(path, old, "".join(pieces), tuple(stale), tuple(missing), len(blocks))


def write_filled(documents: list[Filled]) -> list[AttnError]:
    """Replace each document with its filled text, atomically, never through a link, or none of
    them if one changed since `fill` read it (an editor's save, which the filled text would
    undo): SpecError at that document. Each is compared again just before it is renamed, so one
    saved while those before it are renamed (a few milliseconds) is kept too, and the error says
    how many were filled. The errors of documents that could not be written (a folder that
    refuses, a full disk), in order."""
    for filled in documents:  # before any is written
        check_unchanged(filled)
    refused: list[AttnError] = []
    for done, filled in enumerate(documents):
        try:
            write_atomic(filled.path, filled.new.encode("utf-8", "surrogateescape"),
                         follow=False, expected=as_read(filled))
        except ChangedMeanwhile:
            raise changed(filled.path, done - len(refused)) from None
        except AttnError as error:
            refused.append(error)
    return refused


def as_read(filled: Filled) -> bytes:
    """The document's bytes as `fill` read them (read_document decodes them reversibly)."""
    return filled.old.encode("utf-8", "surrogateescape")


def check_unchanged(filled: Filled) -> None:
    """SpecError unless the document still holds the bytes `fill` read."""
    try:
        same = still_holds(filled.path, as_read(filled))
    except OSError as exc:
        raise SpecError(Msg.of("cannot read the file: {reason}", reason=os_problem(exc)),
                        Location(filled.path.as_posix())) from None
    if not same:
        raise changed(filled.path, 0)


def changed(path: Path, written: int) -> SpecError:
    """The document at `path` changed while attn filled it; `written` documents named before it
    were filled."""
    if not written:
        message = Msg.of("the document changed while attn was filling it, so no document was "
                         "written; run attn fill again")
    else:
        message = Msg.plural_of(
            "the document changed while attn was filling it, so it was not written; "
            "{count} document named before it was filled; run attn fill again",
            "the document changed while attn was filling it, so it was not written; "
            "{count} documents named before it were filled; run attn fill again",
            Count(written))
    return SpecError(message, Location(path.as_posix()))


def unified_diff(filled: Filled) -> str:
    """What filling changes, as a unified diff `git apply` reads from the current folder."""
    name = filled.path.as_posix()

    def shown(text: str) -> list[str]:
        readable = text.encode("utf-8", "surrogateescape").decode("utf-8", "replace")
        return readable.splitlines(keepends=True)

    lines = difflib.unified_diff(shown(filled.old), shown(filled.new), fromfile=f"a/{name}",
                                 tofile=f"b/{name}")
    return "".join(line if line.endswith(("\n", "\r")) else line + "\n\\ No newline at end of "
                   "file\n" for line in lines)
