"""A symbol in a sentence is set as the formula beside it sets it: `c = 5.00`, the gain `g`, the
sink logit `s = −1` are math in LaTeX and Markdown, while a one-letter word of the language
(Polish „i”, „w”, „a”; English "a") and a token in quotes stay text."""

from __future__ import annotations

import pytest

from attncli.i18n import Msg, Symbol, translate
from attncli.render.md_prose import Marked, prose
from attncli.render.notation import message
from attncli.render.tex import escape_text


def latex(msg: Msg, lang: str) -> str:
    return message(msg, lang, lambda t: escape_text(t, "latex", lang == "ru"),
                   lambda x: f"{x:.2f}").replace("~", " ")


SOFTCAP = Msg.of("Soft-capping keeps every score in (−c, c), here c = {cap}: a small score "
                 "passes almost unchanged (tanh x ≈ x near 0), a large one is bent towards "
                 "the cap and never passes it.", cap=5.0)
SINK = Msg.of("The sink logit s = {sink} joins the softmax of every row as e^s in its "
              "denominator, a key with no value: each row of A sums to less than 1.",
              sink=Symbol("−1", "-1"))
GAIN = Msg.of("Over each head's d_k features, as Qwen3: each query and key of a head keeps a "
              "length near √d_k before the gain g, one vector of d_k shared by the heads.")


@pytest.mark.parametrize(("lang", "cap", "word"), [
    ("en", "here $c = 5.00$:", "a small score"),
    ("pl", "tu $c = 5.00$:", "a duży"),
    ("ru", "здесь $c = 5.00$:", "а большая"),
])
def test_the_cap_and_its_value_are_one_formula(lang: str, cap: str, word: str) -> None:
    text = latex(SOFTCAP, lang)
    assert cap in text and "$(-c, c)$" in text
    assert word in text  # the article, the conjunction: words, not symbols


@pytest.mark.parametrize(("lang", "expected"), [
    ("en", ["$s = -1$", "row of $A$ sums"]),
    ("pl", ["gdzie $s = -1$ to logit", "wiersza $A$ jest"]),
    ("ru", ["Логит стока $s = -1$", "строки $A$ меньше"]),
])
def test_the_sink_logit_and_the_matrix_are_math(lang: str, expected: list[str]) -> None:
    text = latex(SINK, lang)
    assert all(part in text for part in expected), text
    marked = Marked(lambda m: translate(m, lang))
    md = prose(marked(SINK), "katex", marked.words, lang).replace("\u00a0", " ")
    assert "$s = -1$" in md and "$A$" in md and "$$" not in md


@pytest.mark.parametrize(("lang", "gain", "words"), [
    ("en", "before the gain $g$", ["each query and key"]),
    ("pl", "wzmocnienie $g$ każde", ["zapytanie i każdy", "jak w Qwen3"]),
    ("ru", "масштаб $g$", []),
])
def test_the_gain_is_math_and_one_letter_words_stay_words(lang: str, gain: str,
                                                           words: list[str]) -> None:
    text = latex(GAIN, lang)
    assert gain in text, text
    assert all(w in text for w in words), text
    assert "$i$ " not in text and "$w$" not in text and "$a$" not in text


def test_an_index_is_math_where_no_word_can_stand() -> None:
    rope = Msg.of("At position p, the i-th pair of features turns by the angle p·ωᵢ, where "
                  "ωᵢ = {base}^(−2i/d_k); V is not turned.", base=100)
    pl = latex(rope, "pl")
    assert pl.startswith("Na pozycji $p$ obracamy $i$-{}tą parę cech"), pl
    assert "wartości $V$ nie" in pl


def test_a_token_in_quotes_is_never_a_symbol() -> None:
    msg = Msg.of("Row {row}: its largest score, {peak}, is subtracted from each score before "
                 "e^x, so that e^x cannot overflow; the weights stay the same.", row="a",
                 peak=2.0)
    assert "$a$" not in latex(msg, "pl") and "$a$" not in latex(msg, "en")


def test_a_symbol_touching_its_subscript_is_one_formula() -> None:
    tile = Msg.of("S{ij} is the tile of {scores} for query block {i} and key block {j}; "
                  "m = max(m_old, the row's largest score in the tile), and α = e^(m_old − m) "
                  "rescales what ℓ and Õ kept.", ij=Symbol("₁₁", "{}_{11}"),
                  scores=Symbol("S′ + M", "S' + M"), i=1, j=1)
    for lang in ("en", "pl", "ru"):
        text = latex(tile, lang)
        assert text.startswith("$S{}_{11}$") and "$$" not in text, text


@pytest.mark.parametrize("lang", ["en", "pl", "ru"])
def test_a_numbered_symbol_is_math_as_the_layer_writes_its_r1(lang: str) -> None:
    """K₁ in a sentence is `$K_{1}$`, italic like the `$K$` of the next line and the `R_{1}` of
    the layer's formulas, not an upright K beside a subscript set apart (`K\\ensuremath{{}_{1}}`
    before)."""
    shared = Msg.of("heads {heads} use K{group} and V{group}", heads="1, 2", group="₁")
    check = Msg.of("Check: z{sub} equals row {token} of Z, the output of full causal "
                   "attention, to 12 decimal places.", sub="₃", token="sat")
    text = latex(shared, lang)
    assert "$K_{1}$" in text and "$V_{1}$" in text and "{}_" not in text, text
    assert latex(check, lang).count("$z_{3}$") == 1
    marked = Marked(lambda m: translate(m, lang))
    assert "$`K_{1}`$" in prose(marked(shared), "github", marked.words, lang)
    assert "$`z_{3}`$" in prose(marked(check), "github", marked.words, lang)


def test_a_token_with_a_subscript_stays_the_users_word() -> None:
    """Only attn's own numbering joins a letter: a token `a₁` is escaped whole, as written."""
    msg = Msg.of("Check: z{sub} equals row {token} of Z, the output of full causal attention, "
                 "to 12 decimal places.", sub="₃", token="a₁")
    assert r"a\ensuremath{{}_{1}}" in latex(msg, "en")
