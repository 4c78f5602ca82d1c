"""The terminal view as an SVG picture (Rich's export), for a post or a slide.

The id Rich puts on every class and clip path is fixed, and so is the width, so exporting the same
spec twice writes the same bytes.

A picture has at most MAX_PICTURED_LINES lines of the terminal view: Rich holds every piece of
every line until the picture is drawn, about 0.45 ms and 360 bytes of SVG a line (256 heads were
38,702 lines, 15 s, 14 MB and 170 MB held). The largest example is about 1,600 lines; past the
limit the view is refused as soon as its lines pass it, naming --steps and --head.
"""

from __future__ import annotations

import io
import re

from rich.console import Console

from attncli.errors import UsageError
from attncli.i18n import Count, Msg
from attncli.model import Walkthrough
from attncli.model.latex_text import shown_prose
from attncli.render import RenderOptions
from attncli.render.common import number_format, title, translator
from attncli.render.long_names import Names
from attncli.render.rich_view import show
from attncli.render.terminal_size import console_environ

UNIQUE_ID = "attn"
MAX_PICTURED_LINES = 5000
MONOSPACE = '"Fira Code", "DejaVu Sans Mono", Menlo, Consolas, "Liberation Mono", monospace'


class Lines(io.StringIO):
    """The console's own output, counted and let go (the picture is drawn from its record)."""

    def __init__(self) -> None:
        super().__init__()
        self.count = 0

    def write(self, text: str) -> int:
        self.count += text.count("\n")
        if self.count > MAX_PICTURED_LINES:
            raise UsageError(Msg.plural_of(
                "the SVG picture would have more than {count} line, the most attn draws; show "
                "fewer steps with --steps or one head with --head",
                "the SVG picture would have more than {count} lines, the most attn draws; show "
                "fewer steps with --steps or one head with --head", Count(MAX_PICTURED_LINES)))
        return len(text)


def render(walkthrough: Walkthrough, options: RenderOptions) -> str:
    console = Console(file=Lines(), record=True, width=options.width, force_terminal=True,
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
