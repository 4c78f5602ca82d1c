"""What the second native reading of the Polish and Russian output found, kept from coming back.

- every example line of every `--help`, in every language, runs as printed (exit 0);
- no English placeholder (FILE) in Polish or Russian help; one dash style per language;
- two heads are "both" ("obie", "обе"), three are counted;
- a token inside a sentence is set apart by the language's quotation marks, in every format;
- in a PDF (pdftotext) no formula of a sentence is split by a line end and no line ends with a
  one-letter word;
- a decimal comma, as attn prints it, is read back by `attn check`.
"""

from __future__ import annotations

import glob
import re
import shlex
import shutil
import subprocess
from pathlib import Path

import pytest
import typer
from typer.testing import CliRunner

from attncli import build, loads_spec, render
from attncli.cli.app import app
from attncli.i18n import po_path
from attncli.i18n.po import read_po
from tests.test_helpers_cli import READING as READS_FILES
from tests.test_latex_pages import pdflatex

ROOT = Path(__file__).resolve().parent.parent
LANGS = ("en", "pl", "ru")
MANIFEST = '[[snippets]]\nspecs = "configs/cat_chases_mouse.yaml"\nformats = ["markdown"]\n' \
           'output = "out/{name}.md"\n'


def invoke(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(app, list(args), env={"ATTN_LANG": ""})
    return result.exit_code, result.stdout, result.stderr


def commands() -> list[str]:
    group = typer.main.get_command(app)
    assert isinstance(group, typer.core.TyperGroup)
    return list(group.commands)


def help_page(command: str, lang: str) -> str:
    code, out, err = invoke(command, "--help", "--lang", lang)
    assert (code, err) == (0, "")
    return out


def examples(page: str) -> list[str]:
    """The example lines of a help page: a line of its own that starts with `attn COMMAND`
    (prose wrapped at the word attn does not: `… procesorów` / `attn może używać`)."""
    starts = tuple(f"attn {command} " for command in commands())
    return [line.strip() for line in page.splitlines() if line.strip().startswith(starts)]


# --- help ---------------------------------------------------------------------------------

def test_every_command_shows_the_same_examples_in_every_language() -> None:
    """A translation keeps every example line (it may add `--lang` in its own language)."""
    for command in commands():
        lines = {lang: [re.sub(r" --lang \w+", "", line)
                        for line in examples(help_page(command, lang))] for lang in LANGS}
        assert lines["en"], f"attn {command} --help has no example"
        assert lines["pl"] == lines["en"] == lines["ru"], command  # but for the language


@pytest.mark.parametrize("lang", LANGS)
def test_every_help_example_runs_as_printed(lang: str, tmp_path: Path,
                                            monkeypatch: pytest.MonkeyPatch) -> None:
    """In a folder with the example specs (configs/), a manifest whose snippets are written and
    a post whose attn block is filled in, as a user who copies the line would have."""
    shutil.copytree(ROOT / "configs", tmp_path / "configs")
    (tmp_path / "attn.toml").write_text(MANIFEST, encoding="utf-8")
    (tmp_path / "posts").mkdir()
    shutil.copy(ROOT / "configs" / "cat_chases_mouse.yaml", tmp_path / "posts" / "cat.yaml")
    (tmp_path / "posts" / "attention.md").write_text(
        "# Attention\n\n```attn\nspec: cat.yaml\n```\n", encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    assert invoke("snippets")[0] == 0
    assert invoke("fill", "posts/attention.md")[0] == 0
    ran = 0
    for command in commands():
        for line in examples(help_page(command, lang)):
            words = shlex.split(line)[1:]
            target = None
            if ">" in words:
                at = words.index(">")
                words, target = words[:at], words[at + 1]
            words = [match for word in words
                     for match in (sorted(glob.glob(word)) if "*" in word else [word])]
            code, out, err = invoke(*words, "--lang", lang)
            assert code == 0 and "Traceback" not in err, (line, err)  # snippets: a summary
            if target is not None:
                Path(target).write_text(out, encoding="utf-8")
                assert out.strip(), line
            ran += 1
    assert ran >= 13
    assert Path("sheet.tex").read_text(encoding="utf-8") != Path("key.tex").read_text(
        encoding="utf-8")


@pytest.mark.parametrize(("lang", "file"), [("pl", "PLIK"), ("ru", "ФАЙЛ")])
def test_no_english_placeholder_in_polish_and_russian_help(lang: str, file: str) -> None:
    pages = {command: " ".join(help_page(command, lang).split()) for command in commands()}
    assert [c for c, page in pages.items() if re.search(r"\bFILE\b", page)] == []
    assert f"-o, --output {file}" in pages["export"]
    assert f"do pliku {file}" in pages["export"] if lang == "pl" else \
        f"в файл {file}" in pages["export"]


# --- the catalogs -------------------------------------------------------------------------

@pytest.mark.parametrize(("lang", "dash", "other"), [("pl", "–", "—"), ("ru", "—", "–")])
def test_one_dash_style(lang: str, dash: str, other: str) -> None:
    """Polish sets a spaced en dash (półpauza), Russian a spaced em dash (тире); a spaced hyphen
    is never a dash (a formula writes −, the minus sign)."""
    found = [(e.msgid, text) for e in read_po(po_path(lang).read_text(encoding="utf-8"))
             if not e.obsolete for text in e.msgstr
             if f" {other} " in text or re.search(r"\s-\s", text)]
    assert found == []
    used = [text for e in read_po(po_path(lang).read_text(encoding="utf-8")) if not e.obsolete
            for text in e.msgstr if f" {dash} " in text]
    assert used


# --- sentences ----------------------------------------------------------------------------

def heads_spec(h: int) -> str:
    """h heads of one column each, every column the same: the heads agree everywhere (dog
    attends most to cat, 0.5 against 0.25, in each)."""
    return (f"tokens: [cat, dog]\nembeddings: [{[1.0] * h}, {[0.5] * h}]\nheads: {h}\n"
            "mask: causal\n")


SAME = {
    ("en", 2): "Both heads agree on where every query attends most.",
    ("pl", 2): "Obie głowice wskazują dla każdego zapytania ten sam klucz, na który patrzy ono "
               "najbardziej.",
    ("ru", 2): "В обеих головах каждый запрос больше всего смотрит на один и тот же ключ.",
    ("en", 3): "All 3 heads agree on where every query attends most.",
    ("pl", 3): "Wszystkie głowice (3) wskazują dla każdego zapytania ten sam klucz, na który "
               "patrzy ono najbardziej.",
    ("ru", 3): "Во всех головах (3) каждый запрос больше всего смотрит на один и тот же ключ.",
    # 21 takes the form of 1 in Russian: still "all", never "21 голова указывает"
    ("ru", 21): "Во всех головах (21) каждый запрос больше всего смотрит на один и тот же ключ.",
}


@pytest.mark.parametrize(("lang", "h"), list(SAME))
def test_two_heads_are_both_and_three_are_counted(lang: str, h: int) -> None:
    text = render(build(loads_spec(heads_spec(h))), "text", lang)
    assert SAME[(lang, h)] in text.replace("\u00a0", " ").replace("\n   ", " ")


MULTI_QUERY = {
    ("en", 2): "multi-query attention: kv_heads = 1, both heads share one K and V",
    ("pl", 2): "atencja wielozapytaniowa (MQA): kv_heads = 1, K i V są wspólne dla obu głowic",
    ("ru", 2): "многозапросное внимание (MQA): kv_heads = 1, обе головы используют одни и те же "
               "K и V",
    ("en", 3): "multi-query attention: kv_heads = 1, every head shares one K and V",
    ("pl", 3): "atencja wielozapytaniowa (MQA): kv_heads = 1, K i V są wspólne dla wszystkich "
               "głowic",
    ("ru", 3): "многозапросное внимание (MQA): kv_heads = 1, все головы используют одни и те же "
               "K и V",
}


@pytest.mark.parametrize(("lang", "h"), list(MULTI_QUERY))
def test_the_multi_query_header_says_both_for_two_heads(lang: str, h: int) -> None:
    column = [[1.0]] * h  # W_K and W_V: d_model x (kv_heads·d_k) = h x 1
    spec = (heads_spec(h) + f"kv_heads: 1\nweights: {{W_Q: identity, W_K: {column}, "
            f"W_V: {column}}}\n")
    text = render(build(loads_spec(spec)), "text", lang)
    assert MULTI_QUERY[(lang, h)] in text.replace("\u00a0", " ").replace("\n   ", " ")


READING = {
    "en": ["“I” sees only itself", "“a” attends most to itself (0.44), then to “am” (0.35)"],
    "pl": ["„I” widzi tylko siebie", "„a” patrzy najbardziej na siebie (0.44), potem na „am” "
           "(0.35)"],
    "ru": ["«I» видит только себя", "«a» больше всего смотрит на себя (0.44), затем на «am» "
           "(0.35)"],
}


@pytest.mark.parametrize("fmt", ["text", "markdown", "latex"])
@pytest.mark.parametrize("lang", LANGS)
def test_a_token_in_a_sentence_is_quoted_in_every_format(lang: str, fmt: str) -> None:
    """`I am a robot`: "a" and "I" are words of English and Polish, "а" of Russian."""
    walkthrough = build(loads_spec((ROOT / "configs" / "positional_i_am_a_robot.yaml")
                                   .read_text(encoding="utf-8")))
    text = render(walkthrough, fmt, lang).replace("~", " ").replace("\u00a0", " ")
    text = " ".join(re.sub(r"\{\\fontencoding\{T(?:1|2A)\}\\selectfont ([^{}]*)\}", r"\1",
                           text).split())  # LaTeX: the font switch around « » or Cyrillic
    for sentence in READING[lang]:
        assert sentence in text, (fmt, sentence)


# --- the PDF ------------------------------------------------------------------------------

FORMULAS = {  # spec: the formulas of its sentences, as pdftotext reads them
    "kv_cache_decoding": [r"2 · \(2 \+ 2\) · 2 = 16", r"\(2 \+ 2\) · 2 = 8"],
    "rope_half": [r"\(i, i \+ d ?k ?/2\)", r"\(2i, 2i\+1\)", r"\(1, 0\)"],
}
ONE_LETTER = {"pl": "aiouwzAIOUWZ", "ru": "авикосуяАВИКОСУЯ"}


@pytest.mark.parametrize("spec", sorted(FORMULAS))
@pytest.mark.parametrize("lang", ["pl", "ru"])
def test_no_formula_or_one_letter_word_broken_at_a_pdf_line_end(spec: str, lang: str,
                                                                tmp_path: Path) -> None:
    source = render(build(loads_spec((ROOT / "configs" / f"{spec}.yaml")
                                     .read_text(encoding="utf-8"))), "latex", lang,
                    standalone=True)
    pdflatex(source, tmp_path)
    text = subprocess.run(["pdftotext", "doc.pdf", "-"], cwd=tmp_path, capture_output=True,
                          text=True, check=True).stdout
    for formula in FORMULAS[spec]:
        assert re.search(formula, text), formula  # on one line: the pattern has no line break
    ends = [line for line in text.splitlines()
            if re.search(rf"\S\s[{ONE_LETTER[lang]}]$", line)]
    assert ends == []


# --- number input -------------------------------------------------------------------------

def test_check_reads_the_decimal_comma_it_prints() -> None:
    """The weights of `cat chases mouse` as --decimal-comma prints them, and the same with one
    number wrong: the right value is given back with the student's mark."""
    code, out, _ = invoke("check", "--step", "weights", "--lang", "pl", "--answer",
                          "1 0 0; 0,36 0,64 0; 0,4 0,25 0,35")
    assert (code, out.replace("\u00a0", " ")) == (0, "A: poprawnie z dokładnością, z jaką "
                                                   "piszesz (wszystkie 9 liczb).\n")
    code, out, _ = invoke("check", "--step", "weights", "--answer",
                          "1 0 0; 0,36 0,64 0; 0,4 0,25 0,30")
    assert code == 1
    assert "A[mouse, mouse]: you wrote 0,30, the right value is 0,35 (0,3531)" in out
    code, _, err = invoke("check", "--step", "weights", "--answer", "1,0,0; 0,36 0,64 0")
    assert code == 2 and "decimal comma" in err


def test_one_wrong_cell_of_z_is_blamed_on_no_slip() -> None:
    """Softmax over columns gives 0.35 for Z[mouse, d2] of `cat chases mouse`, but changes
    every other number too, which the student got right: it is not the slip."""
    code, out, _ = invoke("check", "--step", "output", "--answer",
                          "1.00 0.00; 0.48 0.64; 0.73 0.35")
    assert code == 1
    assert out.splitlines()[-1] == "   No slip in attn's catalogue gives these numbers."


# --- examples and schema in the reader's language -----------------------------------------

def without_descriptions(node: object) -> object:
    if isinstance(node, dict):
        return {k: without_descriptions(v) for k, v in node.items() if k != "description"}
    if isinstance(node, list):
        return [without_descriptions(v) for v in node]
    return node


@pytest.mark.parametrize("lang", ["pl", "ru"])
def test_every_example_prints_its_comments_in_the_language(lang: str) -> None:
    """The same data, every comment block translated, no line wider than the English ones."""
    import yaml

    from attncli.i18n.comments import comment_blocks

    for path in sorted((ROOT / "configs").glob("*.yaml")):
        english = path.read_text(encoding="utf-8")
        code, text, err = invoke("examples", path.stem, "--lang", lang)
        # an example that reads files beside it says so on stderr (tests/test_helpers_cli.py)
        assert code == 0 and (err == "") == (path.stem not in READS_FILES), (path.stem, err)
        assert yaml.safe_load(text) == yaml.safe_load(english), path.stem
        before = [b.text for b in comment_blocks(english.split("\n"))]
        after = [b.text for b in comment_blocks(text.split("\n"))]
        assert len(after) == len(before) and not set(after) & set(before), path.stem
        comments = [line for line in text.splitlines() if line.lstrip().startswith("#")]
        assert max(map(len, comments)) <= 100, path.stem
    code, text, _ = invoke("examples", "cat_chases_mouse", "--lang", lang)
    first = text.replace("\u00a0", " ").splitlines()[0]
    assert first == {"pl": "# „cat chases mouse”: trzy tokeny, d_model = 2, projekcje "
                           "jednostkowe, maska przyczynowa. Liczby",
                     "ru": "# «cat chases mouse»: три токена, d_model = 2, единичные проекции, "
                           "каузальная маска. Числа из"}[lang]


@pytest.mark.parametrize(("lang", "mask"), [
    ("pl", "Które klucze widzi każde zapytanie: none, causal, {window: w}, {padding: [...]}, "
           "macierz zer i jedynek albo lista takich masek (klucz jest widoczny, gdy pozwala na to "
           "każda maska)."),
    ("ru", "Какие ключи видит каждый запрос: none, causal, {window: w}, {padding: [...]}, "
           "матрица из нулей и единиц или список таких масок (ключ видим, если его разрешает "
           "каждая маска)."),
])
def test_the_schema_describes_the_keys_in_the_language(lang: str, mask: str) -> None:
    import json

    code, english, _ = invoke("schema")
    assert code == 0 and english == (ROOT / "attncli" / "spec" / "schema.json").read_text(
        encoding="utf-8")
    code, text, _ = invoke("schema", "--lang", lang)
    assert code == 0
    schema, original = json.loads(text), json.loads(english)
    assert without_descriptions(schema) == without_descriptions(original)
    assert schema["properties"]["mask"]["description"].replace("\u00a0", " ") == mask


EMPTY = {
    ("empty_tokens", "pl"): "tokens: oczekiwano listy tokenów, otrzymano: pusta lista",
    ("empty_tokens", "ru"): "tokens: ожидается список токенов, получено: пустой список",
    ("token_blank", "pl"): "tokens[1]: oczekiwano tokenu, otrzymano: pusty tekst",
    ("token_blank", "ru"): "tokens[1]: ожидается токен, получено: пустой текст",
}


@pytest.mark.parametrize(("name", "lang"), list(EMPTY))
def test_an_empty_list_or_text_is_found_in_the_one_error_style(name: str, lang: str) -> None:
    """`expected X, found Y` as `oczekiwano X, otrzymano: Y` and `ожидается X, получено: Y`,
    never `a lista jest pusta`, `а список пуст`."""
    code, _, err = invoke("explain", f"tests/bad_inputs/{name}.yaml", "--lang", lang)
    assert code == 2
    assert err.replace("\u00a0", " ").split(": ", 1)[1] == EMPTY[(name, lang)] + "\n"
