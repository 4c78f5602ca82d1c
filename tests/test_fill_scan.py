"""find_blocks (one regex over the lines between attn blocks, attncli/fill/fences.py) against
a reader of one line at a time written from the rules in docs/fill.md and fences.py: the same
blocks, at the same places, with the same bodies, or the same refusal, for documents made of the
lines those rules tell apart (fences of each kind, attn's and others, comments, verbatim
environments, generated parts, every line ending)."""

from __future__ import annotations

import random
import re

import pytest

from attncli.errors import SpecError
from attncli.fill.blocks import LATEX, MARKDOWN, Style, find_blocks

OPENS = re.compile(r"([ \t]*)(`{3,}|~{3,})(.*)")
VERBATIM = re.compile(r"\\(begin|end)\{(verbatim|lstlisting|minted|comment)\*?\}")


def one_line_at_a_time(text: str, style: Style) -> list[tuple[int, int, str, int, int]] | str:
    """(line, column, body, start, end) of each block, or the refusal's line."""
    parts = re.split(r"(\r\n|\r|\n)", text)
    lines, stops, at = [], [], 0
    for k in range(0, len(parts), 2):
        at += len(parts[k])
        lines.append(parts[k])
        stops.append(at)
        at += len(parts[k + 1]) if k + 1 < len(parts) else 0
    if len(lines) > 1 and lines[-1] == "" and text.endswith(("\n", "\r")):
        lines.pop()
        stops.pop()

    def inner(line: str) -> str | None:  # in LaTeX a comment's `%` made a space
        if not style.comment:
            return line
        rest = line.lstrip(" \t")
        return line[:len(line) - len(rest)] + " " + rest[1:] if rest.startswith("%") else None

    def closing(first: int, fence: str) -> tuple[int | None, int]:
        for k in range(first, len(lines)):
            held = inner(lines[k])
            if held is None:
                return None, k
            if held.strip().startswith(fence) and set(held.strip()) == {fence[0]}:
                return k, k
        return None, len(lines)

    found, i = [], 0
    while i < len(lines):
        held = inner(lines[i])
        verbatim = VERBATIM.search(lines[i]) if held is None and style.comment else None
        if verbatim:
            ends = "\\end{" + verbatim[2]
            if verbatim[1] == "end" or ends in lines[i][verbatim.end():]:
                i += 1
            else:
                i = next((k + 1 for k in range(i + 1, len(lines)) if ends in lines[k]), len(lines))
            continue
        opened = OPENS.fullmatch(held) if held is not None else None
        if opened is None or (opened[2][0] == "`" and "`" in opened[3]):
            i += 1
            continue
        close, stop = closing(i + 1, opened[2])
        if opened[3].split()[:1] != ["attn"]:
            i = stop if close is None else close + 1
            continue
        if close is None:
            return f"{i + 1}: no closing fence"
        body = "".join(f"{inner(line)}\n" for line in lines[i + 1:close])
        where = (i + 1, len(opened[1]) + 1)
        start, end, i = stops[close], stops[close], close + 1
        if i < len(lines) and lines[i].strip().lstrip("<!-%").strip().startswith(
                "attn fill: generated"):
            k = next((k for k in range(i + 1, len(lines)) if lines[k].strip() == style.end), None)
            if k is None:
                return f"{i + 1}: no end marker"
            end, i = stops[k], k + 1
        found.append((*where, body, start, end))
    return found


LINES = ["```", "````", "```attn", "````attn", "~~~", "~~~~attn", "~~~attn x", "``` attn",
         "```attn`x", "```a`b", "```attn{.y}", "  ```", "\t~~~", " \v```", "```\vattn", "x", "",
         "spec: s.yaml", MARKDOWN.begin, MARKDOWN.end, f" {MARKDOWN.end} ", "%", "% ```",
         "%```attn", "% ```attn", " % ~~~", "% ~~~~", "%  ```` ", "% x", "% spec: s.yaml",
         LATEX.begin, LATEX.end, "\\begin{verbatim}", "\\end{verbatim}", "% \\begin{verbatim}",
         "x \\begin{lstlisting} y \\end{lstlisting}", "\\begin{comment*}", "\\end{comment*}",
         "\\begin{minted}{py} \\end{mintedx}", "a\\\\begin{verbatim}b\\end{verbatim}"]


@pytest.mark.parametrize("style", [MARKDOWN, LATEX], ids=["markdown", "latex"])
def test_the_regex_finds_what_a_reader_of_one_line_at_a_time_finds(style: Style) -> None:
    rng = random.Random(21)
    met = set()
    for _ in range(4000):
        ends = rng.choice([["\n"], ["\r\n"], ["\r"], ["\n", "\r\n", "\r"]])
        text = "".join(rng.choice(LINES) + rng.choice(ends) for _ in range(rng.randint(1, 12)))
        text = "attn\n" + (text.rstrip("\r\n") if rng.random() < 0.3 else text)
        expected = one_line_at_a_time(text, style)
        try:
            got: list[tuple[int, int, str, int, int]] | str = [
                (b.line, b.column, b.body, b.start, b.end) for b in find_blocks(text, "d", style)]
        except SpecError as refused:
            assert refused.where is not None
            said = "no closing fence" if "closing" in refused.message.msgid else "no end marker"
            got = f"{refused.where.line}: {said}"
        assert got == expected, repr(text)
        met.add("refused" if isinstance(got, str) else "blocks" if got else "none")
    assert met == {"blocks", "refused", "none"}  # each outcome met
