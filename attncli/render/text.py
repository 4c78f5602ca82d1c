"""Plain text: no colour, fixed width, the same bytes everywhere. For pipes and golden files."""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence

from attncli.arithmetic.elision import shown
from attncli.arithmetic.numbers import NumberFormat
from attncli.i18n import Msg
from attncli.model import Matrix, Step, Walkthrough
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
from attncli.render.drawn import per_matrix, same_in_every_language, several
from attncli.render.shortened import ELLIPSIS
from attncli.render.shown_cells import block_marker, elided_note, is_elided
from attncli.render.wrap import formula, words

INDENT = "   "
GAP = 2


def render(walkthrough: Walkthrough, options: RenderOptions) -> str:
    return "".join(stream(walkthrough, options))


def stream(walkthrough: Walkthrough, options: RenderOptions) -> Iterator[str]:
    """The document line by line, each line as it is made: written-out cells by the million
    pass through, none held."""
    started = False
    for line in lines(walkthrough, options):
        if isinstance(line, Finished):
            yield line.text
        elif started or line:  # no blank line before the first
            started = True
            yield ended(line)


def lines(walkthrough: Walkthrough, options: RenderOptions) -> Iterator[str | Finished]:
    number = number_format(walkthrough, options)
    t = translator(options, number)
    ahead = written_ahead(walkthrough, options, number, t, INDENT, ended)
    try:
        yield from _lines(walkthrough, options, number, t, ahead)
    finally:
        if ahead is not None:
            ahead.close()


def _lines(walkthrough: Walkthrough, options: RenderOptions, number: NumberFormat,
           t: Translate, ahead: WrittenAhead | None) -> Iterator[str | Finished]:
    width = options.width
    if options.header:
        yield from header_lines(walkthrough, options.lang, t, width)
    for index, step in enumerate(walkthrough.steps):
        yield from ["", *words(step_heading(step.number, step, t), width, "", INDENT)]
        if step.formula is not None:
            yield from formula(formula_text(step.formula, t), width, INDENT)
        for note in step.notes:
            yield from words(t(note), width, INDENT)
        matrices, identities = shown_matrices(step, options.full)
        if identities:
            yield from ["", *words(t(identities), width, INDENT)]
        for matrix in matrices:
            yield from ["", *matrix_lines(matrix, number, t, width, options.full)]
        if step.id == "weights" and options.heatmap:
            yield from ["", *words(heatmap_caption(t), width, INDENT),
                        *matrix_lines(step.matrices[0], number, t, width, options.full,
                                      heat=True)]
        if step.expansions:
            yield from ["", *words(t(Msg.of("Written out:")), width, INDENT)]
            if ahead is not None:
                yield Finished(ahead.cells(index))
            else:
                yield from written_out(step, t, number, options.full, width)
    for j, (heading, sentences) in enumerate(reading_sections(walkthrough, t)):
        yield from ["", *words(heading, width, "")]
        if ahead is not None:
            yield Finished(ahead.sentences(j))
        else:
            for sentence in sentences:
                yield from words(sentence, width, INDENT)
    drift = drift_lines(walkthrough, number, options.lang)
    if drift:
        yield from ["", *words(t(Msg.of("Hand calculation")), width, ""),
                    *(wrapped for line in drift for wrapped in item_lines(line, width))]


def item_lines(line: str, width: int) -> list[str]:
    """A line of a list (`  A[cat, cat]: …`) wrapped under its own first word, not the list's."""
    item = line.lstrip(" ")
    if item == line:
        return words(line, width, INDENT)
    indent = INDENT + line[:len(line) - len(item)]
    return words(item, width, indent, indent + "  ")


class Finished:
    """Lines as `stream` writes them (each without trailing spaces, with its line break): a
    part written ahead, after a heading, so never the document's first line."""

    __slots__ = ("text",)

    def __init__(self, text: str) -> None:
        self.text = text


def ended(line: str) -> str:
    """A line as `stream` writes it."""
    return line.rstrip() + "\n"


def header_lines(walkthrough: Walkthrough, lang: str, t: Translate, width: int) -> list[str]:
    """The title underlined, the description, the facts about the example."""
    name = words(title(walkthrough.header, lang, t), width, "")
    lines = [*name, "=" * max(cell_width(line) for line in name)]
    about = description(walkthrough.header, lang)
    if about:
        lines += ["", *words(about, width, "")]
    lines.append("")
    for fact in header_facts(walkthrough.header, t):
        lines += words(fact, width, "", INDENT)
    return lines




def document(walkthrough: Walkthrough, options: RenderOptions, langs: Sequence[str]) -> str:
    """The walkthrough in each of `langs`, each under a `## PL` heading."""
    return "".join(stream_document(walkthrough, options, langs))


