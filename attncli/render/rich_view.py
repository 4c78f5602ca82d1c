"""The terminal view: Rich tables labelled by tokens, split into column blocks to fit."""

from __future__ import annotations

import io
from collections.abc import Iterator, Sequence

from rich import box
from rich.console import Console
from rich.rule import Rule
from rich.style import Style
from rich.table import Table
from rich.text import Text

from attncli.arithmetic.elision import shown
from attncli.arithmetic.numbers import NumberFormat
from attncli.i18n import Msg
from attncli.model import Matrix, Walkthrough
from attncli.model.latex_text import shown_prose
from attncli.render import RenderOptions
from attncli.render.ahead import WrittenAhead, written_ahead
from attncli.render.columns import cell_width
from attncli.render.common import (
    Translate,
    column_blocks,
    description,
    drift_lines,
    expansion_text,
    formula_text,
    header_facts,
    heatmap_caption,
    label_lines,
    language_heading,
    language_sections,
    matrix_caption,
    number_format,
    reading_sections,
    shade,
    shown_matrices,
    step_heading,
    title,
    translator,
)
from attncli.render.heat import (
    DARK_INK,
    HIDDEN,
    HIDDEN_MARK,
    LEGEND,
    hex_colour,
    hidden_cells,
    ink,
    rgb,
)
from attncli.render.long_names import WHOLE, Names
from attncli.render.shortened import ELLIPSIS
from attncli.render.shown_cells import block_marker, elided_note, is_elided
from attncli.render.terminal_size import console_environ
from attncli.render.text import matrix_lines
from attncli.render.wrap import formula, words

CELL_PADDING = 3  # one space each side and one border per column
# Rich lays out a table's every cell, at about 150 µs each: past this many cells in all, the
# matrices are drawn as the text format draws them (aligned columns under their caption), at a
# fraction of the cost. 64 heads of 100 tokens took 13 s in tables, 256 heads 39 s, and a decode
# of 100 tokens shown whole 22 s
TABLE_CELLS = 3_000


def console_for(out: io.StringIO, options: RenderOptions) -> Console:
    return Console(file=out, width=options.width, force_terminal=options.color,
                   color_system="256" if options.color else None,  # 256: the heatmap's blues
                   highlight=False, emoji=False, markup=False, _environ=console_environ())


def document(walkthrough: Walkthrough, options: RenderOptions, langs: Sequence[str]) -> str:
    """The walkthrough in each of `langs`, each under a bold `## PL` heading."""
    return "".join(stream_document(walkthrough, options, langs))


def stream_document(walkthrough: Walkthrough, options: RenderOptions,
                    langs: Sequence[str]) -> Iterator[str]:

    def heading(lang: str) -> str:
        out = io.StringIO()
        console_for(out, options).print(Text(language_heading(lang), style="bold"), end="")
        return out.getvalue()

    # the budget of table cells is the document's: each language's section draws them all again
    aligned = too_many_cells(walkthrough, options, len(langs))

    def section(walkthrough: Walkthrough, options: RenderOptions) -> Iterator[str]:
        return stream(walkthrough, options, aligned)

    return language_sections(walkthrough, options, langs, section, heading)


def render(walkthrough: Walkthrough, options: RenderOptions) -> str:
    return "".join(stream(walkthrough, options))


def stream(walkthrough: Walkthrough, options: RenderOptions,
           aligned: bool | None = None) -> Iterator[str]:
    """The view piece by piece, as the console draws it: a written-out cell at a time.
    `aligned`: the matrices drawn as aligned columns rather than tables (None: if this view
    alone would draw more than TABLE_CELLS cells)."""
    out = io.StringIO()
    console = console_for(out, options)
    for _ in showing(console, walkthrough, options, aligned=aligned):
        yield out.getvalue()
        out.seek(0)
        out.truncate()
    yield out.getvalue()


def show(console: Console, walkthrough: Walkthrough, options: RenderOptions,
         names: Names = WHOLE) -> None:
    """Print the walkthrough on `console` (which never reads markup: a token `[bold]` is text).
    Every line is broken to the console's width here, so that a continuation keeps its indent.
    `names`: the token names shown shortened, as a picture (the SVG) shows them."""
    for _ in showing(console, walkthrough, options, names):
        pass


