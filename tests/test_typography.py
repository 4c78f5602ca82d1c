"""Polish and Russian as a typesetter sets them, in the catalogs and in every bundled example's
output: no-break spaces, „…” and «…», plural forms wherever a number meets a noun, no English
left in a translation, no e-notation and no range of one."""

from __future__ import annotations

import itertools
import re
import string
from functools import cache
from pathlib import Path

import pytest
from typer.testing import CliRunner

from attncli.arithmetic.constants import constant, plain_number
from attncli.cli.app import app
from attncli.i18n import Msg, po_path, translate
from attncli.i18n.extract import extract
from attncli.i18n.po import Entry, read_po
from attncli.i18n.typography import NBSP, bind_formulas_in_prose, bind_units, typeset
from attncli.render import render
from attncli.render.columns import cell_width
from attncli.render.wrap import words
from attncli.spec import load_spec
from attncli.steps.build import build

CONFIGS = sorted(Path(__file__).parent.parent.glob("configs/*.yaml"))
ONE_LETTER = {"pl": "aiouwzAIOUWZ", "ru": "авикосуяАВИКОСУЯ"}
# what a user types, kept in ASCII quotes: shell arguments and YAML's own quotes
TYPED = {'"cat chases mouse"', '"1 0; 0.2 1"', '"1 0; 1 1"', '"1 0; 0 1"',
         '"1 0; 0.2 1; 0.8 0"', '"{written}"', '"S\' + M"', '"1 0; 0,2 1"',
         '"1 0 0; 0.36 0.64 0; 0.4 0.25 0.35"', '"attn[models]"',
         '"the dog sees a bird"', '"the cat chases a mouse"',
         '"..."'}  # YAML in an example's comment; {text: "..."} of a model folder's tokens
# English words that are not Polish or Russian ones: a run of them is an untranslated phrase
ENGLISH = {"the", "of", "is", "and", "for", "with", "are", "be", "by", "from", "this", "that",
           "it", "or", "an", "not", "has", "have", "which", "found", "expected", "each", "its",
           "than", "into", "per", "one", "every", "when", "only", "as", "at"}


def entries(lang: str) -> list[Entry]:
    return [e for e in read_po(po_path(lang).read_text(encoding="utf-8"))
            if e.msgid and not e.obsolete]


@cache
def outputs(lang: str) -> tuple[tuple[str, str], ...]:
    """(name, text) of every bundled example as text and as Markdown in `lang`."""
    found = []
    for config in CONFIGS:
        walkthrough = build(load_spec(str(config)))
        for fmt in ("text", "markdown"):
            found.append((f"{config.stem}.{fmt}", render(walkthrough, fmt, lang)))
    return tuple(found)


# --- the typesetting function -------------------------------------------------------------------

@pytest.mark.parametrize(("lang", "text", "set_"), [
    ("pl", "patrzy na siebie i w dom", "patrzy na siebie i\u00a0w\u00a0dom"),
    ("pl", "A sumują się do 1", "A\u00a0sumują się do 1"),
    ("pl", "dla YAML-a wartość", "dla YAML-a wartość"),  # not a word of its own
    ("pl", "z {count} liczbami i {x}", "z\u00a0{count} liczbami i\u00a0{x}"),
    ("pl", "(a b) „o tym”", "(a\u00a0b) „o\u00a0tym”"),
    ("ru", "больше всего — на chases", "больше всего\u00a0— на chases"),
    ("ru", "и в итоге к нему", "и\u00a0в\u00a0итоге к\u00a0нему"),
    ("en", "a cat and a dog — so", "a cat and a dog — so"),
])
def test_typeset_binds_one_letter_words_and_dashes(lang: str, text: str, set_: str) -> None:
    assert typeset(text, lang) == set_


def test_a_one_letter_token_is_bound_but_a_file_name_is_left_as_written() -> None:
    msg = Msg.of("{query} patrzy na {key}", query="a", key="b c")
    assert translate(msg, "en") == "a patrzy na b c"
    assert translate(Msg.of("the key {key} is given twice", key="a b"), "pl") == \
        "klucz a b podano dwa razy"


