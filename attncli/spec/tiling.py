"""The `tiling` section: attention worked through as FlashAttention runs it, the scores one tile
at a time with an online softmax (attncli/compute/online_softmax.py). `keys` is the key block of the
inner loop; `queries`, the query block of the outer loop (default: every query in one block)."""

from __future__ import annotations

import math

from attncli.i18n import Count, Msg
from attncli.spec.model import Decode, Tiling
from attncli.spec.source import Node
from attncli.spec.values import check_keys, fail, fail_at, integer

TILING_KEYS = ("keys", "queries")
MAX_TILES = 64  # per head: a worked example, not a kernel; larger blocks make fewer tiles
# Scores of all heads worked through tile by tile: each cell of each tile is written out and
# carried through the online softmax's updates, about 0.1 ms a score for a page (600 tokens, one
# head: 38.6 s for the HTML page, 13.5 s to validate 4,096 tokens, 1.4 GB); 64 × 64 of one head
MAX_TILE_SCORES = 4096


def tiling_spec(node: Node, n: int, m: int, decode: Decode | None, heads: int = 1) -> Tiling:
    """`{keys: b_k, queries: b_q}`, 1 <= b_k <= m and 1 <= b_q <= n; a block that does not divide
    the tokens leaves a shorter last block. Every mask, bias, RoPE and head layout works with it:
    a tile is a piece of the head's softmax input, whatever made it. Decoding does not: it is
    another way of running the same attention, and one walkthrough shows one."""
    keys = check_keys(node, TILING_KEYS)
    if heads * n * m > MAX_TILE_SCORES:
        fail_at(node, Msg.plural_of(
            "the tiles of all heads hold {count} score; at most {most} are worked through; "
            "choose fewer tokens or heads", "the tiles of all heads hold {count} scores; at most "
            "{most} are worked through; choose fewer tokens or heads", Count(heads * n * m),
            most=Count(MAX_TILE_SCORES)))
    if "keys" not in keys:
        fail(node, "the key {key} is missing", key="keys")
    key_block = integer(keys["keys"], 1, m)
    query_block = integer(keys["queries"], 1, n) if "queries" in keys else n
    if decode is not None:
        fail(node, "tiling and decode each work attention through another way; use one of them")
    tiles = math.ceil(n / query_block) * math.ceil(m / key_block)
    if tiles > MAX_TILES:
        fail(node, "query blocks of {queries} and key blocks of {keys} make {tiles} tiles per "
             "head, at most {most} can be worked through; choose larger blocks",
             queries=query_block, keys=key_block, tiles=tiles, most=MAX_TILES)
    return Tiling(key_block, query_block)
