"""Many different cells asked for (`-x`, display.expand): each row or column named is found in
a table of its step's labels, not by a search of the whole list. 90,000 cells of a display.expand
(300 × 300 of 1,000 tokens, each named once) took 4 s to validate, a search of the 1,000 labels
for each name, twice for a cell, and again for its row in the summary."""

from __future__ import annotations

from attncli import build, loads_spec
from attncli.arithmetic import selection as selection_module
from attncli.arithmetic.selection import Selection, by_token, check
from attncli.steps.build import kept_rows

N = 1000
TOKENS = [f"t{i:04d}" for i in range(N)]
SPEC = f"tokens: [{', '.join(TOKENS)}]\nembeddings: {{random: {{seed: 1}}, dim: 2}}\n"


class Counted(str):
    """A name asked for that counts the labels it is compared with."""

    compared = 0

    def __eq__(self, other: object) -> bool:
        Counted.compared += 1
        return str.__eq__(self, other)

    __hash__ = str.__hash__


def asked(k: int) -> Selection:
    """k × k cells of the last k tokens, each named once, rows and columns counting."""
    last = TOKENS[N - k:]
    return Selection("cells", tuple(("weights", (Counted(row), Counted(column)))
                                    for row in last for column in last))


def test_each_cell_is_compared_with_a_label_or_two_not_with_every_label() -> None:
    walkthrough = build(loads_spec(SPEC), max_cells=100_000_000)  # every matrix whole (4 million)
    selection = asked(30)  # 900 cells: a search of the list compares each name with ~985 labels
    Counted.compared = 0
    found = check(selection, walkthrough)
    assert [cell for _, cell in found.cells[:2]] == [("t0970", "t0970"), ("t0970", "t0971")]
    assert Counted.compared <= 4 * 900  # was about 2 × 900 × 985
    Counted.compared = 0
    assert kept_rows(loads_spec(SPEC), selection) is not None
    assert Counted.compared <= 4 * 900  # was about 900 × 985


def test_the_table_finds_what_the_search_found() -> None:
    """by_token's answers, worked by hand from NUMBERED: `the₁₂` numbers `the₁` and `the`, a
    paren number only where its brackets balance, a name two labels number is left as it is."""
    labels = ["cat", "the₁₂", "dog₁", "dog₂", "x ((3))", "y ((3)", "z (1)", "₅"]
    table = selection_module.TokenLabels(labels)
    for name, label in [("cat", "cat"), ("the", "the₁₂"), ("the₁", "the₁₂"), ("the₁₂", "the₁₂"),
                        ("dog", "dog"), ("x", "x ((3))"), ("y", "y"), ("z", "z (1)"), ("", "₅"),
                        ("ca", "ca"), ("the₂", "the₂")]:
        assert table.label(name) == label, name
        assert by_token(name, labels) == label, name
    assert "cat" in table and "the" not in table
