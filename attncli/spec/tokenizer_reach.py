"""How far a tokenizer's model looks from one place of the text: the work of encoding grows
with the text's length times that reach, so the two are weighed before a text is encoded.

WordPiece cuts each word greedily, trying at every start every end from the farthest down, up to
`max_input_chars_per_word` characters (a longer word is one unknown token, at no cost); Unigram's
Viterbi puts in its lattice every piece of the vocabulary that starts at each character, up to its
longest piece. Either way a text of n characters costs up to n × min(reach, n) tries. Measured in
the tokenizer's process (tokenizers 0.23, CPU time): WordPiece with words of 100 characters over
100,000 characters, 10 million tries, 0.5 to 0.8 s, one word of 4,000 characters 2.4 s; Unigram
with pieces up to 30 characters over 100,000 characters, 3 million tries, 0.21 s, up to 100
characters 0.78 s. Real models reach little: BERT's WordPiece 100 characters (every BERT-family
file), T5's and ALBERT's Unigram pieces fewer than 30 (SentencePiece trains pieces of at most 16).
The text's length is the most its normalizer and pre-tokenizer can make it, pass by pass
(spec/tokenizer_growth.py: BERT's normalizer makes 1,000 characters at most 3,000, NFKC 18,000), so
BERT's 100 passes with any text a spec may hold.
"""

from __future__ import annotations

from typing import Any

from attncli.i18n import Count, Msg
from attncli.spec.files import FileProblem

MAX_TRIES = 4_000_000  # n × min(reach, n): about 0.3 s of the tokenizer's work


def reach_of(tokenizer: Any) -> tuple[str, str | Msg, int] | None:
    """In the tokenizer's process: the key of what sets the model's reach, its value as the
    file writes it (or its length in characters), and the reach; None for models that look no
    farther than a word's own pieces (BPE, WordLevel)."""
    model = tokenizer.model
    kind = type(model).__name__
    if kind == "WordPiece":
        reach = int(model.max_input_chars_per_word)
        return "model.max_input_chars_per_word", str(reach), reach
    if kind == "Unigram":  # the ids are the pieces' places in model.vocab
        size = tokenizer.get_vocab_size(with_added_tokens=False)
        longest = max(range(size), key=lambda id_: len(model.id_to_token(id_) or ""), default=0)
        reach = len(model.id_to_token(longest) or "")
        return f"model.vocab[{longest}]", Msg.plural_of(
            "{count} character", "{count} characters", Count(reach)), reach
    return None


def check_reach(reach: tuple[str, str | Msg, int] | None, name: str, length: int) -> None:
    """FileProblem if a text of `length` characters (as the normalizers can make it) times the
    model's `reach` (reach_of) is past MAX_TRIES."""
    if reach is None:
        return
    key, found, span = reach
    if length * min(span, length) > MAX_TRIES:
        raise FileProblem(Msg.plural_of(
            "{name}: {key} is {found}; the limit is {limit} for a text its normalizer and "
            "pre_tokenizer can make {count} character long",
            "{name}: {key} is {found}; the limit is {limit} for a text its normalizer and "
            "pre_tokenizer can make {count} characters long", Count(length), name=name,
            key=key, found=found, limit=Count(MAX_TRIES // length)))
