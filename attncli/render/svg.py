"""The terminal view as an SVG picture (Rich's export), for a post or a slide.

The id Rich puts on every class and clip path is fixed, and so is the width, so exporting the same
spec twice writes the same bytes.
"""

from __future__ import annotations

import io

from rich.console import Console

from attncli.model import Walkthrough
from attncli.render import RenderOptions
from attncli.render.common import number_format, title, translator
from attncli.render.rich_view import show

UNIQUE_ID = "attn"


def render(walkthrough: Walkthrough, options: RenderOptions) -> str:
    console = Console(file=io.StringIO(), record=True, width=options.width, force_terminal=True,
                      color_system="truecolor", highlight=False, emoji=False, markup=False,
                      legacy_windows=False)
    show(console, walkthrough, options)
    t = translator(options, number_format(walkthrough, options))
    svg = console.export_svg(title=title(walkthrough.header, options.lang, t),
                             unique_id=UNIQUE_ID)
    return svg if svg.endswith("\n") else svg + "\n"
