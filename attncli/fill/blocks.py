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
from bisect import bisect_left
from collections.abc import Callable, Iterator
from itertools import accumulate

from attncli.errors import Location, SpecError
from attncli.i18n import Count, Msg
from attncli.records import record
from attncli.spec.limits import MAX_BLOCKS, MAX_BLOCKS_WRITTEN, MAX_DOCUMENT_LINES

FENCE = re.compile(r"(?P<indent>[ \t]*)(?P<fence>`{3,}|~{3,})(?P<info>.*)")
LINE_BREAK = re.compile(r"(\r\n|\n|\r)")
BARE_CR = re.compile(r"\r(?!\n)")  # a line ending of its own (old Mac OS)
VERBATIM = re.compile(r"\\(begin|end)\{(verbatim|lstlisting|minted|comment)\*?\}")


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


def lines_of(text: str) -> tuple[list[str], list[int]]:
    """The texts of the lines of `text` (without their line endings) and where each ends, cut
    at C speed: a record for each line cost 2 µs (190,000 lines of LaTeX comment fences took
    1.3 s of `fill --check`)."""
    parts = LINE_BREAK.split(text)  # a line's text, its ending, the next line's text...
    stops = list(accumulate(map(len, parts)))[0::2]
    texts = parts[0::2]
    if len(texts) > 1 and not texts[-1]:  # the text ends with a line ending
        texts.pop()
        stops.pop()
    return texts, stops


def newline_of(text: str) -> str:
    """The document's line ending: its first one, else `\\n`."""
    found = re.search(r"\r\n|\n|\r", text)
    return found[0] if found else "\n"


def generated(output: str, style: Style, newline: str) -> str:
    """The generated part for `output`, placed right after a closing fence's text."""
    body = output.rstrip("\n").split("\n")
    inner = ["", *body, ""] if style.blank else body
    return newline + newline.join([style.begin, *inner, style.end])


def find_blocks(text: str, name: str, style: Style) -> list[Block]:
    """Every attn block of `text`, in order; SpecError (at the document's line:column) for a
    block without its closing fence, or a generated part without its end marker. A text
    that never names attn has neither, and is not cut into lines (a 38 MB chapter of short
    lines took 6 s and 790 MB to find none). Its lines and the fences that may open a block are
    counted first (check_size)."""
    if "attn" not in text:
        return []
    check_size(text, name)
    lines, stops = lines_of(text)
    content = _content(style)
    candidates = _candidates(text, stops, style)
    held = set(candidates)
    found = []
    i = 0
    while i < len(lines):
        if i not in held:  # a line that opens nothing: on to the next that may, at C speed
            at = bisect_left(candidates, i)
            i = candidates[at] if at < len(candidates) else len(lines)
            continue
        inner = content(lines[i])
        verbatim = VERBATIM.search(lines[i]) if style.comment and inner is None else None
        if verbatim is not None:
            i = _past_verbatim(lines, i, verbatim)
            continue
        opened = FENCE.fullmatch(inner) if inner is not None else None
        if opened is None or (opened["fence"][0] == "`" and "`" in opened["info"]):
            i += 1
            continue
        close, stop = _closing(lines, i + 1, opened["fence"], content)
        if opened["info"].split()[:1] != ["attn"]:
            # unclosed, it runs to the end of the document, or in LaTeX of its comment lines
            # (a search from each of 200,000 unclosed fences was quadratic)
            i = stop if close is None else close + 1
            continue
        column = len(lines[i]) - len(opened[0]) + len(opened["indent"]) + 1
        if close is None:
            raise SpecError(Msg.of("this attn block has no closing fence {fence}",
                                   fence=opened["fence"]), Location(name, line=i + 1,
                                                                    column=column))
        body = "".join(f"{content(line)}\n" for line in lines[i + 1:close])
        end, after = _generated_end(lines, stops, close, name, style)
        found.append(Block(line=i + 1, column=column, body=body, start=stops[close], end=end))
        i = after
    return found


def _candidates(text: str, stops: list[int], style: Style) -> list[int]:
    """The indices of the lines of `text` (ending at `stops`) whose start may open a fence, in a
    comment in LaTeX, and there those that name a verbatim environment anywhere, sorted: each
    line the scan of find_blocks would not pass by at once. The scan goes from one to the next,
    not a line at a time (199,000 end markers after one block took 1.1 s of `fill --check`)."""
    opening = OPENING.get(style.comment) or opening_fence(style.comment)
    starts = [m.start() for m in opening.finditer(text)]
    if style.comment:
        starts += [m.start() for m in VERBATIM.finditer(text)]
    return sorted({bisect_left(stops, at) for at in starts})


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


def opening_fence(comment: str) -> LineStart:
    """A line that may open a fence: in a comment that starts with `comment`, if any."""
    inside = re.escape(comment) + r"[ \t]*" if comment else ""
    return LineStart(r"[ \t]*" + inside + r"(?:`{3}|~{3})")