def stream_document(walkthrough: Walkthrough, options: RenderOptions,
                    langs: Sequence[str]) -> Iterator[str]:
    return language_sections(walkthrough, options, langs, stream, language_heading)


def pad_left(text: str, width: int) -> str:
    return " " * (width - cell_width(text)) + text


def pad_right(text: str, width: int) -> str:
    return text + " " * (width - cell_width(text))


@same_in_every_language
def written_out(step: Step, t: Translate, number: NumberFormat, full: bool, width: int
                ) -> Iterable[str]:
    """The step's written-out cells, each wrapped to `width`: made as they are written; in
    `attn snippets` (drawn.py's several_languages) all at once, kept for the next language."""
    lines = (line for expansion in step.expansions
             for line in formula(expansion_text(expansion, number, t, full), width, INDENT))
    return tuple(lines) if several() else lines


def matrix_lines(matrix: Matrix, number: NumberFormat, t: Translate, width: int,
                 full: bool = False, heat: bool = False,
                 indent: str = INDENT, caption: bool = True) -> list[str]:
    """The matrix as aligned columns under its caption, split into blocks to fit `width`; a large
    one elided in the middle unless `full`; with `heat`, each number after its shade; a key the
    mask hides as `—`."""
    lines = [indent + matrix_caption(matrix)] if caption else []
    note = elided_note(matrix, full, t)
    if note:
        lines += words(note, width, indent)
    columns, blocks = _drawn(matrix, number, width, full, heat, indent)
    for block, drawn in blocks:
        marker = block_marker(block, len(columns), columns, t, matrix.shape[1])
        if marker:
            lines += words("[" + marker + "]", width, indent)
        lines += drawn
    return lines


def shown_cells(matrix: Matrix, row_at: Sequence[int | None], column_at: Sequence[int | None],
                number: NumberFormat, heat: bool) -> list[list[str]]:
    """The shown cells, row by row: each shown number written (the matrix's at once), `—` where
    the mask hides the key, with `heat` each after its shade; `…` for an elided row or column."""
    taken = [j for j in column_at if j is not None]
    read = [i for i in row_at if i is not None]
    values = [matrix.row(i)[taken].tolist() for i in read]  # (shown rows, shown columns)
    texts = iter(number.written([value for row in values for value in row]))
    by_row: dict[int, dict[int, str]] = {}
    for i, row in zip(read, values, strict=True):
        line = by_row[i] = {}
        for j, value in zip(taken, row, strict=True):
            text = number.cell_of(matrix, i, j, value, next(texts))
            line[j] = shade(value) + " " + text if heat else text
    return [[ELLIPSIS] * len(column_at) if i is None else
            [ELLIPSIS if j is None else by_row[i][j] for j in column_at] for i in row_at]


@per_matrix
def _drawn(matrix: Matrix, number: NumberFormat, width: int, full: bool, heat: bool,
           indent: str) -> tuple[tuple[str, ...], tuple[tuple[range, tuple[str, ...]], ...]]:
    """The shown column labels, and each block's columns and lines: the same in every
    language."""
    elide = is_elided(matrix, full)
    row_at, column_at = shown(matrix.shape[0], elide), shown(matrix.shape[1], elide)
    labels = [matrix.rows[i] if i is not None else ELLIPSIS for i in row_at]
    columns = [matrix.columns[j] if j is not None else ELLIPSIS for j in column_at]
    cells = shown_cells(matrix, row_at, column_at, number, heat)
    widths = [[cell_width(text) for text in row] for row in cells]  # each measured once
    label_width = max((cell_width(label) for label in labels), default=0)
    heads = [label_lines(c) for c in columns]  # a long label in lines, the last over the numbers
    col_widths = [
        max(*(cell_width(piece) for piece in heads[j]), *(row[j] for row in widths))
        for j in range(len(columns))
    ]
    available = width - len(indent) - label_width
    drawn = []
    for block in column_blocks([w + GAP for w in col_widths], available):
        lines = []
        tall = max(len(heads[j]) for j in block)
        for k in range(tall):
            head = "".join(" " * GAP + pad_left(
                ([""] * (tall - len(heads[j])) + heads[j])[k], col_widths[j]) for j in block)
            lines.append((indent + " " * label_width + head).rstrip() if k < tall - 1
                         else indent + " " * label_width + head)
        for label, row, row_widths in zip(labels, cells, widths, strict=True):
            body = "".join(" " * (GAP + col_widths[j] - row_widths[j]) + row[j] for j in block)
            lines.append(indent + pad_right(label, label_width) + body)
        drawn.append((block, tuple(lines)))
    return tuple(columns), tuple(drawn)
