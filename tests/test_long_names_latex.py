"""A token name of 250 characters with no point to break at, in LaTeX and Beamer: every place
that names it (a column's label, a row's, `S[the, name]`, `k_name` in a written-out line, the
heatmap, `columns name–the`, the reading's sentences) shows it shortened in the middle to the
width of the widest name known to fit (225 pt), the same way, so every line fits: pdflatex's
log has no overfull box, in en, pl and ru, a document and a deck. One name is letters; the
other holds every character LaTeX escapes (`\\{`, `\\textbackslash{}`, `\\_`, `\\#`, `\\%`, `\\&`)
and Cyrillic, which the shortening must never cut inside."""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path

import pytest

from attncli.arithmetic.selection import Selection
from attncli.model.latex_text import (
    escape_text,
    shown_name,
    shown_word,
    shown_words,
    text_math,
    text_width,
)
from attncli.render import render
from attncli.spec import load_spec
from attncli.steps.build import build
from tests.conformance_cases import LONG
from tests.test_latex_pages import overfull, pdflatex, words_outside

LETTERS = "a" * 250
ESCAPED = ("{x}\\_#%&кот" * 23)[:250]
# `a` is 5 pt wide, `…` 13.34 (model/tex_widths.py): 225 − 13.34 = 211.66 pt hold 42 letters
SHOWN_LETTERS = "a" * 21 + "…" + "a" * 21
WIDE = "Ш" * 41  # 41 characters, but of the widest letter: 461 pt, twice what a name may take


def spec(folder: Path) -> Path:
    path = folder / "long.json"
    path.write_text(json.dumps({
        "title": "Long names", "tokens": [LETTERS, ESCAPED, "the", WIDE],
        "embeddings": [[1, 0], [0.2, 1], [0.8, 0], [0.5, 0.5]], "mask": "causal",
        "backward": {"dO": "ones"}}, ensure_ascii=False), encoding="utf-8")
    return path


def test_a_name_wider_than_a_line_keeps_its_ends() -> None:
    assert shown_word(LETTERS) == SHOWN_LETTERS
    assert text_width(SHOWN_LETTERS) == pytest.approx(223.34)
    # `W` is 10.28 pt: 20 of them and `…` are 218.9 pt, 21 would pass 225
    assert shown_word("W" * 41) == "W" * 10 + "…" + "W" * 10
    for name in LONG:  # the conformance matrix's long names (up to 222.6 pt) stay whole
        assert shown_word(name) == name
    # the first 17 characters and the last 16; the first part is the longer when they differ
    assert shown_word(ESCAPED) == ESCAPED[:17] + "…" + ESCAPED[-16:]
    # TeX breaks after no dash written as the character: `–the` is part of the word, which is
    # shortened whole to the same width
    tied = shown_word(LETTERS + "–the")
    assert shown_words(f"columns {LETTERS}–the") == f"columns {tied}"
    assert tied.endswith("a–the") and text_width(tied) <= 225 < text_width(SHOWN_LETTERS + "–the")
    # shortened before it is escaped: no escape is cut in two, Cyrillic keeps its encoding
    assert text_math(ESCAPED) == (
        r"\text{\{x\}\textbackslash{}\_\#\%\&{\fontencoding{T2A}\selectfont кот}\{x\}"
        r"\textbackslash{}\_\#…\textbackslash{}\_\#\%\&{\fontencoding{T2A}\selectfont кот}"
        r"\{x\}\textbackslash{}\_\#\%\&}")
    assert escape_text(ESCAPED) != escape_text(shown_word(ESCAPED))  # prose: Writer.shown


@pytest.mark.parametrize("lang", ["en", "pl", "ru"])
def test_a_250_character_name_fits_every_page_and_frame(lang: str, tmp_path: Path) -> None:
    walkthrough = build(load_spec(str(spec(tmp_path))), Selection.parse(["all"]))
    for name, source in (
            ("doc", render(walkthrough, "latex", lang, standalone=True)),
            ("deck", render(walkthrough, "beamer", lang, aspect="43" if lang == "ru" else "169"))):
        log = pdflatex(source, tmp_path, name)
        assert overfull(log) == [], (name, overfull(log)[:3])
        assert words_outside(tmp_path / f"{name}.pdf") == []
        # the same shortened name wherever a name is shown, never the whole one
        assert "a" * 22 not in source and source.count("a" * 21) >= 20
        text = subprocess.run(["pdftotext", f"{name}.pdf", "-"], cwd=tmp_path,
                              capture_output=True, text=True, check=True).stdout
        assert not re.search("a{22}", text)


