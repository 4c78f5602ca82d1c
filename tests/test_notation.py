"""One notation path: every formula a document's sentence writes in Unicode (in any language) is
typeset as math by the LaTeX and Markdown exports (attncli/render/notation.py), never left as
text with raw carets, underscores, combining accents or code points."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from attncli.i18n import LOCALE_DIR, Msg, Symbol, translate
from attncli.i18n.po import read_po
from attncli.render.md_prose import Marked, prose
from attncli.render.notation import message, segments
from attncli.render.tex import escape_text

# What only notation writes: a Hadamard product, a transpose, an accent, a prime, Greek letters,
# a power, a letter with a subscript (W_Q, θᵢ, A₁).
NOTATION_ONLY = re.compile(r"[⊙ᵀ\u0300-\u036f′θℓΣα^]|(?<![\w.])[A-Za-z]_[A-Za-z0-9]"
                           r"|(?<![\w])[A-Za-z][ᵢⱼ₀-₉](?![\w])")
# the modules whose sentences are printed in a document (not in --help or an error message)
DOCUMENT = re.compile(r"attncli/(?:.*/)?(?:steps|render|arithmetic|reading|expand)")


def document_sentences() -> list[tuple[str, str]]:
    """(language, sentence) of every message a document prints, in every catalog."""
    out = []
    for lang in ("en", "pl", "ru"):
        path = (LOCALE_DIR / "attn.pot" if lang == "en"
                else LOCALE_DIR / lang / "LC_MESSAGES" / "attn.po")
        for entry in read_po(Path(path).read_text(encoding="utf-8")):
            if entry.obsolete or not any(DOCUMENT.search(r) for r in entry.references):
                continue
            texts = [entry.msgid] if lang == "en" else [s for s in entry.msgstr if s]
            out += [(lang, text) for text in texts]
    return out


SENTENCES = document_sentences()


def filled(sentence: str) -> str:
    """The sentence with each parameter a whole number, as counts and sizes are."""
    return re.sub(r"\{\w+\}", "7", sentence.replace("{{", "{").replace("}}", "}"))


def test_the_catalog_has_document_sentences_with_notation() -> None:
    with_notation = [s for _, s in SENTENCES if NOTATION_ONLY.search(s)]
    assert len(with_notation) >= 3 * 20  # the backward, online softmax and RoPE notes at least


@pytest.mark.parametrize("lang", ["en", "pl", "ru"])
def test_every_formula_of_a_document_sentence_is_math(lang: str) -> None:
    left = [(sentence, text) for code, sentence in SENTENCES if code == lang
            for is_math, text in segments(filled(sentence))
            if not is_math and NOTATION_ONLY.search(text)]
    assert left == []


def test_a_formula_is_typeset_in_latex_and_markdown() -> None:
    note = Msg.of("L = Σ dO ⊙ O stands for the rest of the network: dO is the gradient that "
                  "arrives at the output; when dO is all ones, L is simply the sum of the outputs.")
    tex = message(note, "pl", escape_text, str)
    assert tex.startswith(r"$L = \sum dO \odot O$~zastępuje")  # O, one letter, is bound
    assert "U+" not in tex
    marked = Marked(lambda m: translate(m, "ru"))
    assert prose(marked(note), "katex", marked.words).startswith(r"$L = \sum dO \odot O$ заменяет")


def test_a_power_is_typeset_with_its_base() -> None:
    rope = Msg.of("At position p, the i-th pair of features turns by the angle p·ωᵢ, where "
                  "ωᵢ = {base}^(−2i/d_k); V is not turned.", base=10000)
    assert r"$\omega_i = 10000^{-2i/d_k}$" in message(rope, "ru", escape_text, str)


def test_a_symbol_is_math_and_a_word_is_text() -> None:
    names = Msg.of("{first} and {last}", first=Symbol("W_Q", "W_{Q}"), last="W_Q")
    tex = message(names, "en", escape_text, str)
    assert tex == r"$W_{Q}$ and W\_Q"  # attn's W_Q typeset; a token that reads W_Q as written
    marked = Marked(lambda m: translate(m, "en"))
    assert prose(marked(names), "github", marked.words) == r"$`W_{Q}`$ and W\_Q"


def test_markdown_math_has_no_underscore_commonmark_could_read_as_emphasis() -> None:
    """An underscore after `}` or `)` may open emphasis that a later `m_{…}` closes, taking the
    math apart before KaTeX's auto-render; `\\_` becomes `_` in that CommonMark pass. Every formula
    of the catalog's sentences, as Markdown writes it, has neither."""
    from attncli.render import md_math
    from attncli.render.notation import FORMULAS

    bad = {unicode: tex for unicode, tex in
           ((u, md_math.formula(t)) for u, t in FORMULAS.items())
           if re.search(r"[^\w\s]_|\\_", tex)}
    assert bad == {}


