"""Hostile token names and titles in every format: each is shown as written, and none becomes
markup (TeX commands, Markdown tables or HTML, Rich styles, SVG elements) or breaks the
document's structure (JSON, YAML front matter, XML)."""

from __future__ import annotations

import html
import json
import re
import subprocess
import xml.etree.ElementTree as ET

import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from attncli.render import render
from attncli.spec import loads_spec
from attncli.steps.build import build

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
    from attncli.steps.labels import token_labels

    # a repeated token is numbered by occurrence, as a subscript
    assert token_labels(("the", "cat", "the")) == ("the₁", "cat", "the₂")
    # a token already shaped like a label: brackets instead, so the₁ is only ever the token
    assert token_labels(("the", "the₁", "the")) == ("the (1)", "the₁", "the (2)")
    assert token_labels(("the", "the#1", "the")) == ("the₁", "the#1", "the₂")
    # ... and deeper brackets when a token is shaped like those too
    assert token_labels(("a", "a₂", "a (1)", "a")) == ("a ((1))", "a₂", "a (1)", "a ((2))")
    spec = loads_spec("tokens: [a, a, 'a₂']\nembeddings: [[1], [2], [3]]\n")
    weights = build(spec).heads[0].weights
    assert weights.rows == weights.columns == ("a (1)", "a (2)", "a₂")


def label_patterns(token: str, depth: int) -> str:
    """The labels of `token` written at bracket depth `depth` (0: subscripts), as a pattern."""
    if not depth:
        return re.escape(token) + "[₀₁₂₃₄₅₆₇₈₉]+"
    return re.escape(token) + " " + r"\(" * depth + "[0-9]+" + r"\)" * depth


def label_depth(token: str, label: str) -> int:
    return 0 if re.fullmatch(label_patterns(token, 0), label) else label[len(token):].count(")")


@settings(max_examples=600, deadline=None)
@given(st.lists(st.sampled_from(["a", "a₁", "a₂", "a₁₂", "a (1)", "a (2)", "a ((1))", "a (((3)))",
                                 "b", "b₁", "a b", "a b₁", "b (1)", "a (", "a ( (1)", "₁", ""]),
                min_size=1, max_size=10))
def test_no_label_is_another_token_or_shaped_like_its_label(tokens: list[str]) -> None:
    from attncli.steps.labels import token_labels

    labels = token_labels(tokens)
    assert len(set(labels)) == len(labels)  # every row and column label different
    repeated = {token for token in tokens if tokens.count(token) > 1}
    depths = set()
    for token, label in zip(tokens, labels, strict=True):
        if token not in repeated:
            assert label == token
            continue
        assert label not in tokens  # never another token ...
        depths.add(label_depth(token, label))
    if not repeated:
        return
    (depth,) = depths  # one form for the whole spec ...
    # ... that no token reads as a label of a repeated token, and the first such form
    reads = [any(re.fullmatch(label_patterns(token, d), other) for token in repeated
                 for other in tokens) for d in range(depth + 1)]
    assert reads == [True] * depth + [False]


def pandoc_heading(markdown: str) -> str:
    """The inside of the <h1> that `pandoc -s` makes of the front matter's title."""
    page = subprocess.run(["pandoc", "-s", "-f", "markdown-smart", "-t", "html"], input=markdown,
                          capture_output=True, text=True, check=True).stdout
    heading = re.search(r'<h1 class="title">(.*?)</h1>', page, re.S)
    assert heading is not None
    return heading.group(1)


def test_pandoc_shows_the_front_matter_title_as_written_and_makes_no_element_of_it() -> None:
    # pandoc reads `title` as Markdown: unescaped, the <img> of TITLE became an element of the
    # page's <h1> (and padding_comma's "<pad>" vanished from it)
    text = render(walkthrough(), "markdown", "en", front_matter=True)
    front = yaml.safe_load(text.split("---\n", 2)[1])
    assert front["title"] == ('He said "stop": \\<img src=x onerror=alert(1)> '
                              '\\[link](javascript:x) \\\\\\\\ $$ 100% {}')  # tag, link, each \\
    assert front["title_en"] == TITLE  # as written, for a template
    heading = pandoc_heading(text)
    assert " ".join(html.unescape(heading).split()) == TITLE
    assert "<img" not in heading


def test_a_title_pandoc_reads_as_text_is_written_as_it_is_for_hugo_and_jekyll() -> None:
    """Hugo's and Jekyll's templates print `title` as text: a `<`, `&` or `[` that pandoc would
    show as text anyway gets no backslash, which they would print."""
    plain = "Q & A [draft]: x<y, <3, 5 > 4, the `softmax` step"
    spec = yaml.safe_dump({"title": plain, "tokens": ["a", "b"], "embeddings": [[1, 0], [0, 1]]})
    text = render(build(loads_spec(spec)), "markdown", "en", front_matter=True)
    assert yaml.safe_load(text.split("---\n", 2)[1])["title"] == plain
    assert " ".join(html.unescape(pandoc_heading(text)).split()) == plain.replace(
        "`softmax`", "<code>softmax</code>")


@pytest.mark.parametrize("title", ["`<img src=x onerror=alert(1)>`{=html}",
                                   "``<script>alert(1)//</script>``{=html}",
                                   "`x`{onclick=alert(1)}", "a ` b `c` d"])
