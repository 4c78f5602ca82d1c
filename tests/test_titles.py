"""A spec's title is set as attn's own sentences are: in Polish and Russian a one-letter word is
bound to the next word (no line of the PDF ends with „z” or «в»). Its words are the user's, as
written: `a_b` in a title is not a subscript (tests/test_export_renderers.py's tricky tokens)."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest

from attncli import build, loads_spec, render
from tests.test_latex_pages import pdflatex

ROOT = Path(__file__).resolve().parent.parent
NBSP = "\u00a0"


def multi_query(fmt: str, lang: str, **options: object) -> str:
    spec = loads_spec((ROOT / "configs" / "multi_query.yaml").read_text(encoding="utf-8"))
    return render(build(spec), fmt, lang, **options)


TITLES = {  # configs/multi_query.yaml's title line in each format
    ("latex", "en"): r"\section*{Multi-{}query attention: two heads, one K and V}",
    ("latex", "pl"): r"\section*{Atencja wielozapytaniowa: dwie głowice, jedno K i~V}",
    ("latex", "ru"): r"\section*{Многозапросное внимание: две головы, общие K и~V}",
    ("beamer", "pl"): r"\frametitle{Atencja wielozapytaniowa: dwie głowice, jedno K i~V}",
    ("beamer", "ru"): r"\frametitle{Многозапросное внимание: две головы, общие K и~V}",
    ("markdown", "en"): "# Multi-query attention: two heads, one K and V",
    ("markdown", "pl"): f"# Atencja wielozapytaniowa: dwie głowice, jedno K i{NBSP}V",
    ("markdown", "ru"): f"# Многозапросное внимание: две головы, общие K и{NBSP}V",
    ("typst", "pl"): f'#heading(level: 1, "Atencja wielozapytaniowa: dwie głowice, jedno K '
                     f'i{NBSP}V")',
    ("typst", "ru"): f'#heading(level: 1, "Многозапросное внимание: две головы, общие K '
                     f'и{NBSP}V")',
    ("html", "pl"): f"<h1>Atencja wielozapytaniowa: dwie głowice, jedno K i{NBSP}V</h1>",
    ("html", "ru"): f"<h1>Многозапросное внимание: две головы, общие K и{NBSP}V</h1>",
}


@pytest.mark.parametrize(("fmt", "lang"), list(TITLES))
def test_the_title_is_typeset_and_its_words_are_as_written(fmt: str, lang: str) -> None:
    out = multi_query(fmt, lang, md_flavor="katex") if fmt == "markdown" else multi_query(
        fmt, lang)
    lines = re.findall(r"<h1>.*?</h1>", out) if fmt == "html" else out.splitlines()
    assert TITLES[(fmt, lang)] in lines


def test_the_html_page_title_is_typeset_too() -> None:
    assert (f"<title>Atencja wielozapytaniowa: dwie głowice, jedno K i{NBSP}V</title>"
            in multi_query("html", "pl"))


# A title long enough to wrap in the PDF, with a one-letter word wherever the line could end.
LONG = {
    "pl": "Atencja z maską: głowice w modelu z pamięcią i z kluczami o wartościach u źródła z "
          "tokenami w zdaniu i z wagami a potem z wyjściem",
    "ru": "Внимание с маской: головы в модели с памятью и с ключами к значениям у источника в "
          "предложении и с весами а затем с выходом",
}


@pytest.mark.parametrize("lang", list(LONG))
def test_no_line_of_a_pdf_title_ends_with_a_one_letter_word(lang: str, tmp_path: Path) -> None:
    spec = (f'title: "{LONG[lang]}"\ntokens: [a, b]\nembeddings: [[1, 0], [0, 1]]\n')
    source = render(build(loads_spec(spec)), "latex", lang, standalone=True)
    pdflatex(source, tmp_path)
    text = subprocess.run(["pdftotext", "doc.pdf", "-"], cwd=tmp_path, capture_output=True,
                          text=True, check=True).stdout
    title = text[:text.index(LONG[lang].split()[-1]) + len(LONG[lang].split()[-1])]
    assert title.count("\n") >= 1  # the title wraps
    letters = "aiouwz" if lang == "pl" else "авикосуя"
    assert [line for line in title.splitlines() if re.search(rf"\s[{letters}]$", line)] == []


def test_the_description_under_the_title_is_typeset_too() -> None:
    spec = ('title: {pl: "Atencja z maską"}\ndescription: {pl: "Klucz w ostatnim wierszu jest '
            'ukryty i nie waży nic."}\ntokens: [a, b]\nembeddings: [[1, 0], [0, 1]]\n')
    lines = render(build(loads_spec(spec)), "latex", "pl").splitlines()
    assert r"\section*{Atencja z~maską}" in lines
    assert "Klucz w~ostatnim wierszu jest ukryty i~nie waży nic." in lines
