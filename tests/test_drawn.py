"""A matrix drawn once for every language (attncli/render/drawn.py): a document is the same
whether its matrices were drawn for it or for another language first, and nothing is held once
a matrix is gone or when it is large."""

from __future__ import annotations

import gc

import numpy as np
import pytest

from attncli import build, loads_spec
from attncli.arithmetic.expand import Selection
from attncli.model import Formula, Matrix
from attncli.render import render
from attncli.render.drawn import KEPT_CELLS, per_matrix, same_in_every_language, several_languages
from attncli.spec.examples import example_path

EXAMPLES = ["cat_chases_mouse", "alibi_three_heads", "backward_cat_chases_mouse"]


def walkthrough(name: str):  # type: ignore[no-untyped-def]
    path = example_path().parent / f"{name}.yaml"
    return build(loads_spec(path.read_text(encoding="utf-8")), Selection("all"))


@pytest.mark.parametrize("name", EXAMPLES)
@pytest.mark.parametrize("fmt", ["text", "markdown", "json"])
def test_a_document_is_the_same_after_other_languages_drew_its_matrices(fmt: str,
                                                                         name: str) -> None:
    fresh = {lang: render(walkthrough(name), fmt, lang) for lang in ("en", "pl", "ru")}
    shared = walkthrough(name)
    for lang in ("ru", "en", "pl", "en", "ru"):
        assert render(shared, fmt, lang) == fresh[lang], lang
    assert fresh["en"] != fresh["pl"] != fresh["ru"]  # the sentences differ; the numbers do not


def matrix(rows: int, columns: int) -> Matrix:
    return Matrix(Formula("A", "A"), np.arange(rows * columns, dtype=float).reshape(rows, columns),
                  tuple(f"r{i}" for i in range(rows)), tuple(f"c{j}" for j in range(columns)))


def test_a_drawing_is_made_once_for_each_choice_and_goes_with_its_matrix() -> None:
    calls: list[tuple[int, str]] = []

    @per_matrix
    def draw(m: Matrix, flavor: str) -> tuple[str, ...]:
        calls.append((id(m), flavor))
        return (flavor, str(m.at(1, 1)))

    a, b = matrix(2, 3), matrix(2, 3)
    assert draw(a, "github") == ("github", "4.0")
    assert draw(a, "github") == ("github", "4.0")
    assert draw(a, "katex") == ("katex", "4.0")
    assert draw(b, "github") == ("github", "4.0")
    assert len(calls) == 3  # a twice (two flavors), b once
    assert len(draw.memo) == 3  # type: ignore[attr-defined]
    del a
    gc.collect()
    assert len(draw.memo) == 1  # type: ignore[attr-defined]  # only b's


def test_a_large_matrix_is_drawn_each_time_and_never_held() -> None:
    calls = []

    @per_matrix
    def draw(m: Matrix) -> int:
        calls.append(m)
        return len(calls)

    side = int(KEPT_CELLS ** 0.5) + 1
    large = matrix(side, side)
    assert (draw(large), draw(large)) == (1, 2)
    assert not draw.memo  # type: ignore[attr-defined]


def elided_walkthrough():  # type: ignore[no-untyped-def]
    """d_model 40: every written-out projection is a sum shortened, "… 32 more terms" said in
    each language; the scores and weights of three tokens are not."""
    rows = [[round(0.01 * (7 * i + j) - 0.5, 2) for j in range(40)] for i in range(3)]
    spec = loads_spec("tokens: [a, b, c]\nembeddings: " + str(rows) + "\n")
    return build(spec, Selection("all"))


@pytest.mark.parametrize("fmt", ["text", "markdown", "json", "typst", "html", "latex"])
@pytest.mark.parametrize("make", [elided_walkthrough, lambda: walkthrough("cat_chases_mouse")])
def test_written_out_cells_kept_for_several_languages_read_as_written_alone(fmt: str,
                                                                             make) -> None:  # type: ignore[no-untyped-def]
    """attn snippets keeps a written-out cell's text for the next language (several_languages)
    only when it says no sentence: a shortened sum's note is said anew in each."""
    fresh = {lang: render(make(), fmt, lang) for lang in ("en", "pl", "ru")}
    if make is elided_walkthrough and fmt != "json":  # JSON writes every term
        assert "35 not shown" in fresh["en"] and "35 pominiętych" in fresh["pl"]
    shared = make()
    with several_languages():
        for lang in ("ru", "en", "pl", "en", "ru"):
            assert render(shared, fmt, lang) == fresh[lang], lang


def test_a_cell_that_says_a_sentence_is_not_kept_and_nothing_is_kept_alone() -> None:
    calls: list[str] = []

    @same_in_every_language
    def text(part: Matrix, t, said: bool) -> str:  # type: ignore[no-untyped-def]
        calls.append("made")
        return t("note") if said else "numbers"

    part = matrix(2, 2)
    assert [text(part, str.upper, True), text(part, str.upper, False)] == ["NOTE", "numbers"]
    assert len(calls) == 2 and not text.memo  # type: ignore[attr-defined]  # outside: made each time
    with several_languages():
        assert [text(part, str.upper, True), text(part, str.title, True)] == ["NOTE", "Note"]
        assert [text(part, str.upper, False), text(part, str.title, False)] == ["numbers"] * 2
    assert len(calls) == 5  # the sentence made twice, the numbers once
    assert len(text.memo) == 1  # type: ignore[attr-defined]
    del part
    gc.collect()
    assert not text.memo  # type: ignore[attr-defined]
