"""Markdown for blog posts and READMEs, in three flavours.

- github (default): `$$` display blocks with one matrix row per line (GitHub drops a `\\\\` in the
  middle of a line), inline math as $`...`$, GitHub's own form.
- katex: the same display blocks, inline math as `$...$`, for KaTeX auto-render and
  markdown-it-katex sites.
- plain: no math at all: formulas in code blocks, matrices as tables.

Every `$$` block parses in KaTeX's strict mode (the tests check it). Words inside math are in
\\text{} and escaped by tex.escape_text; words in prose and tables are escaped here, so a token
name can neither break a table nor inject HTML.
"""

from __future__ import annotations

import json
from collections.abc import Sequence

from attncli.errors import UsageError
from attncli.i18n import Msg
from attncli.model import Matrix, Step, Walkthrough
from attncli.render import RenderOptions
from attncli.render.common import (
    Translate,
    block_marker,
    description,
    drift_lines,
    expansion_text,
    header_facts,
    number_format,
    reading_sections,
    shown_matrices,
    step_heading,
    title,
    translator,
)
from attncli.render.latex import matrix_blocks
from attncli.render.numbers import NumberFormat
from attncli.render.tex import labelled_matrix
from attncli.render.tex import number_format as tex_numbers
from attncli.visible import inert_markdown_math

FLAVORS = ("github", "katex", "plain")

# Characters that start Markdown syntax anywhere in a line; a backslash makes them literal.
MARKDOWN_SPECIALS = frozenset("\\`*_[]#|~$<>!")
# Characters that start a block at the beginning of a line (a list, a quote, a heading).
LINE_START = frozenset("-+>=")


def render(walkthrough: Walkthrough, options: RenderOptions) -> str:
    return document(walkthrough, options, [options.lang])


def document(walkthrough: Walkthrough, options: RenderOptions, langs: Sequence[str]) -> str:
    """The walkthrough in each of `langs`: several languages get `## EN`, `## PL` sections."""
    if options.md_flavor not in FLAVORS:
        raise UsageError(Msg.of("unknown Markdown flavor {flavor}; expected one of {known}",
                                flavor=options.md_flavor, known=", ".join(FLAVORS)))
    parts: list[str] = []
    if options.front_matter:
        parts.append(front_matter(walkthrough, options, langs))
    sectioned = len(langs) > 1
    for lang in langs:
        if sectioned:
            parts.append("## " + lang.upper() + "\n")
        parts.append(body(walkthrough, options, lang, "###" if sectioned else "#"))
    return "\n".join(parts)


def front_matter(walkthrough: Walkthrough, options: RenderOptions, langs: Sequence[str]) -> str:
    """YAML front matter: title_<lang> and description_<lang>, quoted as JSON strings (which YAML
    reads as they are)."""
    lines = ["---"]
    number = number_format(walkthrough, options)
    for lang in langs:
        t = translator(RenderOptions(lang=lang), number)
        lines.append(f"title_{lang}: " + json.dumps(title(walkthrough.header, lang, t),
                                                    ensure_ascii=False))
    for lang in langs:
        about = description(walkthrough.header, lang)
        if about:
            lines.append(f"description_{lang}: " + json.dumps(" ".join(about.split()),
                                                              ensure_ascii=False))
    lines.append("---")
    return "\n".join(lines) + "\n"


def escape(text: str) -> str:
    """A line of prose or a table cell that Markdown prints as written: no HTML, no emphasis, no
    link, no table border."""
    out = []
    for ch in " ".join(text.split()):
        if ch == "&":
            out.append("&amp;")
        elif ch in MARKDOWN_SPECIALS:
            out.append("\\" + ch)
        else:
            out.append(ch)
    line = "".join(out)
    if line[:1] in LINE_START or _numbered(line):
        line = "\\" + line
    return line


def _numbered(line: str) -> bool:
    """`1. word` or `1) word` at the start of a line would begin a numbered list."""
    digits = len(line) - len(line.lstrip("0123456789"))
    return 0 < digits < len(line) and line[digits] in ".)"


