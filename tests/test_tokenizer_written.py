"""What `tokenizers` would refuse in its own English is refused first, in attn's words, at its
line:column in tokenizer.json (spec/tokenizer_written.py, spec/json_separators.py): lists and
objects nested past 64 levels (100 Sequences inside one another gave serde's `recursion limit
exceeded`), a Precompiled normalizer whose charsmap is no charsmap (serde's English with the
line:column of its own re-reading), a FixedLength pre-tokenizer of length 0 (`chunk size must
be non-zero`), a charsmap whose trie points outside itself (a panic once a text is encoded:
`index out of bounds`), a template naming a special token its post-processor does not list (`no
entry found for key`) or a single text's template naming the sequence B (a panic), and a part
written after 16 keys of its name: inside other objects, which serde passes over and attn's
first 16 looks did not, or in the file's own object, where serde reads every one; now the
file's own keys alone, each once. The catalogue (tests/bad_inputs/tokenizer_*) holds each case's
English line."""

from __future__ import annotations

import base64
import json
from fractions import Fraction
from pathlib import Path

import pytest

from attncli.i18n import Count, Msg
from attncli.spec import json_separators
from attncli.spec.files import FileProblem
from attncli.spec.json_separators import deeper_past, depths_at
from attncli.spec.tokenizer_charsmap import charsmap_problem, growth
from attncli.spec.tokenizer_check import MAX_NESTING, check_objects
from attncli.spec.tokenizer_written import check_written
from tests.charsmaps import NMT_NFKC, charsmap, one_text
from tests.conftest import run

CATALOGUE = Path(__file__).parent / "bad_inputs"


