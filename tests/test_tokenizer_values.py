"""A tokenizer.json's numbers, lists and keys are counted before `tokenizers` reads it
(attncli/spec/tokenizer_check.py): its texts and objects were, its numbers were not, so 9 million
numbers in `padding` (27 MB) took 1.65 s and were "valid", and 900,000 ids of a special token
took 215 MB; a WordLevel of 980,003 tokens, within the count of texts, was stopped at the
tokenizer's 160 MB after 1.64 s. Each is now refused before the tokenizer's process starts."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from attncli.spec import tokenizer
from attncli.spec.json_separators import separator_past
from attncli.spec.tokenizer_check import MAX_KEYS, MAX_VALUES
from tests.conftest import run

SPEC = 'tokens: {tokenizer: t.json, text: "a b"}\nembeddings: {random: {}, dim: 2}\n'
# a WordLevel of three tokens, its model written last so that what is added comes before it
HEAD = ('{"version": "1.0", "truncation": null, "padding": %s, "added_tokens": [], '
        '"normalizer": null, "pre_tokenizer": {"type": "WhitespaceSplit"}, '
        '"post_processor": null, "decoder": null, "model": {"type": "WordLevel", '
        '"vocab": {%s}, "unk_token": "[UNK]"}}')
SMALL = '"[UNK]": 0, "a": 1, "b": 2'


def validate(folder: Path, text: str, monkeypatch: pytest.MonkeyPatch) -> tuple[int, str, int]:
    """(exit code, first line of stderr, times the tokenizer's process was started)."""
    (folder / "t.json").write_text(text, encoding="utf-8")
    (folder / "s.yaml").write_text(SPEC, encoding="utf-8")
    started = []
    real = tokenizer.bounded
    monkeypatch.setattr(tokenizer, "bounded", lambda *a, **k: started.append(1) or real(*a, **k))
    monkeypatch.chdir(folder)
    result = run("validate", "s.yaml")
    return result.exit_code, result.stderr.splitlines()[0], len(started)


def test_numbers_past_the_limit_are_refused_at_the_first_past_it_unread(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # 1,200,000 zeros in a key of `padding` that `tokenizers` ignores. Before them, 11
    # separators: the root's brace, the two commas before `padding`, its brace, its six commas
    # and the list's bracket; value 1,200,001 is opened by separator 1,200,000, the comma after
    # zero 1,199,989 (each zero and its comma and space are 3 bytes after the bracket)
    padding = ('{"strategy": "BatchLongest", "direction": "Right", "pad_to_multiple_of": null, '
               '"pad_id": 0, "pad_type_id": 0, "pad_token": "[PAD]", "x": [' +
               ", ".join(["0"] * MAX_VALUES) + "]}")
    text = HEAD % (padding, SMALL)
    bracket = text.index('"x": [') + len('"x": [') - 1
    comma = bracket + 3 * 1_199_989 - 1
    assert text[comma] == ","
    assert separator_past(text.encode(), MAX_VALUES) == comma
    assert validate(tmp_path, text, monkeypatch) == (
        2, f"s.yaml:1:21: tokens.tokenizer: t.json:1:{comma + 1}: the file has more than "
           "1,200,000 commas and opening brackets outside its texts, the limit of one "
           "tokenizer.json: each opens a JSON value, a number, a list or an object", 0)


def test_a_special_token_of_many_ids_is_refused_unread(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # 900,000 ids and as many tokens (7.2 MB) took the tokenizer's process to 215 MB
    special = ('{"type": "TemplateProcessing", "single": [{"SpecialToken": {"id": "X", '
               '"type_id": 0}}, {"Sequence": {"id": "A", "type_id": 0}}], "pair": [], '
               '"special_tokens": {"X": {"id": "X", "ids": [' + ", ".join(["1"] * 900_000)
               + '], "tokens": [' + ", ".join(['"a"'] * 900_000) + "]}}}")
    text = HEAD.replace('"post_processor": null', '"post_processor": ' + special) % (
        "null", SMALL)
    code, line, started = validate(tmp_path, text, monkeypatch)
    assert (code, started) == (2, 0)
    assert "the file has more than 1,200,000 commas and opening brackets" in line


def test_a_vocabulary_past_the_keys_limit_is_refused_unread(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # 400,001 tokens and the file's 13 other keys: each token costs `tokenizers` about 305 bytes
    vocab = SMALL + ", " + ", ".join(f'"t{k}": {k + 3}' for k in range(MAX_KEYS - 2))
    assert validate(tmp_path, HEAD % ("null", vocab), monkeypatch) == (
        2, "s.yaml:1:21: tokens.tokenizer: t.json: the file holds up to 400,014 JSON keys (a "
           "vocabulary's tokens, seven for each added token); the limit is 400,000", 0)


def test_real_sized_files_are_within_the_limits() -> None:
    # Llama 3 saved again: 128,000 tokens, 280,147 merges as pairs, 256 added tokens;
    # Gemma's vocabulary: 262,144 tokens, 6,400 added tokens
    def file(tokens: int, pairs: int, added: int) -> bytes:
        return json.dumps({
            "added_tokens": [{"id": k, "content": f"<{k}>", "single_word": False, "lstrip": False,
                              "rstrip": False, "normalized": False, "special": True}
                             for k in range(added)],
            "model": {"type": "BPE", "vocab": {f"t{k}": k for k in range(tokens)},
                      "merges": [[f"t{k}", f"t{k + 1}"] for k in range(pairs)]}}).encode()

    llama = file(128_000, 280_147, 256)
    assert separator_past(llama, MAX_VALUES) is None
    assert separator_past(llama, 970_000) is not None  # 128,000 + 3 × 280,147 and the rest
    gemma = file(262_144, 0, 6_400)
    assert gemma.count(b":") == 262_144 + 7 * 6_400 + 5 <= MAX_KEYS
