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


def test_a_picture_of_more_lines_than_the_limit_is_refused_as_its_lines_pass_it(
        monkeypatch: pytest.MonkeyPatch) -> None:
    from attncli.errors import UsageError
    from attncli.render import svg

    walkthrough = build(load_spec(str(EXAMPLES[0].with_name("cat_chases_mouse.yaml"))))
    lines = len(svg_lines(render(walkthrough, "svg", "en")))
    monkeypatch.setattr(svg, "MAX_PICTURED_LINES", lines)
    assert len(svg_lines(render(walkthrough, "svg", "en"))) == lines  # as many as allowed
    monkeypatch.setattr(svg, "MAX_PICTURED_LINES", lines - 1)
    with pytest.raises(UsageError) as refused:
        render(walkthrough, "svg", "en")
    assert str(refused.value) == (
        f"the SVG picture would have more than {lines - 1} lines, the most attn draws; show "
        "fewer steps with --steps or one head with --head")


def test_sixty_four_heads_are_refused_with_one_line_and_one_of_them_is_drawn(
        tmp_path: Path) -> None:
    from tests.conftest import run

    spec = tmp_path / "heads.yaml"
    spec.write_text(EXAMPLES[0].with_name("fused_heads_random.yaml").read_text(
        encoding="utf-8").replace("dim: 8", "dim: 128").replace("heads: 4", "heads: 64"),
        encoding="utf-8")
    picture = tmp_path / "heads.svg"
    result = run("export", str(spec), "--svg", "-o", str(picture), "--lang", "pl")
    assert (result.exit_code, result.stdout, picture.exists()) == (2, "", False)
    assert result.stderr == ("attn: rysunek SVG miałby ponad 5000 wierszy, a\u00a0tyle attn "
                             "rysuje najwyżej; pokaż mniej kroków opcją --steps albo jedną "
                             "głowicę opcją --head\n")
    result = run("export", str(spec), "--svg", "--head", "3", "-o", str(picture))
    shown = svg_lines(picture.read_text(encoding="utf-8"))
    assert result.exit_code == 0 and len(shown) < 5000
    assert any(line.strip().endswith("Projection weights — head 3") for line in shown)