def test_constants_are_written_as_people_write_them() -> None:
    assert [plain_number(x) for x in (1e-5, 1e-12, 2e-5, 0.5, 1e3)] == \
        ["10⁻⁵", "10⁻¹²", "0.00002", "0.5", "10³"]


def test_a_negative_constant_is_written_with_the_minus_sign_and_zero_without_one() -> None:
    # MoE's alpha of -0.5 was `α = -0.5` and of -0.0 `α = -0.0` in text, where every other
    # negative number of the page is `−0.50`; LaTeX math sets its `-` as a minus itself
    written = [(str(c), c.latex) for c in map(constant, (-0.5, -0.0, -2.5e-200, -1e-5))]
    assert written == [("−0.5", "-0.5"), ("0.0", "0.0"), ("−2.5×10⁻²⁰⁰", r"-2.5 \times 10^{-200}"),
                       ("−0.00001", "-0.00001")]


# --- the catalogs -------------------------------------------------------------------------------

def fields(text: str) -> set[str]:
    return {name for _, name, _, _ in string.Formatter().parse(text) if name}


def test_every_count_meets_its_noun_in_a_plural_entry() -> None:
    number = r"\{(count|limit|size|total|depth|width|n|rows|columns)\}"
    single = []
    for message in extract().messages.values():
        if message.plural is not None:
            continue
        if "{count}" in message.msgid or re.search(
                number + r" (?!x |× |of |to |and |or |in |apart|=)[a-z]+", message.msgid):
            single.append(message.msgid)
    assert single == []
    plurals = [m for m in extract().messages.values() if m.plural is not None]
    assert len(plurals) >= 45


@pytest.mark.parametrize("lang", ["pl", "ru"])
def test_every_plural_entry_has_its_three_forms_and_the_same_placeholders(lang: str) -> None:
    for entry in entries(lang):
        expected = fields(entry.msgid)
        if entry.msgid_plural is not None:
            assert len(entry.msgstr) == 3 and all(entry.msgstr), entry.msgid
        assert all(fields(text) == expected for text in entry.msgstr), entry.msgid


@pytest.mark.parametrize("lang", ["pl", "ru"])
def test_no_straight_double_quote_but_what_a_user_types(lang: str) -> None:
    quoted = []
    for entry in entries(lang):
        for text in entry.msgstr:
            for found in re.findall(r'"[^"]*"', text):
                if found not in TYPED or found not in entry.msgid:
                    quoted.append((entry.msgid, found))
            if text.count('"') % 2:
                quoted.append((entry.msgid, text))
    assert quoted == []
    opening = "„" if lang == "pl" else "«"
    assert sum(opening in t for e in entries(lang) for t in e.msgstr) >= 4


@pytest.mark.parametrize("lang", ["pl", "ru"])
def test_no_english_phrase_is_left_in_a_translation(lang: str) -> None:
    left = [(entry.msgid, english_runs(text)) for entry in entries(lang)
            for text in entry.msgstr if english_runs(text)]
    assert left == []


def english_runs(text: str) -> list[str]:
    """Two English words in a row, outside {placeholders}, `code`, (parentheses) and quotes."""
    prose = re.sub(r"\{[^}]*\}|`[^`]*`|\([^)]*\)|\"[^\"]*\"", " ", text)
    words = re.findall(r"[A-Za-z]+", prose.lower())
    return [a + " " + b for a, b in itertools.pairwise(words)
            if a in ENGLISH and b in ENGLISH | {"spec", "file", "key", "value"}]


def test_the_english_phrase_check_can_fail() -> None:
    assert english_runs("oczekiwano liczby, found the value") == ["found the", "the value"]
    assert english_runs("oczekiwano {the} (of the) `is an`") == []


# --- every bundled example ----------------------------------------------------------------------

@pytest.mark.parametrize("lang", ["pl", "ru"])
def test_no_line_ends_with_a_one_letter_word_or_starts_with_a_dash(lang: str) -> None:
    bad = []
    ends = re.compile(rf"(?<![^\s(„«])[{ONE_LETTER[lang]}]$")
    for name, text in outputs(lang):
        for line in text.splitlines():
            stripped = line.strip()
            if "=" in stripped or "|" in stripped or stripped.startswith(("$", "\\")):
                continue  # a formula, a table row, math: symbols, not words
            if ends.search(stripped) or re.match(r"[—–]", stripped):
                bad.append((name, line))
    assert bad == []
    assert sum(NBSP in text for _, text in outputs(lang)) == 2 * len(CONFIGS)


