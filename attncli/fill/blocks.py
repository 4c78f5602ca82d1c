"""Finding the attn blocks of a Markdown or LaTeX text, and the generated part after each.

In Markdown (and Quarto) a block is a fence whose info string is `attn`:

    ```attn
    spec: cat.attn.yaml
    steps: weights
    ```
    <!-- attn fill: generated from the block above, do not edit -->
    ...the walkthrough...
    <!-- attn fill: end -->

In LaTeX it is the same fence in comments (`% ```attn` ... `% ````), its output between
`% attn fill: generated ...` and `% attn fill: end`. The generated part starts right after the
closing fence's text and ends at the end marker's text: the line endings around it are the
document's own, so a file without a final newline keeps having none.

A fence that does not name attn is skipped whole (a page that shows an attn block as an example
inside a ````markdown fence is left alone), and so is a generated part.
"""

from __future__ import annotations

import heapq
import itertools
import re
from collections.abc import Iterator

from attncli.errors import Location, SpecError
from attncli.fill.fences import NAMES_ATTN, Fences, fences
from attncli.i18n import Count, Msg
from attncli.records import record
from attncli.spec.limits import MAX_BLOCKS, MAX_BLOCKS_WRITTEN, MAX_DOCUMENT_LINES

LINE_BREAK = re.compile(r"\r\n|\n|\r")
BARE_CR = re.compile(r"\r(?!\n)")  # a line ending of its own (old Mac OS)
COMMENT_MARK = re.compile(r"^([ \t]*)%", re.MULTILINE)  # a LaTeX comment line's `%`


@record
class Style:
    """How a kind of document marks its generated parts."""

    begin: str
    end: str
    comment: str  # what starts a line that holds a block ("" in Markdown, "%" in LaTeX)
    blank: bool  # a blank line around the output (Markdown: the output is its own blocks)


MARKDOWN = Style("<!-- attn fill: generated from the block above, do not edit -->",
                 "<!-- attn fill: end -->", "", True)
LATEX = Style("% attn fill: generated from the block above, do not edit", "% attn fill: end",
              "%", False)
BEGIN_PREFIX = "attn fill: generated"


@record
class Block:
    """One attn block: where its fence opens (1-based), its body (the lines after the fence),
    and the part after it that is (or is to be) generated."""

    line: int
    column: int
    body: str  # from the line after the fence: `yaml` places it at its lines in the document
    start: int  # where the generated part begins: the end of the closing fence's text
    end: int  # where the generated part there now ends (== start when there is none)

    @property
    def key(self) -> str:
        """The block's text without its blank lines before: blocks alike give one walkthrough."""
        return self.body.lstrip("\n")

    @property
    def yaml(self) -> str:
        """The body as YAML whose line n is line n of the document: made only for a block that
        is read (kept in each block, 400,000 empty blocks alike held their lines' count each:
        3.3 GB)."""
        return "\n" * self.line + self.body


class LineStart:
    r"""A pattern matched only where a line of a text begins (after `\n`, `\r\n` or a lone
    `\r`), in order, at C speed: `^` in MULTILINE mode goes from line to line, where
    `(?:^|(?<=\r))` was tried at every character (0.2 s for 4.8 MB of short lines). Compiled
    once, when the module is read."""

    def __init__(self, pattern: str) -> None:
        self.after_newline = re.compile("^" + pattern, re.MULTILINE)
        self.after_cr = re.compile(r"(?<=\r)" + pattern)

    def finditer(self, text: str) -> Iterator[re.Match[str]]:
        found = self.after_newline.finditer(text)
        if BARE_CR.search(text) is None:
            return found
        return heapq.merge(found, self.after_cr.finditer(text), key=lambda match: match.start())


# A line that may open an attn block, in Markdown or in a LaTeX comment (a bound: one inside
# another fence, or not in a comment in LaTeX, is counted too), whatever whitespace is before
# its `attn` (with only spaces and tabs counted, 99,000 blocks of ```` ```\vattn ```` were found)
ATTN_FENCE = LineStart(r"[ \t]*(?:%[ \t]*)?(?:`{3,}|~{3,})(?=" + NAMES_ATTN + ")")
FENCES = {style.comment: fences(style.comment, BEGIN_PREFIX, style.end)
          for style in (MARKDOWN, LATEX)}


def newline_of(text: str) -> str:
    """The document's line ending: its first one, else `\\n`."""
    found = LINE_BREAK.search(text)
    return found[0] if found else "\n"


def generated(output: str, style: Style, newline: str) -> str:
    """The generated part for `output`, placed right after a closing fence's text."""
    body = output.rstrip("\n").split("\n")
    inner = ["", *body, ""] if style.blank else body
    return newline + newline.join([style.begin, *inner, style.end])


