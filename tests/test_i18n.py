"""The catalogs: complete, consistent, plural forms by CLDR, and read the way gettext tools read.

The plural rules are written here a second time from the CLDR definitions (not from the
Plural-Forms expression in the .po headers), and Babel, an independent .po reader and .mo writer,
is the oracle for attn's own .po reader.
"""

from __future__ import annotations

import gettext
import io
import re
import string
from pathlib import Path

import pytest
from babel.messages.mofile import write_mo
from babel.messages.pofile import read_po as babel_read_po

from attncli.i18n import LANGUAGES, LOCALE_DIR, Msg, catalog, po_path, translate
from attncli.i18n.extract import extract, template, update
from attncli.i18n.po import Entry, PoError, header, mo_bytes, read_po, write_po
from attncli.spec import load_spec
from attncli.steps.build import build

TRANSLATED = [lang for lang in LANGUAGES if lang != "en"]
GLOSSARY = Path(LOCALE_DIR).parent / "GLOSSARY.md"
PLURAL_FORMS = {
    "pl": "nplurals=3; plural=(n==1 ? 0 : n%10>=2 && n%10<=4 && (n%100<10 || n%100>=20) ? 1 : 2);",
    "ru": "nplurals=3; plural=(n%10==1 && n%100!=11 ? 0 : n%10>=2 && n%10<=4 && "
          "(n%100<10 || n%100>=20) ? 1 : 2);",
}


def cldr_form(lang: str, n: int) -> int:
    """The CLDR category of a whole number, as the index of the gettext form (one, few, many)."""
    last, last_two = n % 10, n % 100
    few = last in (2, 3, 4) and last_two not in (12, 13, 14)
    one = n == 1 if lang == "pl" else last == 1 and last_two != 11  # pl, else ru
    return 0 if one else 1 if few else 2


def entries(lang: str) -> list[Entry]:
    return read_po(po_path(lang).read_text(encoding="utf-8"))


def fields(text: str) -> set[str]:
    return {name for _, name, _, _ in string.Formatter().parse(text) if name is not None}


# --- plurals -----------------------------------------------------------------------------------

TOKENS = {
    "en": {1: "1 token", 2: "2 tokens", 5: "5 tokens", 11: "11 tokens", 12: "12 tokens",
           21: "21 tokens", 22: "22 tokens", 25: "25 tokens"},
    "pl": {1: "1 token", 2: "2 tokeny", 5: "5 tokenów", 11: "11 tokenów", 12: "12 tokenów",
           21: "21 tokenów", 22: "22 tokeny", 25: "25 tokenów"},
    "ru": {1: "1 токен", 2: "2 токена", 5: "5 токенов", 11: "11 токенов", 12: "12 токенов",
           21: "21 токен", 22: "22 токена", 25: "25 токенов"},
}


@pytest.mark.parametrize("lang", LANGUAGES)
@pytest.mark.parametrize("count", [1, 2, 5, 11, 12, 21, 22, 25])
def test_token_count_has_the_plural_form_of_its_language(lang: str, count: int) -> None:
    msg = Msg.plural_of("{count} token", "{count} tokens", count)
    assert translate(msg, lang) == TOKENS[lang][count]


@pytest.mark.parametrize("lang", TRANSLATED)
def test_plural_forms_header_is_the_standard_rule(lang: str) -> None:
    assert header(entries(lang))["Plural-Forms"] == PLURAL_FORMS[lang]


@pytest.mark.parametrize("lang", TRANSLATED)
def test_every_plural_entry_picks_the_cldr_form_for_0_to_250(lang: str) -> None:
    cat = catalog(lang)
    plural = [e for e in entries(lang) if e.msgid_plural is not None and not e.obsolete]
    assert plural
    for entry in plural:
        assert entry.msgid_plural is not None
        for n in range(251):
            got = cat.ngettext(entry.msgid, entry.msgid_plural, n)
            assert got == entry.msgstr[cldr_form(lang, n)], (entry.msgid, n)


def test_cldr_oracle_agrees_with_the_issue_examples() -> None:
    # 1 token, 2 tokeny, 5 tokenów, 12 tokenów, 22 tokeny; 1 токен, 2 токена, 11 токенов, 21 токен
    assert [cldr_form("pl", n) for n in (1, 2, 5, 12, 22)] == [0, 1, 2, 2, 1]
    assert [cldr_form("ru", n) for n in (1, 2, 5, 11, 21)] == [0, 1, 2, 2, 0]


# --- completeness and placeholders -------------------------------------------------------------

def test_every_msgid_in_attn_is_a_literal_the_extractor_sees() -> None:
    found = extract()
    assert found.dynamic == []
    # a sample from each layer, so a broken extractor cannot pass by finding nothing
    for msgid in ("Attention weights", "{count} token", "no such file",
                  "expected {expected}, found {found}", "unknown format {fmt}; expected one of "
                  "{known}", "the key {key} is missing"):
        assert msgid in found.messages
    assert found.messages["{count} token"].plural == "{count} tokens"


