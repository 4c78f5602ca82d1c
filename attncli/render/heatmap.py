"""The attention weights as a heatmap SVG: one panel per head, a cell per (query, key) shaded by
its weight with the number printed in it, tokens along both edges.

Written by hand, not drawn by a plotting library, so it is small and the same bytes every time.
"""

from __future__ import annotations

import math
from xml.sax.saxutils import escape

from attncli.i18n import Msg
from attncli.model import Matrix, Walkthrough
from attncli.render import RenderOptions
from attncli.render.common import cell_width, number_format, title, translator
from attncli.render.numbers import NumberFormat

CELL = 44  # px, a square cell
CHAR = 7.2  # px, the width of a character at FONT_SIZE, for laying out the labels
FONT_SIZE = 12
GAP = 8
PANEL_GAP = 32
TITLE_HEIGHT = 28


def render(walkthrough: Walkthrough, options: RenderOptions) -> str:
    number = number_format(walkthrough, options)
    t = translator(options, number)
    panels: list[str] = []
    x = 0.0
    height = 0.0
    for head in walkthrough.heads:
        caption = t(Msg.of("head {index}", index=head.index)) if len(walkthrough.heads) > 1 \
            else ""
        svg, width, panel_height = panel(head.weights, caption, number, x)
        panels.append(svg)
        x += width + PANEL_GAP
        height = max(height, panel_height)
    name = title(walkthrough.header, options.lang, t)
    title_width = cell_width(name) * CHAR * 1.15 * (FONT_SIZE + 4) / FONT_SIZE  # bold, larger
    width = max(x - PANEL_GAP, title_width)
    total_height = TITLE_HEIGHT + height
    return "\n".join([
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{fmt(width)}" '
        f'height="{fmt(total_height)}" viewBox="0 0 {fmt(width)} {fmt(total_height)}" '
        f'font-family="DejaVu Sans, Arial, sans-serif" font-size="{FONT_SIZE}">',
        f"<title>{escape(name)}</title>",
        f'<text x="0" y="{FONT_SIZE + 4}" font-size="{FONT_SIZE + 4}" font-weight="bold">'
        f"{escape(name)}</text>",
        f'<g transform="translate(0 {TITLE_HEIGHT})">',
        *panels,
        "</g>",
        "</svg>",
        "",
    ])


def fmt(value: float) -> str:
    """A coordinate with at most one decimal and no `.0`: the same text on every platform."""
    text = f"{value:.1f}"
    return text[:-2] if text.endswith(".0") else text


def shade(weight: float) -> str:
    """White for 0, deep blue for 1; hidden and undefined cells are light grey."""
    if not math.isfinite(weight):
        return "#e0e0e0"
    w = min(max(weight, 0.0), 1.0)
    r, g, b = (round(255 + (c - 255) * w) for c in (8, 48, 107))
    return f"#{r:02x}{g:02x}{b:02x}"


def ink(weight: float) -> str:
    return "#ffffff" if math.isfinite(weight) and weight > 0.5 else "#000000"


def panel(weights: Matrix, caption: str, number: NumberFormat, x0: float) -> tuple[str, float,
                                                                                    float]:
    """One head's weights: rows are queries (labels on the left), columns are keys (labels on
    top, turned 90° so long tokens fit)."""
    left = max((cell_width(r) for r in weights.rows), default=0) * CHAR + GAP
    top = max((cell_width(c) for c in weights.columns), default=0) * CHAR + GAP
    caption_height = FONT_SIZE + GAP if caption else 0
    n, m = weights.shape
    parts = [f'<g transform="translate({fmt(x0)} 0)">']
    if caption:
        parts.append(f'<text x="0" y="{FONT_SIZE}" font-weight="bold">{escape(caption)}</text>')
    y0 = caption_height + top
    for j, label in enumerate(weights.columns):
        cx, cy = left + j * CELL + CELL / 2 + FONT_SIZE / 3, y0 - GAP / 2
        parts.append(f'<text x="{fmt(cx)}" y="{fmt(cy)}" transform="rotate(-90 {fmt(cx)} '
                     f'{fmt(cy)})">{escape(label)}</text>')
    values = weights.whole()  # (n, m)
    for i, label in enumerate(weights.rows):
        y = y0 + i * CELL
        parts.append(f'<text x="{fmt(left - GAP / 2)}" y="{fmt(y + CELL / 2 + FONT_SIZE / 3)}" '
                     f'text-anchor="end">{escape(label)}</text>')
        for j in range(m):
            w = float(values[i, j])
            x = left + j * CELL
            parts.append(f'<rect x="{fmt(x)}" y="{fmt(y)}" width="{CELL}" height="{CELL}" '
                         f'fill="{shade(w)}" stroke="#ffffff"/>')
            parts.append(f'<text x="{fmt(x + CELL / 2)}" y="{fmt(y + CELL / 2 + FONT_SIZE / 3)}" '
                         f'text-anchor="middle" fill="{ink(w)}">{escape(number(w))}</text>')
    parts.append("</g>")
    return "\n".join(parts), left + m * CELL, y0 + n * CELL
