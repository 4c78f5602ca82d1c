"""Online softmax, the loop FlashAttention runs: softmax(S)·V computed one tile of S at a time.

For a block of queries the keys are read a block at a time. After key block j every query row
keeps three things: the largest score seen so far m, the sum ℓ of e^(s − m) over the keys seen so
far, and the unnormalised output Õ = Σ e^(s − m)·v over them. A larger maximum in a later block
rescales what was kept by e^(m_old − m); at the end O = Õ / ℓ, which is softmax(S)·V exactly
(Milakov and Gimelshein 2018; Dao et al. 2022, algorithm 1).

A tile the masks hide entirely is skipped, as FlashAttention skips the tiles above the causal
diagonal. `carry` writes each result down: unchanged at full precision, rounded to the display
precision in a hand calculation, where the rounding of every rescale is what the check shows.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from attncli.model import Array
from attncli.records import record


@record
class Tile:
    """One step of the loop: query block i and key block j (0-based) and what it made."""

    i: int
    j: int
    rows: range  # the queries of block i
    columns: range  # the keys of block j
    skipped: bool  # every score of the tile is hidden: nothing changes
    s: Array  # (b_q, b_k): the tile of the softmax input, −∞ where hidden
    p: Array  # (b_q, b_k): P̃ = e^(S − m), 0 where hidden
    m_old: Array  # (b_q,): the running maximum before the tile, −∞ before the first
    m: Array  # (b_q,): after it
    factor: Array  # (b_q,): e^(m_old − m), what ℓ and Õ are rescaled by (0 before the first)
    ell_old: Array  # (b_q,)
    ell: Array  # (b_q,): ℓ, the running sum of e^(s − m)
    o_old: Array  # (b_q, d_v)
    o: Array  # (b_q, d_v): Õ, the running unnormalised output


def blocks(length: int, size: int) -> list[range]:
    """0..length in blocks of `size`; the last one shorter when size does not divide length."""
    return [range(start, min(start + size, length)) for start in range(0, length, size)]


def rescale(m_old: Array, m: Array, carry: Callable[[Array], Array]) -> Array:
    """e^(m_old − m): 0 before the first visible key (m_old = −∞), 1 while no key is seen."""
    seen = np.isfinite(m_old)  # (b_q,)
    with np.errstate(invalid="ignore"):
        factor = np.where(seen, np.exp(np.where(seen, m_old - m, 0.0)), 0.0)  # (b_q,)
    return np.where(np.isfinite(m), carry(factor), 1.0)  # (b_q,)


def tile(i: int, j: int, rows: range, columns: range, logits: Array, v: Array, m_old: Array,
         ell_old: Array, o_old: Array, carry: Callable[[Array], Array]) -> Tile:
    """One tile: the new maximum, the rescale, P̃, ℓ and Õ."""
    s = logits[rows.start:rows.stop, columns.start:columns.stop]  # (b_q, b_k)
    v_j = v[columns.start:columns.stop]  # (b_k, d_v)
    if not np.isfinite(s).any():
        zero = np.zeros_like(s)  # (b_q, b_k)
        return Tile(i, j, rows, columns, True, s, zero, m_old, m_old, np.ones_like(m_old),
                    ell_old, ell_old, o_old, o_old)
    m = np.maximum(m_old, s.max(axis=1))  # (b_q,)
    factor = rescale(m_old, m, carry)  # (b_q,)
    visible = np.isfinite(s)  # (b_q, b_k)
    with np.errstate(invalid="ignore"):
        shifted = np.where(visible, s - m[:, None], 0.0)  # (b_q, b_k) − (b_q, 1)
    p = np.where(visible, carry(np.exp(shifted)), 0.0)  # (b_q, b_k)
    ell = carry(factor * ell_old + p.sum(axis=1))  # (b_q,)
    o = carry(factor[:, None] * o_old + p @ v_j)  # (b_q, d_v) + (b_q, b_k) @ (b_k, d_v)
    return Tile(i, j, rows, columns, False, s, p, m_old, m, factor, ell_old, ell, o_old, o)


def run(logits: Array, v: Array, query_block: int, key_block: int,
        carry: Callable[[Array], Array]) -> list[Tile]:
    """Every tile of softmax(logits)·V in loop order: query blocks outside, key blocks inside."""
    n, m = logits.shape  # (n, m)
    d_v = int(v.shape[1])
    tiles = []
    for i, rows in enumerate(blocks(n, query_block)):
        m_run = np.full(len(rows), -np.inf)  # (b_q,)
        ell_run = np.zeros(len(rows))  # (b_q,)
        o_run = np.zeros((len(rows), d_v))  # (b_q, d_v)
        for j, columns in enumerate(blocks(m, key_block)):
            t = tile(i, j, rows, columns, logits, v, m_run, ell_run, o_run, carry)
            tiles.append(t)
            m_run, ell_run, o_run = t.m, t.ell, t.o
    return tiles


def finals(tiles: list[Tile], n: int, d_v: int) -> tuple[Array, Array, Array]:
    """m, ℓ and Õ of every query after its last key block: (n,), (n,), (n, d_v)."""
    m, ell, o = np.full(n, -np.inf), np.zeros(n), np.zeros((n, d_v))
    for t in tiles:  # the last tile of a query block holds that block's final state
        m[t.rows.start:t.rows.stop] = t.m
        ell[t.rows.start:t.rows.stop] = t.ell
        o[t.rows.start:t.rows.stop] = t.o
    return m, ell, o


def normalise(o: Array, ell: Array, carry: Callable[[Array], Array], empty: float) -> Array:
    """O = Õ / ℓ; a query that saw no key (ℓ = 0) gets `empty` (0, or NaN as masked_rows asks)."""
    seen = ell > 0.0  # (n,)
    safe = np.where(seen, ell, 1.0)  # (n,)
    return np.where(seen[:, None], carry(o / safe[:, None]), empty)  # (n, d_v) / (n, 1)
