"""What the renderers share: the words of the header and step headings, number formatting,
and splitting a wide matrix into column blocks that fit the screen."""

from __future__ import annotations

import unicodedata
from collections.abc import Callable

from attncli.i18n import Msg, translate
from attncli.model import Header, Matrix, Step, Walkthrough
from attncli.render import RenderOptions
from attncli.render.numbers import NumberFormat

Translate = Callable[[Msg], str]


def number_format(walkthrough: Walkthrough, options: RenderOptions) -> NumberFormat:
    precision = walkthrough.precision if options.precision is None else options.precision
    return NumberFormat(precision=precision)


def translator(options: RenderOptions, number: NumberFormat) -> Translate:
    return lambda msg: translate(msg, options.lang, number)


def title(header: Header, lang: str, t: Translate) -> str:
    for key in (lang, "", "en"):
        if key in header.title:
            return header.title[key]
    return t(Msg.of("Attention step by step"))


def description(header: Header, lang: str) -> str | None:
    for key in (lang, "", "en"):
        if key in header.description:
            return header.description[key]
    return None


def header_facts(header: Header, t: Translate) -> list[str]:
    """Short facts about the example: sizes, mask, scale."""
    if header.n_queries == header.n_keys:
        sizes = [t(Msg.plural_of("{count} token", "{count} tokens", header.n_queries))]
    else:
        sizes = [t(Msg.plural_of("{count} query", "{count} queries", header.n_queries)),
                 t(Msg.plural_of("{count} key", "{count} keys", header.n_keys))]
    sizes += [f"d_model = {header.d_model}", f"d_k = {header.d_k}", f"d_v = {header.d_v}"]
    if header.n_heads > 1:
        sizes.append(t(Msg.plural_of("{count} head", "{count} heads", header.n_heads)))
    return [
        ", ".join(sizes),
        t(Msg.of("mask: {mask}", mask=header.mask)) + " · " +
        t(Msg.of("scale: {scale}", scale=header.scale)),
    ]


def step_heading(number: int, step: Step, t: Translate) -> str:
    text = f"{number}. {t(step.title)}"
    if step.head is not None:
        text += " — " + t(Msg.of("head {index}", index=step.head))
    return text


def matrix_caption(matrix: Matrix) -> str:
    rows, columns = matrix.shape
    return f"{matrix.symbol.text}  ({rows} × {columns})"


def cell_width(text: str) -> int:
    """Columns a string takes in a terminal: wide East Asian characters count twice."""
    return sum(
        0 if unicodedata.combining(ch) else 2 if unicodedata.east_asian_width(ch) in "WF" else 1
        for ch in text
    )


def column_blocks(widths: list[int], available: int) -> list[range]:
    """Consecutive column ranges whose widths (each with its gap) fit in `available`."""
    blocks: list[range] = []
    start, used = 0, 0
    for j, width in enumerate(widths):
        if j > start and used + width > available:
            blocks.append(range(start, j))
            start, used = j, 0
        used += width
    blocks.append(range(start, len(widths)))
    return blocks


def block_marker(block: range, total: int, columns: tuple[str, ...], t: Translate) -> str | None:
    """`columns d1–d8 of 24` when a matrix is split, else None."""
    if len(block) == total:
        return None
    return t(Msg.of("columns {first}–{last} of {total}", first=columns[block.start],
                    last=columns[block.stop - 1], total=total))
