"""How long a tokenizer's normalizer and pre-tokenizer can make a text (spec/tokenizer_growth.py),
checked against `tokenizers` itself: for each part that lengthens a text, its worst character
repeated is made exactly as long as counted, and a Sequence is counted pass by pass, so that
the model's reach is weighed against the text the model sees. Seven byte-level passes made
1,000 characters 128,000, where 18,000 were allowed for: a Unigram's pieces of 222 characters
took 2.9 s and the spec was "valid". A text NFKD has made is counted as such: ALBERT's NFKD,
StripAccents, Lowercase and SentencePiece's charsmap were counted 18 · 2 · 18 = 648 characters for
one, and texts past 77 characters were refused; they make one at most 18."""

from __future__ import annotations

import json
from typing import Any

import pytest

from attncli.i18n import translate
from attncli.spec.tokenizer import encode
from attncli.spec.tokenizer_growth import grown
from tests.charsmaps import NMT_NFKC, charsmap

tokenizers = pytest.importorskip("tokenizers")

WORDLEVEL = {"type": "WordLevel", "vocab": {"a": 0, "[UNK]": 1}, "unk_token": "[UNK]"}
SPLIT_EACH = {"type": "Split", "pattern": {"Regex": "."}, "behavior": "Isolated",
              "invert": False}  # every character a piece of its own
BERT = {"type": "BertNormalizer", "clean_text": True, "handle_chinese_chars": True,
        "strip_accents": None, "lowercase": True}  # BERT's own
BYTE_LEVEL = {"type": "ByteLevel", "add_prefix_space": True, "trim_offsets": False,
              "use_regex": False}


def built(key: str, part: dict[str, Any], model: object = WORDLEVEL) -> bytes:
    other = "pre_tokenizer" if key == "normalizer" else "normalizer"
    return json.dumps({"version": "1.0", "truncation": None, "padding": None,
                       "added_tokens": [], key: part, other: None, "post_processor": None,
                       "decoder": None, "model": model}).encode()


def precompiled(written: str) -> dict[str, Any]:
    return {"type": "Precompiled", "precompiled_charsmap": written}


def nfkd_then(*parts: dict[str, Any]) -> dict[str, Any]:
    return {"type": "Sequence", "normalizers": [{"type": "NFKD"}, *parts]}


@pytest.fixture(scope="module")
def decomposed() -> str:
    """Every code point but NUL and the surrogates, through tokenizers' NFKD."""
    everything = "".join(map(chr, [*range(1, 0xD800), *range(0xE000, 0x110000)]))
    tokenizer = tokenizers.Tokenizer.from_buffer(built("normalizer", {"type": "NFKD"}))
    made = tokenizer.normalizer.normalize_str(everything)
    assert (len(everything), len(made)) == (1_112_063, 1_137_260)
    return str(made)


def made(key: str, part: dict[str, Any], text: str) -> int:
    """The characters `tokenizers` makes of `text` with `part` at `key`."""
    tokenizer = tokenizers.Tokenizer.from_buffer(built(key, part))
    if key == "normalizer":
        return len(tokenizer.normalizer.normalize_str(text))
    return sum(len(piece) for piece, _ in tokenizer.pre_tokenizer.pre_tokenize_str(text))