def test_a_symbol_and_its_subscript_are_one_formula_in_markdown() -> None:
    note = Msg.of("S{ij} is the tile of {scores} for query block {i} and key block {j}; "
                  "m = max(m_old, the row's largest score in the tile), and α = e^(m_old − m) "
                  "rescales what ℓ and Õ kept.", ij=Symbol("₁₁", "{}_{11}"),
                  scores=Symbol("S′ + M", "S' + M"), i=1, j=1)
    marked = Marked(lambda m: translate(m, "en"))
    line = prose(marked(note), "katex", marked.words)
    assert line.startswith("$S_{11}$ is the tile of $S' + M$"), line
    github = prose(marked(note), "github", marked.words)
    assert github.startswith("$`S_{11}`$ is the tile of $`S' + M`$"), github


@pytest.mark.parametrize("lang", ["en", "pl", "ru"])
def test_a_sum_after_a_symbol_is_one_formula_in_latex_and_markdown(lang: str) -> None:
    """`(d_k = 4 + 2)` and `d_k = d_nope + d_R = 4` (Polish and Russian bind `=` with no-break
    spaces): one formula each, in the LaTeX export and in Markdown, not `$d_k = 4$ + 2`."""
    cached = Msg.of("The same heads with their keys and values cached (d_k = {d_nope} + {d_rope}):",
                    d_nope=4, d_rope=2)
    tex = message(cached, lang, escape_text, str)
    assert r"($d_{k} = 4 + 2$):" in tex, tex
    marked = Marked(lambda m: translate(m, lang))
    assert r"($d_{k} = 4 + 2$):" in prose(marked(cached), "katex", marked.words, lang)
    assert [math for is_math, math in segments("where d_k = d_nope + d_R = 4: both") if is_math] \
        == [r"d_{k} = d_{\text{nope}} + d_{R} = 4"]
    assert [math for is_math, math in segments("pairs (i, i + d_k/2)") if is_math] \
        == ["i", r"i + d_{k}/2"]


def test_notation_is_found_where_it_was_before_the_test_after_a_word_character() -> None:
    """The scan tests first whether a piece may begin where it stands (after a word character,
    only a few can): every catalog sentence, filled with numbers, with a letter glued before
    each notation and with every character of the alternatives after a word, splits exactly as
    the pieces alone, tried at every character, split it."""
    from attncli.render import notation

    every_piece = re.compile(notation._PIECES)
    glued = [f"x{formula} and x√d_k, xcos θ = 0.5, x^(2i/d), x−∞, x(−c, c), x′(A₁) xe^x xd_k"
             for formula in notation.FORMULAS]
    texts = [(lang, text) for lang, s in SENTENCES for text in (filled(s), "w" + filled(s))]
    texts += [("en", text) for text in glued]
    assert len(texts) > 1000
    for lang, text in texts:
        with_test = notation.scan(text, lang, notation._math)
        try:
            notation._NOTATION, kept = every_piece, notation._NOTATION
            alone = notation.scan(text, lang, notation._math)
        finally:
            notation._NOTATION = kept
        assert with_test == alone, text