def showing(console: Console, walkthrough: Walkthrough, options: RenderOptions,
            names: Names = WHOLE, aligned: bool | None = None) -> Iterator[None]:
    """`show`, pausing after every step and every written-out cell: what is printed so far
    may then be taken away (`stream`)."""
    number = number_format(walkthrough, options)
    t = translator(options, number)
    # lines written ahead are the names' whole: a view that shortens them writes its own
    ahead = None if names.names else written_ahead(walkthrough, options, number, t, "  ", as_is)
    try:
        if aligned is None:
            aligned = too_many_cells(walkthrough, options)
        yield from _showing(console, walkthrough, options, number, t, ahead, names, aligned)
    finally:
        if ahead is not None:
            ahead.close()


def as_is(line: str) -> str:
    """A plain line as the view writes it (`say`)."""
    return line + "\n"


def _showing(console: Console, walkthrough: Walkthrough, options: RenderOptions,
             number: NumberFormat, t: Translate, ahead: WrittenAhead | None,
             names: Names, aligned: bool) -> Iterator[None]:
    width = options.width
    shown = names.shown

    def say(lines: list[str], style: str = "") -> None:
        if not style:
            plain("".join(map(as_is, lines)))
            return
        for line in lines:
            console.print(Text(line, style=style), no_wrap=True, overflow="ignore")

    def plain(text: str) -> None:
        """Plain lines (written-out cells, sentences) as they are: the console would print the
        same at many times the cost (it asks the terminal its size each time). A recording
        console (the SVG) keeps only what it printed itself, so it is given them line by line."""
        if not console.record:
            console.file.write(text)
            return
        for line in text.splitlines():
            console.print(Text(line), no_wrap=True, overflow="ignore")

    header = walkthrough.header
    if options.header:
        heading = title(header, options.lang, t)
        console.print(Rule(Text(shown_prose(shown(heading)) if names.names else heading,
                                style="bold")))
        about = description(header, options.lang)
        if about:
            say(words(shown_prose(shown(about)) if names.names else about, width, ""))
        for fact in header_facts(header, t):
            say(words(fact, width, "", "  "), "dim")
    for index, step in enumerate(walkthrough.steps):
        if index or options.header:
            console.print()
        say(words(shown(step_heading(step.number, step, t)), width, "", "  "), "bold cyan")
        if step.formula is not None:
            say(formula(formula_text(step.formula, t), width, "  "), "bold")
        for note in step.notes:
            say(words(shown(t(note)), width, "  "), "italic")
        matrices, identities = shown_matrices(step, options.full)
        if identities:
            console.print()
            say(words(shown(t(identities)), width, "  "))
        for matrix in matrices:
            if aligned:
                console.print()
                say(matrix_lines(matrix, number, t, width, options.full, indent="  "))
                continue
            for table in tables(matrix, number, t, width, options.full, names=names):
                console.print()
                console.print(table)
        if step.id == "weights" and options.heatmap:
            console.print()
            say(words(heatmap_caption(t), width, "  "), "italic")
            if aligned:
                say(matrix_lines(step.matrices[0], number, t, width, options.full, heat=True,
                                 indent="  ", caption=False))
            else:
                if console.color_system is not None:
                    say(words(t(LEGEND), width, "  "), "italic")
                for table in tables(step.matrices[0], number, t, width, options.full,
                                    heat=hidden_cells(walkthrough, step), names=names):
                    console.print(table)
        if step.expansions:
            console.print()
            say(words(t(Msg.of("Written out:")), width, "  "), "bold")
            if ahead is not None:
                plain(ahead.cells(index))
            else:
                for expansion in step.expansions:
                    say(formula(shown(expansion_text(expansion, number, t, options.full)),
                                width, "  "))
                    yield
        yield
    for j, (heading, sentences) in enumerate(reading_sections(walkthrough, t)):
        console.print()
        say(words(shown(heading), width, ""), "bold cyan")
        if ahead is not None:
            plain(ahead.sentences(j))
            yield
            continue
        for sentence in sentences:
            say(words(shown(sentence), width, "  "))
            yield
    drift = drift_lines(walkthrough, number, options.lang)
    if drift:
        console.print()
        say(words(t(Msg.of("Hand calculation")), width, ""), "bold cyan")
        for line in drift:
            say(words(shown(line), width, "  "))


