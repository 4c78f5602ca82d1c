"""A Precompiled normalizer's `precompiled_charsmap` (SentencePiece's normalization rules, as T5's,
ALBERT's and XLM-R's tokenizer.json carry them): base64 of the size of a trie in bytes (four,
little-endian), the trie (four bytes a unit), then the texts the trie's matches become, UTF-8,
each ending with a NUL. `tokenizers` refuses any other in serde's English, with a line:column of
its own re-reading; here its structure is read first, and its longest text is how long the
normalizer can make one character.
"""

from __future__ import annotations

import base64
import binascii
from typing import Any

from attncli.errors import Location
from attncli.i18n import Msg
from attncli.spec.node import Node
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
    return None


def longest_replacement(written: Any) -> int:
    """The characters of the longest text the charsmap `written` maps a match to (0 if it is
    not one: charsmap_problem says why)."""
    if charsmap_problem(written) is not None:
        return 0
    data = decoded(written)
    assert data is not None
    return max(map(len, data[trie_end(data):].decode("utf-8").split("\0")))


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
