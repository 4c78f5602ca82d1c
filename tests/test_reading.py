"""The weights in words: generated from the numbers, right about ties, lone keys and hidden rows."""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from attncli import build, loads_spec
from attncli.arithmetic.numbers import NumberFormat
from attncli.arithmetic.reading import read
from attncli.i18n import translate
from attncli.model import Formula, Matrix, Walkthrough
from attncli.render import render
from attncli.spec import load_spec
from attncli.spec.examples import example_path


def sentences(walkthrough: Walkthrough) -> list[str]:
    return [translate(s, "en", NumberFormat(walkthrough.precision))
            for reading in walkthrough.reading for s in reading.sentences]


def test_seed_000_reading_names_the_seeds_tokens() -> None:
    said = sentences(build(load_spec(str(example_path("cat_chases_mouse")))))
    assert "“cat” sees only itself, so all its weight (1.00) stays there." in said
    assert "“chases” attends more to itself (0.64) than to “cat” (0.36)." in said
    assert ("“mouse” attends most to “cat” (0.40), then to itself (0.35), least to “chases” (0.25)."
            in said)


def test_by_hand_the_reading_uses_the_seeds_numbers() -> None:
    spec = load_spec(str(example_path("cat_chases_mouse")))
    spec = replace(spec, display=replace(spec.display, round_intermediates=True))
    assert "“chases” attends more to itself (0.65) than to “cat” (0.35)." in sentences(build(spec))


def test_equal_weights_are_said_to_be_equal() -> None:
    said = sentences(build(loads_spec("tokens: [a, b, c]\nembeddings: [[1, 0], [1, 0], [1, 0]]\n")))
    assert said[0] == "“a” attends equally to the 3 keys it sees (0.33 each)."


def test_a_tie_inside_a_ranking_is_one_group() -> None:
    # q_a = [1, 0]; keys b and c are the same vector, so they get the same weight
    spec = loads_spec("tokens: [a, b, c]\nembeddings: [[1, 0], [0, 1], [0, 1]]\nscale: none\n")
    said = sentences(build(spec))
    # e^1 / (e^1 + 2) = 0.576, 1 / (e + 2) = 0.212
    assert said[0] == "“a” attends more to itself (0.58) than to “b” and “c” (0.21 each)."


def test_a_hidden_row_and_a_lone_key_are_said_as_such() -> None:
    spec = loads_spec("tokens: [a, b]\nembeddings: [[1, 0], [0, 1]]\n"
                      "mask: [[0, 0], [1, 0]]\n")
    said = sentences(build(spec))
    assert said[0] == "“a” sees no key, so it attends to nothing: its weights are all 0."
    assert said[1] == "“b” sees only “a”, so all its weight (1.00) goes there."
    nan = loads_spec("tokens: [a, b]\nembeddings: [[1, 0], [0, 1]]\nmask: [[0, 0], [1, 1]]\n"
                     "masked_rows: nan\n")
    assert sentences(build(nan))[0] == "“a” sees no key, so its weights are undefined (NaN)."


def matrix(symbol: str, values: list[list[float]], rows: tuple[str, ...],
           columns: tuple[str, ...]) -> Matrix:
    return Matrix(Formula(symbol, symbol), np.array(values), rows, columns)


def two_heads() -> Walkthrough:
    """Seed 000's single head, plus a second head (made by hand) that prefers the last key."""
    one = build(load_spec(str(example_path("cat_chases_mouse"))))
    first = replace(one.heads[0], index=1)
    tokens = first.weights.rows
    second = replace(
        first, index=2,
        weights=matrix("A", [[1, 0, 0], [0.2, 0.8, 0], [0.1, 0.3, 0.6]], tokens, tokens),
    )
    steps = tuple(replace(s, head=1) for s in one.steps if s.id == "weights")
    steps += tuple(replace(s, head=2, matrices=(second.weights,), expansions=())
                   for s in steps)
    return replace(one, heads=(first, second), steps=steps,
                   header=replace(one.header, n_heads=2))


def test_several_heads_are_read_one_by_one_and_compared() -> None:
    walkthrough = two_heads()
    readings = read(walkthrough)
    assert [r.head for r in readings] == [1, 2, None]
    nf = NumberFormat(2)
    head_2 = [translate(s, "en", nf) for s in readings[1].sentences]
    assert head_2[2] == ("“mouse” attends most to itself (0.60), then to “chases” (0.30), "
                         "least to “cat” (0.10).")
    compared = [translate(s, "en", nf) for s in readings[2].sentences]
    assert compared == [
        "The heads disagree about “mouse”: it attends most to “cat” in head 1, to itself in head "
        "2."]


def test_heads_that_agree_are_said_to_agree() -> None:
    walkthrough = two_heads()
    same = replace(walkthrough, heads=(walkthrough.heads[0],
                                       replace(walkthrough.heads[0], index=2)))
    compared = read(same)[-1]
    assert [translate(s) for s in compared.sentences] == [
        "Both heads agree on where every query attends most."]


def test_a_two_head_walkthrough_renders_a_heatmap_and_reading_per_head() -> None:
    walkthrough = two_heads()
    walkthrough = replace(walkthrough, reading=read(walkthrough))
    text = render(walkthrough, "text")
    assert text.count("Heatmap: a fuller block") == 2
    assert "What the weights say — head 2" in text
    assert "What the heads say together" in text
    # shade = round(4·weight): 0.10 -> 0 (blank), 0.30 -> 1 (░), 0.60 -> 2 (▒)
    assert "mouse      0.10  ░░ 0.30  ▒▒ 0.60" in text


def test_a_weight_that_is_not_0_or_1_is_never_said_as_a_rounded_0_or_1() -> None:
    # scores of a: 8.74 against itself, 0 against b: weights e^8.74 / (e^8.74 + 1) = 0.99984
    # and 1 / (e^8.74 + 1) = 0.00016, which print as 1.00 and 0.00 with 2 decimals
    spec = loads_spec("tokens: [a, b]\nembeddings: [[2.95635, 0], [0, 1]]\nscale: none\n"
                      "mask: none\n")
    said = sentences(build(spec))
    assert said[0] == "“a” attends more to itself (0.9998) than to “b” (0.0002)."


def test_the_keys_the_table_shows_as_0_are_said_to_be_under_its_last_decimal() -> None:
    # a's scores: 9 (itself), 0 (b), −0.3 (c): weights 0.99979, 0.000123, 0.0000912; b and c
    # print as 0.00 but differ, so they are neither "0.00 each" nor told apart
    spec = loads_spec("tokens: [a, b, c]\nembeddings: [[3, 0], [0, 1], [-0.1, 1]]\n"
                      "scale: none\nmask: none\n")
    walkthrough = build(spec)
    assert sentences(walkthrough)[0] == (
        "“a” attends more to itself (0.9998) than to “b” and “c” (under 0.01 each).")
    pl = [translate(s, "pl", NumberFormat.with_mark(2, "comma"))
          for s in walkthrough.reading[0].sentences]
    assert pl[0] == ("„a” patrzy bardziej na siebie (0,9998) niż na "
                     "„b” i\N{NO-BREAK SPACE}„c” (każdy poniżej 0,01).")
