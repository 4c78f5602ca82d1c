"""attncli/render/tex_metrics.py's widths against pdflatex's own: every character attn sets in
LaTeX text (ASCII, the Latin letters of T1, Cyrillic in T2A, its punctuation and the symbols it
writes as math) measured by \\settowidth in the roman of an article and the sans serif of a deck,
and the smaller sizes' share of the body's, measured in both.

`python -m tests.test_tex_metrics` prints attncli/model/tex_widths.py anew from the measures.
"""

from __future__ import annotations

import json
import math
import re
import subprocess
import tempfile
from functools import cache
from pathlib import Path

import pytest

from attncli.model.latex_text import MATH_SYMBOLS, PUNCTUATION, escape_text
from attncli.model.tex_widths import TEXT_WIDTHS
from attncli.render import render
from attncli.render.latex_matrix import SIZES
from attncli.render.tex_metrics import CODE_POINT, EM, text_width
from attncli.spec import loads_spec
from attncli.steps.build import build
from tests.conformance_cases import LONG
from tests.test_latex_pages import need_tools, overfull, pdflatex, words_outside

# Every character escape_text writes as itself, in a T1 or T2A font, or as math (the rest are
# `U+XXXX` in typewriter type, CODE_POINT points a character)
SET = [chr(c) for c in range(0x20, 0x7F)] + [
    chr(c) for c in (*range(0xA0, 0x180), *range(0x400, 0x460), 0x490, 0x491)
    if "texttt" not in escape_text(chr(c))] + sorted(PUNCTUATION) + list(MATH_SYMBOLS)
SET = list(dict.fromkeys(SET))
FAMILIES = ("rm", "sf")  # the article's roman and Beamer's sans serif
SIZE_PROBES = {"cyrillic": r"\text{переобученная\_не}", "latin": r"\text{internationaliza}",
               "number": "0.20", "negative": "-0.20"}


def pdflatex_log(source: str) -> str:
    need_tools()
    with tempfile.TemporaryDirectory() as folder:
        (Path(folder) / "m.tex").write_text(source, encoding="utf-8")
        subprocess.run(["pdflatex", "-interaction=nonstopmode", "-halt-on-error", "m.tex"],
                       cwd=folder, capture_output=True, timeout=300, check=True)
        return (Path(folder) / "m.log").read_text(encoding="utf-8", errors="replace")


@cache
def measured_characters() -> dict[str, float]:
    """Each character's width in points at 10 pt: the wider of roman and sans serif."""
    lines = [r"\documentclass{article}", r"\usepackage[T2A,T1]{fontenc}",
             r"\usepackage{amsmath}", r"\newlength\w", r"\begin{document}"]
    lines += [rf"\settowidth\w{{\{family}family {escape_text(ch) or chr(92) + ' '}}}"
              rf"\typeout{{W {ord(ch):04X} \the\w}}"  # a space between words: `\ `
              for family in FAMILIES for ch in SET]
    log = pdflatex_log("\n".join([*lines, r"\end{document}"]))
    widths: dict[str, float] = {}
    for code, points in re.findall(r"^W ([0-9A-F]+) ([\d.]+)pt", log, re.M):
        widths[chr(int(code, 16))] = max(widths.get(chr(int(code, 16)), 0.0), float(points))
    assert len(widths) == len(SET)
    return widths


def size_log(document: str) -> dict[tuple[str, str], float]:
    """Each probe's width at each size (and the body's) in `document` (article or beamer)."""
    sizes = [("body", "")] + [(size[1:], size) for size, _ in SIZES]
    probes = [rf"\settowidth\w{{{command}${math}$}}\typeout{{P {name} {kind} \the\w}}"
              for name, command in sizes for kind, math in SIZE_PROBES.items()]
    head = {"article": [r"\documentclass{article}", r"\usepackage{amsmath}"],
            "beamer": [r"\documentclass[aspectratio=43]{beamer}"]}[document]
    begin, end = ([r"\begin{frame}"], [r"\end{frame}"]) if document == "beamer" else ([], [])
    log = pdflatex_log("\n".join([*head, r"\usepackage[T1,T2A]{fontenc}", r"\newlength\w",
                                  r"\begin{document}", *begin, *probes, *end,
                                  r"\end{document}"]))
    return {(name, kind): float(points)
            for name, kind, points in re.findall(r"^P (\w+) (\w+) ([\d.]+)pt", log, re.M)}


def test_every_character_is_as_wide_as_pdflatex_sets_it() -> None:
    """Within 0.01 pt of the wider of the two families, never narrower."""
    measured = measured_characters()
    wrong = {ch: (TEXT_WIDTHS.get(ch), points) for ch, points in measured.items()
             if not points <= TEXT_WIDTHS.get(ch, 0.0) <= points + 0.01}
    assert wrong == {}