@pytest.mark.parametrize(("key", "part", "worst", "length"), [
    ("normalizer", {"type": "NFKC"}, "\ufdfa", 1800),  # ﷺ: 18 letters and spaces
    ("normalizer", {"type": "NFKD"}, "\ufdfa", 1800),
    ("normalizer", {"type": "NFD"}, "\u1f82", 400),  # ᾂ: α and three marks
    ("normalizer", {"type": "NFC"}, "\ufb2c", 300),  # שּׁ: a letter and two marks
    ("normalizer", {"type": "Lowercase"}, "\u0130", 200),  # İ: i and a dot above
    ("normalizer", {"type": "ByteLevel"}, "\U00010000", 400),  # four UTF-8 bytes
    ("normalizer", BERT, "\u3400", 300),  # a space either side
    # ﷺ: SentencePiece's charsmap gives its 18 letters and spaces, as NFKC does
    ("normalizer", precompiled(NMT_NFKC), "\ufdfa", 1800),
    # after NFKD: lower-casing adds nothing (İ is already i and its dot), NFKD again nothing,
    # and the charsmap's keys an NFKD text can meet give one character for one
    ("normalizer", nfkd_then({"type": "Lowercase"}), "\ufdfa", 1800),
    ("normalizer", nfkd_then({"type": "NFKD"}), "\ufdfa", 1800),
    ("normalizer", nfkd_then(precompiled(NMT_NFKC)), "\ufdfa", 1800),
    ("normalizer", {**BERT, "handle_chinese_chars": False, "strip_accents": True,
                    "lowercase": False}, "\uac01", 300),  # 각: ᄀ, ᅡ, ᆨ
    ("normalizer", {**BERT, "handle_chinese_chars": False, "strip_accents": False},
     "\u0130", 200),
    ("pre_tokenizer", BYTE_LEVEL, "\U00010000", 401),  # a space first, then four bytes
    ("pre_tokenizer", {"type": "Sequence", "pretokenizers": [SPLIT_EACH, BYTE_LEVEL]},
     "\U00010000", 500),  # a space before each piece
    ("pre_tokenizer", {"type": "Sequence", "pretokenizers": [SPLIT_EACH, {
        "type": "Metaspace", "replacement": "▁", "prepend_scheme": "always",
        "split": False}]}, "a", 200),  # ▁ before each piece
    ("pre_tokenizer", {"type": "Sequence", "pretokenizers": [SPLIT_EACH, {
        "type": "Metaspace", "replacement": "▁", "prepend_scheme": "first",
        "split": False}]}, "a", 101),  # ▁ before the first piece only
])
def test_each_part_that_lengthens_a_text_is_counted_at_its_most(
        key: str, part: dict[str, Any], worst: str, length: int) -> None:
    assert made(key, part, worst * 100) == grown(part, key, "t.json", 100) == length


def test_a_charsmaps_text_is_counted_for_the_characters_its_key_begins() -> None:
    # é written as e and U+0301, one grapheme, becomes "xyz": 3 characters for 2, so 200 make
    # 300 (its longest text counted for each character would be 600)
    part = precompiled(charsmap({"e\u0301": "xyz", "q": "q"}))
    assert made("normalizer", part, "e\u0301" * 100) == grown(part, "normalizer", "t.json",
                                                              200) == 300


@pytest.mark.parametrize(("after", "alone"), [
    ([{"type": "Lowercase"}], 2),  # İ: i and a dot above
    ([{"type": "NFKD"}], 18),
    ([{"type": "StripAccents"}, {"type": "Lowercase"}], 2),  # ALBERT's, after its NFKD
    ([precompiled(NMT_NFKC)], 18),  # ﷺ
])
def test_after_nfkd_a_part_counted_as_adding_nothing_adds_nothing(
        after: list[dict[str, Any]], alone: int, decomposed: str) -> None:
    # every character NFKD can make, then the parts counted as 1 after it: none grows the text
    sequence = {"type": "Sequence", "normalizers": after}
    assert made("normalizer", sequence, decomposed) <= len(decomposed)
    assert grown(nfkd_then(*after), "normalizer", "t.json", 100) == 1800
    # not after NFKD, each counted at its most
    assert grown(sequence, "normalizer", "t.json", 100) == 100 * alone


def test_an_albert_tokenizer_encodes_a_text_of_1000_characters(encoded: list[str]) -> None:
    # ALBERT's normalizer (transformers' AlbertConverter): 1,000 characters NFKD makes at most
    # 18,000, and no later part lengthens them but the Replace of spaces, counted as a space
    # between every two characters: 18,000 + 18,001
    normalizer = {"type": "Sequence", "normalizers": [
        {"type": "Replace", "pattern": {"String": "``"}, "content": '"'},
        {"type": "Replace", "pattern": {"String": "''"}, "content": '"'},
        {"type": "NFKD"}, {"type": "StripAccents"}, {"type": "Lowercase"},
        precompiled(NMT_NFKC),
        {"type": "Replace", "pattern": {"Regex": " {2,}"}, "content": " "}]}
    assert grown(normalizer, "normalizer", "t.json", 1000) == 36_001
    pieces = ["\u2581the", "\u2581cat", "\u2581sat", "\u2581on", "\u2581mat", "\u2581", "."]
    model = {"type": "Unigram", "unk_id": 0, "byte_fallback": False, "vocab": [
        ["<unk>", 0.0], *[[piece, -1.0 - k] for k, piece in enumerate(pieces)],
        ["\u2581extraordinarily", -20.0]]}  # 16 characters, SentencePiece's longest
    content = json.loads(built("normalizer", normalizer, model))
    content["pre_tokenizer"] = {"type": "Metaspace", "replacement": "\u2581",
                                "prepend_scheme": "always", "split": True}
    text = "The Cat sat on the Mat. " * 41 + "The Cat sat on.."  # 1,000 characters
    kind, tokens, _ = encode(json.dumps(content).encode(), "t.json", text)
    assert (kind, len(text), len(tokens)) == ("tokens", 1000, 41 * 7 + 6)
    assert tokens[:7] == ("\u2581the", "\u2581cat", "\u2581sat", "\u2581on", "\u2581the",
                          "\u2581mat", ".")
    assert encoded == [text]


