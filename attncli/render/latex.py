"""LaTeX: a fragment for \\input (default) or, with `standalone`, a document pdflatex compiles.

Matrices are amsmath bmatrix environments labelled with their tokens, formulas are equation* (or
align* when a step has several lines), notes are paragraphs. Formulas come from Formula.latex only;
every word a user wrote (token names, titles) goes through tex.escape_text, so it prints
literally.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from attncli.i18n import Msg
from attncli.model import Matrix, Step, Walkthrough
from attncli.render import RenderOptions
from attncli.render.common import (
    Translate,
    block_marker,
    column_blocks,
    description,
    drift_lines,
    header_facts,
    number_format,
    reading_sections,
    shown_matrices,
    step_heading,
    title,
    translator,
)
from attncli.render.numbers import NumberFormat
from attncli.render.tex import escape_text, expansion_rows, labelled_matrix
from attncli.render.tex import number_format as tex_numbers

ENGINE = "pdflatex"
BABEL_NAMES = {"en": "english", "pl": "polish", "ru": "russian"}
CYRILLIC_LANGS = frozenset({"ru"})
MAX_MATRIX_COLS = 10  # amsmath's default limit for bmatrix
# A rough page width in characters of math: wider matrices are split into column blocks.
PAGE_CHARS = 64

EscapeFn = Callable[[str], str]
NumberFn = Callable[[float], str]


def render(walkthrough: Walkthrough, options: RenderOptions) -> str:
    return document(walkthrough, options, [options.lang])


def document(walkthrough: Walkthrough, options: RenderOptions, langs: Sequence[str]) -> str:
    """The walkthrough in each of `langs`; several languages each get a section of their own."""
    parts = [body(walkthrough, options, lang, len(langs) > 1) for lang in langs]
    text = "\n".join(parts)
    if options.standalone:
        return preamble(langs, text) + text + "\\end{document}\n"
    return fragment_comment(langs, text) + text


def uses_cyrillic(text: str) -> bool:
    return "T2A" in text or any("\u0400" <= ch <= "\u045f" for ch in text)


def fragment_comment(langs: Sequence[str], text: str) -> str:
    needs = [r"\usepackage{amsmath}"]
    if uses_cyrillic(text) or CYRILLIC_LANGS & set(langs):
        needs.insert(0, r"\usepackage[T2A,T1]{fontenc} (for the Cyrillic letters)")
    if len(langs) > 1:
        needs.append(r"\usepackage[" + ",".join(BABEL_NAMES[lang] for lang in langs) + "]{babel}")
    return (f"% attn export --latex: a fragment for \\input; engine: {ENGINE}.\n"
            "% Needs in the preamble: " + ", ".join(needs) + ".\n")


def preamble(langs: Sequence[str], text: str) -> str:
    """The preamble for pdflatex: T1 (plus T2A when there is Cyrillic) and babel for `langs`."""
    cyrillic = uses_cyrillic(text) or bool(CYRILLIC_LANGS & set(langs))
    encodings = "T2A,T1" if cyrillic and langs[0] not in CYRILLIC_LANGS else (
        "T1,T2A" if cyrillic else "T1")
    babel = [BABEL_NAMES[lang] for lang in langs[1:]] + [BABEL_NAMES[langs[0]]]  # last = main
    return "\n".join([
        f"% engine: {ENGINE} (compile with: {ENGINE} FILE.tex); written by attn export --latex "
        "--standalone",
        r"\documentclass{article}",
        r"\usepackage[" + encodings + "]{fontenc}",
        r"\usepackage[utf8]{inputenc}",
        r"\usepackage[" + ",".join(dict.fromkeys(babel)) + "]{babel}",
        r"\usepackage{amsmath}",
        r"\begin{document}",
        "",
    ])


def body(walkthrough: Walkthrough, options: RenderOptions, lang: str, sectioned: bool) -> str:
    number = number_format(walkthrough, options)
    t = translator(RenderOptions(lang=lang, precision=options.precision), number)
    math_number = tex_numbers(number)
    cyr = lang in CYRILLIC_LANGS

    def esc(text: str) -> str:
        return escape_text(text, "latex", cyr)

    header = walkthrough.header
    top, step_level = (r"\subsection*", r"\subsubsection*") if sectioned else (
        r"\section*", r"\subsection*")
    lines: list[str] = []
    if sectioned:
        lines += [r"\begin{otherlanguage}{" + BABEL_NAMES[lang] + "}",
                  r"\section*{" + lang.upper() + "}", ""]
    if options.header:
        lines += [top + "{" + esc(title(header, lang, t)) + "}", ""]
        about = description(header, lang)
        if about:
            lines += [esc(about), ""]
        lines += [esc(fact) + r"\\" for fact in header_facts(header, t)[:-1]]
        lines += [esc(header_facts(header, t)[-1]), ""]
    for step in walkthrough.steps:
        index = step.number
        lines += step_lines(index, step, step_level, t, esc, math_number, cyr, options.full)
        if step.expansions:
            lines += [esc(t(Msg.of("Written out:"))), "",
                      *align_block(written_out(step, math_number, t, esc, options.full)), ""]
    for heading, sentences in reading_sections(walkthrough, t):
        lines += [step_level + "{" + esc(heading) + "}", "", *(esc(s) + "\n" for s in sentences)]
    drift = drift_lines(walkthrough, number, lang)
    if drift:
        lines += [step_level + "{" + esc(t(Msg.of("Hand calculation"))) + "}", "",
                  *(esc(line) + "\n" for line in drift)]
    if sectioned:
        lines += [r"\end{otherlanguage}", ""]
    return "\n".join(lines)


def step_lines(index: int, step: Step, level: str, t: Translate, esc: EscapeFn,
               number: NumberFormat, cyr: bool, full: bool = False) -> list[str]:
    lines = [level + "{" + esc(step_heading(index, step, t)) + "}", ""]
    if step.formula is not None:
        lines += [*math_block([step.formula.latex]), ""]
    for note in step.notes:
        lines += [esc(t(note)), ""]
    matrices, identities = shown_matrices(step, full)
    if identities:
        lines += [esc(t(identities)), ""]
    for matrix in matrices:
        lines += matrix_lines(matrix, t, esc, number, cyr)
    return lines


def written_out(step: Step, number: NumberFormat, t: Translate, esc: EscapeFn,
                full: bool) -> list[str]:
    """The step's written-out cells as rows of an align* block."""
    def words(text: str) -> str:
        return r"\text{" + esc(text) + "}"

    def terms(count: int) -> str:
        return t(Msg.of("({terms})", terms=Msg.plural_of("{count} term", "{count} terms",
                                                           count)))

    return expansion_rows(step.expansions, number, words, terms, full)


