"""Hostile text is inert (attncli/i18n/visible.py): no control, format or noncharacter reaches a
terminal or a file raw, in any format or error; SVG stays well-formed XML; Markdown link syntax
in a token never becomes a link; labels that would look alike look different."""

from __future__ import annotations

import json
import random
import re
import sys
import unicodedata
import xml.etree.ElementTree as ET

import pytest
import yaml

from attncli.i18n import visible as visible_module
from attncli.i18n.visible import (
    escape_char,
    hidden_pattern,
    inert_json,
    inert_markdown_math,
    is_hidden,
    visible,
)
from attncli.render import render
from attncli.spec import loads_spec
from attncli.steps.build import build
from tests.conftest import run

# Every character visible() must escape, found independently of its table: Unicode's own
# categories (control, format, surrogate, line and paragraph separator) and noncharacters.
HIDDEN = [chr(c) for c in range(sys.maxunicode + 1)
          if unicodedata.category(chr(c)) in ("Cc", "Cf", "Cs", "Zl", "Zp")
          or (c & 0xFFFE) == 0xFFFE or 0xFDD0 <= c <= 0xFDEF]
RAW = re.compile("[" + "".join(re.escape(c) for c in HIDDEN if c != "\n") + "]")

TOKENS = ["\x1b]52;c;SGVsbG8=\x07", "row\rX", "a", "a\u200b", "\u202eevil", "\ufffe\x00",
          "bs\x08\x7f\x85", "\U000e0041tag"]
TITLE = "T\x1b]0;pwned\x07 \x7f end"


def hostile():  # type: ignore[no-untyped-def]
    spec = yaml.safe_dump({"title": TITLE, "tokens": TOKENS,
                           "embeddings": [[float(i % 3), 1.0] for i in range(len(TOKENS))]},
                          allow_unicode=True)
    return build(loads_spec(spec))


def test_visible_escapes_every_hidden_character_and_nothing_else() -> None:
    assert all(visible(c) != c for c in HIDDEN)
    assert visible("\x1b[2J") == "\\x1b[2J"
    assert visible("a\rb\nc\td") == "a\\rb\\nc\\td"
    assert visible("\u200b\u202e\ufffe") == "\\u200b\\u202e\\ufffe"
    assert visible("\U000e0041\U0010fffe") == "\\U000e0041\\U0010fffe"
    assert escape_char("\x85") == "\\x85"
    plain = "cat, кот, kot, 猫, 😀, $x$, <b>"
    assert visible(plain) is plain


@pytest.mark.parametrize("fmt", ["text", "rich", "markdown", "latex", "svg", "heatmap", "json"])
def test_no_format_writes_a_hidden_character_raw(fmt: str) -> None:
    text = render(hostile(), fmt, "en", color=False) if fmt == "rich" else render(
        hostile(), fmt, "en")
    found = RAW.search(text)
    assert found is None, (fmt, hex(ord(found.group())) if found else None)


def test_svg_and_heatmap_are_well_formed_xml_and_show_the_escapes() -> None:
    for fmt in ("svg", "heatmap"):
        root = ET.fromstring(render(hostile(), fmt, "en"))
        shown = "".join(root.itertext())
        assert "\\x1b]52;c;SGVsbG8=\\x07" in shown.replace("\xa0", " "), fmt


def test_labels_that_would_look_alike_look_different() -> None:
    rows = hostile().output.rows
    assert rows[2:4] == ("a", "a\\u200b")
    assert rows[0] == "\\x1b]52;c;SGVsbG8=\\x07"
    assert rows[4] == "\\u202eevil"


def test_json_keeps_the_shown_labels_as_data() -> None:
    document = json.loads(render(hostile(), "json", "en"))
    assert document["title"] == visible(TITLE)
    embeddings = next(s for s in document["steps"] if s["id"] == "embeddings")
    assert embeddings["matrices"][0]["rows"] == [visible(t) for t in TOKENS]


@pytest.mark.parametrize("text", ["\x7f\x85\u2028\u200b\ufffe", "\U000e0041 and \U0001f600",
                                  "\ud800 lone"])
def test_inert_json_is_the_same_data(text: str) -> None:
    written = inert_json(json.dumps({"t": text}, ensure_ascii=False))
    assert RAW.search(written) is None
    assert json.loads(written) == {"t": text}


def test_markdown_link_and_image_syntax_never_links() -> None:
    spec = yaml.safe_dump({"tokens": ["![i](http://evil/x.png)", "[x](javascript:alert(1))"],
                           "embeddings": [[1.0, 0.0], [0.0, 1.0]]})
    walkthrough = build(loads_spec(spec))
    for flavor in ("github", "katex", "plain"):
        text = render(walkthrough, "markdown", "en", md_flavor=flavor)
        assert re.search(r"(?<!\\)\](\(|\[)(http|javascript)", text) is None, flavor
    assert inert_markdown_math(r"\text{[x](y)} \\[2pt] a][b") == r"\text{[x]{}(y)} \\[2pt] a]{}[b"


