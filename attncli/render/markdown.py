"""Markdown for blog posts and READMEs, in three flavours.

- github (default): display math in ```` ```math ```` fences and inline math as $`...`$, GitHub's
  own forms (GitLab and markdown-it-texmath's `gitlab` delimiters read them too).
- katex: display math between `$$` lines and inline math as `$...$`, for markdown-it-texmath,
  pandoc, and KaTeX or MathJax auto-render run on the HTML a CommonMark renderer made.
- plain: no math at all: formulas in code blocks, matrices as tables.

Both math flavours carry the same math, built by md_math so that GitHub, KaTeX and MathJax 3's
default bundle draw it alike (tests/test_markdown_render.py renders every example in a browser).
The notation in prose (`d_model`, `√d_k`) is typeset as math too; every other word in prose and
tables is escaped here, so a token name can neither break a table nor inject HTML.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import replace

from attncli.arithmetic.numbers import NumberFormat
from attncli.errors import UsageError
from attncli.i18n import Msg, suggesting
from attncli.i18n.visible import inert_markdown_math
from attncli.model import Matrix, Step, Walkthrough
from attncli.render import RenderOptions, md_math, md_measure, shortened
from attncli.render.common import (
    BOX_MARKDOWN,
    Translate,
    description,
    drift_lines,
    expansion_text,
    formula_latex,
    formula_text,
    header_facts,
    number_format,
    reading_sections,
    shown_matrices,
    step_heading,
    title,
    translator,
)
from attncli.render.drawn import per_matrix, same_in_every_language, several
from attncli.render.marks import SWITCH
from attncli.render.md_prose import Marked, inline_math, numbered, prose
from attncli.render.md_prose import escape as escape  # what other renderers escape prose with
from attncli.render.shown_cells import ShownCells, block_marker, cell_texts, elided_note
from attncli.render.tex import expansion_rows, text_math
from attncli.render.tex import number_format as tex_numbers

FLAVORS = ("github", "katex", "plain")



def render(walkthrough: Walkthrough, options: RenderOptions) -> str:
    return "".join(stream(walkthrough, options))


def document(walkthrough: Walkthrough, options: RenderOptions, langs: Sequence[str]) -> str:
    """The walkthrough in each of `langs`: several languages get `## EN`, `## PL` sections."""
    return "".join(stream_document(walkthrough, options, langs))


def stream(walkthrough: Walkthrough, options: RenderOptions) -> Iterator[str]:
    return stream_document(walkthrough, options, [options.lang])


def stream_document(walkthrough: Walkthrough, options: RenderOptions,
                    langs: Sequence[str]) -> Iterator[str]:
    """`document` line by line, each line as it is made."""
    if options.md_flavor not in FLAVORS:
        raise UsageError(suggesting(Msg.of(
            "unknown Markdown flavor {flavor}; expected one of {known}",
            flavor=options.md_flavor, known=", ".join(FLAVORS)), options.md_flavor, FLAVORS))
    first = True
    if options.front_matter:
        yield front_matter(walkthrough, options, langs)
        first = False
    sectioned = len(langs) > 1
    for lang in langs:
        if sectioned:
            yield ("" if first else "\n") + "## " + lang.upper() + "\n"
            first = False
        for k, line in enumerate(body(walkthrough, options, lang, "###" if sectioned else "#")):
            yield ("\n" if k or not first else "") + line
        first = False


def front_matter(walkthrough: Walkthrough, options: RenderOptions, langs: Sequence[str]) -> str:
    """YAML front matter that pandoc, Hugo and Jekyll read: `title`, `lang` and `description`
    in the first language (pandoc's <title>, <html lang> and meta description; Hugo's and
    Jekyll's page.title, page.lang, page.description), `math: true` where there is math (the
    switch Hugo's documentation and many Jekyll themes use to load KaTeX or MathJax), then
    title_<lang> and description_<lang> for every language. Strings are quoted as JSON, which
    YAML reads as they are."""
    number = number_format(walkthrough, options)

    def quoted(text: str) -> str:
        return json.dumps(text, ensure_ascii=False)

    titles = {lang: title(walkthrough.header, lang, translator(RenderOptions(lang=lang), number))
              for lang in langs}
    about = {lang: " ".join((description(walkthrough.header, lang) or "").split())
             for lang in langs}
    first = langs[0]
    lines = ["---", "title: " + quoted(as_markdown(titles[first])), "lang: " + first]
    if about[first]:
        lines.append("description: " + quoted(as_markdown(about[first])))
    if options.md_flavor != "plain":
        lines.append("math: true")
    lines += [f"title_{lang}: " + quoted(unnoted(titles[lang])) for lang in langs]
    lines += [f"description_{lang}: " + quoted(unnoted(about[lang])) for lang in langs
              if about[lang]]
    lines.append("---")
    return "\n".join(lines) + "\n"


def as_markdown(text: str) -> str:
    """`title` and `description` as pandoc reads them, Markdown: outside a code span, what it
    would make other than text (_MARKUP) gets a backslash, so pandoc shows it as written and
    makes no element or link of it; a code span stays (pandoc shows it as code, a backslash
    inside it as written) but a brace right after it is escaped, which would give it attributes
    or make it raw HTML (`` `<img …>`{=html} ``). Every `[` outside a code span is escaped when
    a `](`, `][` or `]{` follows it anywhere in the text, inside a code span or past a line
    break too: link text nests (`[a [b] c](…)`) and holds code spans (``[a `]` b](…)``), so no
    `[` that may open a link, a span or an image is left; nor one after `^` (`^[…]`, pandoc's
    inline note, which links to the note). Everything else is left as written,
    for Hugo's and Jekyll's templates, which print the text: `Q & A [draft]` is the same in
    both. title_<lang> and description_<lang> are as written but for an inline note (unnoted)."""
    out, start = [], 0
    for span in _CODE_SPAN.finditer(text):
        out += [_outside(text, start, span.start()), span.group()]
        start = span.end()
        if text.startswith("{", start):
            out.append("\\{")
            start += 1
    return "".join([*out, _outside(text, start, len(text))])


def _outside(text: str, start: int, end: int) -> str:
    """`text[start:end]`, outside any code span, escaped (as_markdown)."""
    piece = _MARKUP.sub(_escaped, text[start:end])
    return (piece.replace("[", "\\[") if _CLOSES.search(text, start)
            else piece.replace("^[", "^\\["))  # `^[…]`: an inline note, a link to it


def unnoted(text: str) -> str:
    """A title_<lang> or description_<lang>: as written, for a template that prints it, but for
    an inline note. pandoc reads every field of the front matter as Markdown and writes the note
    `^[…]` of any of them, in no template, at the page's end with its raw HTML and links live
    (`^[<img src=x onerror=…>]`), so its bracket gets a backslash: everywhere, a code span's too,
    as a backslash written before a backtick (which such a field keeps) makes it no span."""
    return text.replace("^[", "^\\[")


def _escaped(found: re.Match[str]) -> str:
    return "\\" + found.group()


# An HTML tag, comment or autolink (`<pad>`, `<!--`, `<https://…>`), an entity (`&amp;`), and a
# backslash (an escape or raw TeX)
_MARKUP = re.compile(r"<(?=[A-Za-z][A-Za-z0-9-]*(?:[\s/>]|$)|/[A-Za-z]|[!?]"
                     r"|[A-Za-z][A-Za-z0-9+.-]*:)|&(?=#?\w+;)|\\")
# The end of a link's text, a span's or an image's (`](…)`, `][y]`, `]{…}`)
_CLOSES = re.compile(r"\][(\[{]")
# A code span: a run of backticks, then text, then a run of as many (CommonMark and pandoc)
_CODE_SPAN = re.compile(r"(?<!`)(`+)(?!`)(.+?)(?<!`)\1(?!`)", re.S)


# Stands for the switch that shows every number while a sentence is escaped; then the switch
# itself as code, which no Markdown engine turns into a dash (pandoc, Hugo and kramdown make
# `--` an en dash in text).


def body(walkthrough: Walkthrough, options: RenderOptions, lang: str,
         top: str) -> Iterator[str]:
    """The lines of one language's part, without their line breaks."""
    code = "`" + options.full_switch + "`"
    for line in _body(walkthrough, options, lang, top):
        yield line.replace(SWITCH, code) if SWITCH in line else line


def _body(walkthrough: Walkthrough, options: RenderOptions, lang: str,
          top: str) -> Iterator[str]:
    number = number_format(walkthrough, options)
    t = translator(replace(options, lang=lang, full_switch=options.full_switch and SWITCH),
                   number)  # an empty switch: a document, which names none
    header = walkthrough.header
    flavor = options.md_flavor
    if options.header:
        yield from [top + " " + escape(title(header, lang, t)), ""]  # as written: a_b stays
        about = description(header, lang)
        if about:
            yield from [escape(about), ""]
        facts = header_facts(header, t)
        yield from [prose(fact, flavor, (), lang) + ("  " if i < len(facts) - 1 else "")
                    for i, fact in enumerate(facts)]
        yield ""
    for step in walkthrough.steps:
        yield from step_lines(step.number, step, top + "#", t, number, flavor, lang,
                              options.full)
        if step.expansions:  # as the lines a learner recomputes, in every flavor
            yield from [escape(t(Msg.of("Written out:"))), ""]
            yield from written_out(step, number, t, flavor, options.full)
            yield ""
    marked = Marked(t)
    for heading, sentences in reading_sections(walkthrough, marked):
        yield from [top + "# " + escape(marked.unmark(heading)), ""]
        yield from (prose(s, flavor, marked.words, lang) + "\n" for s in sentences)
    drift = drift_lines(walkthrough, number, lang)
    if drift:
        yield from [top + "# " + escape(t(Msg.of("Hand calculation"))), "",
                  escape(drift[0]), "", *bullets([line.strip() for line in drift[1:]]), ""]


def bullets(lines: list[str]) -> list[str]:
    """Lines as a list, each escaped like prose (a token cannot start markup or HTML)."""
    return ["- " + escape(line) for line in lines]


def step_lines(index: int, step: Step, level: str, t: Translate, number: NumberFormat,
               flavor: str, lang: str, full: bool = False) -> list[str]:
    heading = step_heading(index, step, t)
    lines = [level + " " + (escape_heading(heading) if flavor == "plain"
                            else prose(heading, flavor, (), lang).removeprefix("\\")), ""]
    if step.formula is not None:
        if flavor == "plain":
            lines += ["```text", formula_text(step.formula, t), "```", ""]
        else:
            lines += display([md_math.formula(formula_latex(step.formula, t))], flavor)
    for note in step.notes:
        marked = Marked(t)
        lines += [prose(marked(note), flavor, marked.words, lang), ""]
    matrices, identities = shown_matrices(step, full)
    if identities:
        marked = Marked(t)
        lines += [prose(marked(identities), flavor, marked.words, lang), ""]
    for matrix in matrices:
        if flavor == "plain":
            lines += table_lines(matrix, number, t, full)
        else:
            lines += math_lines(matrix, number, t, flavor, full)
    return lines


def escape_heading(text: str) -> str:
    # a heading's `1.` is no list, so only the inline escapes apply
    return escape(text).lstrip("\\") if numbered(text) else escape(text)


def written_out(step: Step, number: NumberFormat, t: Translate, flavor: str,
                full: bool) -> Iterable[str]:
    """The written-out cells, one list item each: text in `plain`, else inline math."""
    if flavor == "plain":
        return ("- " + escape(expansion_text(e, number, t, full)) for e in step.expansions)
    return _math_items(step, t, number, flavor, full)


@same_in_every_language
def _math_items(step: Step, t: Translate, number: NumberFormat, flavor: str, full: bool
                ) -> Iterable[str]:

    def terms(count: int) -> str:
        return t(shortened.left_out(count))

    # a negative number's minus braced, an ordinary symbol: MathJax 3 spaces a bare one after
    # `,\ ` as an operator (`[0.73, − 1.04]`)
    math_numbers = replace(tex_numbers(number), minus="{-}", minus_infinity=r"{-}\infty")
    rows = expansion_rows(step.expansions, math_numbers, text_math, terms, full,
                          box=lambda text: md_math.number(md_math.BLANK + text)[0])
    items = ("- " + " ".join(inline_math(piece, flavor) for piece in row)
             for row in md_math.written_out(rows))
    return tuple(items) if several() else items  # kept whole for the next language


def display(lines: list[str], flavor: str) -> list[str]:
    """Display math: a ```math fence on GitHub, `$$` lines for KaTeX; then a blank line."""
    fence = ("```math", "```") if flavor == "github" else ("$$", "$$")
    return [fence[0], *map(inert_markdown_math, lines), fence[1], ""]


def caption(matrix: Matrix, flavor: str) -> str:
    rows, columns = matrix.shape
    symbol = inline_math(md_math.formula(matrix.symbol.latex), flavor) if flavor != "plain" else (
        "**" + escape(matrix.symbol.text) + "**")
    return f"{symbol} ({rows} × {columns})"


def _blocks(symbol: str, shown: ShownCells, columns: list[str],
            numbers: list[list[tuple[str, float]]], rows: list[str]) -> list[range]:
    """md_measure.blocks; an elided matrix's on each side of its mark (`d1 … d4 ⋯` and `d25 … d28`),
    so that no side is cut into a lone column where the whole was cut in three."""
    if None not in shown.columns:
        return md_measure.blocks(symbol, columns, numbers, rows)
    mark = shown.columns.index(None) + 1
    left = md_measure.blocks(symbol, columns[:mark], [row[:mark] for row in numbers], rows)
    right = md_measure.blocks(symbol, columns[mark:], [row[mark:] for row in numbers], rows)
    return [*left, *(range(b.start + mark, b.stop + mark) for b in right)]


def math_lines(matrix: Matrix, number: NumberFormat, t: Translate, flavor: str,
               full: bool = True) -> list[str]:
    """The matrix as display math, in column blocks that fit a page; a large one elided in the
    middle unless `full`."""
    lines = [caption(matrix, flavor), "", *elided_lines(matrix, full, t)]
    columns, blocks = _drawn(matrix, number, flavor, full)
    for block, drawn in blocks:
        marker = block_marker(block, len(columns), columns, t, matrix.shape[1])
        if marker:
            lines += ["*" + escape(marker) + "*", ""]
        lines += drawn
    return lines


@per_matrix
def _drawn(matrix: Matrix, number: NumberFormat, flavor: str, full: bool
           ) -> tuple[tuple[str, ...], tuple[tuple[range, tuple[str, ...]], ...]]:
    """The shown column labels, and each block's columns and display lines: the same in every
    language."""
    # a worksheet's blank cell: a line to write on, as wide as a number (md_math.number)
    cells = cell_texts(matrix, number, md_math.BLANK + number(0.0), full)
    shown = ShownCells(matrix, full)
    rows, columns = shown.row_labels(), shown.column_labels()
    symbol = md_math.formula(matrix.symbol.latex)
    numbers = [[md_math.number(c) for c in row] for row in cells]
    wrap = md_measure.wraps(symbol, columns, numbers, rows)  # 40-character names: labels in lines
    return tuple(columns), tuple(
        (block, tuple(display(md_math.labelled_matrix(
            symbol, [[row[j] for j in block] for row in cells], rows,
            [columns[j] for j in block], wrap), flavor)))
        for block in shown.split(_blocks(symbol, shown, columns, numbers, rows)))


def table_lines(matrix: Matrix, number: NumberFormat, t: Translate,
                full: bool = True) -> list[str]:
    """A GFM table: the row labels in the first column, the column labels as the header; a
    large matrix elided in the middle unless `full`."""
    shown = ShownCells(matrix, full)
    lines = [caption(matrix, "plain"), "", *elided_lines(matrix, full, t)]
    head = "| " + " | ".join(["", *(escape(c) for c in shown.column_labels())]) + " |"
    rule = "|" + "|".join(["---", *("---:" for _ in shown.columns)]) + "|"
    lines += [head, rule]
    for label, row in zip(shown.row_labels(), cell_texts(matrix, number, BOX_MARKDOWN, full),
                          strict=True):
        cells = [escape(label) or " ", *row]
        lines.append("| " + " | ".join(cells) + " |")
    lines.append("")
    return lines


def elided_lines(matrix: Matrix, full: bool, t: Translate) -> list[str]:
    """The note under a caption that the middle of the matrix is left out, if it is: in italics
    like a block's `columns d1–d4 of 64`, without the terminal's brackets (an escaped `\\[`
    opens display math for a site that typesets `\\[ … \\]`, MkDocs' arithmatex among them)."""
    note = elided_note(matrix, full, t)
    return ["*" + escape(note.removeprefix("[").removesuffix("]")) + "*", ""] if note else []
