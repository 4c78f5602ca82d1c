"""A tokenizer's model whose reach from one place of the text, times the text's length, is past
what attn lets it work (spec/tokenizer_reach.py) is refused before the text is encoded:
WordPiece's `max_input_chars_per_word` (a word of 4,000 characters took 2.9 s and was "valid",
one of 5,000 the tokenizer's 10 s bound) and a Unigram's longest piece (pieces of up to 3,000
characters on a text made 5,000 long took the 10 s bound)."""

from __future__ import annotations

import json
from typing import Any

import pytest

from attncli.i18n import translate
from attncli.spec.tokenizer import encode

tokenizers = pytest.importorskip("tokenizers")


NFKC = {"type": "NFKC"}  # makes a character at most 18 (U+FDFA)


def wordpiece(max_chars: int, normalizer: object = NFKC) -> bytes:
    return json.dumps({
        "version": "1.0", "truncation": None, "padding": None, "added_tokens": [],
        "normalizer": normalizer, "pre_tokenizer": {"type": "WhitespaceSplit"},
        "post_processor": None, "decoder": None,
        "model": {"type": "WordPiece", "unk_token": "[UNK]", "continuing_subword_prefix": "##",
                  "max_input_chars_per_word": max_chars,
                  "vocab": {"[UNK]": 0, "a": 1, "##a": 2}}}).encode()


def unigram(longest: int, normalizer: object = NFKC) -> bytes:
    """Pieces a, aa, … up to `longest` a's: the piece of k a's has the id k."""
    vocab = [["[UNK]", 0.0]] + [["a" * k, -float(k)] for k in range(1, longest + 1)]
    return json.dumps({
        "version": "1.0", "truncation": None, "padding": None, "added_tokens": [],
        "normalizer": normalizer, "pre_tokenizer": None, "post_processor": None, "decoder": None,
        "model": {"type": "Unigram", "unk_id": 0, "byte_fallback": False,
                  "vocab": vocab}}).encode()


@pytest.fixture
def encoded(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The texts the tokenizer was asked to encode, in attn's process (encode is the tokenizer's
    process's work, called here directly)."""
    texts: list[str] = []
    built = tokenizers.Tokenizer

    class Counted:
        def __init__(self, inner: Any) -> None:
            self.inner = inner

        def __getattr__(self, name: str) -> Any:
            return getattr(self.inner, name)

        def encode(self, text: str) -> Any:
            texts.append(text)
            return self.inner.encode(text)

    class Tokenizer:
        @staticmethod
        def from_buffer(content: bytes) -> Counted:
            return Counted(built.from_buffer(content))

    monkeypatch.setattr(tokenizers, "Tokenizer", Tokenizer)
    return texts


def test_wordpiece_past_its_reach_is_refused_unencoded(encoded: list[str]) -> None:
    # 300 letters may become 300 · 18 = 5,400 characters under NFKC (U+FDFA's 18): BERT's
    # 100 characters a word, 5,400 · 100 = 540,000 tries, is encoded; 1,000 a word,
    # 5,400 · 1,000 = 5,400,000 past 4,000,000, is refused, the limit 4,000,000 // 5,400 = 740
    text = " ".join(["a" * 30] * 10)[:300]  # 9 words of 30 letters and one of 21, 9 spaces
    kind, tokens, _ = encode(wordpiece(100), "t.json", text)
    assert kind == "tokens" and len(tokens) == 9 * 30 + 21  # an a or ##a for each letter
    assert encoded == [text]
    kind, said, _ = encode(wordpiece(1000), "t.json", text)
    assert (kind, translate(said)) == ("problem", (
        "t.json: model.max_input_chars_per_word is 1000; the limit is 740 for a text its "
        "normalizer and pre_tokenizer can make 5,400 characters long"))
    assert encoded == [text]


def test_a_unigram_of_long_pieces_is_refused_unencoded(encoded: list[str]) -> None:
    # 1,000 letters, at most 18,000 characters under NFKC: pieces up to 200 a's, 3,600,000
    # tries, are encoded (into five pieces of 200); up to 300, 5,400,000, are refused at the
    # piece of id 300, the limit 4,000,000 // 18,000 = 222
    text = "a" * 1000
    kind, tokens, _ = encode(unigram(200), "t.json", text)
    assert (kind, tokens) == ("tokens", ("a" * 200,) * 5)
    kind, said, _ = encode(unigram(300), "t.json", text)
    assert (kind, translate(said)) == ("problem", (
        "t.json: model.vocab[300] is 300 characters; the limit is 222 for a text its normalizer "
        "and pre_tokenizer can make 18,000 characters long"))
    assert encoded == [text]