def test_a_code_span_in_the_title_makes_no_raw_html_or_attribute_in_pandoc(title: str) -> None:
    """A code span with a raw attribute is raw HTML to pandoc, and the backslash written
    before its tag is no escape inside a span: `<img … onerror>` became an element of the page's
    heading. The brace after a code span is escaped: it is left a plain <code>, read as written."""
    spec = yaml.safe_dump({"title": title, "tokens": ["a", "b"], "embeddings": [[1, 0], [0, 1]]})
    text = render(build(loads_spec(spec)), "markdown", "en", front_matter=True)
    front = yaml.safe_load(text.split("---\n", 2)[1])
    assert front["title_en"] == title
    heading = pandoc_heading(text)
    assert {tag for tag in re.findall(r"<[^>]*>", heading)} <= {"<code>", "</code>"}
    shown = html.unescape(re.sub(r"</?code>", "", heading))
    assert re.sub(r"[`\s]", "", shown) == re.sub(r"[`\s]", "", title)  # no letter lost or added


@pytest.mark.parametrize("title", [
    "[a [b] c](javascript:alert(1))", "[a `]` b](javascript:alert(2))",
    "[a [b] c]{onclick=alert(3)}", "![a [b]](x){onerror=alert(4)}",
    "[x [y]](http://e.com){onmouseover=alert(5)}", "`a` [b [c]](javascript:alert(6))",
    "[[x]](javascript:alert(7))", "[a [b [c] d] e](javascript:alert(8))",
    "[a [b] c d](javascript:alert(9) \"t\")", "^[a note] x", "[a [b]][c]", "[`a`](javascript:x)"])
def test_no_link_span_image_or_note_in_pandocs_title_however_brackets_nest(title: str) -> None:
    """Link text nests and holds code spans (`[a [b] c](…)`, ``[a `]` b](…)``): a `[` that
    pandoc may read as the start of a link, a span, an image or an inline note is escaped, so
    the heading of `pandoc -s` is the title as written, with no element but <code>."""
    spec = yaml.safe_dump({"title": title, "tokens": ["a", "b"], "embeddings": [[1, 0], [0, 1]]})
    text = render(build(loads_spec(spec)), "markdown", "en", front_matter=True)
    # as written, but for a note's bracket, which pandoc would write at the page's end
    assert yaml.safe_load(text.split("---\n", 2)[1])["title_en"] == title.replace("^[", "^\\[")
    heading = pandoc_heading(text)
    assert {tag for tag in re.findall(r"<[^>]*>", heading)} <= {"<code>", "</code>"}, heading
    shown = html.unescape(re.sub(r"</?code>", "", heading))
    assert re.sub(r"[`\s]", "", shown) == re.sub(r"[`\s]", "", title)


@pytest.mark.parametrize("reader", ["markdown-smart", "commonmark_x"])
def test_a_title_ending_in_braces_gives_the_page_heading_no_attribute(reader: str) -> None:
    """pandoc reads `{…}` at the end of a heading as its attributes, and commonmark_x reads it
    after any text as a span's: the title `T {onclick=alert(1)}` was the page's
    `<h1 onclick="alert(1)">`, in every flavour and every language's heading. A brace is
    escaped like the other characters that start Markdown syntax, and printed as written."""
    title = "T {.cover onmouseover=alert(1)} {onclick=alert(2)}"
    spec = yaml.safe_dump({"title": title, "tokens": ["a", "b {onclick=alert(3)}"],
                           "embeddings": [[1, 0], [0, 1]]})
    for flavor in ("github", "plain"):
        text = render(build(loads_spec(spec)), "markdown", "en", md_flavor=flavor)
        page = subprocess.run(["pandoc", "-f", reader, "-t", "html"], input=text,
                              capture_output=True, text=True, check=True).stdout
        assert re.search(r"<[a-z0-9]+[^>]*\son[a-z]+=", page) is None, flavor
        heading = re.search(r"<h1( [^>]*)?>(.*?)</h1>", page, re.S)
        assert heading is not None and re.fullmatch(r'( id="[^"]*")?', heading.group(1) or "")
        assert " ".join(html.unescape(heading.group(2)).split()) == title


@pytest.mark.parametrize("text", ["^[<img src=x onerror=alert(1)>]",
                                  "a ^[[x](javascript:alert(2))] b",
                                  "\\`^[<iframe src=x></iframe>]` and `^[x]`"])
def test_no_inline_note_of_a_front_matter_field_reaches_the_page_pandoc_makes(text: str) -> None:
    """pandoc reads every field of the front matter as Markdown and writes the inline note
    `^[…]` of any of them at the page's end: title_en and description_en, written as given for
    Hugo's and Jekyll's templates, made a live <img onerror>, javascript: link or <iframe> there.
    Their note's bracket gets a backslash; the text is otherwise as written."""
    spec = yaml.safe_dump({"title": text, "description": text, "tokens": ["a", "b"],
                           "embeddings": [[1, 0], [0, 1]]})
    markdown = render(build(loads_spec(spec)), "markdown", "en", front_matter=True)
    front = yaml.safe_load(markdown.split("---\n", 2)[1])
    assert front["title_en"] == front["description_en"] == text.replace("^[", "^\\[")
    page = subprocess.run(["pandoc", "-s", "-f", "markdown-smart", "-t", "html"], input=markdown,
                          capture_output=True, text=True, check=True).stdout
    assert "doc-endnote" not in page
    assert re.search(r"<(img|iframe)\b|href=\"javascript:", page.split("<body>", 1)[1]) is None