def test_errors_show_terminal_escapes_visible(tmp_path) -> None:  # type: ignore[no-untyped-def]
    spec = tmp_path / "spec.yaml"
    spec.write_text('tokens: [a]\nembeddings: [[1]]\nmask: "\\e[2J\\e]0;x\\a\\r\\nnext"\n')
    result = run("explain", str(spec))
    assert result.exit_code == 2
    assert result.stderr == (f"{spec}:3:7: mask: expected none, causal, {{window: w}}, "
                             "{padding: [...]} or a 0/1 matrix, found the text "
                             '"\\x1b[2J\\x1b]0;x\\x07\\r\\nnext"\n')


def test_a_dangerous_front_matter_title_reads_back() -> None:
    text = render(hostile(), "markdown", "en", front_matter=True)
    front = text.split("---\n", 2)[1]
    assert RAW.search(front) is None
    assert yaml.safe_load(front)["title_en"] == visible(TITLE)


@pytest.mark.parametrize("where", [0, 65_535, 65_536, 200_000])
@pytest.mark.parametrize("hidden", ["\x1b", "\u202e", "\x85", "\U000e0041"])
def test_a_hidden_character_anywhere_in_a_long_document_is_escaped(where: int,
                                                                   hidden: str) -> None:
    from attncli.i18n.visible import visible_document

    # mostly ASCII (numbers), one line of prose that is not, the hidden character at `where`
    body = ("0.12 " * 50_000)[:where] + hidden + ("0.34 " * 10_000) + "\nкошка √d_k\n"
    written = visible_document(body)
    assert RAW.search(written) is None
    assert written == body.replace(hidden, escape_char(hidden))
    assert inert_json(body).count("\\u") == (2 if hidden == "\U000e0041" else 1)


# Unicode's Default_Ignorable_Code_Point (DerivedCoreProperties.txt, Unicode 15.1): what a
# renderer draws nothing for, from the standard rather than from visible()'s table; with the
# Braille blank U+2800, which draws an empty cell.
DEFAULT_IGNORABLE = [(0x00AD, 0x00AD), (0x034F, 0x034F), (0x061C, 0x061C), (0x115F, 0x1160),
                     (0x17B4, 0x17B5), (0x180B, 0x180F), (0x200B, 0x200F), (0x202A, 0x202E),
                     (0x2060, 0x206F), (0x3164, 0x3164), (0xFE00, 0xFE0F), (0xFEFF, 0xFEFF),
                     (0xFFA0, 0xFFA0), (0xFFF0, 0xFFF8), (0x1BCA0, 0x1BCA3),
                     (0x1D173, 0x1D17A), (0xE0000, 0xE0FFF), (0x2800, 0x2800)]


def test_every_character_drawn_as_nothing_is_escaped() -> None:
    missed = [hex(c) for first, last in DEFAULT_IGNORABLE for c in range(first, last + 1)
              if visible(chr(c)) == chr(c)]
    assert missed == []


def test_tokens_that_look_the_same_get_labels_that_do_not() -> None:
    tokens = ["a", "a\ufe0f", "x", "x\u034f", "y", "y\u180b", "\u3164", "\u115f", "\uffa0",
              "\u2800", "\u00e9", "e\u0301", "ё", "е\u0308"]
    spec = yaml.safe_dump({"tokens": tokens, "embeddings": [[1.0, 0.0]] * len(tokens)},
                          allow_unicode=True)
    rows = build(loads_spec(spec)).output.rows
    assert rows == ("a", "a\\ufe0f", "x", "x\\u034f", "y", "y\\u180b", "\\u3164", "\\u115f",
                    "\\uffa0", "\\u2800", "é", "e\\u0301", "ё", "е\\u0308")
    assert len(set(rows)) == len(rows)
    # a token in composed form, with a mark Unicode has no composed letter for, is left as is
    assert build(loads_spec("tokens: [\"q\u0301\"]\nembeddings: [[1, 0]]\n")).output.rows == \
        ("q\u0301",)


HIDDEN_OR_NOT = ["a", "é", "字", "\n", "\x1b", "\u200b", "\ufdd0", "\ufffe", "\U0001d400",
                 "\U0001fffe", "\U000e0041", "\U0010fffe", "\U0010fffd", "\ud800", "\x85", "\u2028",
                 "\U000110bd", "\U00013430", "\U0001bca0", "\U0001d173", "\U0001f600"]


def test_visible_finds_what_one_class_of_every_hidden_character_finds() -> None:
    draw = random.Random(28)
    for _ in range(50_000):
        text = "".join(draw.choice(HIDDEN_OR_NOT) for _ in range(draw.randint(0, 6)))
        assert visible(text) == hidden_pattern().sub(
            lambda found: escape_char(found.group()), text), repr(text)


def test_long_names_are_looked_at_by_a_table_not_range_by_range(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Every token is shown `visible`, three times for the labels of a walkthrough: one class of
    every hidden character, tested range by range, took 1.3 s for 4,096 names of 1,000 letters."""
    names = ["x" * 995 + f"{i:05d}" for i in range(3 * 4096)]
    assert not any(map(is_hidden, set("".join(names))))  # x and digits
    ranged = [0]  # names looked at by the class of every hidden character, range by range
    whole = visible_module.hidden_pattern
    monkeypatch.setattr(visible_module, "hidden_pattern",
                        lambda: ranged.__setitem__(0, ranged[0] + 1) or whole())
    shown = list(map(visible, names))
    # only a name with a hidden character is: none of these
    assert ranged[0] == 0
    assert shown == names