def find_blocks(text: str, name: str, style: Style) -> list[Block]:
    """Every attn block of `text`, in order; SpecError (at the document's line:column) for a
    block without its closing fence, or a generated part without its end marker. A text
    that never names attn has neither, and is not scanned (a 38 MB chapter of short lines took
    6 s and 790 MB to find none). Its lines and the fences that may open a block are counted
    first (check_size). Everything between the blocks is passed over by one regex
    (fences.py), a Python iteration a block: each line of it was one once."""
    if "attn" not in text:
        return []
    check_size(text, name)
    patterns = FENCES[style.comment]
    found: list[Block] = []
    at, line = 0, 1  # the start of a line, and its number
    while True:
        passed = _passed(patterns, text, at)
        line += line_breaks(text, at, passed)
        at = passed
        if at == len(text):
            return found
        opened = patterns.opening.match(text, at)
        assert opened is not None  # the passing stops only where a block opens
        column = opened.start("fence") - at + 1
        block = patterns.block.match(text, at)
        if block is None:
            raise SpecError(Msg.of("this attn block has no closing fence {fence}",
                                   fence=opened["fence"]), Location(name, line=line,
                                                                    column=column))
        body = _body(text[block.start("body"):block.end("body")], style)
        end, after = _generated_end(text, block, name, style,
                                    line + line_breaks(text, at, block.end()))
        found.append(Block(line=line, column=column, body=body, start=block.end("close"),
                           end=end))
        line += line_breaks(text, at, after)
        at = after


def _passed(patterns: Fences, text: str, at: int) -> int:
    """Where the next attn block opens from `at` on, or the end of the text: PASSED_AT_ONCE
    lines or more at a time."""
    while True:
        passed = patterns.passing.match(text, at)
        assert passed is not None  # it matches no line where a block opens at once
        if passed.end() == at:
            return at
        at = passed.end()


def _body(lines: str, style: Style) -> str:
    """A block's lines as its YAML: each ended by `\\n`, in LaTeX each `%` made a space (so
    columns stay the document's)."""
    body = LINE_BREAK.sub("\n", lines)
    return COMMENT_MARK.sub(r"\1 ", body) if style.comment else body


def _generated_end(text: str, block: re.Match[str], name: str, style: Style,
                   line: int) -> tuple[int, int]:
    """Where the generated part after `block` (whose next line is `line`) ends (the end of the
    closing fence's text when there is none) and where the text after it begins."""
    patterns = FENCES[style.comment]
    after = block.end()
    begun = patterns.begin.match(text, after) if after < len(text) else None
    if begun is None:
        return block.end("close"), after
    ended = patterns.end.match(text, begun.end())
    if ended is None:
        raise SpecError(Msg.of("this generated part has no end marker {marker}; remove the "
                               "part or end it", marker=style.end),
                        Location(name, line=line, column=len(begun["lead"]) + 1))
    return ended.end("end"), ended.end()


def check_count(index: int, where: Location) -> None:
    """Refuse the attn block `index` (counted from 1) of a document past MAX_BLOCKS, where it
    opens: each block is a walkthrough worked out (a block written again is one)."""
    if index > MAX_BLOCKS:
        raise SpecError(Msg.of("this is attn block {index} of the document; a document holds "
                               "at most {limit}", index=index, limit=Count(MAX_BLOCKS)), where)


def line_breaks(text: str, start: int = 0, end: int | None = None) -> int:
    """The line endings of `text` (from `start` to `end`, where no `\r\n` is cut): `\n`,
    `\r\n` and `\r`, each one."""
    return (text.count("\n", start, end) + text.count("\r", start, end)
            - text.count("\r\n", start, end))


def past_document_lines(text: str, breaks: int) -> bool:
    """Whether `text`, of `breaks` line endings, has more than MAX_DOCUMENT_LINES lines: a
    last line ended by its break is no line more."""
    return breaks > MAX_DOCUMENT_LINES or (breaks == MAX_DOCUMENT_LINES
                                           and not text.endswith(("\n", "\r")))


def check_size(text: str, name: str) -> None:
    """Refuse a text of more than MAX_DOCUMENT_LINES lines (at the first past it) or of more than
    MAX_BLOCKS_WRITTEN lines that may open an attn block (at the first past it), counted at C
    speed before it is scanned (cut into lines once, 5 MB of one-letter lines took 3.3 s and
    408 MB); each block found is an object of its own. Those lines are looked for only in a
    text that names attn more often than that."""
    if past_document_lines(text, line_breaks(text)):
        raise SpecError(Msg.plural_of(
            "the document has more than {count} line, the limit of one document",
            "the document has more than {count} lines, the limit of one document",
            Count(MAX_DOCUMENT_LINES)), Location(name, line=MAX_DOCUMENT_LINES + 1, column=1))
    if text.count("attn") <= MAX_BLOCKS_WRITTEN:  # each line that may open one names attn
        return
    fences = ATTN_FENCE.finditer(text)
    past = next(itertools.islice(fences, MAX_BLOCKS_WRITTEN, None), None)
    if past is not None:
        at = past.start()
        line = line_breaks(text, 0, at) + 1
        column = len(past[0]) - len(past[0].lstrip(" \t%")) + 1
        check_written(MAX_BLOCKS_WRITTEN + 1, Location(name, line=line, column=column))


def check_written(index: int, where: Location) -> None:
    """Refuse the attn block `index` (counted from 1 with the blocks written again) of a document
    past MAX_BLOCKS_WRITTEN, where it opens."""
    if index > MAX_BLOCKS_WRITTEN:
        raise SpecError(Msg.of(
            "this is attn block {index} of the document, counting the blocks written again; a "
            "document holds at most {limit} in all", index=index,
            limit=Count(MAX_BLOCKS_WRITTEN)), where)
