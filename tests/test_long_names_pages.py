"""A token name of 250 characters with no point to break at, in Typst, HTML and the SVGs, shown
as LaTeX shows it (tests/test_long_names_latex.py): its first and last characters around `…`,
the same shortened form in every place a name goes (a label, `S[name, name]`, `k_name`, a
heading, the reading, the heatmap, an HTML cell's aria-label), the whole name nowhere; two
names shown alike numbered apart (`a…a₁`, `a…a₂`); a title and a description of one word of
400 letters shortened as LaTeX's prose (shown_prose). And every page holds them: the Typst
compiled with no word past its text area, the HTML in headless Chromium with no sideways
scroll, the heatmap SVG a width a page holds. JSON keeps every name whole: it is data."""

from __future__ import annotations

import json
import re
import subprocess
import xml.etree.ElementTree as ET
from functools import partial
from html import escape
from pathlib import Path

import pytest
import yaml

from attncli.arithmetic.selection import Selection
from attncli.model import Walkthrough
from attncli.model.latex_text import shown_name, shown_prose
from attncli.render import render
from attncli.render.html_assets import SCRIPT, STYLE
from attncli.render.long_names import Names
from attncli.render.typst import HELPERS
from attncli.spec import load_spec
from attncli.steps.build import build
from tests.svg_text import svg_lines
from tests.test_figures import chromium
from tests.test_latex_pages import CAT, TIED
from tests.test_long_names_latex import ESCAPED, LETTERS
from tests.test_typst import A4, SLIDE_43, compile_pdf, outside, text_of

TWIN = LETTERS + "a"  # shown alike with LETTERS (`a` × 21, `…`, `a` × 21): numbered apart
WORD = "w" * 400  # a title and a description of one word
SHOWN_WORD = "w" * 15 + "…" + "w" * 14  # `w` is 7.22 pt: 29 of them and `…` fit 225 pt
HTML_SPECIAL = str.maketrans({"&": "&amp;", "<": "&lt;", ">": "&gt;"})


def spec(folder: Path) -> Path:
    path = folder / "long.json"
    path.write_text(json.dumps({
        "title": WORD, "description": WORD, "tokens": [LETTERS, ESCAPED, "the", TWIN],
        "embeddings": [[1, 0], [0.2, 1], [0.8, 0], [0.5, 0.5]], "mask": "causal",
        "backward": {"dO": "ones"}}, ensure_ascii=False), encoding="utf-8")
    return path


def walkthrough(folder: Path) -> Walkthrough:
    return build(load_spec(str(spec(folder))), Selection.parse(["all"]))


def test_the_shortened_forms_are_latexs() -> None:
    assert shown_prose(WORD) == SHOWN_WORD
    # the labels of steps/labels.py: the twins numbered, then shortened apart (`₁` kept)
    assert shown_name(LETTERS + "₁") == "a" * 21 + "…" + "a" * 20 + "₁"
    assert shown_name(TWIN + "₂") == "a" * 21 + "…" + "a" * 20 + "₂"


def test_a_name_is_replaced_whole_in_one_pass() -> None:
    inner, outer = "b" * 60, "b" * 60 + "c" * 60  # the second holds the first
    names = Names.of_labels((inner, outer, "the"))
    assert names.names == (outer, inner)  # "the" fits: never touched
    assert names.shown(f"S[{outer}, the] = q_{inner}") == (
        f"S[{shown_name(outer)}, the] = q_{shown_name(inner)}")
    assert names.shown("the cat") == "the cat"
    # how a format writes it: an attribute's `&amp;` is found and written alike
    amp = "&" * 60
    escaped = Names.of_labels((amp,)).replacer([partial(escape, quote=True)])
    assert escaped(escape(f"[{amp}]")) == escape(f"[{shown_name(amp)}]")
    assert len(shown_name(amp)) < 60


def shown_everywhere(out: str, escape: bool = False) -> None:
    """The whole names and the 400-letter word nowhere in `out`; their short forms there."""
    assert "a" * 43 not in out and "w" * 16 not in out
    assert ESCAPED[:18] not in out and ESCAPED[-17:] not in out
    short = [shown_name(LETTERS + "₁"), shown_name(TWIN + "₂"), shown_name(ESCAPED)]
    for name in short:
        assert (name.translate(HTML_SPECIAL) if escape else name) in out, name
    assert SHOWN_WORD in out


def test_typst_shows_a_long_name_within_the_page(tmp_path: Path) -> None:
    w = walkthrough(tmp_path)
    for kind, source, area in (
            ("doc", render(w, "typst", "en", standalone=True), A4),
            ("deck", render(w, "typst", "ru", slides=True, aspect="43"), SLIDE_43)):
        shown_everywhere(source.replace('\\"', '"').replace("\\\\", "\\"))
        path = tmp_path / f"{kind}.typ"
        path.write_text(source, encoding="utf-8")
        pdf = compile_pdf(path)  # no error, no warning
        assert outside(pdf, area) == [], (kind, outside(pdf, area)[:3])
        text = text_of(pdf)
        assert not re.search("a{22}", text) and shown_name(LETTERS + "₁")[:22] in text


# the page's width and the width of its widest line, written into the page once it is laid out
MEASURE = ("<script>addEventListener('load', () => document.body.setAttribute('data-fit', "
           "document.documentElement.scrollWidth + ' ' + document.documentElement.clientWidth))"
           "</script>")


