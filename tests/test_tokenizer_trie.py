"""A charsmap's matches are held as their keys and the characters of their texts, never as the
texts (attncli/spec/tokenizer_trie.py): a trie of 512 units leads 65,280 walks to one text, and
holding a decoded copy for each took 65,280 times the text's bytes, 2 GB for a 43 KB file."""

from __future__ import annotations

import base64
import tracemalloc
from fractions import Fraction

from attncli.i18n import Count, Msg
from attncli.spec.tokenizer_charsmap import SIZE, charsmap_problem, growth, trie_end, walked
from attncli.spec.tokenizer_trie import Matches, matches
from tests.charsmaps import charsmap, one_text

TOO_MANY = Msg.plural_of(
    "expected a precompiled charsmap whose trie holds at most {count} key of up to 5 bytes, "
    "found more", "expected a precompiled charsmap whose trie holds at most {count} keys of up to "
    "5 bytes, found more", Count(65_536))


def peak_bytes(written: str) -> tuple[int, object, Fraction]:
    """The most bytes held at once while the charsmap `written` is checked and its growth
    found, the check's answer and the growth."""
    walked.cache_clear()
    tracemalloc.start()
    try:
        problem, grown = charsmap_problem(written), growth(written)
        return tracemalloc.get_traced_memory()[1], problem, grown
    finally:
        tracemalloc.stop()


def test_65280_matches_of_one_text_hold_its_length_once() -> None:
    found = walked(one_text(1000, deeper=False))
    assert isinstance(found, Matches)
    assert len(found.keys) == 255 + 255 ** 2
    assert set(found.lengths.tolist()) == {1000}
    # a text of 1,000 bytes more costs no more than its own bytes and the base64 around them,
    # where a copy for each match was 65,280 times that, 65 MB
    small, problem, grown = peak_bytes(one_text(1, deeper=False))
    assert (problem, grown) == (None, 1)
    large, problem, grown = peak_bytes(one_text(1000, deeper=False))
    assert (problem, grown) == (None, 1000)
    assert large - small < 20_000


def test_a_trie_past_the_limit_is_refused_holding_its_texts_once() -> None:
    small, problem, _ = peak_bytes(one_text(1, deeper=True))
    assert problem == TOO_MANY
    large, problem, _ = peak_bytes(one_text(1000, deeper=True))
    assert problem == TOO_MANY
    assert large - small < 20_000


def test_a_texts_length_is_counted_in_characters_to_its_nul() -> None:
    # texts "żółw\0q\0": ż, ó, ł two bytes each; the match of b moved to byte 2, ó
    data = bytearray(base64.b64decode(charsmap({"a": "żółw", "b": "q"})))
    units = data[SIZE:trie_end(data)]
    value_b = 768 * SIZE  # the block of b's children (tests/charsmaps.py: 256 a prefix)
    assert units[value_b:value_b + SIZE] == (1 << 31 | 8).to_bytes(4, "little")
    units[value_b:value_b + SIZE] = (1 << 31 | 2).to_bytes(4, "little")
    found = matches(bytes(units), bytes(data[trie_end(data):]))
    assert found.keys.tolist() == [ord("a"), ord("b")]
    assert found.lengths.tolist() == [4, 3]  # żółw, ółw
    assert found.most() == 4
    # at byte 3, inside ó
    units[value_b:value_b + SIZE] = (1 << 31 | 3).to_bytes(4, "little")
    written = base64.b64encode(bytes(data[:SIZE] + units + data[trie_end(data):])).decode()
    assert charsmap_problem(written) == Msg.plural_of(
        "expected a precompiled charsmap whose matches begin at a character of its texts "
        "({count} byte), found one that begins at byte {place}",
        "expected a precompiled charsmap whose matches begin at a character of its texts "
        "({count} bytes), found one that begins at byte {place}", Count(10), place=Count(3))
