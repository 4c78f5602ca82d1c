"""Lines that fit a width in terminal columns (attncli.render.columns.cell_width: a CJK character
takes two): prose broken between words, a written-out calculation broken after `=` or `+` with
a hanging indent. A piece that fits nowhere (a long vector, a long token) is broken after a
comma, then after `·`, and a word longer than a whole line is cut where the line ends.

Prose keeps a cell's name, a vector and a number with its unit on one line (`S[sat, sat]`,
`[0.20, 1.00]`, `1 MiB`: attncli.i18n.typography.bind_units) unless one is wider than a line,
and a formula in a sentence breaks after a relation or an operator, never before one, nor after
`ln` or between a number and the word it counts (bind_formulas_in_prose); their spaces stay
ordinary spaces in the output. A paragraph does not end in a line of one short word (`0.`)."""

from __future__ import annotations

import re

from attncli.i18n.typography import bind_formulas_in_prose, bind_units
from attncli.render.columns import cell_width, fitting
from attncli.render.marks import BOUND

HANGING = "    "  # a written-out line's continuation lines go this much further in
# A paragraph's last line of one word this wide or narrower, or of a number (`0.0057).`) as wide,
# takes the word before it along.
WIDOW, NUMBER_WIDOW = 4, 8
NUMBER = re.compile(r"[(\[]?[−-]?\d[\d.,]*[)\]]?[.,;:]?")

# Where a calculation may break, best first: (pattern, the break is after this many characters
# of the match; the rest of the match, a space, is dropped).
FORMULA_BREAKS = (
    # between the parts of a step's formula (`G = min(…),  U = clip(…),  M = (U + 1) ⊙ …`):
    # each part kept whole where it fits, never `M = (U +` over `1) ⊙ …`
    (re.compile(r",  "), 1),
    (re.compile(r" [=≈+] "), 2),  # `a = b`, `a ≈ b`, `a + b`: the line ends with the sign
    (re.compile(r"[,;] "), 1),  # inside a vector [0.10, 0.20, …]
    (re.compile(r" / "), 2),
    (re.compile(r"·"), 1),
)
# BOUND (attncli/render/marks.py), a space inside a unit of bind_units while prose is wrapped,
# one column wide: broken at only where no line break between words fits.
WORD_BREAKS = ((re.compile(r" +"), 0), (re.compile(BOUND), 0))


def words(text: str, width: int, indent: str, rest: str | None = None) -> list[str]:
    """`text` as lines of at most `width` columns, broken between words (not inside a cell's
    name, a vector or a number with its unit, where another break fits): the first line starts
    with `indent`, the others with `rest` (default: the same)."""
    rest = indent if rest is None else rest
    if BOUND in text or cell_width(indent + text) <= width:  # a user's own BOUND: as it is
        return fill(text, width, indent, rest, WORD_BREAKS)
    bound = bind_formulas_in_prose(bind_units(text, BOUND), BOUND)
    lines = fill(bound, width, indent, rest, WORD_BREAKS)
    if is_widow(lines[-1][len(rest):]):  # `… inf or⏎0.`: the last word takes the one before it
        last = bound.rfind(" ")
        if last > 0:
            lines = fill(bound[:last] + BOUND + bound[last + 1:], width, indent, rest, WORD_BREAKS)
    return [line.replace(BOUND, " ") for line in lines]


def is_widow(line: str) -> bool:
    """Whether a paragraph's last line is one short word alone (`0.`, `4.`, `0.0057)`)."""
    if " " in line or BOUND in line:
        return False
    width = cell_width(line)
    return width <= WIDOW or (width <= NUMBER_WIDOW and NUMBER.fullmatch(line) is not None)


def formula(text: str, width: int, indent: str) -> list[str]:
    """A written-out calculation in lines of at most `width` columns, broken after `=` or `+`
    where it can; continuation lines are indented by HANGING more."""
    return fill(text, width, indent, indent + HANGING, FORMULA_BREAKS)


def fill(text: str, width: int, first: str, rest: str,
         breaks: tuple[tuple[re.Pattern[str], int], ...]) -> list[str]:
    lines: list[str] = []
    prefix = first
    # the columns still to place, less what each line takes: the text is measured once
    remaining = cell_width(text)
    while cell_width(prefix) + remaining > width:
        room = max(1, width - cell_width(prefix))
        head, tail = cut(text, room, breaks)
        lines.append(prefix + head)
        remaining -= cell_width(text[:len(text) - len(tail)])
        text, prefix = tail, rest
    lines.append(prefix + text)
    return lines


def cut(text: str, room: int, breaks: tuple[tuple[re.Pattern[str], int], ...]) -> tuple[str, str]:
    """`text` split into a head of at most `room` columns and the rest, at the best break."""
    fits = fitting(text, room)  # a head fits if it is no longer than this
    for pattern, keep in breaks:
        best = None
        for match in pattern.finditer(text):
            end = match.start() + keep
            if end > 0 and len(text[:end].rstrip()) <= fits:
                best = (end, match.end())
            elif end > 0:
                break
        if best is not None and text[best[1]:].strip():
            return text[:best[0]].rstrip(), text[best[1]:].lstrip()
    end = max(fits, 1)  # no break fits: cut the word where the line ends
    return text[:end], text[end:].lstrip()