@pytest.mark.parametrize(("lang", "window"), [("pl", 1024), ("en", 500)])  # 500: Chromium's least
def test_an_html_page_with_a_long_name_never_scrolls_sideways(lang: str, window: int,
                                                              tmp_path: Path) -> None:
    page = render(walkthrough(tmp_path), "html", lang)
    shown_everywhere(page, escape=True)
    path = tmp_path / "page.html"
    path.write_text(page.replace("</body>", MEASURE + "</body>"), encoding="utf-8")
    dom = chromium(f"--window-size={window},768", "--dump-dom", path.as_uri())
    found = re.search(r'data-fit="(\d+) (\d+)"', dom)
    assert found is not None, dom[:300]
    scroll, client = map(int, found.groups())
    assert client == window and scroll <= client, (scroll, client)


def test_the_svgs_show_a_long_name_shortened(tmp_path: Path) -> None:
    w = walkthrough(tmp_path)
    heatmap = render(w, "heatmap", "en")
    shown_everywhere(heatmap, escape=True)
    root = ET.fromstring(heatmap)
    # its labels of 43 characters at 7.9 px and 4 cells of a weight: not the 2,000 px and more
    # that whole names took
    assert float(root.get("width", "0")) <= 1000
    terminal = render(w, "svg", "en", width=100)
    ET.fromstring(terminal)
    shown_everywhere(terminal.replace("&#160;", " "), escape=True)
    lines = svg_lines(terminal)
    # a name is one piece of one line, never wrapped onto the next
    assert any(shown_name(LETTERS + "₁") in line for line in lines)
    assert any(shown_name(ESCAPED) in line for line in lines)


def test_json_keeps_every_name_whole(tmp_path: Path) -> None:
    doc = render(walkthrough(tmp_path), "json", "en")
    assert LETTERS in doc and WORD in doc and json.dumps(ESCAPED, ensure_ascii=False)[1:-1] in doc


def own_code() -> list[str]:
    """Tokens that spell out a run of attn's own code, each wider than a line: the signature of
    the Typst matrix helper, and the longest lines of the page's script and style with no
    character HTML escapes (so a name's escaped form is the code itself)."""
    lines = [line.strip() for code in (SCRIPT, STYLE) for line in code.splitlines()]
    plain = sorted((line for line in lines if not set(line) & set("<>&\"'")), key=len)
    helper = next(line for line in HELPERS.splitlines() if line.startswith("#let attn-matrix("))
    tokens = [helper.removeprefix("#let ").removesuffix(" = {"), *plain[-2:]]
    assert all(shown_name(token) != token for token in tokens)  # each one shortened
    return tokens


@pytest.mark.parametrize("token", own_code())
def test_a_name_that_spells_attns_code_leaves_the_code_whole(token: str, tmp_path: Path) -> None:
    path = tmp_path / "code.json"
    path.write_text(json.dumps({"tokens": ["a", token, "c"], "embeddings": [[1, 0], [0, 1], [1, 1]],
                                "mask": "causal"}), encoding="utf-8")
    w = build(load_spec(str(path)), Selection.parse(["all"]))
    for fragment in (False, True):
        page = render(w, "html", "en", fragment=fragment)
        assert SCRIPT in page and STYLE in page
        script = tmp_path / "page.js"
        script.write_text(re.findall(r"<script>(.*?)</script>", page, re.S)[-1], encoding="utf-8")
        subprocess.run(["node", "--check", str(script)], check=True)
        text = re.sub(r"<script>.*?</script>|<style>.*?</style>", "", page, flags=re.S)
        assert escape(token) not in text and escape(shown_name(token)) in text
    for kind, source in (("doc", render(w, "typst", "en", standalone=True)),
                         ("deck", render(w, "typst", "en", slides=True))):
        assert HELPERS in source
        assert shown_name(token) in source.replace(HELPERS, "")
        assert token not in source.replace(HELPERS, "")
        typ = tmp_path / f"{kind}.typ"
        typ.write_text(source, encoding="utf-8")
        compile_pdf(typ)  # no error, no warning


@pytest.mark.parametrize("text", TIED.values(), ids=TIED.keys())
def test_tied_short_words_stay_within_the_typst_page_and_the_html_window(text: str,
                                                                         tmp_path: Path) -> None:
    """A title and a description of short words joined by no-break spaces ran 4 to 7 words past
    Typst's text area and made the HTML page scroll 9,383 px sideways; they are shortened as
    LaTeX shortens them (tests/test_latex_pages.py), the same in every format."""
    spec = yaml.safe_load(CAT.read_text(encoding="utf-8"))
    spec["title"] = spec["description"] = text
    (tmp_path / "s.yaml").write_text(yaml.safe_dump(spec), encoding="utf-8")
    w = build(load_spec(str(tmp_path / "s.yaml")), Selection.parse(["all"]))
    for kind, source, area in (
            ("doc", render(w, "typst", "en", standalone=True), A4),
            ("deck", render(w, "typst", "en", slides=True, aspect="43"), SLIDE_43)):
        assert shown_prose(text) in source.replace('\\"', '"')
        path = tmp_path / f"{kind}.typ"
        path.write_text(source, encoding="utf-8")
        pdf = compile_pdf(path)
        assert outside(pdf, area) == [], (kind, outside(pdf, area)[:3])
    path = tmp_path / "page.html"
    path.write_text(render(w, "html", "en").replace("</body>", MEASURE + "</body>"),
                    encoding="utf-8")
    dom = chromium("--window-size=500,768", "--dump-dom", path.as_uri())
    found = re.search(r'data-fit="(\d+) (\d+)"', dom)
    assert found is not None, dom[:300]
    scroll, client = map(int, found.groups())
    assert scroll <= client == 500, (scroll, client)
