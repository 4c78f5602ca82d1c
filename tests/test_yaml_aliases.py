"""A list aliased many times is read once: `*row` repeated 100,000 times (10 lines of YAML, a
million numbers, within the values limit) read the row's numbers anew at every use, 2.5 s of
processor time before the spec was refused."""

from __future__ import annotations

import pytest

import attncli.spec.yaml_tree
from attncli.spec.source import parse


def test_an_aliased_row_is_read_once_and_every_use_holds_its_numbers(
        monkeypatch: pytest.MonkeyPatch) -> None:
    read = attncli.spec.yaml_tree.plain_numbers
    calls: list[int] = []

    def counted(items: list[object]) -> object:
        calls.append(len(items))
        return read(items)  # type: ignore[arg-type]

    monkeypatch.setattr(attncli.spec.yaml_tree, "plain_numbers", counted)
    text = ("row: &r [1, 2, 3]\n"
            "rows: &m [*r, *r, *r, *r]\n"
            "all: [*m, *m, *m]\n")
    root = parse("s.yaml", text)
    # three lists as written: the row (3 numbers), the rows (4 lists), all (3 lists)
    assert sorted(calls) == [3, 3, 4]
    uses = [row for rows in root.value["all"].value for row in rows.value]
    assert len(uses) == 12
    assert all(row.numbers == (1.0, 2.0, 3.0) and row.whole for row in uses)


def test_a_matrix_aliased_by_many_heads_is_read_its_rows_built_once() -> None:
    # 256 heads each naming one 100 x 100 matrix three times: 7.7 million numbers once the
    # aliases are expanded, within --max-cells; the rows are tuples read once, so the Nodes built
    # are the 768 uses of the matrix and their rows (77,568), under the limit of 150,000
    rows = "[" + ", ".join("[" + ", ".join(["0.5"] * 100) + "]" for _ in range(100)) + "]"
    heads = "".join("  - {W_Q: *w, W_K: *w, W_V: *w}\n" for _ in range(256))
    root = parse("s.yaml", f"w: &w {rows}\nheads:\n{heads}")
    used = root.value["heads"].value
    assert len(used) == 256
    assert used[-1].value["W_V"].value[99].numbers == (0.5,) * 100
