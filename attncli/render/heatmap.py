"""The attention weights as a heatmap SVG: one panel per head, a cell per (query, key) shaded by
its weight with the number printed in it, tokens along both edges, a legend under it.

Drawn on an opaque white background, so it reads the same on a dark page; cells are as wide as
their numbers need; labels have room to the left and above; a key hidden by the mask is grey,
hatched and marked —, never a white 0. Written by hand, not by a plotting library, so it is small
and the same bytes every time.
"""

from __future__ import annotations

from xml.sax.saxutils import escape

from attncli.arithmetic.numbers import NumberFormat
from attncli.i18n import Msg
from attncli.model import Labels, Matrix, Walkthrough
from attncli.model.latex_text import shown_name, shown_prose
from attncli.render import RenderOptions
from attncli.render.columns import cell_width
from attncli.render.common import number_format, title, translator
from attncli.render.heat import HIDDEN, HIDDEN_MARK, LEGEND, hex_colour, ink, rgb

CHAR = 7.2  # px, the width of a character at FONT_SIZE (DejaVu Sans digits are 7.6 at 12 px)
FONT_SIZE = 12
CELL_HEIGHT = 28
PAD = 10  # px inside a cell, either side of its number
MARGIN = 12  # px around the whole picture
GAP = 8
PANEL_GAP = 32
TITLE_HEIGHT = 28
LEGEND_HEIGHT = 24
HATCH = (
    '<defs><pattern id="attn-hidden" width="6" height="6" patternUnits="userSpaceOnUse" '
    'patternTransform="rotate(45)"><rect width="6" height="6" fill="{fill}"/>'
    '<line x1="0" y1="0" x2="0" y2="6" stroke="#8c8c8c" stroke-width="2"/></pattern></defs>'
)


def text_px(text: str) -> float:
    return cell_width(text) * CHAR * 1.1


def render(walkthrough: Walkthrough, options: RenderOptions) -> str:
    number = number_format(walkthrough, options)
    t = translator(options, number)
    panels: list[str] = []
    x = 0.0
    height = 0.0
    for head in walkthrough.heads:
        caption = t(Msg.of("head {index}", index=head.index)) if len(walkthrough.heads) > 1 \
            else ""
        svg, width, panel_height = panel(head.weights, head.scores, caption, number, x)
        panels.append(svg)
        x += width + PANEL_GAP
        height = max(height, panel_height)
    # a word of the title too wide for any line shortened, as LaTeX does (shown_prose)
    name = shown_prose(title(walkthrough.header, options.lang, t))
    legend = t(LEGEND)
    title_width = text_px(name) * (FONT_SIZE + 4) / FONT_SIZE * 1.1  # bold, larger
    width = max(x - PANEL_GAP, title_width, text_px(legend)) + 2 * MARGIN
    total = TITLE_HEIGHT + height + GAP + LEGEND_HEIGHT + 2 * MARGIN
    return "\n".join([
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{fmt(width)}" '
        f'height="{fmt(total)}" viewBox="0 0 {fmt(width)} {fmt(total)}" '
        f'font-family="DejaVu Sans, Arial, sans-serif" font-size="{FONT_SIZE}" fill="#000000">',
        f"<title>{escape(name)}</title>",
        HATCH.format(fill=hex_colour(HIDDEN)),
        f'<rect width="{fmt(width)}" height="{fmt(total)}" fill="#ffffff"/>',
        f'<g transform="translate({MARGIN} {MARGIN})">',
        f'<text x="0" y="{FONT_SIZE + 4}" font-size="{FONT_SIZE + 4}" font-weight="bold">'
        f"{escape(name)}</text>",
        f'<g transform="translate(0 {TITLE_HEIGHT})">',
        *panels,
        "</g>",
        f'<text x="0" y="{fmt(TITLE_HEIGHT + height + GAP + FONT_SIZE)}">{escape(legend)}</text>',
        "</g>",
        "</svg>",
        "",
    ])


def fmt(value: float) -> str:
    """A coordinate with at most one decimal and no `.0`: the same text on every platform."""
    text = f"{value:.1f}"
    return text[:-2] if text.endswith(".0") else text


def shown_names(labels: Labels) -> list[str]:
    return [shown_name(label) for label in labels]


def panel(weights: Matrix, scores: Matrix, caption: str, number: NumberFormat,
          x0: float) -> tuple[str, float, float]:
    """One head's weights: rows are queries (labels on the left), columns are keys (labels on
    top, turned 90° so long tokens fit). Returns the SVG, its width and its height."""
    values = weights.whole()  # (n, m)
    hidden = scores.whole() == float("-inf")  # (n, m)
    texts = [[HIDDEN_MARK if hidden[i, j] else number(float(values[i, j]))
              for j in range(values.shape[1])] for i in range(values.shape[0])]
    cell = max([text_px(x) for row in texts for x in row] + [FONT_SIZE * 2.0]) + 2 * PAD
    # a token name too wide for a line as every format shows it (render/long_names.py)
    rows, columns = map(shown_names, (weights.rows, weights.columns))
    left = max((text_px(r) for r in rows), default=0) + GAP
    top = max((text_px(c) for c in columns), default=0) + GAP
    caption_height = FONT_SIZE + GAP if caption else 0
    n, m = weights.shape
    parts = [f'<g transform="translate({fmt(x0)} 0)">']
    if caption:
        parts.append(f'<text x="0" y="{FONT_SIZE}" font-weight="bold">{escape(caption)}</text>')
    y0 = caption_height + top
    for j, label in enumerate(columns):
        cx, cy = left + j * cell + cell / 2 + FONT_SIZE / 3, y0 - GAP / 2
        parts.append(f'<text x="{fmt(cx)}" y="{fmt(cy)}" transform="rotate(-90 {fmt(cx)} '
                     f'{fmt(cy)})">{escape(label)}</text>')
    for i, label in enumerate(rows):
        y = y0 + i * CELL_HEIGHT
        baseline = fmt(y + CELL_HEIGHT / 2 + FONT_SIZE / 3)
        parts.append(f'<text x="{fmt(left - GAP / 2)}" y="{baseline}" text-anchor="end">'
                     f"{escape(label)}</text>")
        for j in range(m):
            w = float(values[i, j])
            x = left + j * cell
            fill = "url(#attn-hidden)" if hidden[i, j] else hex_colour(rgb(w))
            colour = "#000000" if hidden[i, j] else hex_colour(ink(w))
            parts.append(f'<rect x="{fmt(x)}" y="{fmt(y)}" width="{fmt(cell)}" '
                         f'height="{CELL_HEIGHT}" fill="{fill}" stroke="#ffffff"/>')
            parts.append(f'<text x="{fmt(x + cell / 2)}" y="{baseline}" text-anchor="middle" '
                         f'fill="{colour}">{escape(texts[i][j])}</text>')
    parts.append("</g>")
    return "\n".join(parts), left + m * cell, y0 + n * CELL_HEIGHT