def too_many_cells(walkthrough: Walkthrough, options: RenderOptions, sections: int = 1) -> bool:
    """Whether a document of `sections` views of the walkthrough (one a language) would draw
    more than TABLE_CELLS cells in Rich's tables, all of them together."""
    sections = max(sections, 1)
    return table_cells(walkthrough, options, TABLE_CELLS // sections) * sections > TABLE_CELLS


def table_cells(walkthrough: Walkthrough, options: RenderOptions,
                enough: int = TABLE_CELLS) -> int:
    """The cells of the tables the view would draw, counted up to just past `enough`."""
    count = 0
    for step in walkthrough.steps:
        matrices, _ = shown_matrices(step, options.full)
        heat = (step.matrices[0],) if step.id == "weights" and options.heatmap else ()
        for matrix in (*matrices, *heat):
            elide = is_elided(matrix, options.full)
            count += len(shown(matrix.shape[0], elide)) * len(shown(matrix.shape[1], elide))
            if count > enough:
                return count
    return count


def heat_style(weight: float, hidden: bool) -> Style:
    """A heatmap cell's own background (attncli/render/heat.py), whatever the terminal's theme."""
    if hidden:
        return Style(color=hex_colour(DARK_INK), bgcolor=hex_colour(HIDDEN))
    return Style(color=hex_colour(ink(weight)), bgcolor=hex_colour(rgb(weight)))


def tables(matrix: Matrix, number: NumberFormat, t: Translate, width: int, full: bool = False,
           heat: set[tuple[int, int]] | None = None, names: Names = WHOLE) -> list[Table]:
    """One table per column block, so no table is ever squeezed or wrapped by the terminal; a
    large matrix elided in the middle unless `full`; with `heat` (the hidden cells), a heatmap:
    cells shaded by weight, a hidden key marked —."""
    elide = is_elided(matrix, full)
    row_at, column_at = shown(matrix.shape[0], elide), shown(matrix.shape[1], elide)
    labels = [names.shown(matrix.rows[i]) if i is not None else ELLIPSIS for i in row_at]
    columns = [names.shown(matrix.columns[j]) if j is not None else ELLIPSIS for j in column_at]

    def write(i: int | None, j: int | None) -> Text:
        if i is None or j is None:
            return Text(ELLIPSIS)
        x = float(matrix.at(i, j))
        if heat is None:
            return Text(number.cell(matrix, i, j))
        if (i, j) in heat:
            return Text("   " + HIDDEN_MARK.rjust(len(number(x))), style=heat_style(x, True))
        return Text(shade(x) + " " + number.cell(matrix, i, j), style=heat_style(x, False))

    cells = [[write(i, j) for j in column_at] for i in row_at]
    label_width = max((cell_width(label) for label in labels), default=0)
    heads = ["\n".join(label_lines(c)) for c in columns]  # a long label in lines
    col_widths = [
        max(*(cell_width(piece) for piece in label_lines(columns[j])),
            *(cell_width(row[j].plain) for row in cells))
        for j in range(len(columns))
    ]
    available = width - label_width - 2 * CELL_PADDING
    result = []
    note = elided_note(matrix, full, t)
    for block in column_blocks([w + CELL_PADDING for w in col_widths], available):
        caption = matrix_caption(matrix)
        marker = block_marker(block, len(col_widths), tuple(columns), t,
                              matrix.shape[1])
        under = " ".join(x for x in (marker, note) if x)
        table = Table(title=Text(caption), caption=Text(under) if under else None,
                      box=box.SIMPLE_HEAD, title_justify="left", show_edge=False)
        table.add_column("", style="bold", no_wrap=True)
        for j in block:
            table.add_column(Text(heads[j]), justify="right", no_wrap=True)
        for label, row in zip(labels, cells, strict=True):
            table.add_row(Text(label), *(row[j] for j in block))
        result.append(table)
    return result