@pytest.mark.parametrize("lang", ["en", "pl", "ru"])
def test_no_paragraph_of_an_example_ends_in_a_line_of_one_short_word(lang: str) -> None:
    """«… обращается в inf или⏎0.» and "… cos(k / 100^(2i/d)), d =⏎4." before: the last line of a
    paragraph a lone number. Now the word before it goes along (`или 0.`, `d = 4.`)."""
    lone = re.compile(r"[(\[]?[−-]?\d[\d.,]*[)\]]?[.,;:]?|\S{1,4}")
    bad = []
    for name, text in outputs(lang):
        if not name.endswith(".text"):
            continue
        lines = text.splitlines()
        for above, line, below in zip(lines, lines[1:], [*lines[2:], ""], strict=False):
            indented = line.startswith("   ") and not line.startswith("    ")
            ends = not below.startswith("   ") or below.startswith("     ")
            if (indented and ends and above.startswith("   ") and len(above) > 70
                    and lone.fullmatch(line.strip()) and len(line.strip()) <= 8):
                bad.append((name, above, line))
    assert bad == []


def test_a_widow_takes_the_word_before_it() -> None:
    text = "their range: beyond it a result is inf or 0."
    assert words(text, 41, "") == ["their range: beyond it a result is inf", "or 0."]
    assert words(text, 44, "") == [text]  # it fits: nothing moves
    # a long last word stays alone: `inf or` would not make it read better
    assert words("the score is lowered", 16, "") == ["the score is", "lowered"]


def test_a_line_of_a_list_hangs_under_its_own_first_word() -> None:
    """The hand calculation's list: a wrapped item went back to the paragraph's indent."""
    walkthrough = build(load_spec(str(CONFIGS[0].parent / "cat_chases_mouse_by_hand.yaml")))
    lines = render(walkthrough, "text", "ru").splitlines()
    item = next(i for i, line in enumerate(lines) if line.startswith("     A[chases, chases]:"))
    assert lines[item:item + 2] == [
        "     A[chases, chases]: 0.65 вручную, 0.6443 при полной точности",
        "       (разница 0.0057)"]


@pytest.mark.parametrize("lang", ["pl", "ru"])
def test_no_straight_double_quote_in_the_text_of_an_example(lang: str) -> None:
    bad = [(name, line) for name, text in outputs(lang) if name.endswith(".text")
           for line in text.splitlines() if '"' in line]
    assert bad == []


@pytest.mark.parametrize("lang", ["en", "pl", "ru"])
def test_no_e_notation_and_no_range_of_one(lang: str) -> None:
    bad = []
    for name, text in outputs(lang):
        for line in text.splitlines():
            if re.search(r"\d[eE][-+]?\d", line) or re.search(r"(?<!\w)(\w+)[–-]\1(?!\w)", line):
                bad.append((name, line))
    assert bad == []
    layer = dict(outputs(lang))["decoder_layer.text"]
    assert "10⁻⁵" in layer


@pytest.mark.parametrize("lang", ["pl", "ru"])
@pytest.mark.parametrize("width", [60, 80, 100])
def test_the_terminal_view_keeps_the_no_break_spaces(lang: str, width: int) -> None:
    """Rich breaks at any Unicode space; the view wraps its prose itself."""
    walkthrough = build(load_spec(str(CONFIGS[0].parent / "two_heads.yaml")))
    out = render(walkthrough, "rich", lang, width=width)
    ends = re.compile(rf"(?<![^\s(„«])[{ONE_LETTER[lang]}]$")
    prose = [line.strip() for line in out.splitlines() if "=" not in line and "│" not in line]
    assert [line for line in prose if ends.search(line) or re.match(r"[—–]", line)] == []
    assert all(len(line) <= width for line in out.splitlines())



# --- what fills a sentence in: one unit on a line ----------------------------------------------