def test_a_sequence_is_counted_pass_by_pass() -> None:
    # é is two UTF-8 bytes, each of them a character of two bytes again: 100 · 2 · 2 = 400;
    # counted at four a pass, as any character may be four bytes: 100 · 4 · 4 = 1,600
    twice = {"type": "Sequence", "normalizers": [{"type": "ByteLevel"}] * 2}
    assert made("normalizer", twice, "é" * 100) == 400
    assert grown(twice, "normalizer", "t.json", 100) == 1600
    # lower-cased after NFKC: 100 · 18 · 2
    assert grown({"type": "Sequence", "normalizers": [{"type": "NFKC"}, {"type": "Lowercase"}]},
                 "normalizer", "t.json", 100) == 3600
    # no part that lengthens it: the text's own length
    assert grown({"type": "Sequence", "normalizers": [{"type": "Strip"}, {"type": "Nmt"}]},
                 "normalizer", "t.json", 100) == 100


def unigram(longest: int) -> dict[str, Any]:
    """Pieces a, aa, … up to `longest` a's."""
    return {"type": "Unigram", "unk_id": 0, "byte_fallback": False,
            "vocab": [["[UNK]", 0.0]] + [["a" * k, -float(k)] for k in range(1, longest + 1)]}


@pytest.fixture
def encoded(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The texts the tokenizer was asked to encode (encode, the tokenizer's process's work, is
    called here directly)."""
    texts: list[str] = []
    real = tokenizers.Tokenizer.encode

    def counted(self: Any, text: str, *args: Any) -> Any:
        texts.append(text)
        return real(self, text, *args)

    monkeypatch.setattr(tokenizers.Tokenizer, "encode", counted, raising=False)
    return texts


def test_byte_level_passes_are_refused_unencoded(encoded: list[str]) -> None:
    # the record's case: seven byte-level passes over 1,000 characters; the fourth may make
    # them 1,000 · 4⁴ = 256,000 (a Unigram of pieces of 222 allowed for 18,000 took 2.9 s)
    seven = {"type": "Sequence", "normalizers": [{"type": "ByteLevel"}] * 7}
    kind, said, _ = encode(built("normalizer", seven, unigram(222)), "t.json", "é" * 1000)
    assert (kind, translate(said)) == ("problem", (
        "t.json: normalizer.normalizers[3] can make the text 256,000 characters long; the limit "
        "is 100,000"))
    assert encoded == []


def test_the_reach_is_weighed_against_the_passes(encoded: list[str]) -> None:
    # two byte-level passes: 1,000 · 16 = 16,000 characters; pieces of up to 300, 4,800,000
    # tries, are refused, the limit 4,000,000 // 16,000 = 250
    twice = {"type": "Sequence", "normalizers": [{"type": "ByteLevel"}] * 2}
    kind, said, _ = encode(built("normalizer", twice, unigram(300)), "t.json", "a" * 1000)
    assert (kind, translate(said)) == ("problem", (
        "t.json: model.vocab[300] is 300 characters; the limit is 250 for a text its normalizer "
        "and pre_tokenizer can make 16,000 characters long"))
    assert encoded == []
    # with no normalizer the text stays 1,000 characters: 300,000 tries, encoded
    kind, tokens, _ = encode(built("normalizer", None, unigram(300)),  # type: ignore[arg-type]
                             "t.json", "a" * 1000)
    assert kind == "tokens" and sorted(map(len, tokens)) == [100, 300, 300, 300]
    assert encoded == ["a" * 1000]


def test_cjk_spacing_passes_are_counted() -> None:
    # the record's 50 BertNormalizers on 1,000 ideographs: 3, 9, 27, 81, 243 thousand at the 5th
    fifty = {"type": "Sequence", "normalizers": [BERT] * 50}
    kind, said, _ = encode(built("normalizer", fifty, unigram(222)), "t.json", "一" * 1000)
    assert (kind, translate(said)) == ("problem", (
        "t.json: normalizer.normalizers[4] can make the text 243,000 characters long; the limit "
        "is 100,000"))
