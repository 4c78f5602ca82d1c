"""What `tokenizers` would refuse in its own English is refused first, in attn's words, at its
line:column in tokenizer.json (spec/tokenizer_written.py, spec/json_separators.py): lists and
objects nested past 64 levels (100 Sequences inside one another gave serde's `recursion limit
exceeded`), a Precompiled normalizer whose charsmap is no charsmap (serde's English with the
line:column of its own re-reading), a FixedLength pre-tokenizer of length 0 (`chunk size must
be non-zero`). The catalogue (tests/bad_inputs/tokenizer_*) holds each case's English line."""

from __future__ import annotations

import base64
import json
from pathlib import Path

import pytest

from attncli.spec import json_separators
from attncli.spec.files import FileProblem
from attncli.spec.json_separators import deeper_past
from attncli.spec.tokenizer_charsmap import longest_replacement
from attncli.spec.tokenizer_check import MAX_NESTING, check_objects
from attncli.spec.tokenizer_written import check_written
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


def test_a_charsmaps_longest_text_is_how_long_it_makes_a_character() -> None:
    # a trie of 2 units (8 bytes), then the texts "abc" and "xyzzy", each ending with a NUL
    charsmap = base64.b64encode(b"\x08\0\0\0" + bytes(8) + b"abc\0xyzzy\0").decode()
    assert longest_replacement(charsmap) == 5
    assert longest_replacement("AB==") == 0  # unused bits set: not base64 as tokenizers reads it


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