def overflow_note(lang: str) -> str:
    """The float16 walkthrough's note on e^x overflowing, as its text format writes it."""
    walkthrough = build(load_spec(str(CONFIGS[0].parent / "low_precision_float16.yaml")))
    notes = [translate(note, lang) for step in walkthrough.steps for note in step.notes]
    found = [note for note in notes if "S[sat, sat]" in note and "e^x" in note]
    assert len(found) == 1
    return found[0]


@pytest.mark.parametrize("lang", ["en", "pl", "ru"])
def test_no_line_ends_inside_a_cell_name_or_a_vector(lang: str) -> None:
    """«переполняется в S[sat,⏎sat]» and "[0.20,⏎1.00]" before: a filled-in value wrapped
    inside its brackets. Now a line ends before the name, at every width it fits in."""
    vector = translate(Msg.of("In {dtype}: the largest error against float64 is {error}, at "
                              "{cell}.", dtype="float16", error="0.0030",
                              cell="(S′ + M)[sat, sat] = [0.20, 1.00]"), lang)
    for text, units in ((overflow_note(lang), ["S[sat, sat]"]),
                        (vector, ["(S′ + M)[sat, sat]", "[0.20, 1.00]"])):
        for width in range(20, 81):
            lines = words(text, width, "   ")
            assert " ".join(line.strip(" ") for line in lines) == text  # spaces as they were
            assert all(cell_width(line) <= width for line in lines)
            for unit in units:
                # with what is bound to it: „w\u00a0S[sat, sat]:”
                whole = re.search(r"[^ ]*" + re.escape(unit) + r"[^ ]*", text)
                assert whole is not None
                fits = len("   " + whole.group()) <= width
                assert any(unit in line for line in lines) or not fits, (width, lines)


def test_a_unit_wider_than_the_line_still_breaks_after_a_comma() -> None:
    lines = words("at [0.1234, 0.5678, 0.9012]", 16, "")
    # its last number does not stand alone on the last line (`0.9012]`): the one before goes along
    assert lines == ["at [0.1234,", "0.5678, 0.9012]"]


@pytest.mark.parametrize(("lang", "unit"), [("en", "MiB"), ("pl", "MiB"), ("ru", "МиБ")])
def test_help_keeps_a_number_with_its_unit(lang: str, unit: str) -> None:
    """„(co najmniej 1⏎MiB)” in `--help --max-cells` before, in English too; Click wraps at
    spaces and keeps a no-break one."""
    runner = CliRunner()
    for width in range(40, 81):
        result = runner.invoke(app, ["explain", "--help", "--lang", lang],
                               terminal_width=width, env={"ATTN_LANG": ""})
        assert result.exit_code == 0
        assert f"1{NBSP}{unit}" in result.stdout
        assert not [line for line in result.stdout.splitlines()
                    if line.strip().startswith(unit)], width


@pytest.mark.parametrize(("text", "bound"), [
    ("в S[sat, sat]: 13.66", "в S[sat,~sat]: 13.66"),
    ("at (S′ + M)[sat, sat];", "at (S′~+~M)[sat,~sat];"),
    ("0.40·[1.00, 0.00] + 0.25", "0.40·[1.00,~0.00] + 0.25"),
    ("co najmniej 1 MiB, 4 bajty i 1,5 МиБ", "co najmniej 1~MiB, 4~bajty i 1,5~МиБ"),
    ("x1 MiB, 2 MiBs, 3 dogs", "x1 MiB, 2 MiBs, 3 dogs"),  # not a number, not a unit
])
def test_bind_units_finds_names_vectors_and_units(text: str, bound: str) -> None:
    assert bind_units(text, "~") == bound


def rmsnorm_backward_note(lang: str) -> str:
    """The RMSNorm backward note of backward_llama_style, as its text format writes it."""
    walkthrough = build(load_spec(str(CONFIGS[0].parent / "backward_llama_style.yaml")))
    notes = [translate(note, lang) for step in walkthrough.steps for note in step.notes]
    found = [note for note in notes if "RMSNorm" in note and re.search(r"dx̂\s=\sdy", note)]
    assert len(found) == 1
    return found[0]


RELATIONS_AND_OPERATORS = "=≈<>+−·⊙/"


