"""Packing a step's LaTeX pieces into Beamer frames by their height, estimated before TeX runs.

A piece is a paragraph, a display (a formula, a matrix block under its caption), a table (the
heatmap) or the written-out lines (split line by line here, so a long list continues on the next
frame). The estimates are in points at the frame's font size and err on the tall side; a piece
taller than a frame still gets a frame of its own (matrix blocks never are: their rows are capped).
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence

from attncli.render.latex_matrix import Page
from attncli.render.tex_metrics import EM, text_width

Chunk = Sequence[str]
# Measured in a 16:9 frame at 11 pt: a line of text 13.6 pt, a display formula 24 pt, a matrix
# of n rows 34.7 + 13.6·(n − 1) pt; each piece is given a little more.
LINE = 1.24  # baselines per font size
DISPLAY = 1.6  # a display's own room beyond its lines, in lines
FLUSH = ("\\begin{flushleft}", "\\end{flushleft}")


def plain_length(latex: str) -> int:
    """Characters a reader sees, roughly: commands, braces and math markup removed; counted at
    least as half-ems of their width, so that a word of wide letters (`ШШШШШШШШШ…ШШШШШШШШШ`, a
    token name shortened to a line's width: model/latex_text.py) is not taken for a short one."""
    text = re.sub(r"\\(text|ensuremath|textcolor|cellcolor)\b", "", latex)
    text = re.sub(r"\\[A-Za-z]+|[{}$&^_]|\[RGB\]", "", text)
    return max(len(text), math.ceil(text_width(text) / (0.5 * EM)))


def height(chunk: Chunk, page: Page) -> float:
    """Points the chunk takes in a frame."""
    line = LINE * page.font
    text = "\n".join(chunk)
    per_line = page.width / (0.5 * page.font)  # characters of 0.5 em on one line
    if r"\begin{bmatrix}" in text:
        # every row of the bracket, the empty ones beside a long row label's further lines too
        rows = text.split(r"\begin{bmatrix}")[1].count(r"\\") + 1
        caption = 1 if chunk[0].startswith(r"\noindent") else 0
        return (rows + caption + header_lines(text) - 1 + DISPLAY) * line + 6
    if r"\begin{tabular}" in text:
        legend = text.split(r"\begin{center}")[0].replace(r"\begin{minipage}{\linewidth}", "")
        lines = math.ceil(plain_length(legend) / per_line) if legend.strip() else 0
        return (text.count(r"\\") + lines) * line * 1.05 + 12
    if r"\begin{equation*}" in text:
        return (1 + DISPLAY) * line + 2
    if chunk[0] == FLUSH[0]:
        lines = sum(math.ceil(plain_length(x) / per_line) for x in chunk[1:-1])
        return (lines + 1) * line
    return math.ceil(plain_length(text) / per_line) * line + 0.3 * line


def header_lines(text: str) -> int:
    """The lines of a matrix's tallest column label (a long one is set in lines)."""
    labels = re.findall(r"\\attncell\{\d+\}\{\\begin\{matrix\}(.*?)\\end\{matrix\}\}", text)
    return max((label.count(r"\\") + 1 for label in labels), default=1)


def split_written_out(chunks: list[Chunk]) -> list[Chunk]:
    """The written-out lines one by one, each still a flushleft paragraph, so they can continue
    on the next frame."""
    out: list[Chunk] = []
    for chunk in chunks:
        if chunk and chunk[0] == FLUSH[0] and len(chunk) > 3:
            out += [[FLUSH[0], line, FLUSH[1]] for line in chunk[1:-1]]
        else:
            out.append(chunk)
    return out


def pack(chunks: list[Chunk], page: Page) -> list[list[Chunk]]:
    """Consecutive groups of chunks, each within `page.height` (one chunk at least). A heading
    (a chunk ending in \\nopagebreak) goes on with what it introduces, and a run of written-out
    lines split between frames leaves at least two lines on each (no frame with one line of
    it while the next holds four)."""
    room = page.height or math.inf
    groups: list[list[Chunk]] = [[]]
    used = 0.0
    for chunk in split_written_out(chunks):
        tall = height(chunk, page)
        if groups[-1] and used + tall > room:
            moved = carried(groups[-1], chunk)
            groups[-1], next_group = groups[-1][:len(groups[-1]) - moved], \
                groups[-1][len(groups[-1]) - moved:]
            groups.append(next_group)
            used = sum(height(c, page) for c in next_group)
        groups[-1].append(chunk)
        used += tall
    balance_last(groups, page)
    return [joined(g) for g in groups if g] or [[]]


def keeps_with_next(chunk: Chunk) -> bool:
    return any(line.endswith(r"\nopagebreak") for line in chunk)


def is_line(chunk: Chunk) -> bool:
    """One written-out line (split_written_out's piece), not its heading."""
    return len(chunk) == 3 and chunk[0] == FLUSH[0] and not keeps_with_next(chunk)


def carried(group: list[Chunk], coming: Chunk) -> int:
    """How many chunks at the end of a full frame go on to the next with `coming`: a heading
    kept with what follows, and a single written-out line that would stay behind alone."""
    moved = 0
    while moved < len(group) - 1 and keeps_with_next(group[-1 - moved]):
        moved += 1
    if is_line(coming) and moved == 0:
        run = 0
        while run < len(group) and is_line(group[-1 - run]):
            run += 1
        if run == 1 and len(group) > 1:  # one line of the run alone at the frame's foot
            moved = 1 + (1 if keeps_with_next(group[-2]) else 0)
    if all(keeps_with_next(c) for c in group[:len(group) - moved]):
        return 0  # nothing but a heading would stay: the frame keeps what it holds
    return moved


def balance_last(groups: list[list[Chunk]], page: Page) -> None:
    """A run of written-out lines whose last frame would hold one line takes one more from the
    frame before (which keeps two at least)."""
    if len(groups) < 2 or len(groups[-1]) != 1 or not is_line(groups[-1][0]):
        return
    before = groups[-2]
    run = 0
    while run < len(before) and is_line(before[-1 - run]):
        run += 1
    if run >= 3:
        groups[-1].insert(0, before.pop())


def joined(group: list[Chunk]) -> list[Chunk]:
    """Written-out lines that share a frame in one flushleft again (no gap between them)."""
    out: list[Chunk] = []
    for chunk in group:
        if out and chunk[0] == FLUSH[0] and out[-1][0] == FLUSH[0]:
            out[-1] = [*out[-1][:-1], *chunk[1:]]
        else:
            out.append(chunk)
    return out
