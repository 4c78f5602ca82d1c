"""A long token name as a matrix label is set in lines of at most 16 characters, cut between
words (after `-` or `_`, or at a space) where a line has such a gap, and mid-word only where it
has none: the same lines in text, rich, LaTeX and Markdown (common.label_lines)."""

from __future__ import annotations

import pytest

from attncli.i18n import Symbol
from attncli.render.common import label_lines
from attncli.render.frame_fit import DISPLAY, LINE, header_lines, height
from attncli.render.latex_matrix import (
    Page,
    column_label,
    fitting_size,
    matrix_latex,
    row_blocks,
    wraps,
)


@pytest.mark.parametrize(("name", "lines"), [
    # no gap in the first 16: cut mid-word; then at the last space of the line, which is dropped
    ("internationalization and localization A", ["internationaliza", "tion and", "localization A"]),
    ("internationalization_and_localization_A",
     ["internationaliza", "tion_and_", "localization_A"]),
    # the underscore or hyphen stays at the end of its line
    ("переобученная_нейронная_сеть_с_вниманием",
     ["переобученная_", "нейронная_сеть_", "с_вниманием"]),
    ("{braces}_$dollars$_%percent%_&amp;_#hash#",
     ["{braces}_", "$dollars$_", "%percent%_&amp;_", "#hash#"]),
    ("state-of-the-art-transformer", ["state-of-the-", "art-transformer"]),
    # a space just after 16 characters: the line is the 16, the space the break
    ("abcdefghijklmnop qrs", ["abcdefghijklmnop", "qrs"]),
    # a gap that would leave fewer than 4 characters on the line is no place to cut
    ("a-verylongwordwithoutbreaks", ["a-verylongwordwi", "thoutbreaks"]),
    ("[x](javascript:alert(1))", ["[x](javascript:a", "lert(1))"]),
    ("exactly_sixteen!", ["exactly_sixteen!"]),
])
def test_a_long_label_is_cut_between_words(name: str, lines: list[str]) -> None:
    assert label_lines(name) == lines
    assert all(len(line) <= 16 for line in lines)


def test_attn_notation_is_never_cut() -> None:
    long = Symbol("m_old_and_a_long_tail_x", r"m_{\text{old}}")
    assert label_lines(long) == [long]


def test_latex_sets_the_same_lines_as_a_column_label() -> None:
    assert column_label("internationalization and localization A") == (
        r"\begin{matrix}\text{internationaliza}\\\text{tion and}\\"
        r"\text{localization A}\end{matrix}")


LONG = "internationalization_and_localization_A"
RUSSIAN = "переобученная_нейронная_сеть_с_вниманием"
CELLS = [["0.10", "0.20"], ["0.30", "0.40"]]


def test_latex_sets_long_row_labels_in_lines_with_empty_rows_beside_them() -> None:
    """Where whole row labels leave no room for a column (a Beamer 4:3 frame), the labels are
    set in lines and the matrix keeps the body's size: the bracket has a row for every line of
    the labels, the numbers beside each label's first line."""
    frame = Page(width=307.0, font=11.0, rows=9, height=215.0)  # Beamer 4:3
    rows, columns = [LONG, RUSSIAN], ["d1", "d2"]
    assert wraps("X", CELLS, rows, columns, frame)
    assert fitting_size("X", CELLS, rows, columns, frame) == ("", 1.0)
    lines = matrix_latex("X", CELLS, rows, columns, wrap=True)
    labels = next(line for line in lines if line.startswith(r"X = {}\quad"))
    assert labels.split(r"\begin{array}{@{}r@{}}")[1].split(r"\end{array}")[0] == (
        r"\text{internationaliza} \\ \text{tion\_and\_} \\ \text{localization\_A} \\ "
        r"\text{{\fontencoding{T2A}\selectfont переобученная}\_} \\ "
        r"\text{{\fontencoding{T2A}\selectfont нейронная}\_{\fontencoding{T2A}\selectfont сеть}\_}"
        r" \\ \text{{\fontencoding{T2A}\selectfont с}\_{\fontencoding{T2A}\selectfont вниманием}}")
    start = lines.index(labels) + 1
    assert lines[start:start + 2] == [
        r"\attncell{0}{0.10} & \attncell{1}{0.20} \\ {} \\ {} \\",
        r"\attncell{0}{0.30} & \attncell{1}{0.40} \\ {} \\ {}"]
    # the frame's height counts the six rows of the bracket and a three-line column label
    chunk = matrix_latex("X", CELLS, rows, [LONG, "d2"], wrap=True)
    assert header_lines("\n".join(chunk)) == 3
    assert height(chunk, frame) == pytest.approx((6 + 2 + DISPLAY) * LINE * 11 + 6)
    # whole labels that leave room, as in an article: one line each, as before
    assert not wraps("X", CELLS, [LONG, "cat"], columns, frame)
    assert not wraps("X", CELLS, rows, columns, Page(width=800.0))


def test_a_frame_takes_as_many_label_lines_as_rows_it_holds() -> None:
    """A slide's row cap counts lines: rows of 3, 3, 4, 1 and 1 lines under a cap of 9 are
    two blocks of 6 lines each, not one of 12."""
    assert row_blocks([3, 3, 4, 1, 1], 9) == [range(0, 2), range(2, 5)]
    assert row_blocks([1] * 8, 8) == [range(0, 8)]
    assert row_blocks([1] * 9, 8) == [range(0, 5), range(5, 9)]
    assert row_blocks([12], 9) == [range(0, 1)]