@pytest.mark.parametrize("lang", TRANSLATED)
def test_every_message_has_a_translation_with_every_plural_form(lang: str) -> None:
    by_id = {e.msgid: e for e in entries(lang) if not e.obsolete}
    missing = []
    for message in extract().messages.values():
        entry = by_id.get(message.msgid)
        forms = 3 if message.plural is not None else 1
        if (entry is None or entry.fuzzy or entry.msgid_plural != message.plural
                or len(entry.msgstr) != forms or not all(entry.msgstr)):
            missing.append(message.msgid)
    assert missing == []


@pytest.mark.parametrize("lang", TRANSLATED)
def test_placeholders_are_the_same_in_every_language(lang: str) -> None:
    wrong = []
    for entry in entries(lang):
        if not entry.msgid or entry.obsolete:
            continue
        if "python-brace-format" not in entry.flags:
            # a spec's comment or a schema description, printed as it is (never str.format'ed):
            # its braces are YAML's ({file: …}); every message of attn's code is checked
            assert entry.references, entry.msgid
            assert all(ref.endswith((".json", ".yaml")) for ref in entry.references), entry.msgid
            continue
        expected = fields(entry.msgid)
        if entry.msgid_plural is not None and fields(entry.msgid_plural) != expected:
            wrong.append((entry.msgid, entry.msgid_plural))
        for text in entry.msgstr:
            if fields(text) != expected:
                wrong.append((entry.msgid, text))
            text.format(**{name: "x" for name in expected})  # no stray single brace
    assert wrong == []


def test_a_translation_with_different_placeholders_is_caught() -> None:
    assert fields("{path}: {problem}") == {"path", "problem"}
    assert fields("{{general: W}} {value}") == {"value"}
    assert fields("{sciezka}: {problem}") != fields("{path}: {problem}")


@pytest.mark.parametrize("lang", TRANSLATED)
def test_catalog_has_no_entry_attn_no_longer_uses(lang: str) -> None:
    used = set(extract().messages)
    stale = [e.msgid for e in entries(lang) if e.msgid and not e.obsolete and e.msgid not in used]
    assert stale == []


def test_catalogs_and_template_are_what_the_extractor_writes() -> None:
    messages = extract().messages
    pot = (LOCALE_DIR / "attn.pot").read_text(encoding="utf-8")
    assert pot == write_po(template(messages))
    for lang in TRANSLATED:
        text = po_path(lang).read_text(encoding="utf-8")
        assert write_po(update(read_po(text), messages)) == text, lang


def test_update_keeps_translations_adds_new_and_keeps_old_as_obsolete() -> None:
    from attncli.i18n.extract import Message

    old = read_po('msgid ""\nmsgstr "Plural-Forms: nplurals=3; plural=0;\\n"\n\n'
                  'msgid "kept"\nmsgstr "zachowane"\n\nmsgid "gone"\nmsgstr "usunięte"\n')
    messages = {"kept": Message("kept", None, ["a.py"]),
                "{count} new": Message("{count} new", "{count} news", ["b.py"])}
    result = update(old, messages)
    assert [(e.msgid, e.msgstr, e.obsolete) for e in result[1:]] == [
        ("kept", ["zachowane"], False), ("{count} new", ["", "", ""], False),
        ("gone", ["usunięte"], True)]
    again = read_po(write_po(result))
    assert [(e.msgid, e.msgstr, e.obsolete) for e in again] == [
        (e.msgid, e.msgstr, e.obsolete) for e in result]


# --- the glossary ------------------------------------------------------------------------------

def prose_words(text: str) -> set[str]:
    """Lower-cased words, leaving out {placeholders}, dotted spec paths such as weights.W_K,
    `code` (the step ids a help text lists) and a help text's example commands (its `\\b`
    paragraphs)."""
    text = re.sub(r"\{\w*\}|`[^`]*`|\x08\n(?:.+\n?)*", " ", text)
    return set(re.findall(r"(?<![\w.])\w+(?![\w.])", text.lower()))


def avoided_words() -> dict[str, set[str]]:
    """The glossary's "Words we do not use" table, by language."""
    text = GLOSSARY.read_text(encoding="utf-8").split("## Words we do not use", 1)[1]
    words: dict[str, set[str]] = {}
    for line in text.splitlines():
        cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
        if len(cells) == 3 and cells[0] in LANGUAGES:
            words.setdefault(cells[0], set()).update(w.strip().lower()
                                                     for w in cells[1].split(","))
    return words


