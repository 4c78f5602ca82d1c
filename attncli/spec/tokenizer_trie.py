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
class Matches:
    """The keys of the trie (the bytes walked to each, the first in the highest of `keys`'
    `sizes` bytes) and the characters of the text each is replaced by (`lengths`): counts,
    never the texts, which a trie may lead 65,536 keys to alike."""
    keys: Any  # (k,) int64
    sizes: Any  # (k,) int64, 1 to LONGEST_WALK
    lengths: Any  # (k,) int64

    def most(self, decomposed_only: bool = False) -> Fraction:
        """The most characters of a text for each character its key begins (at least 1: the
        whole grapheme or character a key begins is replaced), over every key, or only those
        whose whole characters are each their own NFKD decomposition (`decomposed_only`: a text
        already NFKD meets no other key); 1 without one."""
        import numpy as np

        begun = self.begun()  # (k,)
        kept = self.decomposed() if decomposed_only else np.ones(len(self.keys), bool)  # (k,)
        return max((Fraction(int(self.lengths[kept & (begun == b)].max()), max(1, b))
                    for b in set(begun[kept].tolist())), default=Fraction(1))

    def begun(self) -> Any:
        """(k,) the characters each key begins: its bytes that do not continue a character."""
        import numpy as np

        begun = np.zeros(len(self.keys), np.int64)  # (k,)
        for place in range(LONGEST_WALK):  # the byte `place` from the key's last
            byte = (self.keys >> (8 * place)) & 0xFF
            begun += (place < self.sizes) & ((byte & 0xC0) != 0x80)
        return begun

    def decomposed(self) -> Any:
        """(k,) whether every whole character of each key is one an NFKD text may hold (its
        own decomposition)."""
        import numpy as np

        def held(key: int, size: int) -> bool:
            whole = key.to_bytes(size, "big").decode("utf-8", "ignore")
            return all(unicodedata.is_normalized("NFKD", char) for char in whole)

        pairs = zip(self.keys.tolist(), self.sizes.tolist(), strict=True)
        return np.fromiter((held(key, size) for key, size in pairs), bool, len(self.keys))


class TrieProblem(Exception):
    """Where a walk of the trie leaves it, as a message."""

    def __init__(self, message: Msg) -> None:
        super().__init__(message)
        self.message = message


def matches(trie: bytes, texts: bytes) -> Matches:
    """Every match a walk of at most LONGEST_WALK bytes can reach in the charsmap's `trie` (its
    units' bytes), with the length of its text in `texts`; TrieProblem where a walk would leave
    the trie or a match's text would not begin at a character of `texts`, or past MAX_WALKS
    walks in all."""
    import numpy as np

    units = np.frombuffer(trie, "<u4").astype(np.int64)  # (n,)
    if len(units) == 0:
        raise TrieProblem(Msg.of(
            "expected a precompiled charsmap whose trie has a first unit, found none"))
    found_keys, sizes, starts = [], [], []  # each depth's (k,) arrays
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
            starts.append(text_starts(texts, units[bases[leaves]] & ((1 << 31) - 1)))
            found_keys.append(keys[leaves])
            sizes.append(np.full(len(leaves), depth, np.int64))
        if len(reached) == 0:
            break
    if not starts:
        return Matches(*(np.zeros(0, np.int64) for _ in range(3)))
    return Matches(np.concatenate(found_keys), np.concatenate(sizes),
                   text_lengths(texts, np.concatenate(starts)))


def children(units: Any, bases: Any) -> tuple[Any, Any]:
    """The places of the children of the nodes at `bases` whose labels a text's byte (1 to
    255) matches, each with its parent's index among `bases` (places[0], places[1]), and those
    labels; a few thousand nodes at a time, and no more than MAX_WALKS + 1 children."""
    import numpy as np

    labels = np.arange(1, 256, dtype=np.int64)  # (255,) a text's bytes; 0 ends a walk
    reached, parents, bytes_ = [], [], []
    left = MAX_WALKS + 1  # children still to hold: one past the limit says there are more
    for start in range(0, len(bases), NODES_AT_ONCE):
        places = bases[start: start + NODES_AT_ONCE, None] ^ labels[None, :]  # (m, 255)
        hit = (units[places] & ((1 << 31) | 0xFF)) == labels[None, :]  # (m, 255)
        rows, columns = (found[:left] for found in np.nonzero(hit))
        reached.append(places[rows, columns])
        parents.append(rows + start)
        bytes_.append(labels[columns])
        left -= len(rows)
        if left == 0:
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


def text_starts(texts: bytes, at: Any) -> Any:
    """`at` (k,), the bytes of `texts` (UTF-8, each text ending with a NUL) where matches'
    texts begin, once each is known to be a character's first byte or the end; else
    TrieProblem at the first that is not."""
    import numpy as np

    inside = at > len(texts)
    within = np.flatnonzero(at < len(texts))
    inside[within] = np.frombuffer(texts, np.uint8)[at[within]] & 0xC0 == 0x80
    if inside.any():
        raise TrieProblem(Msg.plural_of(
            "expected a precompiled charsmap whose matches begin at a character of its texts "
            "({count} byte), found one that begins at byte {place}",
            "expected a precompiled charsmap whose matches begin at a character of its texts "
            "({count} bytes), found one that begins at byte {place}", Count(len(texts)),
            place=Count(int(at[np.argmax(inside)]))))
    return at


def text_lengths(texts: bytes, at: Any) -> Any:
    """The characters of the text of each match beginning at byte `at` (k,) of `texts`, as
    `tokenizers` cuts it: up to the next NUL or the end. The texts are counted, not decoded:
    a trie may lead all its matches into one long text, and each place of `texts` is looked
    at once whichever the count of matches."""
    import numpy as np

    begins = np.unique(at)  # (b,) sorted
    ends = np.empty_like(begins)  # (b,) the NUL (or the end) after each
    nul = -1
    for k, start in enumerate(begins.tolist()):
        if nul < start:  # found from here on, so `texts` is read once
            nul = texts.find(b"\0", start)
            nul = len(texts) if nul < 0 else nul
        ends[k] = nul
    cuts = np.unique(np.concatenate([begins, ends]))  # (c,) sorted places, each <= len(texts)
    following = np.zeros(len(texts) + 1, bool)  # (len + 1,) bytes that continue a character
    following[:-1] = np.frombuffer(texts, np.uint8) & 0xC0 == 0x80
    # continuing bytes before each cut: the counts between cuts, summed
    between = np.add.reduceat(following, cuts, dtype=np.int64)  # (c,)
    before = np.concatenate([[0], np.cumsum(between)[:-1]])  # (c,) from the first cut
    first, last = np.searchsorted(cuts, begins), np.searchsorted(cuts, ends)
    lengths = ends - begins - (before[last] - before[first])  # (b,) bytes that begin one
    return lengths[np.searchsorted(begins, at)]
