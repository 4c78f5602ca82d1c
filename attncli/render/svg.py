"""The terminal view as an SVG picture (Rich's export), for a post or a slide.

The id Rich puts on every class and clip path is fixed, and so is the width, so exporting the same
spec twice writes the same bytes.
"""

from __future__ import annotations

import io
import re

from rich.console import Console

from attncli.model import Walkthrough
from attncli.model.latex_text import shown_prose
from attncli.render import RenderOptions
from attncli.render.common import number_format, title, translator
from attncli.render.long_names import Names
from attncli.render.rich_view import show
from attncli.render.terminal_size import console_environ

UNIQUE_ID = "attn"
MONOSPACE = '"Fira Code", "DejaVu Sans Mono", Menlo, Consolas, "Liberation Mono", monospace'


def render(walkthrough: Walkthrough, options: RenderOptions) -> str:
    console = Console(file=io.StringIO(), record=True, width=options.width, force_terminal=True,
                      color_system="truecolor", highlight=False, emoji=False, markup=False,
                      legacy_windows=False, _environ=console_environ())
    # a token name too wide for a line shown in the middle as LaTeX shows it, and a word of
    # the title too wide for any line (render/long_names.py)
    names = Names.of(walkthrough)
    show(console, walkthrough, options, names)
    t = translator(options, number_format(walkthrough, options))
    svg = console.export_svg(title=shown_prose(names.shown(title(walkthrough.header,
                                                                  options.lang, t))),
                             unique_id=UNIQUE_ID)
    svg = self_contained(svg)
    return svg if svg.endswith("\n") else svg + "\n"


def self_contained(svg: str) -> str:
    """No font fetched from the network: Rich's @font-face rules point at a CDN, so drop them
    and name monospace fonts a reader has (Fira Code still wins where it is installed)."""
    svg = re.sub(r"@font-face\s*\{[^}]*\}\s*", "", svg)
    return svg.replace("font-family: Fira Code, monospace;", "font-family: " + MONOSPACE + ";")