# A line that may open an attn block, in Markdown or in a LaTeX comment (a bound: one inside
# another fence, or not in a comment in LaTeX, is counted too); and one that may open any fence
ATTN_FENCE = LineStart(r"[ \t]*(?:%[ \t]*)?(?:`{3,}|~{3,})[ \t]*attn(?=\s|\Z)")
OPENING = {style.comment: opening_fence(style.comment) for style in (MARKDOWN, LATEX)}


def _content(style: Style) -> Callable[[str], str | None]:
    """What a line holds for the block scanner: the line itself in Markdown; in LaTeX a comment
    line with its `%` made a space (so columns stay the document's), None for any other."""
    if not style.comment:
        return lambda text: text

    def comment(text: str) -> str | None:
        stripped = text.lstrip(" \t")
        if not stripped.startswith(style.comment):
            return None
        return text[:len(text) - len(stripped)] + " " + stripped[len(style.comment):]

    return comment


def _closing(lines: list[str], first: int, fence: str,
             content: Callable[[str], str | None]) -> tuple[int | None, int]:
    """The index of the line that closes `fence` (the same character, at least as many, nothing
    after), or None, and where the search stopped: in LaTeX a line that is no comment ends it."""
    for k in range(first, len(lines)):
        inner = content(lines[k])
        if inner is None:
            return None, k
        stripped = inner.strip()
        if stripped.startswith(fence) and set(stripped) == {fence[0]}:
            return k, k
    return None, len(lines)


def _generated_end(lines: list[str], stops: list[int], close: int, name: str,
                   style: Style) -> tuple[int, int]:
    """Where the generated part after the fence closed at line `close` ends (the end of the
    fence's text when there is none) and the index of the line to scan next."""
    after = close + 1
    marker = lines[after].strip() if after < len(lines) else ""
    if not marker.lstrip("<!-%").strip().startswith(BEGIN_PREFIX):
        return stops[close], after
    for k in range(after + 1, len(lines)):
        if lines[k].strip() == style.end:
            return stops[k], k + 1
    column = len(lines[after]) - len(lines[after].lstrip()) + 1
    raise SpecError(Msg.of("this generated part has no end marker {marker}; remove the part "
                           "or end it", marker=style.end),
                    Location(name, line=after + 1, column=column))


def _past_verbatim(lines: list[str], i: int, opened: re.Match[str]) -> int:
    """The line after the end of the verbatim environment that `opened` begins on line `i` (its
    comments are text, not comments)."""
    if opened[1] == "end":
        return i + 1
    closing = f"\\end{{{opened[2]}"
    if closing in lines[i][opened.end():]:  # begun and ended on one line
        return i + 1
    for k in range(i + 1, len(lines)):
        if closing in lines[k]:
            return k + 1
    return len(lines)


def check_count(index: int, where: Location) -> None:
    """Refuse the attn block `index` (counted from 1) of a document past MAX_BLOCKS, where it
    opens: each block is a walkthrough worked out (a block written again is one)."""
    if index > MAX_BLOCKS:
        raise SpecError(Msg.of("this is attn block {index} of the document; a document holds "
                               "at most {limit}", index=index, limit=Count(MAX_BLOCKS)), where)


def line_breaks(text: str) -> int:
    """The line endings of `text`: `\n`, `\r\n` and `\r`, each one."""
    return text.count("\n") + text.count("\r") - text.count("\r\n")


def past_document_lines(text: str, breaks: int) -> bool:
    """Whether `text`, of `breaks` line endings, has more than MAX_DOCUMENT_LINES lines: a
    last line ended by its break is no line more."""
    return breaks > MAX_DOCUMENT_LINES or (breaks == MAX_DOCUMENT_LINES
                                           and not text.endswith(("\n", "\r")))


def check_size(text: str, name: str) -> None:
    """Refuse a text of more than MAX_DOCUMENT_LINES lines (at the first past it) or of more than
    MAX_BLOCKS_WRITTEN lines that may open an attn block (at the first past it), counted at C
    speed before it is cut into lines: each line is an object of about 170 bytes (5 MB of
    one-letter lines took 3.3 s and 408 MB), each block one too."""
    if past_document_lines(text, line_breaks(text)):
        raise SpecError(Msg.plural_of(
            "the document has more than {count} line, the limit of one document",
            "the document has more than {count} lines, the limit of one document",
            Count(MAX_DOCUMENT_LINES)), Location(name, line=MAX_DOCUMENT_LINES + 1, column=1))
    fences = ATTN_FENCE.finditer(text)
    past = next(itertools.islice(fences, MAX_BLOCKS_WRITTEN, None), None)
    if past is not None:
        at = past.start()
        line = (text.count("\n", 0, at) + text.count("\r", 0, at)
                - text.count("\r\n", 0, at) + 1)
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
