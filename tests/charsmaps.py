"""Precompiled charsmaps for tests: SentencePiece's nmt_nfkc (the one T5's and ALBERT's
tokenizer.json carry, 44,288 units and 14,792 texts, from the spm_precompiled crate's
src/nmt_nfkc.bin), and small ones made from a mapping, laid out as darts-clone lays out a
double-array trie: each node's children in a block of 256 units, a child of byte c at the
block's unit c, a match's text offset in the unit its children's block begins with."""

from __future__ import annotations

import base64
from pathlib import Path

NMT_NFKC = base64.b64encode(
    (Path(__file__).parent / "data" / "nmt_nfkc.charsmap").read_bytes()).decode("ascii")

LEAF, VALUE = 1 << 8, 1 << 31  # a unit's "a match ends here" bit; a value unit's mark


def charsmap(mapping: dict[str, str]) -> str:
    """The base64 charsmap whose trie maps each key of `mapping` to its text."""
    texts = b"".join(text.encode() + b"\0" for text in mapping.values())
    starts, at = {}, 0
    for key, text in mapping.items():
        starts[key.encode()], at = at, at + len(text.encode()) + 1
    prefixes = sorted({key[:k] for key in starts for k in range(len(key) + 1)})
    block = {prefix: 256 * (k + 1) for k, prefix in enumerate(prefixes)}  # each node's children
    units = [0] * (256 * (len(prefixes) + 1))
    units[0] = block[b""] << 10  # the root: its children's block
    for prefix in prefixes:
        if not prefix:
            continue
        place = block[prefix[:-1]] | prefix[-1]
        units[place] = ((place ^ block[prefix]) << 10) | prefix[-1] | (
            LEAF if prefix in starts else 0)
        if prefix in starts:
            units[block[prefix]] = VALUE | starts[prefix]
    trie = b"".join(unit.to_bytes(4, "little") for unit in units)
    return base64.b64encode(len(trie).to_bytes(4, "little") + trie + texts).decode("ascii")


def one_text(size: int, deeper: bool) -> str:
    """A charsmap whose every walk of one byte and of two (255 + 255² = 65,280) is a match of
    one text, `size` letters x and no NUL after them: the root's child of byte b is its unit b,
    whose children are units 256 + b, and their match's unit is 256 (text 0). With `deeper`, the
    children of those are units 256 + b again, so the walks of three bytes pass 65,536; else
    theirs are units 1,280 + b, none of them a child (2,048 units)."""
    units = [0] * (512 if deeper else 2048)
    for b in range(1, 256):
        units[b] = ((256 ^ b) << 10) | LEAF | b
        units[256 + b] = ((b if deeper else (256 + b) ^ 1280) << 10) | LEAF | b
    trie = b"".join(unit.to_bytes(4, "little") for unit in units)
    return base64.b64encode(len(trie).to_bytes(4, "little") + trie + b"x" * size).decode("ascii")
