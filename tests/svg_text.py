"""The lines of text a terminal SVG (Rich's export) shows, read back from its <text> elements:
each piece is placed at the column its x gives, so the lines can be compared with the terminal's."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET

from rich.cells import cell_len

SVG = "{http://www.w3.org/2000/svg}"


def svg_lines(svg: str) -> list[str]:
    """The SVG's lines of text, trailing spaces and trailing blank lines removed."""
    pieces: dict[int, list[tuple[float, str]]] = {}
    column_width = 0.0
    for element in ET.fromstring(svg).iter(SVG + "text"):
        clip = element.get("clip-path") or ""
        line = re.search(r"-line-(\d+)\)", clip)
        if line is None:  # the window's title
            continue
        text = (element.text or "").replace("\xa0", " ")
        if text and not column_width:
            column_width = float(element.get("textLength", "0")) / cell_len(text)
        pieces.setdefault(int(line.group(1)), []).append((float(element.get("x", "0")), text))
    lines = []
    for n in range(max(pieces, default=-1) + 1):
        out = ""
        for x, text in sorted(pieces.get(n, [])):
            column = round(x / column_width) if column_width else 0
            out = out.ljust(column) + text if cell_len(out) <= column else out + text
        lines.append(out.rstrip())
    while lines and not lines[-1]:
        lines.pop()
    return lines


def terminal_lines(text: str) -> list[str]:
    """The terminal's output in the same form (a no-break space is a space: the SVG writes every
    space as &#160;)."""
    lines = [line.replace("\xa0", " ").rstrip() for line in text.splitlines()]
    while lines and not lines[-1]:
        lines.pop()
    return lines