@pytest.mark.parametrize("lang", ["en", "pl", "ru"])
def test_a_formula_in_a_sentence_breaks_after_its_relation_never_before(lang: str) -> None:
    """«где dx̂⏎= dy ⊙ gain», "dy ⊙⏎gain", „13.6641 > ln⏎65504” and „w 1⏎komórce” before:
    no line starts with a relation or an operator (one may end with it), none ends with ln or
    Σⱼ, and a number stays with the word it counts, at every width from 40 to 100."""
    for text in (rmsnorm_backward_note(lang), overflow_note(lang)):
        for width in range(40, 101):
            lines = [line.strip(" ") for line in words(text, width, "   ")]
            assert " ".join(lines) == text  # spaces as they were
            for line, after in itertools.pairwise(lines):
                assert after[0] not in RELATIONS_AND_OPERATORS, (width, line, after)
                assert not re.search(r"(\bln|Σ\S)$", line), (width, line, after)
                assert not (re.search(r"\d$", line) and re.match(r"[^\W\d_]{2}", after)), (
                    width, line, after)


@pytest.mark.parametrize(("text", "bound"), [
    ("dx̂ = dy ⊙ gain", "dx̂~= dy~⊙~gain"),  # a line may end after `=`, not before it
    ("13.6641 > ln 65504 ≈ 11.0899", "13.6641~> ln~65504~≈ 11.0899"),
    ("·Σⱼ dx̂ⱼ·x̂ⱼ", "·Σⱼ~dx̂ⱼ·x̂ⱼ"),
    ("w 1 komórce, 12 знаков", "w 1~komórce, 12~знаков"),
    ("columns 1–2 of W_V, heads 10–12 and", "columns 1–2 of W_V, heads 10–12 and"),  # a range
    ("kiln 5, a z b", "kiln 5, a z b"),  # not ln; a one-letter word is not counted
])
def test_bind_formulas_in_prose_finds_relations_operators_and_counts(text: str,
                                                                   bound: str) -> None:
    assert bind_formulas_in_prose(text, "~") == bound


@pytest.mark.parametrize(("lang", "text", "set_"), [
    ("en", "as in Gemma 2.", "as in Gemma\u00a02."),
    ("en", "Llama 3.1 keeps", "Llama\u00a03.1 keeps"),
    ("en", "OLMo 2 and GPT 2, not GPT-2", "OLMo\u00a02 and GPT\u00a02, not GPT-2"),
    ("pl", "jak w Gemmie 2", "jak w\u00a0Gemmie\u00a02"),
    ("pl", "w stylu Gemmy 2:", "w\u00a0stylu Gemmy\u00a02:"),
    ("ru", "как в Gemma 2", "как в\u00a0Gemma\u00a02"),
    ("en", "Gemma 2,5 and Gemma 2.5x", "Gemma 2,5 and Gemma 2.5x"),  # not a version
])
def test_a_model_name_keeps_its_number_in_every_language(lang: str, text: str,
                                                         set_: str) -> None:
    assert typeset(text, lang) == set_


def test_a_title_never_ends_a_line_with_gemma_before_its_2() -> None:
    """A title that wraps at 40 columns right after `Gemma` (its 40th column): the text takes
    `Gemma 2` to the next line; LaTeX writes the no-break space `~` (compiled in
    tests/test_latex_pages.py's way), Markdown and HTML keep U+00A0."""
    from attncli.spec import loads_spec

    title = "Scores pressed the way they are as Gemma 2 so"
    assert title.index("Gemma") + len("Gemma") == 40
    walkthrough = build(loads_spec(f"title: {title}\ntokens: [a]\nembeddings: [[1]]\n"))
    lines = render(walkthrough, "text", "en", width=40).splitlines()
    assert lines[:2] == ["Scores pressed the way they are as", "Gemma\u00a02 so"]
    assert r"\section*{Scores pressed the way they are as Gemma~2 so}" in render(
        walkthrough, "latex", "en", standalone=True)
    assert "# Scores pressed the way they are as Gemma\u00a02 so\n" in render(
        walkthrough, "markdown", "en")
    assert "as Gemma\u00a02 so</h1>" in render(walkthrough, "html", "en")
