"""How long a tokenizer.json's normalizer and pre-tokenizer can make a text: each part that
lengthens it is counted at its own most, once for each pass, in the order the tokenizer runs them,
so that the model's reach (spec/tokenizer_reach.py) is weighed against the text the model sees.

The most one character becomes in one pass was measured over every code point (tokenizers 0.23):
NFKC and NFKD make U+FDFA 18 characters, NFD makes U+1F82 four, NFC U+FB2C three, lower-casing
makes U+0130 (İ) two, a byte-level mapping makes each UTF-8 byte a character (four for U+10000),
and BertNormalizer makes a CJK ideograph three (a space either side) and, stripping accents, a
Hangul syllable three (its letters). A Sequence is each of its parts in turn: seven byte-level
passes made 1,000 characters 128,000 (a Unigram's pieces allowed for 18,000 took 2.9 s).

A text an NFKD pass has made holds only characters that are their own decomposition, and keeps
to them through StripAccents (which only drops characters), Lowercase and Strip: lower-casing
such a character gives one character, such again (checked over every code point), and a second
NFKD changes nothing. So after NFKD these count 1, and a Precompiled charsmap counts only the
keys such a text can meet (ALBERT's NFKD, StripAccents, Lowercase and SentencePiece's charsmap
make 1,000 characters at most 18,000, not 648,000).
Nothing here imports `tokenizers`: the configuration is plain JSON.
"""

from __future__ import annotations

from math import ceil
from typing import Any

from attncli.i18n import Count, Msg
from attncli.spec.files import FileProblem
from attncli.spec.limits import MAX_TEXT
from attncli.spec.tokenizer_charsmap import growth

# How long the text may grow (in characters) as the normalizers and pre-tokenizers make it.
MAX_NORMALIZED = 100 * MAX_TEXT
# The most characters one character becomes in one pass of these (see above).
PER_CHARACTER = {"NFKC": 18, "NFKD": 18, "NFD": 4, "NFC": 3, "Lowercase": 2, "ByteLevel": 4}
CJK_SPACED = 3  # BertNormalizer's handle_chinese_chars, and its strip_accents on Hangul
UTF8_LONGEST = 4  # bytes of one character, each a character after a byte-level pre-tokenizer
# Normalizers after which a text made by NFKD still holds only its own decompositions.
KEEP_DECOMPOSED = frozenset({"NFKD", "StripAccents", "Lowercase", "Strip"})


def grown(part: Any, key: str, name: str, length: int, pieces: bool = False) -> int:
    """The most characters a text of `length` characters can have after the normalizer or
    pre-tokenizer `part` (a JSON object at `key`), `pieces` telling whether an earlier
    pre-tokenizer may have cut the text; FileProblem past MAX_NORMALIZED."""
    return passes(part, key, name, length, pieces, False)[0]


def passes(part: Any, key: str, name: str, length: int, pieces: bool,
           decomposed: bool) -> tuple[int, bool]:
    """grown's answer for a text that is already NFKD or not (`decomposed`), and whether it is
    after `part`."""
    if not isinstance(part, dict):
        return length, decomposed
    if part.get("type") == "Sequence":
        members = part.get("normalizers", part.get("pretokenizers"))
        field = "normalizers" if "normalizers" in part else "pretokenizers"
        for k, member in enumerate(members if isinstance(members, list) else []):
            length, decomposed = passes(member, f"{key}.{field}[{k}]", name, length,
                                        pieces or k > 0, decomposed)
        return length, decomposed
    pre_tokenizer = key.startswith("pre_tokenizer")
    length = one_pass(part, pre_tokenizer, length, pieces, decomposed)
    if length > MAX_NORMALIZED:
        raise FileProblem(Msg.of(
            "{name}: {key} can make the text {length} characters long; the limit is {limit}",
            name=name, key=key, length=Count(length), limit=Count(MAX_NORMALIZED)))
    kind = part.get("type")
    kept = kind == "NFKD" or (decomposed and kind in KEEP_DECOMPOSED)
    return length, kept and not pre_tokenizer


def one_pass(part: dict[str, Any], pre_tokenizer: bool, length: int, pieces: bool,
             decomposed: bool = False) -> int:
    """The most characters a text of `length` has after the part `part`, one that is not a
    Sequence, the text already NFKD or not (`decomposed`). A pre-tokenizer that puts something
    before each piece of the text puts it before every character when an earlier one may have
    cut the text into characters (`pieces`)."""
    kind = part.get("type")
    if decomposed and kind in KEEP_DECOMPOSED:
        return length
    if kind == "ByteLevel" and pre_tokenizer:  # a space first (add_prefix_space), then bytes
        spaces = (length if pieces else 1) if part.get("add_prefix_space", True) is not False else 0
        return length * UTF8_LONGEST + spaces
    if isinstance(kind, str) and kind in PER_CHARACTER:
        return length * PER_CHARACTER[kind]
    if kind == "BertNormalizer":
        return length * bert_growth(part)
    if kind == "Precompiled":
        return ceil(length * growth(part.get("precompiled_charsmap"), decomposed))
    if kind == "Replace":
        return replaced(part, length)
    if kind == "Prepend":
        prepend = part.get("prepend")
        return length + (len(prepend) if isinstance(prepend, str) else 0)
    if kind == "Metaspace":  # a space becomes the replacement, which is put before a piece
        replacement = part.get("replacement")
        width = max(1, len(replacement) if isinstance(replacement, str) else 1)
        scheme = part.get("prepend_scheme", "always")
        before = 0 if scheme == "never" else length if pieces and scheme == "always" else 1
        return (length + before) * width
    return length


def bert_growth(part: dict[str, Any]) -> int:
    """The most characters BertNormalizer makes of one: three around a CJK ideograph or for a
    Hangul syllable's letters with its accents stripped, two for İ lower-cased, else one (a
    setting not written counts as on)."""
    lowercase = part.get("lowercase", True) is not False
    strip = part.get("strip_accents")
    if part.get("handle_chinese_chars", True) is not False or strip or (
            strip is None and lowercase):
        return CJK_SPACED
    return PER_CHARACTER["Lowercase"] if lowercase else 1


def replaced(part: dict[str, Any], length: int) -> int:
    """The most characters after a Replace: each match of a text of n characters becomes its
    content; a pattern can match the empty string between every two characters."""
    content = part.get("content")
    added = len(content) if isinstance(content, str) else 0
    pattern = part.get("pattern")
    text = pattern.get("String") if isinstance(pattern, dict) else None
    if isinstance(text, str) and text:
        return length * max(1, -(-added // len(text)))
    return length + (length + 1) * added
