"""Three refusals that used to carry a library's English into a Polish or Russian line: a date
YAML reads but that does not exist (Python's "day is out of range for month"), a tokenizer.json
that is not JSON or not a tokenizer (serde's "expected `,` or `}` at line 1 column 14"), and a
split pattern Oniguruma gives up on ("Onig: Regex search error"). Each is one line in the
user's language, exit 2, naming the file:line:column or the key path.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from attncli.i18n.tokenizers_messages import tokenizers_problem
from tests.conftest import run

# What the libraries say, none of which may reach a line in any language.
LIBRARY_WORDS = ("day is out of range", "out of range", "must be in", "expected `", "at line",
                 "Onig:", "Regex search error", "retry-limit", "Expecting")


def refused(lang: str, spec: Path) -> str:
    result = run("explain", str(spec), "--lang", lang, "--format", "text")
    assert (result.exit_code, result.stdout) == (2, "")
    assert "Traceback" not in result.stderr and result.stderr.count("\n") == 1
    for words in LIBRARY_WORDS:
        assert words not in result.stderr
    # compared with ordinary spaces: typography.py binds a one-letter word to the next one
    return result.stderr.rstrip("\n").replace("\u00a0", " ")


@pytest.mark.parametrize(("lang", "line"), [
    ("pl", "spec.yaml:1:8: title: YAML odczytuje 2024-02-30 jako datę, a takiej daty nie ma; "
           "jeśli to tekst, ujmij go w cudzysłów: \"2024-02-30\""),
    ("ru", "spec.yaml:1:8: title: YAML принимает 2024-02-30 за дату, но такой даты нет; если это "
           "текст, заключите его в кавычки: \"2024-02-30\""),
])
def test_a_date_that_does_not_exist(lang: str, line: str, tmp_path: Path) -> None:
    spec = tmp_path / "spec.yaml"
    spec.write_text("title: 2024-02-30\ntokens: [a, b]\nembeddings: [[1, 0], [0, 1]]\n")
    assert refused(lang, spec) == f"{tmp_path}/{line}"


@pytest.mark.parametrize(("lang", "said"), [
    ("pl", "YAML odczytuje 2024-01-01 25:00:00 jako datę z godziną, a takiej daty lub godziny "
           "nie ma"),
    ("ru", "YAML принимает 2024-01-01 25:00:00 за дату и время, но такой даты или такого времени "
           "нет"),
])
def test_a_time_that_does_not_exist_inside_a_matrix(lang: str, said: str, tmp_path: Path) -> None:
    spec = tmp_path / "spec.yaml"
    spec.write_text("tokens: [a, b]\nembeddings:\n  - [1, 0]\n  - [0, 2024-01-01 25:00:00]\n")
    assert refused(lang, spec).startswith(f"{spec}:4:9: embeddings[1][1]: {said}; ")


@pytest.mark.parametrize(("case", "lang", "line"), [
    ("tokenizer_broken_json", "pl", "tokenizer_broken_json.tokenizer.json:1:12: nie można "
     "odczytać tokenizatora: błędny JSON: oczekiwano dwukropka po kluczu"),
    ("tokenizer_broken_json", "ru", "tokenizer_broken_json.tokenizer.json:1:12: не удаётся "
     "прочитать токенизатор: некорректный JSON: ожидается двоеточие после ключа"),
    ("checkpoint_tokenizer_not_json", "pl", "data/model.safetensors.index.json:1:14: nie można "
     "odczytać tokenizatora: pakiet tokenizers oczekuje w tym miejscu czegoś innego (czy to na "
     "pewno plik tokenizatora?)"),
    ("checkpoint_tokenizer_not_json", "ru", "data/model.safetensors.index.json:1:14: не удаётся "
     "прочитать токенизатор: пакет tokenizers ожидает здесь что-то другое (это точно "
     "файл токенизатора?)"),
])
def test_a_tokenizer_refusal_in_the_language(case: str, lang: str, line: str,
                                             catalogue: Path) -> None:
    assert refused(lang, Path(f"{case}.yaml")) == f"{case}.yaml:1:21: tokens.tokenizer: {line}"


@pytest.mark.parametrize(("case", "lang", "line"), [
    ("tokenizer_panic", "pl", "tokenizer_panic.tokenizer.json: wzorzec (a|a)+$ w "
     "pre_tokenizer.pattern.Regex wymaga na tym tekście więcej nawrotów, niż pozwala silnik "
     "wyrażeń regularnych (Oniguruma); tyle nawrotów powodują powtarzane, nakładające się "
     "alternatywy, jak w (a|a)+"),
    ("tokenizer_panic", "ru", "tokenizer_panic.tokenizer.json: шаблону (a|a)+$ в "
     "pre_tokenizer.pattern.Regex на этом тексте нужно больше возвратов, чем допускает движок "
     "регулярных выражений (Oniguruma); так бывает с повторяемыми пересекающимися "
     "альтернативами, как в (a|a)+"),
])
def test_oniguruma_giving_up_is_said_in_the_language(
        case: str, lang: str, line: str, catalogue: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """(a|a)+ is refused before the tokenizer runs (attncli/spec/tokenizer_ways.py); a pattern
    that escapes that count and makes Oniguruma give up mid-match is said as this, once the
    count is passed by."""
    from attncli.spec import tokenizer_check

    monkeypatch.setattr(tokenizer_check, "check_pattern", lambda *_: None)
    assert refused(lang, Path(f"{case}.yaml")) == f"{case}.yaml:1:21: tokens.tokenizer: {line}"


@pytest.mark.parametrize(("said", "msgid", "line", "column"), [
    ("missing field `vocab` at line 1 column 354", "the key {key} is missing", 1, 354),
    ("Model missing. at line 1 column 18", "the key {key} is missing", 1, 18),
    ("unknown variant `Foo`, expected one of `BPE`, `WordPiece` at line 3 column 7",
     "the tokenizers package knows no type {found} here", 3, 7),
    ("data did not match any variant of untagged enum ModelUntagged at line 1 column 347",
     "the tokenizers package knows no part of this type with these keys", 1, 347),
    ("invalid type: integer `5`, expected a string at line 1 column 347",
     "a value of the wrong kind (text, number, list or mapping) for its key", 1, 347),
    ("Oniguruma error: end pattern with unmatched parenthesis at line 1 column 198",
     "a pattern (Regex) that Oniguruma cannot compile", 1, 198),
    ("number out of range at line 1 column 237", "a number past the range of a 64-bit float", 1,
     237),
    ("invalid length 3, expected fewer elements in array at line 1 column 230",
     "a list of {count} item, a length the tokenizers package does not take here", 1, 230),
    ("invalid length 1, expected a tuple of size 2 at line 2 column 9",
     "a list of {count} item, a length the tokenizers package does not take here", 2, 9),
    ("something new", "the tokenizers package's message has no translation: {detail}", None,
     None),
])
def test_the_tokenizers_messages_are_read(said: str, msgid: str, line: int | None,
                                          column: int | None) -> None:
    message, at_line, at_column = tokenizers_problem(said)
    assert (message.msgid, at_line, at_column) == (msgid, line, column)


WORDLEVEL = {"type": "WordLevel", "vocab": {"a": 0, "b": 1}, "unk_token": "[UNK]"}


@pytest.mark.parametrize(("changed", "lang", "line"), [
    ({"version": "9.9"}, "en", "t.json:1:17: cannot read the tokenizer: the tokenizers package "
     "knows no tokenizer version “9.9”"),
    ({"model": {"type": "BPE", "vocab": {"a": 0}, "merges": [], "dropout": -1}}, "ru",
     "t.json:1:256: не удаётся прочитать токенизатор: ожидается значение dropout от 0 до 1"),
    ({"model": {"type": "Unigram", "unk_id": 5, "vocab": [["a", 0.0]]}}, "pl",
     "t.json:1:248: nie można odczytać tokenizatora: unk_id modelu nie wskazuje żadnego "
     "elementu słownika"),
    ({"model": {"type": "BPE", "vocab": {"a": 0}, "merges": ["a b"]}}, "ru",
     "t.json:1:246: не удаётся прочитать токенизатор: слияние даёт или использует токен «b», "
     "которого нет в словаре токенизатора"),
    ({"model": WORDLEVEL}, "en", "t.json: the tokenizer failed: the text holds a word that the "
     "vocabulary does not, and the model's unk_token is not in the vocabulary either"),
    ({"model": {**WORDLEVEL, "type": "WordPiece", "max_input_chars_per_word": 100,
                "continuing_subword_prefix": "##"}}, "pl", "t.json: błąd tokenizatora: tekst "
     "zawiera słowo spoza słownika, a unk_token modelu też nie należy do słownika"),
    ({"model": {"type": "BPE", "vocab": {"a": 0}, "merges": [], "unk_token": "[UNK]"}}, "ru",
     "t.json: ошибка токенизатора: в тексте есть слово, которого нет в словаре токенизатора, а "
     "unk_token модели тоже не входит в этот словарь"),
    ({"model": {"type": "Unigram", "unk_id": None, "vocab": [["a", 0.0]]}}, "ru",
     "t.json: ошибка токенизатора: в тексте есть фрагмент, которого нет в словаре токенизатора, "
     "а у модели нет unk_id, чтобы его обозначить"),
])
def test_a_tokenizer_the_package_refuses_is_said_in_the_language(
        changed: dict[str, object], lang: str, line: str, tmp_path: Path) -> None:
    """What the package says of a model it cannot build, or of a text its model has no token
    for (the word "c" here), was English in every language."""
    pytest.importorskip("tokenizers")
    tokenizer = {"version": "1.0", "truncation": None, "padding": None, "added_tokens": [],
                 "normalizer": None, "pre_tokenizer": {"type": "WhitespaceSplit"},
                 "post_processor": None, "decoder": None, "model": WORDLEVEL, **changed}
    (tmp_path / "t.json").write_text(json.dumps(tokenizer), encoding="utf-8")
    spec = tmp_path / "spec.yaml"
    spec.write_text('tokens: {tokenizer: t.json, text: "a c"}\nembeddings: [[1, 0], [0, 1]]\n',
                    encoding="utf-8")
    assert refused(lang, spec) == f"{spec}:1:21: tokens.tokenizer: {line}"
