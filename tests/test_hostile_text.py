"""Hostile token names and titles in every format: each is shown as written, and none becomes
markup (TeX commands, Markdown tables or HTML, Rich styles, SVG elements) or breaks the
document's structure (JSON, YAML front matter, XML)."""

from __future__ import annotations

import json
import re
import xml.etree.ElementTree as ET

import yaml

from attncli.render import render
from attncli.spec import loads_spec
from attncli.walkthrough import build

TOKENS = ["<script>alert(1)</script>", "[bold red]x[/]", "a|b", "$x$", "\\end{document}",
          "`tick`", "*star*", "&amp;", "#"]
TITLE = 'He said "stop": <img src=x onerror=alert(1)> [link](javascript:x) \\\\ $$ 100% {}'
SPEC = yaml.safe_dump({"title": TITLE, "tokens": TOKENS,
                       "embeddings": [[float(i), 1.0] for i in range(len(TOKENS))]})


def walkthrough():  # type: ignore[no-untyped-def]
    return build(loads_spec(SPEC))


def test_json_keeps_every_token_and_the_title_exactly() -> None:
    document = json.loads(render(walkthrough(), "json", "en"))
    assert json.dumps(document, ensure_ascii=False).count("<script>alert(1)</script>") >= 1
    assert TITLE in json.dumps(document, ensure_ascii=False).replace('\\"', '"').replace(
        "\\\\", "\\")


def test_markdown_injects_no_html_and_its_front_matter_reads_back() -> None:
    text = render(walkthrough(), "markdown", "en", front_matter=True)
    _, front, body = text.split("---\n", 2)  # the front matter is data, the body is shown
    assert re.search(r"(?<!\\)<(script|img)", body) is None  # only as \<script: shown as text
    assert yaml.safe_load(front)["title_en"] == TITLE


def test_svg_and_heatmap_are_well_formed_with_no_new_elements() -> None:
    for fmt in ("svg", "heatmap"):
        text = render(walkthrough(), fmt, "en")
        root = ET.fromstring(text)
        tags = {element.tag.rsplit("}", 1)[-1] for element in root.iter()}
        assert not tags & {"script", "img"}, fmt


def test_rich_shows_markup_literally() -> None:
    text = render(walkthrough(), "rich", "en", color=False)
    assert "[bold red]x[/]" in text


def test_latex_leaves_no_command_of_the_user() -> None:
    text = render(walkthrough(), "latex", "en", standalone=True)
    assert "\\end{document}" in text  # the document's own end, once
    assert text.count("\\end{document}") == 1


def test_repeated_tokens_get_labels_that_no_other_token_has() -> None:
    from attncli.walkthrough import token_labels

    # a repeated token is numbered by occurrence; a number already taken by a token is skipped
    assert token_labels(("the", "cat", "the")) == ("the#1", "cat", "the#2")
    assert token_labels(("a", "a", "a#2")) == ("a#1", "a#3", "a#2")
    spec = loads_spec("tokens: [a, a, 'a#2']\nembeddings: [[1], [2], [3]]\n")
    weights = build(spec).heads[0].weights
    assert weights.rows == weights.columns == ("a#1", "a#3", "a#2")
