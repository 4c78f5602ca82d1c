"""The colours of every heatmap (terminal, SVG, LaTeX): one hue, blue, whose depth grows with the
weight, drawn over an explicit white background, so the legend "white is 0, deep blue is 1" is
true on a dark page or terminal as on a light one. A key hidden by the mask is neither: grey,
marked with a dash (and hatched in the SVG), so it never looks like a real weight of 0.
"""

from __future__ import annotations

import math

from attncli.i18n import Msg
from attncli.model import Step, Walkthrough

BACKGROUND = (255, 255, 255)
DEEP = (8, 48, 107)  # the colour of weight 1
HIDDEN = (200, 200, 200)
HIDDEN_MARK = "—"
LIGHT_INK = (255, 255, 255)
DARK_INK = (0, 0, 0)

LEGEND = Msg.of("Colours: white is weight 0, deep blue is weight 1; a grey cell marked — is a key "
                "hidden by the mask.")


def rgb(weight: float) -> tuple[int, int, int]:
    """The cell colour of a weight in [0, 1]; an undefined one (NaN) is the hidden grey."""
    if not math.isfinite(weight):
        return HIDDEN
    w = min(max(weight, 0.0), 1.0)
    return tuple(round(b + (d - b) * w) for b, d in zip(BACKGROUND, DEEP, strict=True))  # type: ignore[return-value]


def luminance(colour: tuple[int, int, int]) -> float:
    """WCAG's relative luminance of an sRGB colour."""
    def channel(value: int) -> float:
        s = value / 255
        return s / 12.92 if s <= 0.03928 else ((s + 0.055) / 1.055) ** 2.4

    r, g, b = (channel(v) for v in colour)
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def ink(weight: float) -> tuple[int, int, int]:
    """Black or white, whichever stands out more from the cell: the number stays readable."""
    cell = luminance(rgb(weight))
    return LIGHT_INK if 1.05 / (cell + 0.05) > (cell + 0.05) / 0.05 else DARK_INK


def hex_colour(colour: tuple[int, int, int]) -> str:
    return "#{:02x}{:02x}{:02x}".format(*colour)


def hidden_cells(walkthrough: Walkthrough, step: Step) -> set[tuple[int, int]]:
    """The (query, key) cells of a weights step that the mask hides (a score of −∞)."""
    index = step.head if step.head is not None else 1
    heads = [h for h in walkthrough.heads if h.index == index]
    if not heads:
        return set()
    scores = heads[0].scores
    return {(i, j) for i in scores.row_indices() for j in range(scores.shape[1])
            if scores.at(i, j) == -math.inf}
