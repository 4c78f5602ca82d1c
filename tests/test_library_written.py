"""walkthrough_of and spec_of hold the values given as Python lists to the limit a spec file is
held to (limits.max_written: a hundredth of max_cells, at least 150,000), counted as they are
read, so a value list far past it is refused at the value past the limit, not once a node has
been made of every number: a 1,000 x 1,000 mask written as lists took 4.3 s and 414 MB to be
refused for its shape. An array stays one value, its numbers charged as cells."""

from __future__ import annotations

import tracemalloc

import numpy as np
import pytest

from attncli import SpecError, spec_of, walkthrough_of
from attncli.spec.limits import max_written

LIMIT = max_written(10_000_000)  # 150,000


def test_a_list_past_the_values_limit_is_refused_at_the_value_past_it() -> None:
    assert LIMIT == 150_000
    with pytest.raises(SpecError) as error:
        spec_of(tokens=["a", "b"], embeddings=[[0.0, 1.0], [1.0, 0.0]],
                mask=[[1] * 1000 for _ in range(1000)])
    # counted in order (texts apart): the tokens' list 1, embeddings 1 + 2 + 4, mask's list
    # 1, so 9; then each row of the mask 1 + 1000: 9 + 149 · 1001 = 149,158 before row 149,
    # whose list makes 149,159 and whose number j makes 149,160 + j: the 150,001st is j = 841
    assert str(error.value) == ("spec_of: mask[149][841]: the spec holds more than 150,000 "
                                "values, the limit that max_cells sets")


def test_the_arguments_are_counted_together() -> None:
    row = [0.5] * 1000
    with pytest.raises(SpecError, match=r"W_V\[\d+\]\[\d+\]: the spec holds more than"):
        walkthrough_of(tokens=["a", "b"], X=np.eye(2, 1000), W_Q=[row] * 60, W_K=[row] * 60,
                       W_V=[row] * 60)


def test_a_value_list_within_the_limit_and_an_array_past_it_are_read() -> None:
    w = walkthrough_of(tokens=["a", "b"], X=np.eye(2, 380), W_Q=[[0.5] * 380] * 380)
    assert w["W_Q"].shape == (380, 380)
    big = np.ones((400, 1000))  # 400,000 numbers: an array is charged as cells
    # (read by spec_of: the walkthrough of 400 tokens of d_model 1,000, 3,040,000 numbers whole,
    # is past what walkthrough_of builds whole under the default max_cells)
    spec = spec_of(tokens=[f"t{i}" for i in range(400)], embeddings=big)
    assert spec.queries.embeddings.shape == (400, 1000)


def test_a_million_listed_numbers_are_refused_before_each_is_made_a_node() -> None:
    """A node of each of a million listed numbers held about 350 bytes a number (350 MB here,
    4.3 s); counted as they are read, no more than the limit's are made: 53 MB traced."""
    mask = [[1] * 1000 for _ in range(1000)]
    tracemalloc.start()
    try:
        with pytest.raises(SpecError):
            spec_of(tokens=["a", "b"], embeddings=[[0.0, 1.0], [1.0, 0.0]], mask=mask)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 100 * 1_000_000  # 100 bytes a listed number


def test_arrays_given_in_a_list_are_charged_as_cells_before_each_is_copied() -> None:
    # 1,000 rows, each an array of 100,000 numbers: ten times the cell limit, copied row by row
    # into the spec (1.6 GB, 1.9 s) before the matrix was refused for its size. Each row is
    # charged as it comes: rows 0 to 99 make 10,000,000, the limit, and row 100 passes it
    rows = [np.zeros(100_000)] * 1000
    tracemalloc.start()
    try:
        with pytest.raises(SpecError) as error:
            walkthrough_of(tokens=["a"] * 1000, X=rows)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert str(error.value) == ("walkthrough_of: X[100]: a matrix of 100,000 brings the spec "
                                "to 10,100,000 numbers; the limit is 10,000,000, which "
                                "max_cells sets")
    assert peak < 200 * 1_000_000