def test_glossary_lists_avoided_words_for_each_translated_language() -> None:
    assert prose_words("Uwaga: weights.W_K, {output} głowa") == {"uwaga", "głowa"}
    words = avoided_words()
    assert set(words) == set(TRANSLATED)
    assert {"uwaga", "głowa"} <= words["pl"] and {"вложение", "attention"} <= words["ru"]


@pytest.mark.parametrize("lang", TRANSLATED)
def test_translations_use_the_glossary_terms(lang: str) -> None:
    avoid = avoided_words()[lang]
    found = []
    for entry in entries(lang):
        for text in entry.msgstr if entry.msgid else []:
            # the glossary's own term for a score bias (B, a whole matrix) is "przesunięcie
            # wyników"; "przesunięcie" alone, for a bias b_Q, stays avoided
            text = re.sub(r"przesunię\w+ wyników", " ", text, flags=re.IGNORECASE)
            hits = avoid & prose_words(text)
            if hits:
                found.append((entry.msgid, sorted(hits)))
    assert found == []


# --- the .po reader against Babel --------------------------------------------------------------

SAMPLE = r'''# Polish sample
msgid ""
msgstr ""
"Language: pl\n"
"Content-Type: text/plain; charset=UTF-8\n"
"Plural-Forms: nplurals=3; plural=(n==1 ? 0 : n%10>=2 && n%10<=4 && "
"(n%100<10 || n%100>=20) ? 1 : 2);\n"

# a translator's comment
#. a note for translators
#: attncli/a.py attncli/b.py
#, python-brace-format
msgid "simple {x}"
msgstr "prosty {x}"

msgid ""
"split "
"over lines"
msgstr "podzielone "
"na wiersze"

msgctxt "menu"
msgid "Open"
msgstr "Otwórz"

msgid "Open"
msgstr "Otwarte"

#, fuzzy
msgid "unsure"
msgstr "niepewne"

msgid "tab\there \"quoted\" back\\slash\nnew line"
msgstr "tab\ttu \"cytat\" ukośnik\\wsteczny\nnowy wiersz"

msgid "untranslated"
msgstr ""
msgid "{count} file"
msgid_plural "{count} files"
msgstr[0] "{count} plik"
msgstr[1] "{count} pliki"
msgstr[2] "{count} plików"

#~ msgid "gone"
#~ msgstr "nie ma"
'''


def babel_view(text: str) -> dict[tuple[str | None, str], tuple[str, ...]]:
    cat = babel_read_po(io.StringIO(text))
    view: dict[tuple[str | None, str], tuple[str, ...]] = {}
    for message in cat:
        if not message.id or message.fuzzy:
            continue
        ids = message.id if isinstance(message.id, tuple) else (message.id,)
        strings = message.string if isinstance(message.string, tuple) else (message.string,)
        view[(message.context, "\0".join(ids))] = tuple(strings)
    return view


def our_view(text: str) -> dict[tuple[str | None, str], tuple[str, ...]]:
    view: dict[tuple[str | None, str], tuple[str, ...]] = {}
    for entry in read_po(text):
        if not entry.msgid or entry.fuzzy or entry.obsolete:
            continue
        ids = [entry.msgid] + ([entry.msgid_plural] if entry.msgid_plural is not None else [])
        view[(entry.msgctxt, "\0".join(ids))] = tuple(entry.msgstr)
    return view


@pytest.mark.parametrize("lang", ["sample", *TRANSLATED])
def test_po_reader_reads_what_babel_reads(lang: str) -> None:
    text = SAMPLE if lang == "sample" else po_path(lang).read_text(encoding="utf-8")
    ours = our_view(text)
    assert ours == babel_view(text)
    assert len(ours) >= 6


def test_po_reader_keeps_comments_flags_and_obsolete_entries() -> None:
    parsed = read_po(SAMPLE)
    simple = next(e for e in parsed if e.msgid == "simple {x}")
    assert simple.comments == ["a translator's comment"]
    assert simple.extracted == ["a note for translators"]
    assert simple.references == ["attncli/a.py", "attncli/b.py"]
    assert simple.flags == ["python-brace-format"]
    gone = next(e for e in parsed if e.msgid == "gone")
    assert gone.obsolete and gone.msgstr == ["nie ma"]


def test_po_writer_round_trips_the_sample() -> None:
    parsed = read_po(SAMPLE)
    assert our_view(write_po(parsed)) == our_view(SAMPLE)
    assert read_po(write_po(parsed)) == parsed


