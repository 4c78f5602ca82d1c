"""A tokenizer.json held to the spec's limits (attncli/spec/tokenizer_check.py, spec/tokenizer.py).

The hostile files of issue #28 (item 3 of its list) are cases of tests/bad_inputs/
(tokenizer_*.yaml, each beside its tokenizer): padding to 10⁸ tokens (was 19.5 s, 7.5 GB and a
Rust abort), two chained Replace normalizers (31.6 s, 3.4 GB), a split pattern `(a+)+$` and one
that escapes the pattern check but makes Oniguruma panic (a 61-line traceback, exit 1), a token
longer than the text limit, a truncation stride that never moves on. Here: the checks do not
refuse the patterns and normalizers real models ship, and a refusal reads in the user's language.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from attncli.spec.files import FileProblem
from attncli.spec.tokenizer_check import check_config, nested_repetition
from tests.conftest import BAD_INPUTS, run

# The split patterns of GPT-2 (and RoBERTa), of Llama 3, and of Qwen 2, as their tokenizer.json
# files hold them.
GPT2 = r"""'s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+"""
LLAMA3 = (r"""(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+"""
          r"""[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+""")
QWEN2 = (r"""(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}| ?[^\s\p{L}\p{N}]+"""
         r"""[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+""")


@pytest.mark.parametrize("pattern", [GPT2, LLAMA3, QWEN2, r"\s+", r"(ab)+", r"(a|b)+",
                                     r"[(a+)]+", r"\(a+\)+", r"(?:\r?\n)+", r"(a+){2}"])
def test_the_patterns_models_ship_are_not_refused(pattern: str) -> None:
    assert not nested_repetition(pattern)


@pytest.mark.parametrize("pattern", [r"(a+)+$", r"(\w*)*", r"(?:x+)*", r"((a+)b)+",
                                     r"(a{2,})+", r"(a+){3,}", r"(\s*\S+)*!"])
def test_a_repeated_repetition_is_refused(pattern: str) -> None:
    assert nested_repetition(pattern)


def sentencepiece_like() -> dict[str, object]:
    """The normalizers and pre-tokenizer of a T5 / Llama 2 style tokenizer.json."""
    return {
        "padding": {"strategy": "BatchLongest", "pad_to_multiple_of": 8},
        "truncation": {"max_length": 512, "stride": 0},
        "normalizer": {"type": "Sequence", "normalizers": [
            {"type": "Prepend", "prepend": "▁"},
            {"type": "Replace", "pattern": {"String": " "}, "content": "▁"},
            {"type": "NFKC"}]},
        "pre_tokenizer": {"type": "Metaspace", "replacement": "▁", "prepend_scheme": "first"},
    }


def test_a_real_configuration_passes_with_the_longest_text() -> None:
    check_config(sentencepiece_like(), "tokenizer.json", 1000)


def test_the_growth_is_counted_along_a_sequence() -> None:
    config = sentencepiece_like()
    normalizers = config["normalizer"]["normalizers"]  # type: ignore[index]
    normalizers.insert(0, {"type": "Replace", "pattern": {"Regex": "x"}, "content": "yz"})
    # 10 characters; a pattern that may match the empty string puts "yz" between any two:
    # 10 + 11 * 2 = 32; "▁" first: 33; a space made "▁": 33; NFKC, 18 each at most: 594
    check_config(config, "t.json", 10)
    normalizers.insert(0, {"type": "Replace", "pattern": {"String": "a"}, "content": "a" * 600})
    # 10 * 600 = 6,000; 6,000 + 6,001 * 2 = 18,002; 18,003; 18,003; NFKC: 324,054 > 100,000
    with pytest.raises(FileProblem) as problem:
        check_config(config, "t.json", 10)
    assert dict(problem.value.message.params)["length"] == 324_054
    assert dict(problem.value.message.params)["key"] == "normalizer.normalizers[4]"


