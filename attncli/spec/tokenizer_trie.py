"""The double-array trie of a Precompiled normalizer's charsmap (SentencePiece's, read as darts
reads it), walked as `tokenizers` walks it: each grapheme of fewer than 6 bytes, else each
character, is looked up from the trie's first unit, one byte a step, and replaced by the text
of the first match on its way (tokenizers/src/normalizers/precompiled.rs and the spm_precompiled
crate). A unit holds its label (its low 8 bits and bit 31), whether a match ends there (bit 8)
and the offset to its children (bits 10 up, shifted by 8 more when bit 9 is set); a match's
unit holds the byte offset of its text among the charsmap's texts.

So a walk of at most 5 bytes reads every unit the file's texts could lead to. `tokenizers` reads
them unchecked: a unit that points past the trie, or a match whose text begins past the texts or
inside a character, panics as the text is encoded ("index out of bounds"). Here every place a
walk can reach is checked first, and the matches found on the way say how much a text can grow.
"""

from __future__ import annotations

import unicodedata
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from attncli.i18n import Count, Msg

LONGEST_WALK = 5  # bytes: a grapheme of fewer than 6, or one character (at most 4)
# Walks in all: T5's and ALBERT's charsmap (SentencePiece's nmt_nfkc, 44,288 units) has 10,988
# (at most 3,841 of one length), found in 0.05 s. Its units are shared among keys (darts-clone
# merges their common ends), so a trie of garbage may lead many walks to each unit: 255 more a
# byte, unbounded; 65,536 walks, each a match, are found in 0.3 s.
MAX_WALKS = 1 << 16
NODES_AT_ONCE = 4096  # nodes whose 255 children are looked at together (8 MB an array)


@dataclass(frozen=True)
class Match:
    """A key of the trie (the bytes walked to it) and the text it is replaced by."""
    key: bytes
    text: str

    def ratio(self) -> Fraction:
        """Characters of the text for each character the key begins (at least 1): the whole
        grapheme or character a key begins is replaced."""
        begun = sum(1 for byte in self.key if byte & 0xC0 != 0x80)
        return Fraction(len(self.text), max(1, begun))

    def decomposed(self) -> bool:
        """Whether every whole character of the key is one an NFKD text may hold (its own
        decomposition): a text already NFKD meets no other key."""
        whole = self.key.decode("utf-8", "ignore")
        return all(unicodedata.is_normalized("NFKD", char) for char in whole)


class TrieProblem(Exception):
    """Where a walk of the trie leaves it, as a message."""

    def __init__(self, message: Msg) -> None:
        super().__init__(message)
        self.message = message


def matches(trie: bytes, texts: bytes) -> list[Match]:
    """Every match a walk of at most LONGEST_WALK bytes can reach in the charsmap's `trie` (its
    units' bytes) with its text from `texts`; TrieProblem where a walk would leave the trie or
    a match's text would not begin at a character of `texts`, or past MAX_WALKS walks in all."""
    import numpy as np

    units = np.frombuffer(trie, "<u4").astype(np.int64)  # (n,)
    if len(units) == 0:
        raise TrieProblem(Msg.of(
            "expected a precompiled charsmap whose trie has a first unit, found none"))
    found: list[Match] = []
    bases = np.array([offset(int(units[0]))], np.int64)  # (m,) where each walk's children are
    keys = np.zeros(1, np.int64)  # (m,) each walk's bytes, the first in the highest
    walks = 0
    for depth in range(1, LONGEST_WALK + 1):
        check_reach(bases, len(units))
        places, labels = children(units, bases)  # (k,), (k,) of the walks that go on
        keys = (keys[places[1]] << 8) | labels
        reached = places[0]
        walks += len(reached)
        if walks > MAX_WALKS:
            raise TrieProblem(Msg.plural_of(
                "expected a precompiled charsmap whose trie holds at most {count} key of up to "
                "5 bytes, found more", "expected a precompiled charsmap whose trie holds at most "
                "{count} keys of up to 5 bytes, found more", Count(MAX_WALKS)))
        found_units = units[reached]  # (k,)
        bases = reached ^ ((found_units >> 10) << ((found_units & (1 << 9)) >> 6))
        leaves = np.flatnonzero((found_units >> 8) & 1)
        if len(leaves):
            check_reach(bases[leaves], len(units), whole_block=False)
        for leaf, key in zip(leaves.tolist(), keys[leaves].tolist(), strict=True):
            at = int(units[bases[leaf]]) & ((1 << 31) - 1)
            found.append(Match(key.to_bytes(depth, "big"), text_at(texts, at)))
        if len(reached) == 0:
            break
    return found


def children(units: Any, bases: Any) -> tuple[Any, Any]:
    """The places of the children of the nodes at `bases` whose labels a text's byte (1 to
    255) matches, each with its parent's index among `bases` (places[0], places[1]), and those
    labels; a few thousand nodes at a time, no more once there are more than MAX_WALKS."""
    import numpy as np

    labels = np.arange(1, 256, dtype=np.int64)  # (255,) a text's bytes; 0 ends a walk
    reached, parents, bytes_ = [], [], []
    for start in range(0, len(bases), NODES_AT_ONCE):
        places = bases[start: start + NODES_AT_ONCE, None] ^ labels[None, :]  # (m, 255)
        hit = (units[places] & ((1 << 31) | 0xFF)) == labels[None, :]  # (m, 255)
        rows, columns = np.nonzero(hit)
        reached.append(places[rows, columns])
        parents.append(rows + start)
        bytes_.append(labels[columns])
        if sum(map(len, reached)) > MAX_WALKS:
            break
    return ((np.concatenate(reached), np.concatenate(parents)), np.concatenate(bytes_))


def offset(unit: int) -> int:
    return (unit >> 10) << ((unit & (1 << 9)) >> 6)


def check_reach(bases: object, count: int, whole_block: bool = True) -> None:
    """TrieProblem if a node's place (or, `whole_block`, any place of a child of it: the place
    with its low 8 bits changed) is past the trie's `count` units."""
    import numpy as np

    assert isinstance(bases, np.ndarray)
    farthest = int((bases | 0xFF).max() if whole_block else bases.max())
    if farthest >= count:
        raise TrieProblem(Msg.plural_of(
            "expected a precompiled charsmap whose trie's units point inside its {count} unit, "
            "found one that points to unit {place}",
            "expected a precompiled charsmap whose trie's units point inside its {count} units, "
            "found one that points to unit {place}", Count(count), place=Count(farthest)))


def text_at(texts: bytes, at: int) -> str:
    """The text of a match at byte `at` of the charsmap's `texts` (UTF-8, each ending with a
    NUL), as `tokenizers` cuts it: up to the next NUL or the end."""
    if at > len(texts) or (at < len(texts) and texts[at] & 0xC0 == 0x80):
        raise TrieProblem(Msg.plural_of(
            "expected a precompiled charsmap whose matches begin at a character of its texts "
            "({count} byte), found one that begins at byte {place}",
            "expected a precompiled charsmap whose matches begin at a character of its texts "
            "({count} bytes), found one that begins at byte {place}", Count(len(texts)),
            place=Count(at)))
    end = texts.find(b"\0", at)
    return texts[at: len(texts) if end < 0 else end].decode("utf-8")