@pytest.mark.parametrize("piece", [json_separators.PIECE, 7])
def test_the_nesting_is_found_from_the_brackets_outside_texts(
        piece: int, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(json_separators, "PIECE", piece)  # 7: brackets across pieces too
    text = '{"a": "[[[{{{\\"[[", "b": ' + "[" * 63 + "]" * 63 + "}"
    assert deeper_past(text.encode(), 64) is None  # 1 + 63 levels; the text's are no level
    assert deeper_past(text.encode(), 63) == text.index("[" * 63) + 62  # the 64th level
    deeper = '{"é": ' + "[" * 64 + "]" * 64 + "}"
    assert deeper_past(deeper, 64) == 6 + 63  # a character's index in a str
    assert deeper_past(deeper.encode(), 64) == 7 + 63  # a byte's in bytes (é is two)


@pytest.mark.parametrize("piece", [json_separators.PIECE, 5])
def test_a_keys_depth_is_found_from_the_brackets_outside_texts(
        piece: int, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(json_separators, "PIECE", piece)  # 5: brackets across pieces too
    content = b'{"a": {"n": 1}, "s": "{[\\"", "n": 2}'
    places = [k for k in range(len(content)) if content.startswith(b'"n"', k)]
    assert depths_at(content, places) == [2, 1]  # the text's brackets are no level


def test_a_nesting_past_the_limit_is_refused_at_its_bracket() -> None:
    content = ("{\n" + '  "x": ' + "[" * (MAX_NESTING - 1) + "]" * (MAX_NESTING - 1) + "\n}")
    check_objects(content.encode(), "t.json")  # 64 levels
    content = content.replace('"x": [', '"x": [[').replace("]\n", "]]\n")
    with pytest.raises(FileProblem) as problem:
        check_objects(content.encode(), "t.json")
    assert dict(problem.value.message.params)["line"] == 2
    assert dict(problem.value.message.params)["column"] == 8 + MAX_NESTING - 1  # the 65th


def test_a_part_inside_a_pretty_file_is_located_at_its_value() -> None:
    config = {"version": "1.0", "normalizer": {"type": "Sequence", "normalizers": [
        {"type": "NFKC"}, {"type": "Precompiled", "precompiled_charsmap": "AAAA"}]}}
    content = json.dumps(config, indent=2)
    with pytest.raises(FileProblem) as problem:
        check_written(content.encode(), "t.json", 10)
    params = dict(problem.value.message.params)
    lines = content.splitlines()
    line = next(k for k, text in enumerate(lines, 1) if "precompiled_charsmap" in text)
    assert (params["line"], params["column"]) == (line, lines[line - 1].index('"AAAA"') + 1)
    assert params["key"] == "normalizer.normalizers[1].precompiled_charsmap"


def test_a_charsmaps_growth_is_its_most_characters_for_each_it_replaces() -> None:
    assert growth(charsmap({"a": "abc", "x": "xyzzy"})) == 5
    assert growth(charsmap({"e\u0301": "xyz"})) == Fraction(3, 2)  # e and U+0301, one grapheme
    assert growth(NMT_NFKC) == 18  # ﷺ
    assert growth("AB==") == 1  # unused bits set: not base64 as tokenizers reads it


def test_every_walk_of_a_charsmaps_trie_is_checked() -> None:
    # 2 units of 0: the root's children are looked for at units 1 to 255, past the trie
    units = base64.b64encode(b"\x08\0\0\0" + bytes(8) + b"abc\0").decode()
    assert charsmap_problem(units) == Msg.plural_of(
        "expected a precompiled charsmap whose trie's units point inside its {count} unit, "
        "found one that points to unit {place}",
        "expected a precompiled charsmap whose trie's units point inside its {count} units, "
        "found one that points to unit {place}", Count(2), place=Count(255))
    empty = base64.b64encode(b"\0\0\0\0abc\0").decode()
    assert charsmap_problem(empty) == Msg.of(
        "expected a precompiled charsmap whose trie has a first unit, found none")
    # a match whose text begins inside é (its second byte)
    data = bytearray(base64.b64decode(charsmap({"a": "é"})))
    value = data.index((1 << 31).to_bytes(4, "little"))  # the match's unit: text 0
    data[value] = 1
    inside = base64.b64encode(bytes(data)).decode()
    assert charsmap_problem(inside) == Msg.plural_of(
        "expected a precompiled charsmap whose matches begin at a character of its texts "
        "({count} byte), found one that begins at byte {place}",
        "expected a precompiled charsmap whose matches begin at a character of its texts "
        "({count} bytes), found one that begins at byte {place}", Count(3), place=Count(1))
    assert charsmap_problem(NMT_NFKC) is None


def test_a_trie_whose_walks_share_its_units_past_the_limit_is_refused() -> None:
    # 256 units, each labelled with its own place and its offset that place: every byte leads
    # back to the root's children, 255 walks, 255 + 255² = 65,280 after two bytes, then more
    units = [0] + [(k << 10) | k for k in range(1, 256)]
    trie = b"".join(unit.to_bytes(4, "little") for unit in units)
    written = base64.b64encode(len(trie).to_bytes(4, "little") + trie + b"a\0").decode()
    assert charsmap_problem(written) == Msg.plural_of(
        "expected a precompiled charsmap whose trie holds at most {count} key of up to 5 bytes, "
        "found more", "expected a precompiled charsmap whose trie holds at most {count} keys of up "
        "to 5 bytes, found more", Count(65_536))


@pytest.mark.parametrize(("case", "lang", "line"), [
    ("tokenizer_nested_sequences", "pl", "tokenizer_nested_sequences.tokenizer.json:1:1274: plik "
     "zagnieżdża listy i\u00a0obiekty głębiej niż na 64 poziomy, a\u00a0taki jest limit dla "
     "jednego pliku tokenizer.json"),
    ("tokenizer_nested_sequences", "ru", "tokenizer_nested_sequences.tokenizer.json:1:1274: в\u00a0"
     "файле списки и\u00a0объекты вложены глубже, чем на 64 уровня,\u00a0— это предел для одного "
     "tokenizer.json"),
    ("tokenizer_precompiled_null", "pl", "tokenizer_precompiled_null.tokenizer.json:1:139: "
     "normalizer.precompiled_charsmap: oczekiwano tekstu w\u00a0base64 (skompilowanej mapy "
     "znaków), otrzymano: pusta wartość (null)"),
    ("tokenizer_precompiled_short", "ru", "tokenizer_precompiled_short.tokenizer.json:1:139: "
     "normalizer.precompiled_charsmap: ожидается скомпилированная карта символов: 4 байта "
     "с\u00a0размером её префиксного дерева (trie), само дерево и\u00a0тексты замен; получено 3 "
     "байта\u00a0— меньше, чем требует этот размер"),
    ("tokenizer_fixed_length_zero", "pl", "tokenizer_fixed_length_zero.tokenizer.json:1:148: "
     "pre_tokenizer.length: oczekiwano liczby całkowitej nie mniejszej niż 1, otrzymano: "
     "liczba 0"),
    ("tokenizer_fixed_length_zero", "ru", "tokenizer_fixed_length_zero.tokenizer.json:1:148: "
     "pre_tokenizer.length: ожидается целое число не меньше 1, получено: число 0"),
    ("tokenizer_trie_outside", "pl", "tokenizer_trie_outside.tokenizer.json:1:139: "
     "normalizer.precompiled_charsmap: oczekiwano skompilowanej mapy znaków, której drzewo trie "
     "odwołuje się tylko do własnych komórek (2 komórki); otrzymano odwołanie do komórki nr 255"),
    ("tokenizer_trie_outside", "ru", "tokenizer_trie_outside.tokenizer.json:1:139: "
     "normalizer.precompiled_charsmap: ожидается скомпилированная карта символов, префиксное "
     "дерево (trie) которой ссылается только на свои же ячейки (в\u00a0нём 2 ячейки); получена "
     "ссылка на ячейку 255"),
    ("tokenizer_template_unlisted", "pl", "tokenizer_template_unlisted.tokenizer.json:1:227: "
     "post_processor.single[0].SpecialToken.id: oczekiwano tokenu specjalnego "
     "z\u00a0post_processor.special_tokens, otrzymano token „[CLS]”, którego tam nie ma"),
    ("tokenizer_template_unlisted", "ru", "tokenizer_template_unlisted.tokenizer.json:1:227: "
     "post_processor.single[0].SpecialToken.id: ожидается специальный токен из "
     "post_processor.special_tokens, получен токен «[CLS]», которого там нет"),
    ("tokenizer_template_single_b", "pl", "tokenizer_template_single_b.tokenizer.json:1:223: "
     "post_processor.single[0].Sequence.id: oczekiwano sekwencji A\u00a0(pojedynczy tekst nie "
     "ma innej), otrzymano B"),
    ("tokenizer_template_single_b", "ru", "tokenizer_template_single_b.tokenizer.json:1:223: "
     "post_processor.single[0].Sequence.id: ожидается последовательность «A» (у\u00a0одиночного "
     "текста другой нет), получено: «B»"),
    ("tokenizer_normalizer_repeated", "pl", "tokenizer_normalizer_repeated.tokenizer.json:1:114: "
     "normalizer: oczekiwano jednego wystąpienia klucza w\u00a0pliku, otrzymano kolejne"),
    ("tokenizer_normalizer_repeated", "ru", "tokenizer_normalizer_repeated.tokenizer.json:1:114: "
     "normalizer: ожидается один такой ключ в\u00a0файле, получен ещё один"),
    ("tokenizer_decoy_keys", "ru", "tokenizer_decoy_keys.tokenizer.json:1:2729: "
     "normalizer.precompiled_charsmap: ожидается скомпилированная карта символов: 4 байта "
     "с\u00a0размером её префиксного дерева (trie), само дерево и\u00a0тексты замен; получено 3 "
     "байта\u00a0— меньше, чем требует этот размер"),
])
def test_a_refusal_in_the_users_language_before_the_tokenizer_runs(
        case: str, lang: str, line: str, monkeypatch: pytest.MonkeyPatch) -> None:
    from attncli.spec import tokenizer
    starts: list[object] = []
    monkeypatch.setattr(tokenizer, "bounded", lambda *args: starts.append(args))
    monkeypatch.chdir(CATALOGUE)
    result = run("explain", f"{case}.yaml", "--lang", lang)
    assert (result.exit_code, result.stdout, starts) == (2, "", [])
    assert result.stderr == f"{case}.yaml:1:21: tokens.tokenizer: {line}\n"  # NBSPs as typeset


def test_the_catalogue_tokenizers_are_what_they_say() -> None:
    def config(case: str) -> dict[str, object]:
        return json.loads((CATALOGUE / f"{case}.tokenizer.json").read_text(encoding="utf-8"))

    part, depth = config("tokenizer_nested_sequences")["normalizer"], 0
    while isinstance(part, dict) and part["type"] == "Sequence":
        part, depth = part["normalizers"][0], depth + 1
    assert (depth, part) == (100, {"type": "Lowercase"})
    passes = config("tokenizer_byte_level_passes")["normalizer"]["normalizers"]  # type: ignore[index]
    assert passes == [{"type": "ByteLevel"}] * 7
    assert config("tokenizer_fixed_length_zero")["pre_tokenizer"] == {
        "type": "FixedLength", "length": 0}
    assert config("tokenizer_trie_one_text")["normalizer"] == {
        "type": "Precompiled", "precompiled_charsmap": one_text(1000, deeper=True)}
