"""serde's "invalid type" in a tokenizer.json is placed at the value it is about: serde reads a
part named by its `type` whole and names its closing brace, with no key."""

from __future__ import annotations

import json

import pytest

from attncli.i18n import Msg
from attncli.spec.tokenizer_types import wrong_type
from tests.test_tokenizer_merges import assert_tokenizer_refused


@pytest.mark.parametrize(("case", "lang", "line"), [
    ("in_part", "pl", "tokenizer_wrong_type_in_part.tokenizer.json:13:15: pre_tokenizer.invert: "
     "oczekiwano true albo false, otrzymano: tekst „no”"),
    ("in_part", "ru", "tokenizer_wrong_type_in_part.tokenizer.json:13:15: pre_tokenizer.invert: "
     "ожидается true или false, получено: текст «no»"),
    ("id", "pl", "tokenizer_wrong_type_id.tokenizer.json:1:73: added_tokens[0].id: oczekiwano "
     "liczby całkowitej, otrzymano: tekst „x”"),
    ("id", "ru", "tokenizer_wrong_type_id.tokenizer.json:1:73: added_tokens[0].id: ожидается "
     "целое число, получено: текст «x»"),
])
def test_a_value_of_the_wrong_type_is_named_at_its_key(
        case: str, lang: str, line: str, monkeypatch: pytest.MonkeyPatch) -> None:
    assert_tokenizer_refused(monkeypatch, f"tokenizer_wrong_type_{case}", lang, 2, line)


def test_the_part_is_found_at_its_brace_and_only_the_values_before_it_are_scanned() -> None:
    # model.dropout "x" at the end of a file whose vocabulary comes after it: serde names the
    # last line's brace (the whole file is read before the model is)
    config = {"version": "1.0", "model": {"type": "BPE", "dropout": "x",
                                          "vocab": {f"t{k}": k for k in range(50)}}}
    text = json.dumps(config, indent=2)
    said = f'invalid type: string "x", expected f32 at line {text.count(chr(10)) + 1} column 1'
    path, problem = wrong_type(text, config, said) or ((), None)
    assert path == ("model", "dropout")
    assert problem == Msg.of("expected {expected}, found {found}", expected=Msg.of("a number"),
                             found=Msg.of('the text "{value}"', value="x"))
    # the same value twice in the part: either may be it, and serde's place is kept
    twice = {**config, "model": {**config["model"], "unk_token": "x"}}
    assert wrong_type(json.dumps(twice, indent=2), twice, said) is None
    # a vocabulary's id is looked at only where nothing else is the value
    ids = {**config, "model": {**config["model"], "dropout": 3}}
    said_ids = said.replace('string "x"', "integer `3`")
    assert wrong_type(json.dumps(ids, indent=2), ids, said_ids)[0] == ("model", "dropout")
    only_ids = {**config, "model": {**config["model"], "dropout": None}}
    assert wrong_type(json.dumps(only_ids, indent=2), only_ids, said_ids)[0] == (
        "model", "vocab", "t3")
