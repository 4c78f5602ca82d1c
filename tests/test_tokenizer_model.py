"""A tokenizer.json model's values that `tokenizers` refuses in English of its own (serde's
words): a BPE merge text that is not two tokens with one space between them, a Unigram entry
that is not a token and its score, a score past a 64-bit float. Each is refused in the user's
language at its value's line:column (spec/tokenizer_model.py)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import run

SPEC = "tokens: {tokenizer: t.json, text: \"a a b\"}\nembeddings: {random: {seed: 1}, dim: 2}\n" \
    "weights: {W_Q: identity, W_K: identity, W_V: identity}\n"
MODEL = '{\n  "version": "1.0",\n  "pre_tokenizer": {"type": "WhitespaceSplit"},\n  "model": '
BPE = '{"type": "BPE", "unk_token": "[UNK]",\n    "vocab": {"[UNK]": 0, "a": 1, "b": 2, "ab": 3},' \
    '\n    "merges": ["a b", %s]}\n}\n'
UNIGRAM = '{"type": "Unigram", "unk_id": 0,\n    "vocab": [["<unk>", 0.0], %s]}\n}\n'


def refusal(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, model: str, lang: str) -> str:
    (tmp_path / "t.json").write_text(MODEL + model)
    (tmp_path / "s.yaml").write_text(SPEC)
    monkeypatch.chdir(tmp_path)
    result = run("explain", "s.yaml", "--format", "json", "--lang", lang)
    assert (result.exit_code, result.stdout) == (2, "")
    return result.stderr


# line 6 of the file is `    "merges": ["a b", …]`: the second merge's quote is its 23rd character
@pytest.mark.parametrize(("merge", "lang", "said"), [
    ('"a b c"', "en", "expected two tokens with one space between them, found “a b c”"),
    ('"ab"', "pl", "oczekiwano dwóch tokenów rozdzielonych jedną spacją, otrzymano: „ab”"),
    ('"a  b"', "ru", "ожидаются два токена, разделённые одним пробелом, получено: «a  b»"),
    ('""', "en", "expected two tokens with one space between them, found “”"),
])
def test_a_merge_that_is_not_two_tokens_is_refused_at_the_merge(
        merge: str, lang: str, said: str, tmp_path: Path,
        monkeypatch: pytest.MonkeyPatch) -> None:
    assert refusal(tmp_path, monkeypatch, BPE % merge, lang) == (
        f"s.yaml:1:21: tokens.tokenizer: t.json:6:23: model.merges[1]: {said}\n")


# line 5 is `    "vocab": [["<unk>", 0.0], …]`: the second entry's bracket is its 31st character,
# its score the 37th (after `["a", `)
@pytest.mark.parametrize(("entry", "lang", "said"), [
    ('["a", -1.0, 1]', "pl", "t.json:5:31: model.vocab[1]: oczekiwano dwóch elementów (tokenu "
     "i\u00a0logarytmu jego prawdopodobieństwa), otrzymano: 3 elementy"),
    ('["a"]', "ru", "t.json:5:31: model.vocab[1]: ожидаются два элемента (токен и\u00a0логарифм "
     "его вероятности), получен 1 элемент"),
    ('["a", -1e400]', "en", "t.json:5:37: model.vocab[1][1]: expected a score that a 64-bit "
     "float holds, found one past its range"),
    ('["a", -1e400]', "ru", "t.json:5:37: model.vocab[1][1]: ожидается логарифм вероятности "
     "в\u00a0диапазоне 64-битных чисел с\u00a0плавающей точкой, получено значение вне этого "
     "диапазона"),
])
def test_a_unigram_entry_that_is_not_a_token_and_its_score_is_refused_at_the_entry(
        entry: str, lang: str, said: str, tmp_path: Path,
        monkeypatch: pytest.MonkeyPatch) -> None:
    assert refusal(tmp_path, monkeypatch, UNIGRAM % entry, lang) == (
        f"s.yaml:1:21: tokens.tokenizer: {said}\n")


@pytest.mark.parametrize(("lang", "said"), [
    ("pl", "oczekiwano słownika z\u00a0co najmniej jednym elementem, otrzymano: pusta lista"),
    ("ru", "ожидается словарь токенизатора хотя бы из одного элемента, получен пустой список"),
])
def test_an_empty_unigram_vocabulary_is_refused_at_it(
        lang: str, said: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    model = '{"type": "Unigram", "unk_id": 0,\n    "vocab": []}\n}\n'
    # line 5 is `    "vocab": []`: the list's bracket is its 14th character
    assert refusal(tmp_path, monkeypatch, model, lang) == (
        f"s.yaml:1:21: tokens.tokenizer: t.json:5:14: model.vocab: {said}\n")
