"""attn's JSON writer against the standard library's: the same bytes as json.dumps(indent=2,
ensure_ascii=False, allow_nan=False), for every shape a document has."""

from __future__ import annotations

import json
import math
from typing import Any

import pytest

from attncli.render.json_text import Streamed, pieces, text

DOCS: list[Any] = [
    {},
    [],
    {"a": [], "b": {}, "c": [[]], "d": [{}]},
    {"values": [[0.1, -2.5e-07, 1e+16, None], [None, None], [3.0, 1.0000000000000002]]},
    {"mixed": [1, 2.0, True, False, None, "x", [1.5], {"k": -0}], "int": 12, "neg": -3},
    {"text": 'quote " backslash \\ tab \t newline \n NUL \x00 DEL \x7f',
     "unicode": "√d_k · −0.34 ≈ кошка żółw \u200b \U0001f600"},
    {"nested": {"deeper": {"deepest": [[[0.5]]]}}},
    [0.1, 0.2],
    "a string alone",
    None,
    5e-324,
]


@pytest.mark.parametrize("doc", DOCS, ids=range(len(DOCS)))
def test_the_same_bytes_as_json_dumps(doc: Any) -> None:
    expected = json.dumps(doc, indent=2, ensure_ascii=False, allow_nan=False)
    assert text(doc) == expected
    assert "".join(pieces(doc)) == expected


def test_arrays_made_as_they_are_written_read_back_whole() -> None:
    made: list[int] = []

    def steps() -> Any:
        for k in range(3):
            made.append(k)
            yield {"id": k, "cells": Streamed(iter([{"x": k / 3}, {"x": None}])),
                   "none": Streamed(())}

    pieces_made = pieces({"steps": Streamed(steps()), "after": 1})
    first = next(pieces_made)
    assert made == [0]  # the first step only: nothing is made before it is written
    written = first + "".join(pieces_made)
    plain = {"steps": [{"id": k, "cells": [{"x": k / 3}, {"x": None}], "none": []}
                       for k in range(3)], "after": 1}
    assert written == json.dumps(plain, indent=2, ensure_ascii=False)


@pytest.mark.parametrize("bad", [math.nan, math.inf, -math.inf])
def test_a_number_json_cannot_write_is_refused_as_json_dumps_refuses_it(bad: float) -> None:
    for doc in (bad, [1.0, bad], [None, bad], {"x": bad}):
        with pytest.raises(ValueError, match="not JSON compliant"):
            json.dumps(doc, allow_nan=False)
        with pytest.raises(ValueError, match="not JSON compliant"):
            text(doc)


def test_an_object_json_cannot_write_is_refused() -> None:
    with pytest.raises(TypeError):
        text({"x": object()})
    with pytest.raises(TypeError):
        text({1: "a key that is not a string"})