@pytest.mark.parametrize(("lang", "line"), [
    ("en", "tokenizer_padding_fixed.yaml:1:21: tokens.tokenizer: "
           "tokenizer_padding_fixed.tokenizer.json: padding.strategy.Fixed is 100000000; the "
           "limit is 4,096"),
    ("pl", "tokenizer_padding_fixed.yaml:1:21: tokens.tokenizer: "
           "tokenizer_padding_fixed.tokenizer.json: padding.strategy.Fixed wynosi 100000000; "
           "limit to 4096"),
    ("ru", "tokenizer_padding_fixed.yaml:1:21: tokens.tokenizer: "
           "tokenizer_padding_fixed.tokenizer.json: padding.strategy.Fixed равно 100000000; "
           "предел\u00a0— 4096"),  # a dash is bound to the word before it
])
def test_a_refusal_in_the_users_language(lang: str, line: str,
                                         monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(Path(__file__).parent / "bad_inputs")
    result = run("explain", "tokenizer_padding_fixed.yaml", "--lang", lang)
    assert (result.exit_code, result.stdout, result.stderr) == (2, "", line + "\n")


def test_the_catalogue_tokenizers_are_what_they_say() -> None:
    """The hostile files hold the configurations their cases name (read back, not trusted)."""
    folder = Path(__file__).parent / "bad_inputs"

    def config(case: str) -> dict[str, object]:
        return json.loads((folder / f"{case}.tokenizer.json").read_text(encoding="utf-8"))

    assert config("tokenizer_padding_fixed")["padding"]["strategy"] == {  # type: ignore[index]
        "Fixed": 100_000_000}
    chain = config("tokenizer_replace_chain")["normalizer"]["normalizers"]  # type: ignore[index]
    assert [len(n["content"]) for n in chain] == [3000, 3000]
    assert config("tokenizer_panic")["pre_tokenizer"]["pattern"] == {  # type: ignore[index]
        "Regex": "(a|a)+$"}


@pytest.mark.parametrize(("timed_out", "ended_by", "lang", "line"), [
    (True, None, "en", "the tokenizer took more than 10 seconds; attn stopped it"),
    (True, None, "pl", "tokenizator działał dłużej niż 10 sekund; attn go zatrzymał"),
    (True, None, "ru", "токенизатор работал дольше 10 секунд; attn его остановил"),
    (False, None, "en", "the tokenizer stopped without an answer; it may have needed more than "
                        "160 MB of memory"),
    (False, "SIGABRT", "en", "the tokenizer stopped without an answer; it may have needed "
                             "more than 160 MB of memory"),
    # tests/bad_inputs/tokenizer_backtracking_budget is stopped so, in English
    (False, "SIGPROF", "pl", "tokenizator zużył na zakodowanie tekstu ponad 500 milisekund "
                             "czasu procesora; attn go zatrzymał (SIGPROF)"),
    (False, "SIGPROF", "ru", "токенизатор потратил на кодирование текста больше 500 "
                             "миллисекунд процессорного времени; attn его остановил (SIGPROF)"),
])
def test_a_tokenizer_out_of_time_or_memory_is_one_line(
        timed_out: bool, ended_by: str | None, lang: str, line: str,
        monkeypatch: pytest.MonkeyPatch) -> None:
    """What the bounded process reports (tests/test_workers.py makes it run out for real)."""
    from attncli.spec import tokenizer
    from attncli.workers.bounded import Overrun

    def overrun(*args: object) -> None:
        raise Overrun(timed_out, ended_by)

    monkeypatch.setattr(tokenizer, "bounded", overrun)
    monkeypatch.chdir(Path(__file__).parent / "bad_inputs")
    result = run("explain", "tokenizer_stride.yaml", "--lang", lang)
    assert (result.exit_code, result.stdout) == (2, "")
    assert result.stderr == ("tokenizer_stride.yaml:1:21: tokens.tokenizer: "
                             f"tokenizer_stride.tokenizer.json: {line}\n")


def test_a_tokenizer_is_checked_as_utf8_a_piece_at_a_time() -> None:
    """The file is decoded a MiB at a time (never as one text): a character across a piece's
    end is whole, and a byte that is no UTF-8 is found at its line and column in any piece."""
    from attncli.spec.tokenizer import check_utf8

    mib = 1 << 20
    for straddle in range(1, 4):  # "€" is 3 bytes: cut after its first, second or third
        check_utf8(b"a" * (mib - straddle) + "€".encode() * 3 + b"\n", "t.json")
    content = b"a" * (mib - 1) + "€".encode() + b"\n" + b"b" * mib + b"\nxy\xe9z"
    with pytest.raises(FileProblem) as problem:
        check_utf8(content, "t.json")
    params = dict(problem.value.message.params)
    assert (params["line"], params["column"]) == (3, 3)
    assert dict(params["reason"].params)["byte"] == "e9"


@pytest.mark.parametrize("start", [b"{\x00\n", b"{\x00\x00\x00\n"])
def test_a_nul_second_byte_is_read_as_the_utf8_it_was_checked_to_be(
        start: bytes, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Python's JSON reader guesses UTF-16 or UTF-32 from bytes with a NUL second (`{`, NUL):
    the file was checked to be UTF-8, and is said to be malformed at its NUL, line 1 column 2,
    where it was an internal error (UnicodeDecodeError)."""
    pytest.importorskip("tokenizers")
    (tmp_path / "t.json").write_bytes(start + b'"model": {"type": "WordLevel"}}\n')
    (tmp_path / "s.yaml").write_text('tokens: {tokenizer: t.json, text: "a b"}\n'
                                     "embeddings: [[1, 0], [0, 1]]\n"
                                     "weights: {W_Q: identity, W_K: identity, W_V: identity}\n")
    monkeypatch.chdir(tmp_path)
    result = run("explain", "s.yaml")
    assert (result.exit_code, result.stdout) == (2, "")
    assert result.stderr == ("s.yaml:1:21: tokens.tokenizer: t.json:1:2: cannot read the "
                             "tokenizer: malformed JSON: expected a key in double quotes\n")


@pytest.mark.parametrize(("lang", "said"), [
    ("en", "the tokenizer failed: the tokenizers package's message has no translation: "),
    ("pl", "błąd tokenizatora: komunikat pakietu tokenizers nie ma tłumaczenia: "),
    ("ru", None),
])
def test_a_failure_in_the_packages_own_words_is_said_untranslated(
        lang: str, said: str | None, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A failure of the package's that attn has no words for, as the text is encoded, is said in
    the package's English and said to be so: it was quoted bare, as if it were attn's own
    sentence, in Polish and Russian runs too. (The files that met one, a template naming a
    special token its special_tokens do not list, 'no entry found for key', are now refused
    before: tests/test_tokenizer_written.py; the failure is made here, in the process the
    tokenizer's is forked from.)"""
    tokenizers = pytest.importorskip("tokenizers")
    from tokenizers import Tokenizer, models, pre_tokenizers

    def failing(*args: object) -> None:
        raise Exception("no entry found for key")

    monkeypatch.setattr(tokenizers.Tokenizer, "encode", failing)
    made = Tokenizer(models.WordLevel({"a": 0, "b": 1}, unk_token="a"))
    made.pre_tokenizer = pre_tokenizers.WhitespaceSplit()
    (tmp_path / "t.json").write_text(made.to_str())
    (tmp_path / "s.yaml").write_text('tokens: {tokenizer: t.json, text: "a b"}\n'
                                     "embeddings: [[1, 0], [0, 1]]\n"
                                     "weights: {W_Q: identity, W_K: identity, W_V: identity}\n")
    monkeypatch.chdir(tmp_path)
    result = run("explain", "s.yaml", "--lang", lang)
    assert (result.exit_code, result.stdout) == (2, "")
    expected = said if said is not None else (
        "ошибка токенизатора: у\u00a0сообщения пакета tokenizers нет перевода: ")  # у bound
    assert result.stderr == (f"s.yaml:1:21: tokens.tokenizer: t.json: {expected}"
                             "no entry found for key\n")


@pytest.mark.parametrize(("lang", "problem"), [
    ("pl", "oczekiwano LongestFirst lub OnlyFirst (tylko tak można przyciąć pojedynczy tekst), "
     "otrzymano OnlySecond"),
    ("ru", "ожидается LongestFirst или OnlyFirst (способы обрезки одиночного текста), получено: "
     "OnlySecond"),
])
def test_a_truncation_of_the_second_text_alone_is_refused_at_its_key(
        lang: str, problem: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """truncation.strategy OnlySecond cuts the second text of a pair; a text of 3 tokens past
    its max_length of 2 made the package fail in English ('Truncation error: Second sequence
    not provided'); one of 2 tokens needs no cut, and is encoded."""
    pytest.importorskip("tokenizers")
    monkeypatch.chdir(BAD_INPUTS)
    case = "tokenizer_truncation_second"
    result = run("explain", f"{case}.yaml", "--lang", lang)
    assert (result.exit_code, result.stdout) == (2, "")
    assert result.stderr == (f"{case}.yaml:1:21: tokens.tokenizer: {case}.tokenizer.json:1:86: "
                             f"truncation.strategy: {problem}\n")
    from attncli.spec.tokenizer import run as tokenize
    kind, tokens, ids = tokenize(
        bytearray((BAD_INPUTS / f"{case}.tokenizer.json").read_bytes()), "t.json", "cat mouse")
    assert (kind, tokens, ids) == ("tokens", ("cat", "mouse"), [0, 1])