def test_a_cyrillic_letter_is_about_half_an_em_not_a_whole_one() -> None:
    # by hand from the fonts' tables: а 0.5 em in larm1000; the Russian 16-letter line
    assert 4.99 <= text_width("а") <= 5.01
    line = "переобученная_не"
    assert text_width(line) == pytest.approx(sum(measured_characters()[ch] for ch in line),
                                             abs=0.01 * len(line))
    assert text_width(line) < 0.6 * EM * len(line)


def test_a_character_written_as_its_code_point_is_as_wide_as_the_code() -> None:
    # `U+1F600` in cmtt10: seven characters of 0.525 em
    assert text_width("\U0001F600") == pytest.approx(7 * 5.25)
    assert CODE_POINT == 5.25


def test_each_smaller_size_takes_no_more_than_its_share() -> None:
    """A size's share of the body's width is at least what every probe measures in the article
    and in a deck (text in both scripts, numbers: a smaller design size is drawn wider), and at
    most 0.02 more."""
    widths = {document: size_log(document) for document in ("article", "beamer")}
    for size, share in SIZES:
        ratios = [w[(size[1:], kind)] / w[("body", kind)]
                  for w in widths.values() for kind in SIZE_PROBES]
        assert max(ratios) <= share <= max(ratios) + 0.02, (size, ratios)


def test_a_russian_deck_of_long_names_at_4_3_sets_its_matrices_at_the_body_size(
        tmp_path: Path) -> None:
    """Five 40-character names (one Russian) at 4:3, where a Cyrillic letter counted as an em
    set 18 matrix blocks in \\scriptsize and 4 in \\tiny: each block now holds a column or more
    beside its row labels at the body's size, and still fits its frame."""
    spec = loads_spec(json.dumps({
        "tokens": LONG, "mask": "causal",
        "embeddings": [[round(((i * 7 + j * 3) % 11) / 5.0 - 1.0, 2) for j in range(8)]
                       for i in range(len(LONG))]}), name="long.json")
    deck = render(build(spec), "beamer", "ru", aspect="43")
    switches = [size for size, _ in SIZES if "\\begingroup" + size in deck]
    assert switches == []
    log = pdflatex(deck, tmp_path)
    assert overfull(log) == []
    assert words_outside(tmp_path / "doc.pdf") == []


def table_source() -> str:
    """attncli/model/tex_widths.py from the measures."""
    measured = measured_characters()
    entries = [ch + str(math.ceil(round(measured[ch] * 100, 3))) for ch in SET]
    rows, row = [], ""
    for entry in entries:
        if len(row) + len(entry) + 1 > 88:
            rows.append(row)
            row = ""
        row += entry + " "
    rows.append(row)
    body = "\n".join("    " + repr(r) for r in rows)
    return (
        '"""How wide pdflatex sets each character attn writes in LaTeX text, in hundredths of a '
        'point at\n10 pt: the wider of the article\'s roman (ecrm1000, larm1000) and Beamer\'s sans'
        ' serif (ecss1000,\nlass1000); a symbol as the math attn writes for it. Measured by '
        'tests/test_tex_metrics.py,\nwhich prints this file anew: python -m tests.test_tex_metrics'
        '\n"""\n\nimport re\n\n# each character, its width, a space\n_TABLE = (\n' + body
        + "\n)\nTEXT_WIDTHS: dict[str, float] = {\n"
        "    ch: int(width) / 100 for ch, width in re.findall(r\"(.)(\\d+) \", _TABLE, re.S)\n}\n")



RUSSIAN_LONG = ["интернационализация_и_локализация_текста", "представление_последовательности_слов",
                "механизм_внимания_трансформера_модели", "нормализация_слоя_и_остаточная_связь"]


def test_two_long_russian_names_of_a_written_out_cell_break_after_their_comma(
        tmp_path: Path) -> None:
    """S[name, name] = … and cos θ's fraction of two 39-character Cyrillic names are wider than
    a 4:3 frame's line even in \\tiny (28 overfull boxes, up to 32 pt): the line now breaks
    after the names' comma and writes the fraction inline, in the size one name fits in."""
    spec = loads_spec(json.dumps({
        "tokens": RUSSIAN_LONG, "heads": 2, "display": {"steps": ["scores"]},
        "embeddings": [[round(((i * 5 + j * 3) % 7) / 3.0 - 1.0, 2) for j in range(6)]
                       for i in range(len(RUSSIAN_LONG))]}), name="long.json")
    deck = render(build(spec), "beamer", "ru", aspect="43")
    assert r",\allowbreak \text{" in deck and r" /\allowbreak (|" in deck
    assert r"{\tiny \hangindent" not in deck
    log = pdflatex(deck, tmp_path)
    assert overfull(log) == []
    assert words_outside(tmp_path / "doc.pdf") == []


if __name__ == "__main__":
    print(table_source(), end="")
