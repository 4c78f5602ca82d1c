"""Typst: a fragment for `#include` (default), a whole document with `standalone`, or slides with
`slides` (one page per step, 16:9 or 4:3 by `aspect`, a step that does not fit continuing on
the next page). `typst compile FILE.typ` makes the PDF; the compiler is one binary (and the
`typst` package on PyPI carries it).

Every user text is a Typst string literal (render/typst_math.quoted), so no token name can
become markup; formulas are Typst math (render/typst_math.py); matrices are tables with their
labels, split into column blocks that fit the page (render/typst_parts.py). The document's
helpers are named attn-…, and a fragment's set rules stay inside the file it is included from.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator, Sequence

from attncli.model import Walkthrough
from attncli.records import record
from attncli.render import RenderOptions
from attncli.render.long_names import Names
from attncli.render.typst_math import quoted
from attncli.render.typst_parts import Layout, parts


@record
class Page:
    """A page's `#set page` and text size, and the width a matrix block may take (points)."""

    setup: str
    size: str
    width: float


FRAGMENT = Page("", "10pt", 345.0)  # the text width it is written for: an article's at 10pt
DOCUMENT = Page("#set page(paper: \"a4\", margin: 2cm)", "10pt", 481.0)
SLIDES = {
    "169": Page("#set page(width: 25.4cm, height: 14.29cm, margin: (x: 1.2cm, y: 1cm))", "14pt",
                652.0),
    "43": Page("#set page(width: 25.4cm, height: 19.05cm, margin: (x: 1.2cm, y: 1cm))", "14pt",
               652.0),
}

# The matrix helper every document defines: a table with its column labels as a header (again
# on a page the table continues on), its row labels, and a rule each side of the numbers.
HELPERS = r"""#let attn-label(x) = text(fill: luma(35%), x)
#let attn-matrix(name, size, columns, rows, cells, fills: none, inks: none, note: none) = {
  let n = columns.len()
  let body = ()
  for (i, row) in rows.enumerate() {
    body.push(attn-label(row))
    for (j, x) in cells.at(i).enumerate() {
      if fills == none { body.push(x) } else {
        body.push(table.cell(fill: rgb(fills.at(i).at(j)), text(fill: rgb(inks.at(i).at(j)), x)))
      }
    }
  }
  block(below: 0.4em, sticky: true)[#name #attn-label[(#size)]]
  if note != none { block(below: 0.4em, sticky: true, text(size: 0.85em, emph(note))) }
  text(size: 0.85em, table(columns: n + 1, align: right, stroke: none,
    inset: (x: 0.4em, y: 0.25em),
    table.header(table.cell(stroke: none)[], ..columns.map(attn-label)),
    table.vline(x: 1, start: 1, stroke: 0.5pt), table.vline(x: n + 1, start: 1, stroke: 0.5pt),
    ..body))
}
#let attn-line(x) = block(above: 0.45em, below: 0.45em,
  par(hanging-indent: 2em, text(size: 0.85em, x.split(" ").map(box).join(" "))))"""


def render(walkthrough: Walkthrough, options: RenderOptions) -> str:
    return document(walkthrough, options, [options.lang])


def document(walkthrough: Walkthrough, options: RenderOptions, langs: Sequence[str]) -> str:
    return "".join(stream_document(walkthrough, options, langs))


def page_of(options: RenderOptions) -> Page:
    if options.slides:
        return SLIDES[options.aspect]
    return DOCUMENT if options.standalone else FRAGMENT


def stream_document(walkthrough: Walkthrough, options: RenderOptions,
                    langs: Sequence[str]) -> Iterator[str]:
    """The document; a token name too wide for the page shown in the middle as LaTeX shows it
    (render/long_names.py), in every string literal it goes into."""
    return Names.of(walkthrough).stream(_stream(walkthrough, options, langs), [in_literal],
                                        in_literals)


# A string literal: a name is written only in one, so the code around it (the helpers, a
# call's arguments) is never rewritten, whatever a token spells
_LITERAL = re.compile(r'"(?:[^"\\]|\\.)*"')


def in_literals(chunk: str, shorten: Callable[[str], str]) -> str:
    """`chunk` with `shorten` applied inside each of its string literals."""
    return _LITERAL.sub(lambda found: shorten(found.group()), chunk)


def in_literal(text: str) -> str:
    """`text` as a string literal holds it (quoted, without its quotes)."""
    return quoted(text)[1:-1]


def _stream(walkthrough: Walkthrough, options: RenderOptions,
            langs: Sequence[str]) -> Iterator[str]:
    page = page_of(options)
    if options.slides:
        yield "// attn export --typst --slides: compile with typst compile FILE.typ\n"
    elif options.standalone:
        yield "// attn export --typst --standalone: compile with typst compile FILE.typ\n"
    else:
        yield ("// attn export --typst: a fragment for #include(\"FILE.typ\"); its set rules and "
               "its attn-… helpers stay inside it.\n"
               f"// Its matrices fit a text width of {page.width:g}pt or wider.\n")
    yield HELPERS + "\n"
    if page.setup:
        yield page.setup + "\n"
    yield f"#set text(size: {page.size}, lang: {quoted(langs[0])})\n"
    yield "#set par(justify: false)\n"
    if options.slides:
        yield "#show heading: set block(below: 0.8em)\n"
    layout = Layout(width=page.width, slides=options.slides)
    for lang in langs:
        yield f"#[\n#set text(lang: {quoted(lang)})\n"
        if len(langs) > 1:
            yield f"#heading(level: 1, {quoted(lang.upper())})\n"
        for part in parts(walkthrough, options, lang, layout):
            if options.slides and part.kind != "title":
                yield "#pagebreak(weak: true)\n"
            level = 1 + (len(langs) > 1) + (part.kind != "title")
            yield f"#heading(level: {level}, {quoted(part.heading)})\n\n"
            for chunk in part.chunks:
                yield chunk + "\n\n"
        yield "]\n"
