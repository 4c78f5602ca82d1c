"""Which cells `--expand` writes out, read from its options, and which of a step's cells that is.

    auto                    one representative row per step on a small spec, nothing on a large one
    all | none              every cell of every step, or nothing
    shown                   every cell a view shows: all, but the middle of a large matrix
    STEP:ROW                every cell of ROW in STEP (scores:chases), or its softmax / weighted sum
    STEP:ROW,COLUMN         one cell (scores:chases,mouse; projections:cat,d1)

The cells are found lazily, row by row (`cells`, `rows`): `-x all` on n tokens names n × m
cells a head, which are written out as they are found and never listed.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import field, replace
from itertools import chain

import numpy as np

from attncli.arithmetic import elision
from attncli.errors import UsageError
from attncli.i18n import Msg, suggesting
from attncli.i18n.visible import visible_label
from attncli.model import FeatureLabels, HeadResult, Labels, Step, Walkthrough
from attncli.records import record
from attncli.spec.limits import DEFAULT_MAX_CELLS
from attncli.spec.view import CELL_STEPS, EXPANDABLE, ROW_STEPS

SMALL = 8  # `auto` writes out a spec whose every dimension is at most this
OPTION = "--expand"
MODES = ("auto", "all", "none", "shown")  # the values that choose cells rather than name them

Cell = tuple[str, str | None]  # (row, column); column None: the whole row


@record
class Selection:
    """Which cells to write out: mode auto/all/none, or explicit cells per step id."""

    mode: str = "auto"
    cells: tuple[tuple[str, Cell], ...] = field(default=())
    # mode shown, for a page that keeps only the lines of the cells it shows: a softmax row of
    # a matrix elided in the middle names its shown cells, and only their terms are written
    terms_shown: bool = False
    # the cell limit the cells a mode chooses (shown) are charged against, before they are
    # written out (attncli/steps/budget.py check_chosen)
    max_cells: int = DEFAULT_MAX_CELLS

    @classmethod
    def parse(cls, options: Iterable[str]) -> Selection:
        """From `--expand` values; UsageError naming the option for a malformed one. They are
        read in order and the first bad one refused before the next is read (the library's
        `expand` passes them one at a time, each checked as it comes)."""
        values = iter(options)
        first = next(values, None)
        if first is None:
            return cls()
        if first in MODES and next(values, None) is None:
            return cls(first)
        cells = []
        for option in chain((first,), values):
            if option in MODES:
                raise UsageError(Msg.of("{option}: {mode} cannot be combined with other values",
                                        option=OPTION, mode=option))
            cells.append(parse_cell(option))
        return cls("cells", tuple(cells))


def parse_cell(option: str) -> tuple[str, Cell]:
    step, colon, where = option.partition(":")
    step = step.strip()
    if not colon or not where.strip() or not step:
        raise UsageError(Msg.of("{option}: expected auto, all, none, shown or STEP:ROW[,COLUMN], "
                                "found {found}", option=OPTION, found=option))
    if step not in EXPANDABLE:
        raise UsageError(suggesting(Msg.of(
            "{option}: cannot write out {found}; expected one of {known}", option=OPTION,
            found=step, known=", ".join(EXPANDABLE)), step, EXPANDABLE))
    row, comma, column = (part.strip() for part in where.partition(","))
    if comma and not column:
        raise UsageError(Msg.of("{option}: expected a column after the comma in {found}",
                                option=OPTION, found=option))
    # as the labels are made of the tokens (steps/labels.py): a byte no encoding reads (0xff,
    # kept as \udcff) or a control character named here is the token's label written visibly
    return step, (visible_label(row), visible_label(column) if comma else None)


def cells(rows: Labels, columns: Labels,
          chosen: Sequence[Cell]) -> Iterator[tuple[int, int]]:
    """(row, column) indices of the chosen cells that exist in this matrix, in request order,
    each once. A whole row asked for (column None) is not remembered cell by cell, so `-x all`
    holds nothing per cell."""
    row_at, column_at = first_index(rows), first_index(columns)
    whole: set[int] = set()
    single: set[tuple[int, int]] = set()
    for row, column in chosen:
        if row not in row_at or (column is not None and column not in column_at):
            continue
        i = row_at[row]
        if i in whole:
            continue
        if column is None:
            whole.add(i)
            yield from ((i, j) for j in range(len(columns)) if (i, j) not in single)
        elif (i, column_at[column]) not in single:
            single.add((i, column_at[column]))
            yield i, column_at[column]


def first_index(labels: Labels) -> Mapping[str, int]:
    """Each label's index, the first where labels repeat (as tuple.index finds it); features'
    labels d1 … d_d are found from their numbers, with no dict of d_k entries."""
    if isinstance(labels, FeatureLabels):
        return labels.positions()
    return {label: len(labels) - 1 - i for i, label in enumerate(reversed(labels))}


def rows(labels: Labels, chosen: Sequence[Cell]) -> list[int]:
    """Indices of the rows the chosen cells are in, in request order, each once."""
    row_at = first_index(labels)
    return list(dict.fromkeys(row_at[row] for row, _ in chosen if row in row_at))


def is_small(walkthrough: Walkthrough) -> bool:
    h = walkthrough.header
    return max(h.n_queries, h.n_keys, h.d_model, h.d_k, h.d_v) <= SMALL


def representative(head: HeadResult) -> str:
    """The first query that sees the most keys: its row shows the most arithmetic."""
    seen = np.isfinite(head.scores.whole()).sum(axis=1)  # (n,)
    return head.weights.rows[int(np.argmax(seen))]


def chosen(selection: Selection, walkthrough: Walkthrough, step: Step,
           expandable: Sequence[str]) -> list[Cell]:
    """The cells of `step` to write out: whole rows (column None) or single cells."""
    if step.id not in expandable or selection.mode == "none":
        return []
    if selection.mode == "all":
        return [(row, None) for row in all_rows(step)]
    if selection.mode == "shown":
        return shown_cells(step, selection.terms_shown)
    if selection.mode == "auto":
        if not is_small(walkthrough):
            return []
        if step.id == "patch_embedding":  # the first patch: the CLS row is learned, not computed
            return [(step.matrices[-1].rows[1], None)]
        return [(representative(walkthrough.heads[0]), None)]
    return [c for step_id, c in selection.cells if step_id == step.id]


def shown_cells(step: Step, terms_shown: bool = False) -> list[Cell]:
    """Every cell of the step a view that elides the middle of a large matrix shows: whole rows
    of a matrix shown whole or of a step that writes out a row at once, else its shown cells.
    With `terms_shown`, a softmax row of an elided matrix is named by its shown cells too."""
    found: list[Cell] = []
    for matrix in step.matrices:
        elide = elision.is_elided(*matrix.shape)
        rows = [matrix.rows[i] for i in elision.shown(matrix.shape[0], elide) if i is not None]
        if not elide or (step.id in ROW_STEPS and not (terms_shown and step.id == "weights")):
            found += [(row, None) for row in rows]
        else:
            columns = [matrix.columns[j] for j in elision.shown(matrix.shape[1], True)
                       if j is not None]
            found += [(row, column) for row in rows for column in columns]
    return list(dict.fromkeys(found))


def all_rows(step: Step) -> list[str]:
    return list(dict.fromkeys(row for matrix in step.matrices for row in matrix.rows))


def check(selection: Selection, walkthrough: Walkthrough) -> Selection:
    """The selection with each row or column named by its token where the label numbers it
    (`the₁` of a token written twice, `p…p₁` of two long names shown alike) and one label
    does; UsageError for a requested row or column that no step of that id has. A cell asked
    for again is looked at once, and a step's rows and columns are listed once: listed again for
    each of 20,000 cells of a display.expand (one cell written 20,000 times) of 1,000 tokens,
    they took 3 s."""
    labels_of: dict[str, tuple[list[str], list[str], TokenLabels, TokenLabels]] = {}
    resolved: dict[tuple[str, Cell], tuple[str, Cell]] = {}
    for asked in selection.cells:
        if asked in resolved:
            continue
        step_id, (row, column) = asked
        if step_id not in labels_of:
            steps = [s for s in walkthrough.steps if s.id == step_id]
            if not steps:
                raise UsageError(Msg.of("{option}: this walkthrough has no step {step}",
                                        option=OPTION, step=step_id))
            step_rows = list(dict.fromkeys(r for s in steps for r in all_rows(s)))  # tiles: all
            step_columns = list(dict.fromkeys(c for m in steps[0].matrices for c in m.columns))
            labels_of[step_id] = (step_rows, step_columns, TokenLabels(step_rows),
                                  TokenLabels(step_columns))
        labels, columns, row_labels, column_labels = labels_of[step_id]
        has_columns = step_id in CELL_STEPS
        written, row, column = (row, column), row_labels.label(row), (
            None if column is None else column_labels.label(column))
        row_found = row in row_labels
        column_found = column is None or not has_columns or column in column_labels
        if column is not None and not (row_found and column_found):  # a comma of a token's own?
            row, column = comma_in_a_token(*written, row_labels, column_labels, has_columns)
            row = row_labels.label(row)
            column = None if column is None else column_labels.label(column)
            row_found = row in row_labels
            column_found = column is None or not has_columns or column in column_labels
        if not row_found:
            raise UsageError(Msg.of("{option}: {step} has no row {row}; its rows are {rows}",
                                    option=OPTION, step=step_id, row=row, rows=", ".join(labels)))
        if not column_found and column is not None:
            raise UsageError(Msg.of(
                "{option}: {step} has no column {column}; its columns are {columns}",
                option=OPTION, step=step_id, column=column, columns=", ".join(columns)))
        resolved[asked] = (step_id, (row, column))
    found = tuple(resolved[asked] for asked in selection.cells)
    return replace(selection, cells=found)  # keeps terms_shown


def comma_in_a_token(row: str, column: str | None, row_labels: TokenLabels,
                     column_labels: TokenLabels, has_columns: bool) -> Cell:
    """The row and column `STEP:ROW,COLUMN` names when a token has a comma of its own: `a,b`
    alone is the row of the token `a,b` when no row is `a`, and `x,a,b` the row `x,a` and the
    column `b` when that is the cell there is; else the cell as it was split, at its first
    comma (refused by the caller if there is no such row or column)."""
    def found(r: str, c: str | None) -> bool:
        return row_labels.label(r) in row_labels and (
            c is None or not has_columns or column_labels.label(c) in column_labels)

    if column is None:
        return row, column
    written = f"{row},{column}"
    if found(written, None):
        return written, None
    # each later comma ends a row's name that is a label; the search ends once the name is
    # longer than any label (-x "scores:cat,,,…" of 131,000 commas sliced the whole text at
    # each: 3.4 s)
    start = len(written) - len(written.lstrip())
    last = start - 1  # the last character so far that is no space
    first_comma = True
    for at, ch in enumerate(written[start:], start):
        if ch == ",":
            if not first_comma:
                r = written[start:last + 1]
                if row_labels.label(r) in row_labels:
                    c = written[at + 1:].strip()
                    if c and found(r, c):
                        return r, c
            first_comma = False
        if not ch.isspace():
            last = at
            if last - start >= row_labels.longest:
                break
    return row, column


NUMBERED = re.compile(r"[₀-₉]+| (\(+)\d+(\)+)")
PARENS = re.compile(r" (\(+)\d+(\)+)\Z")
SUBSCRIPTS = re.compile(r"[₀-₉]+\Z")


class TokenLabels:
    """Labels found by name, each name looked up in a table: `label(name)` is what by_token
    gives. Both were a search of the whole list for each name: 90,000 cells of a display.expand
    (300 × 300 of 1,000 tokens, each cell named once) took 4 s to validate."""

    def __init__(self, labels: Sequence[str]) -> None:
        self.labels = frozenset(labels)
        self.longest = max(map(len, labels), default=0)  # no name found is longer
        self.numbering: dict[str, list[str]] = {}  # token -> the labels that number it
        for label in labels:
            for token in numbered_tokens(label):
                self.numbering.setdefault(token, []).append(label)

    def __contains__(self, label: object) -> bool:
        return label in self.labels

    def label(self, name: str) -> str:
        if name in self.labels:
            return name
        numbered = self.numbering.get(name, ())
        return numbered[0] if len(numbered) == 1 else name


def numbered_tokens(label: str) -> list[str]:
    """Each name that `label` numbers, as NUMBERED reads it: `the₁₂` numbers `the₁` and `the`,
    `x ((2))` numbers `x`."""
    tokens = []
    subscripts = SUBSCRIPTS.search(label)
    if subscripts is not None:
        tokens += [label[:end] for end in range(subscripts.start(), len(label))]
    parens = PARENS.search(label)
    if parens is not None and len(parens.group(1)) == len(parens.group(2)):
        tokens.append(label[:parens.start()])
    return tokens


def by_token(name: str, labels: Sequence[str]) -> str:
    """The label that numbers the token `name` (`name₁`, `name (1)`) if `name` is no label and
    exactly one label numbers it; else `name` (a token written twice has two: refused by the
    caller, which lists them). For many names, TokenLabels(labels).label(name)."""
    return TokenLabels(labels).label(name)
