"""The terminal SVG (`attn export --svg`) shows every line the terminal shows: the tables, and the
plain lines the view writes as they are (written-out cells, the reading, notes)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from attncli.render import render
from attncli.spec import load_spec
from attncli.steps.build import build
from tests.conftest import EXAMPLES
from tests.svg_text import svg_lines, terminal_lines

ANSI = re.compile(r"\x1b\[[0-9;]*m")


def terminal(walkthrough, lang: str) -> list[str]:  # type: ignore[no-untyped-def]
    """The terminal view in colour (the SVG has the colour legend too), escapes removed."""
    return terminal_lines(ANSI.sub("", render(walkthrough, "rich", lang, color=True)))


@pytest.mark.parametrize("example", EXAMPLES, ids=lambda p: p.stem)
def test_the_svg_shows_the_terminals_lines(example: Path) -> None:
    walkthrough = build(load_spec(str(example)))
    shown = svg_lines(render(walkthrough, "svg", "en"))
    assert shown == terminal(walkthrough, "en")


def test_written_out_cells_and_the_reading_are_in_the_svg() -> None:
    walkthrough = build(load_spec(str(EXAMPLES[0].with_name("cat_chases_mouse.yaml"))))
    shown = svg_lines(render(walkthrough, "svg", "pl"))
    # the last written-out line of the weights (1.57 / 4.45 by hand: e^0.45 over the row's sum)
    assert "  A[mouse, mouse] = 1.57 / 4.45 = 0.35" in shown
    heading = shown.index("  Rozpisane obliczenia:") if "  Rozpisane obliczenia:" in shown else None
    assert heading is not None and shown[heading + 1].strip(), "a heading with nothing under it"
    assert any("mouse" in line and "(0.40)" in line for line in shown)  # the reading's sentence
