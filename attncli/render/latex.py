"""LaTeX: a fragment for \\input (default) or, with `standalone`, a document pdflatex compiles.

The walkthrough's pieces (attncli/render/latex_parts.py) become sections: prose with its notation
as math, each matrix as labelled bmatrix blocks that fit the text width of an article (345 pt at
10 pt, or wider), written-out cells as paragraphs TeX breaks after `+` or `=`, and the weights
as a coloured heatmap. A fragment's first lines name exactly the packages its preamble needs.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence

from attncli.model import Lazy, Matrix, Walkthrough
from attncli.render import RenderOptions
from attncli.render.common import column_blocks
from attncli.render.latex_matrix import CELL_MACROS, Page
from attncli.render.latex_parts import parts
from attncli.render.latex_writer import CYRILLIC_LANGS, Part
from attncli.render.tex import escape_text, text_math

ENGINE = "pdflatex"
BABEL_NAMES = {"en": "english", "pl": "polish", "ru": "russian"}
ARTICLE = Page(width=345.0, font=10.0)
# A rough page width in characters of math, for the Markdown export's column blocks.
PAGE_CHARS = 64


def render(walkthrough: object, options: RenderOptions) -> str:
    return document(walkthrough, options, [options.lang])


def document(walkthrough: object, options: RenderOptions, langs: Sequence[str]) -> str:
    """The walkthrough in each of `langs`; several languages each get a section of their own."""
    return "".join(stream_document(walkthrough, options, langs))


def stream(walkthrough: object, options: RenderOptions) -> Iterator[str]:
    return stream_document(walkthrough, options, [options.lang])


def stream_document(walkthrough: object, options: RenderOptions,
                    langs: Sequence[str]) -> Iterator[str]:
    """`document` line by line; the written-out cells made as they are written. The preamble,
    which comes first, is judged from everything else and the labels the cells quote."""
    from attncli.model import Walkthrough

    assert isinstance(walkthrough, Walkthrough)
    sectioned = len(langs) > 1
    pieces = [(lang, parts(walkthrough, options, lang, ARTICLE)) for lang in langs]
    needs = packages(langs, known_text(walkthrough, [p for _, ps in pieces for p in ps]),
                     options.standalone)
    yield preamble(needs) if options.standalone else (
        fragment_comment(needs) + CELL_MACROS + "\n\n")
    for k, (lang, part) in enumerate(pieces):
        if k:
            yield "\n"
        yield from (line + "\n" for line in body(part, lang, sectioned))
    if options.standalone:
        yield "\\end{document}\n"


def known_text(walkthrough: Walkthrough, pieces: list[Part]) -> str:
    """Every line of `pieces` but the written-out cells (made later, as they are written), and
    the labels those cells quote, as they are written in LaTeX."""
    lines = [part.heading for part in pieces]
    lines += [line for part in pieces for chunk in part.chunks if not isinstance(chunk, Lazy)
              for line in chunk]
    lines += [text_math(label) for step in walkthrough.steps if step.expansions
              for matrix in step.matrices for label in (*matrix.rows, *matrix.columns)]
    return "\n".join(lines)


def uses_cyrillic(text: str) -> bool:
    return "T2A" in text or any("\u0400" <= ch <= "\u045f" for ch in text)


def packages(langs: Sequence[str], text: str, standalone: bool = False) -> list[str]:
    """The preamble lines that compile `text`: font encodings (T1 for Latin letters and the
    escapes, T2A for Cyrillic, the main language's last), babel (needed for Polish and Russian;
    a standalone document loads it for English too, for its hyphenation), amsmath, and xcolor
    with colortbl for a heatmap."""
    cyrillic = uses_cyrillic(text) or bool(CYRILLIC_LANGS & set(langs))
    encodings = ("T1,T2A" if langs[0] in CYRILLIC_LANGS else "T2A,T1") if cyrillic else "T1"
    lines = [r"\usepackage[" + encodings + "]{fontenc}"]
    babel = [BABEL_NAMES[lang] for lang in langs[1:]] + [BABEL_NAMES[langs[0]]]  # last = main
    if standalone or babel != ["english"]:
        lines.append(r"\usepackage[" + ",".join(dict.fromkeys(babel)) + "]{babel}")
    lines.append(r"\usepackage{amsmath}")
    if r"\cellcolor" in text:
        lines.append(r"\usepackage[table]{xcolor}")
    return lines


def fragment_comment(needs: Sequence[str]) -> str:
    return (f"% attn export --latex: a fragment for \\input; engine: {ENGINE}.\n"
            "% It needs exactly these lines in the preamble:\n"
            + "".join(f"%   {line}\n" for line in needs)
            + (BEAMER_XCOLOR if any("{xcolor}" in line for line in needs) else "")
            + "% Its matrices fit a text width of 345pt (an article at 10pt) or wider.\n")


# Beamer loads xcolor itself: a second \usepackage with options stops at `Option clash`
BEAMER_XCOLOR = ("% In a Beamer deck, which loads xcolor and amsmath itself, leave out those two"
                 " lines and give\n% the class the option instead: \\documentclass[xcolor=table]"
                 "{beamer}\n")


def preamble(needs: Sequence[str]) -> str:
    return "\n".join([
        f"% engine: {ENGINE} (compile with: {ENGINE} FILE.tex); written by attn export --latex "
        "--standalone",
        "% searchable text: cmap gives every font a Unicode map, so a PDF's Polish and Russian "
        "copy out as letters",
        "% even with bitmap T2A fonts (no cm-super); without cmap.sty the document still compiles",
        r"\documentclass{article}",
        r"\IfFileExists{cmap.sty}{\usepackage{cmap}}{}",
        *needs,
        CELL_MACROS,
        r"\begin{document}",
        "",
    ])


LEVELS = {False: (r"\section*", r"\subsection*"), True: (r"\subsection*", r"\subsubsection*")}


def body(pieces: list[Part], lang: str, sectioned: bool) -> Iterator[str]:
    """The lines of one language's part, without their line breaks."""
    top, step_level = LEVELS[sectioned]
    yield from [r"\begingroup\raggedright  % no stretched words, no overfull line", ""]
    if sectioned:
        yield from [r"\begin{otherlanguage}{" + BABEL_NAMES[lang] + "}",
                    r"\section*{" + escape_text(lang.upper()) + "}", ""]
    for part in pieces:
        level = top if part.kind == "title" else step_level
        yield from [level + "{" + part.heading + "}", ""]
        for chunk in part.chunks:
            yield from chunk
            yield ""
    if sectioned:
        yield from [r"\end{otherlanguage}", ""]
    yield r"\par\endgroup"


def matrix_blocks(matrix: Matrix, cells: list[list[str]], page: int = PAGE_CHARS) -> list[range]:
    """Column blocks that fit a page, judged by characters (a label or a number, and a gap): the
    Markdown export's split, where no font is known."""
    widths = [max(len(matrix.columns[j]), *(len(row[j]) for row in cells)) + 3
              for j in range(len(matrix.columns))]
    label = max((len(r) for r in matrix.rows), default=0)
    return column_blocks(widths, max(page - label, 1))