@pytest.mark.parametrize("lang", ["sample", *TRANSLATED])
def test_compiled_catalog_answers_like_babels_mo(lang: str) -> None:
    text = SAMPLE if lang == "sample" else po_path(lang).read_text(encoding="utf-8")
    ours = gettext.GNUTranslations(io.BytesIO(mo_bytes(read_po(text))))
    theirs_file = io.BytesIO()
    write_mo(theirs_file, babel_read_po(io.StringIO(text)))
    theirs = gettext.GNUTranslations(io.BytesIO(theirs_file.getvalue()))
    for entry in read_po(text):
        if not entry.msgid:
            continue
        if entry.msgid_plural is not None:
            for n in (0, 1, 2, 5, 21, 22):
                assert ours.ngettext(entry.msgid, entry.msgid_plural, n) == \
                    theirs.ngettext(entry.msgid, entry.msgid_plural, n)
        elif entry.msgctxt is not None:
            assert ours.pgettext(entry.msgctxt, entry.msgid) == \
                theirs.pgettext(entry.msgctxt, entry.msgid)
        else:
            assert ours.gettext(entry.msgid) == theirs.gettext(entry.msgid)
    if lang == "sample":
        assert ours.gettext("unsure") == "unsure"  # fuzzy: not used
        assert ours.gettext("untranslated") == "untranslated"
        assert ours.pgettext("menu", "Open") == "Otwórz" and ours.gettext("Open") == "Otwarte"
        assert ours.ngettext("{count} file", "{count} files", 22) == "{count} pliki"


@pytest.mark.parametrize(("text", "line"), [
    ('msgstr "x"\n', 1),
    ('msgid "a"\nmsgstr "b\\q"\n', 2),
    ('msgid "a"\nmsgstr "b"\nbogus\n', 3),
    ('\n"dangling"\n', 2),
    ('msgctxt "c"\n\nmsgid "a"\nmsgstr "b"\n', 2),
])
def test_po_reader_names_the_line_of_a_malformed_file(text: str, line: int) -> None:
    with pytest.raises(PoError) as caught:
        read_po(text)
    assert caught.value.line == line


@pytest.mark.parametrize("lang", TRANSLATED)
def test_example_titles_and_descriptions_use_the_glossary_terms(lang: str) -> None:
    """What a student reads first, the example's title and description, holds to the glossary
    like the catalogues do."""
    import yaml

    avoid = avoided_words()[lang]
    found = []
    for path in sorted((Path(__file__).parent.parent / "configs").glob("*.yaml")):
        spec = yaml.safe_load(path.read_text(encoding="utf-8"))
        for key in ("title", "description"):
            text = spec.get(key, {}).get(lang, "") if isinstance(spec.get(key), dict) else ""
            text = re.sub(r"przesunię\w+ wyników", " ", text, flags=re.IGNORECASE)
            hits = avoid & prose_words(text)
            if hits:
                found.append((path.name, key, sorted(hits)))
    assert found == []


def test_the_rmsnorm_backward_note_gives_no_false_reason() -> None:
    """Not subtracting the mean is not why RMSNorm has no bias: the English said "so", while
    Polish and Russian state two facts side by side („i nie ma też”, «и … тоже нет»). The
    three languages now say the same."""
    config = Path(__file__).parent.parent / "configs" / "backward_llama_style.yaml"
    walkthrough = build(load_spec(str(config)))
    notes = [note for step in walkthrough.steps for note in step.notes
             if isinstance(note, Msg) and note.msgid.startswith("RMSNorm backwards")]
    assert len(notes) == 1
    said = {lang: translate(notes[0], lang).split(";")[-1].replace("\u00a0", " ")
            for lang in LANGUAGES}
    assert said["en"] == " no mean is subtracted, and there is no bias to learn either."
    assert "i nie ma też" in said["pl"] and "тоже нет" in said["ru"]
    causes = {"en": r"\bso\b|\bthus\b|\btherefore\b", "pl": r"\bwięc\b|\bdlatego\b",
              "ru": r"поэтому|так что|\bпотому\b"}
    assert [lang for lang, cause in causes.items() if re.search(cause, said[lang])] == []


@pytest.mark.parametrize("lang", LANGUAGES)
def test_a_list_of_thousands_of_names_is_one_sentence_not_a_recursion(lang: str) -> None:
    """`listing` and `quoted_list` nest "{first}, {second}" in halves: 3,000 names are a dozen
    sentences deep, where one per name passed Python's recursion limit at about 500 (`attn
    check` of a 600-token spec with an answer of the wrong shape ended in a traceback)."""
    from attncli.i18n import listing, quoted_list

    names = [f"t{i}" for i in range(3000)]
    sep = {"en": " and ", "pl": " i\xa0", "ru": " и\xa0"}[lang]  # a no-break space after i, и
    assert translate(listing(names), lang) == ", ".join(names[:-1]) + sep + "t2999"
    marks = {"en": "“{}”", "pl": "„{}”", "ru": "«{}»"}[lang]
    assert translate(quoted_list(names), lang) == ", ".join(marks.format(n) for n in names)
    assert translate(quoted_list(names, most=4), lang) == ", ".join(
        [*(marks.format(n) for n in names[:3]), "…", marks.format("t2999")])