def body(walkthrough: Walkthrough, options: RenderOptions, lang: str, top: str) -> str:
    number = number_format(walkthrough, options)
    t = translator(RenderOptions(lang=lang, precision=options.precision), number)
    header = walkthrough.header
    lines: list[str] = []
    if options.header:
        lines += [top + " " + escape(title(header, lang, t)), ""]
        about = description(header, lang)
        if about:
            lines += [escape(about), ""]
        facts = header_facts(header, t)
        lines += [escape(fact) + ("  " if i < len(facts) - 1 else "")
                  for i, fact in enumerate(facts)]
        lines.append("")
    for step in walkthrough.steps:
        index = step.number
        lines += step_lines(index, step, top + "#", t, number, options.md_flavor, lang,
                            options.full)
        if step.expansions:  # as the lines a learner recomputes, in every flavor
            lines += [escape(t(Msg.of("Written out:"))), "", *bullets(
                [expansion_text(e, number, t, options.full) for e in step.expansions]), ""]
    for heading, sentences in reading_sections(walkthrough, t):
        lines += [top + "# " + escape(heading), "", *(escape(s) + "\n" for s in sentences)]
    drift = drift_lines(walkthrough, number, lang)
    if drift:
        lines += [top + "# " + escape(t(Msg.of("Hand calculation"))), "",
                  escape(drift[0]), "", *bullets([line.strip() for line in drift[1:]]), ""]
    return "\n".join(lines)


def bullets(lines: list[str]) -> list[str]:
    """Lines as a list, each escaped like prose (a token cannot start markup or HTML)."""
    return ["- " + escape(line) for line in lines]


def step_lines(index: int, step: Step, level: str, t: Translate, number: NumberFormat,
               flavor: str, lang: str, full: bool = False) -> list[str]:
    lines = [level + " " + escape_heading(step_heading(index, step, t)), ""]
    if step.formula is not None:
        if flavor == "plain":
            lines += ["```text", step.formula.text, "```", ""]
        else:
            lines += ["$$", inert_markdown_math(step.formula.latex), "$$", ""]
    for note in step.notes:
        lines += [escape(t(note)), ""]
    matrices, identities = shown_matrices(step, full)
    if identities:
        lines += [escape(t(identities)), ""]
    for matrix in matrices:
        if flavor == "plain":
            lines += table_lines(matrix, number, t)
        else:
            lines += math_lines(matrix, number, t, flavor)
    return lines


def escape_heading(text: str) -> str:
    # a heading's `1.` is no list, so only the inline escapes apply
    return escape(text).lstrip("\\") if _numbered(text) else escape(text)


def inline_math(tex: str, flavor: str) -> str:
    tex = inert_markdown_math(tex)
    return "$`" + tex + "`$" if flavor == "github" else "$" + tex + "$"


def caption(matrix: Matrix, flavor: str) -> str:
    rows, columns = matrix.shape
    symbol = inline_math(matrix.symbol.latex, flavor) if flavor != "plain" else (
        "**" + escape(matrix.symbol.text) + "**")
    return f"{symbol} ({rows} × {columns})"


def math_lines(matrix: Matrix, prose: NumberFormat, t: Translate, flavor: str) -> list[str]:
    cells = tex_numbers(prose).cells(matrix)
    lines = [caption(matrix, flavor), ""]
    for block in matrix_blocks(matrix, cells):
        marker = block_marker(block, len(matrix.columns), matrix.columns, t)
        if marker:
            lines += ["*" + escape(marker) + "*", ""]
        lines.append("$$")
        lines += map(inert_markdown_math, labelled_matrix(
            matrix.symbol.latex, [[row[j] for j in block] for row in cells], matrix.rows,
            [matrix.columns[j] for j in block], "katex"))
        lines += ["$$", ""]
    return lines


def table_lines(matrix: Matrix, number: NumberFormat, t: Translate) -> list[str]:
    """A GFM table: the row labels in the first column, the column labels as the header."""
    lines = [caption(matrix, "plain"), ""]
    head = "| " + " | ".join(["", *(escape(c) for c in matrix.columns)]) + " |"
    rule = "|" + "|".join(["---", *("---:" for _ in matrix.columns)]) + "|"
    lines += [head, rule]
    for label, row in zip(matrix.rows, number.cells(matrix), strict=True):
        cells = [escape(label) or " ", *row]
        lines.append("| " + " | ".join(cells) + " |")
    lines.append("")
    return lines