SPACED = ("word " * 60).strip()  # 299 characters: no word is long, the name is 1,000 pt wide
NO_BREAK = "x\u00a0" * 80
DASHED = "ab–" * 80


def test_a_name_of_short_words_is_shortened_as_a_whole() -> None:
    """A label is set in \\text{} inside math, which TeX breaks nowhere, not at a space: a name of
    60 short words ran 685 pt past the margin, as did one of no-break spaces or dashes."""
    for name in (SPACED, NO_BREAK, DASHED):
        assert shown_name(name) == shown_word(name) != name
        assert text_width(shown_name(name)) <= 225
        assert text_math(name) == text_math(shown_word(name))
    assert shown_name("the cat") == "the cat"
    # a sentence still breaks at its spaces: only its words too wide for a line are shortened,
    # a word being what TeX sets whole (no break after a dash or at a no-break space)
    assert shown_words(f"columns {LETTERS}–the") == f"columns {shown_word(LETTERS + '–the')}"
    assert shown_words(f"{DASHED} {NO_BREAK} x") == f"{shown_word(DASHED)} {shown_word(NO_BREAK)} x"


@pytest.mark.parametrize("lang", ["en", "ru"])
def test_names_of_short_words_and_a_title_of_one_long_word_fit(lang: str, tmp_path: Path) -> None:
    """Every line fits: the names above, and a title and a description of one 400-letter word
    (a title is prose, shortened word by word, as escape_text shortens a name's words)."""
    path = tmp_path / "spaced.json"
    path.write_text(json.dumps({
        "title": {"en": "T" * 400, "ru": "Ж" * 400}, "description": {"en": "x" * 300 + " y"},
        "tokens": [SPACED, NO_BREAK, DASHED, "the"],
        "embeddings": [[1, 0], [0.2, 1], [0.8, 0], [0.5, 0.5]], "mask": "causal"},
        ensure_ascii=False), encoding="utf-8")
    walkthrough = build(load_spec(str(path)), Selection.parse(["auto"]))
    for name, source in (("doc", render(walkthrough, "latex", lang, standalone=True)),
                         ("deck", render(walkthrough, "beamer", lang))):
        log = pdflatex(source, tmp_path, name)
        assert overfull(log) == [], (name, overfull(log)[:3])
        assert SPACED not in source and "T" * 30 not in source


def test_two_long_names_that_differ_in_the_middle_get_labels_told_apart() -> None:
    # a·100 X a·100 and a·100 Y a·100 both shortened to a·21 … a·21: they were one label in
    # LaTeX, Beamer and the Markdown formulas. Numbered as one token written twice, their
    # shortened labels keep the number (₁ is 4.49 pt, so the tail keeps 20 letters): they differ
    middle_x, middle_y = "a" * 100 + "X" + "a" * 100, "a" * 100 + "Y" + "a" * 100
    from attncli.spec.objects import spec_from

    walkthrough = build(spec_from({"tokens": [middle_x, middle_y, "the"],
                                   "embeddings": [[1, 0], [0, 1], [1, 1]]}), Selection("none"))
    labels = walkthrough.steps[0].matrices[0].rows
    assert labels == (middle_x + "₁", middle_y + "₂", "the")
    assert [shown_name(label) for label in labels] == [
        "a" * 21 + "…" + "a" * 20 + "₁", "a" * 21 + "…" + "a" * 20 + "₂", "the"]


def test_a_range_of_two_long_names_breaks_after_its_dash(tmp_path: Path) -> None:
    # three names of 101 letters that differ in the middle: the deck splits the weights into
    # column blocks headed `columns p…p₁–p…p₂ of 3`, two names of up to 225 pt each on a line of
    # 10.95 pt sans serif, 59 pt past the frame: TeX had no place to break the line
    from attncli.spec.objects import spec_from

    names = ["p" * 50 + str(k) + "p" * 50 for k in range(3)]
    walkthrough = build(spec_from({"tokens": names, "embeddings": [[-0.52, 0.09], [-0.26, 0.21],
                                                                    [0.25, -0.87]],
                                   "mask": "causal"}), Selection("shown"))
    source = render(walkthrough, "beamer", "en")
    assert re.search(r"columns p{19}…p{18}.*–", source)  # the range is there
    log = pdflatex(source, tmp_path, "deck")
    assert overfull(log) == [], overfull(log)[:3]
