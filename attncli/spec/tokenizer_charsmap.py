"""A Precompiled normalizer's `precompiled_charsmap` (SentencePiece's normalization rules, as T5's,
ALBERT's and XLM-R's tokenizer.json carry them): base64 of the size of a trie in bytes (four,
little-endian), the trie (four bytes a unit), then the texts the trie's matches become, UTF-8,
each ending with a NUL. `tokenizers` refuses any other in serde's English, with a line:column of
its own re-reading, and reads the trie unchecked (a trie that points outside itself panics as a
text is encoded); here its structure and every walk of its trie are read first
(spec/tokenizer_trie.py), and the most characters its texts give for each character they
replace is how much the normalizer can lengthen a text.
"""

from __future__ import annotations

import base64
import binascii
from fractions import Fraction
from functools import lru_cache
from typing import Any

from attncli.errors import Location
from attncli.i18n import Msg
from attncli.spec.node import Node
from attncli.spec.tokenizer_trie import Matches, TrieProblem, matches
from attncli.spec.values import describe

SIZE = 4  # bytes of the trie's size, and of each of its units


def charsmap_problem(written: Any) -> Msg | None:
    """Why `written` is no precompiled charsmap `tokenizers` can read, or None."""
    expected = Msg.of("a text of base64 (a precompiled charsmap)")
    if not isinstance(written, str):
        found = describe(Node(written, Location("")), raw=False)
        return Msg.of("expected {expected}, found {found}", expected=expected, found=found)
    data = decoded(written)
    if data is None:
        return Msg.of("expected {expected}, found {found}", expected=expected,
                      found=describe(Node(written, Location("")), raw=False))
    if len(data) < SIZE or trie_end(data) > len(data):
        return Msg.plural_of(
            "expected a precompiled charsmap: the size of its trie in 4 bytes, the trie and its "
            "texts; found {count} byte, fewer than that size needs",
            "expected a precompiled charsmap: the size of its trie in 4 bytes, the trie and its "
            "texts; found {count} bytes, fewer than that size needs", len(data))
    try:
        data[trie_end(data):].decode("utf-8")
    except UnicodeDecodeError:
        return Msg.of("expected a precompiled charsmap whose texts are UTF-8, found other bytes")
    walk = walked(written)
    return walk if isinstance(walk, Msg) else None


def growth(written: Any, decomposed: bool = False) -> Fraction:
    """The most characters the charsmap `written` makes of one character, or of one of a text
    already NFKD (`decomposed`, which meets only the keys an NFKD text can hold): for each key,
    its text's characters over the characters the key begins (1 if it is not a charsmap:
    charsmap_problem says why)."""
    found = walked(written) if isinstance(written, str) else None
    if found is None or isinstance(found, Msg):
        return Fraction(1)
    return found.most(decomposed)


@lru_cache(maxsize=4)  # asked by the check of its structure, then by the growth's
def walked(written: str) -> Matches | Msg | None:
    """The matches of the charsmap `written`'s trie (spec/tokenizer_trie.py), why a walk of it
    leaves it, or None if it is no charsmap."""
    data = decoded(written)
    if data is None or len(data) < SIZE or trie_end(data) > len(data):
        return None
    try:
        data[trie_end(data):].decode("utf-8")
        return matches(data[SIZE:trie_end(data)], data[trie_end(data):])
    except UnicodeDecodeError:
        return None
    except TrieProblem as problem:
        return problem.message


def decoded(written: str) -> bytes | None:
    """The bytes of the base64 text `written` as `tokenizers` reads it (padded, no other
    characters, the last one's unused bits zero), or None."""
    try:
        data = base64.b64decode(written, validate=True)
    except (binascii.Error, ValueError):
        return None
    return data if base64.b64encode(data).decode("ascii") == written else None


def trie_end(data: bytes) -> int:
    """Where the charsmap `data`'s texts begin: after its size and its trie."""
    return SIZE + int.from_bytes(data[:SIZE], "little") // SIZE * SIZE
