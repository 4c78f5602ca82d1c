"""A long token name as a matrix label is set in lines of at most 16 characters, cut between
words (after `-` or `_`, or at a space) where a line has such a gap, and mid-word only where it
has none: the same lines in text, rich, LaTeX and Markdown (common.label_lines)."""

from __future__ import annotations

import pytest

from attncli.i18n import Symbol
from attncli.render.common import label_lines
from attncli.render.latex_matrix import column_label


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
