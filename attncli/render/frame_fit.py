"""Packing a step's LaTeX pieces into Beamer frames by their height, estimated before TeX runs.

A piece is a paragraph, a display (a formula, a matrix block under its caption), a table (the
heatmap) or the written-out lines (split line by line here, so a long list continues on the next
frame). The estimates are in points at the frame's font size and err on the tall side; a piece
taller than a frame still gets a frame of its own (matrix blocks never are: their rows are capped).
"""

from __future__ import annotations

import math
import re

from attncli.render.latex_matrix import Page

Chunk = list[str]
LINE = 1.25  # baselines per font size: 13.75 pt at 11 pt
DISPLAY = 2.4  # the space around a display, in lines
FLUSH = ("\\begin{flushleft}", "\\end{flushleft}")


def plain_length(latex: str) -> int:
    """Characters a reader sees, roughly: commands, braces and math markup removed."""
    text = re.sub(r"\\(text|ensuremath|textcolor|cellcolor)\b", "", latex)
    text = re.sub(r"\\[A-Za-z]+|[{}$&^_]|\[RGB\]", "", text)
    return len(text)


def height(chunk: Chunk, page: Page) -> float:
    """Points the chunk takes in a frame."""
    line = LINE * page.font
    text = "\n".join(chunk)
    per_line = page.width / (0.5 * page.font)  # characters of 0.5 em on one line
    if r"\begin{bmatrix}" in text:
        rows = text.split(r"\begin{bmatrix}")[1].count(r"\\") + 1
        caption = 1 if chunk[0].startswith(r"\noindent") else 0
        return (rows + 1 + caption + DISPLAY) * line
    if r"\begin{tabular}" in text:
        return (text.count(r"\\") + 1.5) * line * 1.05
    if r"\begin{equation*}" in text:
        return (1 + DISPLAY) * line
    if chunk[0] == FLUSH[0]:
        lines = sum(math.ceil(plain_length(x) / per_line) for x in chunk[1:-1])
        return (lines + 1) * line
    return math.ceil(plain_length(text) / per_line) * line + 0.3 * line


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
    """Consecutive groups of chunks, each within `page.height` (one chunk at least)."""
    room = page.height or math.inf
    groups: list[list[Chunk]] = [[]]
    used = 0.0
    for chunk in split_written_out(chunks):
        tall = height(chunk, page)
        if groups[-1] and used + tall > room:
            groups.append([])
            used = 0.0
        groups[-1].append(chunk)
        used += tall
    return [joined(g) for g in groups if g] or [[]]


def joined(group: list[Chunk]) -> list[Chunk]:
    """Written-out lines that share a frame in one flushleft again (no gap between them)."""
    out: list[Chunk] = []
    for chunk in group:
        if out and chunk[0] == FLUSH[0] and out[-1][0] == FLUSH[0]:
            out[-1] = [*out[-1][:-1], *chunk[1:]]
        else:
            out.append(chunk)
    return out