def align_block(rows: Sequence[str]) -> list[str]:
    return [r"\begin{align*}", *(r + r" \\" for r in rows[:-1]), rows[-1], r"\end{align*}"]


def math_block(formulas: Sequence[str]) -> list[str]:
    """One formula as equation*, several (an expansion) as align* lines aligned at `=`."""
    if len(formulas) == 1:
        return [r"\begin{equation*}", formulas[0], r"\end{equation*}"]
    rows = [f.replace("=", "&=", 1) for f in formulas]
    return [r"\begin{align*}", *(r + r" \\" for r in rows[:-1]), rows[-1], r"\end{align*}"]


def matrix_lines(matrix: Matrix, t: Translate, esc: EscapeFn, number: NumberFormat,
                 cyr: bool) -> list[str]:
    cells = number.cells(matrix)
    lines: list[str] = []
    for block in matrix_blocks(matrix, cells):
        marker = block_marker(block, len(matrix.columns), matrix.columns, t)
        if marker:
            lines += [r"\noindent " + esc(marker), ""]
        if len(block) > MAX_MATRIX_COLS:
            lines.append(r"\setcounter{MaxMatrixCols}{" + str(len(block)) + "}")
        lines.append(r"\begin{equation*}")
        lines += labelled_matrix(matrix.symbol.latex, [[row[j] for j in block] for row in cells],
                                 matrix.rows, [matrix.columns[j] for j in block], "latex", cyr)
        lines += [r"\end{equation*}", ""]
    return lines


def matrix_blocks(matrix: Matrix, cells: list[list[str]], page: int = PAGE_CHARS) -> list[range]:
    """Column blocks that fit a page, judged by characters (a label or a number, and a gap)."""
    widths = [max(len(matrix.columns[j]), *(len(row[j]) for row in cells)) + 3
              for j in range(len(matrix.columns))]
    label = max((len(r) for r in matrix.rows), default=0)
    return column_blocks(widths, max(page - label, 1))
