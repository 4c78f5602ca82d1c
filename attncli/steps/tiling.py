"""Online softmax in tiles, as FlashAttention runs attention: for each query block and key block
the tile of scores, the running maximum m, the running sum ℓ with its rescale e^(m_old − m) and
the running unnormalised output Õ; then O = Õ / ℓ, checked cell for cell against Z = A·V.

The tiles are pieces of the head's softmax input (the scores after scale, bias and mask), so
RoPE, biases, masks and shared key-value heads need nothing of their own here."""

from __future__ import annotations

import numpy as np

from attncli.arithmetic.handcalc import written
from attncli.compute import online_softmax
from attncli.compute.online_softmax import Tile
from attncli.i18n import Msg, Symbol, quoted_list
from attncli.model import Array, Formula, Matrix, Step
from attncli.steps.base import Build, HeadState, Made
from attncli.steps.labels import subscript
from attncli.steps.verdicts import Digits

# the columns of the running statistics of a tile, one row per query of the block
STATISTICS = (Symbol("m_old", r"m_{\text{old}}"), Symbol("m", "m"), Symbol("α", r"\alpha"),
              Symbol("ℓ_old", r"\ell_{\text{old}}"), Symbol("ℓ", r"\ell"))  # α = e^(m_old − m)
TOLERANCE = 1e-12  # how close O must come to Z to be called equal (float64 adds in another order)
OLD = r"_{\text{old}}"


def pair(i: int, j: int) -> Formula:
    """The subscript of tile (i, j): `₁₂`, or `₁₂,₃` once a block number has two digits."""
    if max(i, j) < 10:
        return Formula(f"{subscript(i)}{subscript(j)}", f"{i}{j}")
    return Formula(f"{subscript(i)},{subscript(j)}", f"{i},{j}")


def tiled(b: Build, hs: HeadState) -> Made[HeadState]:
    """Every tile of the head in loop order, then O = Õ / ℓ and its check against Z."""
    assert b.spec.tiling is not None and hs.scores is not None and hs.v is not None
    assert hs.Z is not None
    tiling = b.spec.tiling
    tiles = online_softmax.run(hs.scores.whole(), hs.v, tiling.queries, tiling.keys,
                               b.calc.rounded)
    first = next((k for k, t in enumerate(tiles) if not t.skipped), None)  # notation said here
    steps = [tile_step(b, hs, t, first=k == first) for k, t in enumerate(tiles)]
    steps.append(output_step(b, hs, tiles))
    return tuple(steps), hs


def tile_step(b: Build, hs: HeadState, t: Tile, first: bool) -> Step:
    assert hs.v is not None and hs.scores is not None
    queries = b.query_labels[t.rows.start:t.rows.stop]
    keys = b.key_labels[t.columns.start:t.columns.stop]
    i, j = t.i + 1, t.j + 1
    title = Msg.of("Tile {i}, {j}: queries {queries}; keys {keys}", i=i, j=j,
                   queries=quoted_list(queries), keys=quoted_list(keys))
    if t.skipped:
        note = Msg.of("The mask hides every score of this tile, so it is skipped, as "
                      "FlashAttention skips it: m, ℓ and Õ stay as they are.")
        return Step("tile", title, None, (), hs.index, (note,))
    ij = pair(i, j)
    S = Matrix(Formula(f"S{ij.text}", f"S_{{{ij.latex}}}"), t.s, queries, keys)
    P = Matrix(Formula(f"P̃{ij.text}", rf"\tilde P_{{{ij.latex}}}"), t.p, queries, keys,
               hidden_by=S if b.spec.masks else None)
    statistics = np.column_stack([t.m_old, t.m, t.factor, t.ell_old, t.ell])  # (b_q, 5)
    matrices = (
        S, P,
        Matrix(Formula("m, ℓ", r"m,\ \ell"), statistics, queries, STATISTICS),
        b.matrix(Formula(f"V{subscript(j)}", f"V_{{{j}}}"), hs.v[t.columns.start:t.columns.stop],
                 keys),
        b.matrix(Formula("Õ", r"\tilde O"), t.o, queries),
    )
    notes = []
    if first:
        notes.append(Msg.of("S{ij} is the tile of {scores} for query block {i} and key block "
                            "{j}; m = max(m_old, the row's largest score in the tile), and "
                            "α = e^(m_old − m) rescales what ℓ and Õ kept.",
                            ij=Symbol(ij.text, "{}_{" + ij.latex + "}"),
                            scores=Symbol(hs.scores.symbol.text, hs.scores.symbol.latex), i=i, j=j))
    notes.append(rescale_note(t, queries))
    return Step("tile", title, tile_formula(ij, j), matrices, hs.index, tuple(notes))


def rescale_note(t: Tile, queries: tuple[str, ...]) -> Msg:
    """What the rescale did to the rows of this tile."""
    if not np.isfinite(t.m_old).any():
        return Msg.of("The first keys these queries meet: nothing to rescale yet, so "
                      "ℓ = rowsum(P̃) and Õ = P̃·V.")
    grew = [q for q, old, new in zip(queries, t.m_old, t.m, strict=True)
            if np.isfinite(old) and new > old]
    if not grew:
        return Msg.of("No row finds a larger score here: m stays, e^(m_old − m) = 1, and the "
                      "new terms are added to ℓ and Õ as they are.")
    return Msg.plural_of(
        "The maximum grows for {count} query ({queries}): what ℓ and Õ kept is multiplied by "
        "e^(m_old − m) < 1, as if it had been computed with the new maximum.",
        "The maximum grows for {count} queries ({queries}): what ℓ and Õ kept is multiplied by "
        "e^(m_old − m) < 1, as if it had been computed with the new maximum.",
        len(grew), queries=quoted_list(grew))


def tile_formula(ij: Formula, j: int) -> Formula:
    p_text, p_latex = f"P̃{ij.text}", rf"\tilde P_{{{ij.latex}}}"
    return Formula(
        f"{p_text} = e^(S{ij.text} − m),  α = e^(m_old − m),  ℓ = α·ℓ_old + rowsum({p_text}),  "
        f"Õ = α·Õ_old + {p_text}·V{subscript(j)}",
        # two lines: one is wider than a 4:3 Beamer frame
        rf"\begin{{gathered}}{p_latex} = e^{{S_{{{ij.latex}}} - m}},\quad \alpha = e^{{m{OLD} - m}}"
        rf" \\ \ell = \alpha \, \ell{OLD} + \operatorname{{rowsum}}({p_latex}),\quad "
        rf"\tilde O = \alpha \, \tilde O{OLD} + {p_latex} V_{{{j}}}\end{{gathered}}")


def output_step(b: Build, hs: HeadState, tiles: list[Tile]) -> Step:
    """O = Õ / ℓ for every query, and whether O equals Z cell for cell."""
    assert hs.Z is not None and hs.v is not None
    n, d_v = len(b.query_labels), int(hs.v.shape[1])
    _, ell, o = online_softmax.finals(tiles, n, d_v)  # (n,), (n, d_v)
    empty = np.nan if b.spec.masked_rows == "nan" else 0.0
    out = online_softmax.normalise(o, ell, b.calc.rounded, empty)  # (n, d_v)
    matrices = (
        Matrix(Formula("ℓ", r"\ell"), ell[:, None], b.query_labels, ("ℓ",)),
        b.matrix(Formula("Õ", r"\tilde O"), o, b.query_labels),
        b.matrix(Formula("O", "O"), out, b.query_labels),
    )
    notes = (Msg.of("Each row of Õ is divided once, at the end, by its ℓ."),
             *check(b, out, hs.Z))
    return Step("tiled_output", Msg.of("Online softmax: the output"),
                Formula("O = Õ / ℓ", r"O = \tilde O / \ell"), matrices, hs.index, notes)


def check(b: Build, out: Array, Z: Matrix) -> tuple[Msg, ...]:
    """At full precision: O equals Z to TOLERANCE. By hand: the cells that print differently,
    which is the rounding of every rescale drifting away from the rounding of softmax."""
    z = Z.whole()  # (n, d_v)
    if b.spec.dtype != "float64":
        finite = np.isfinite(out) & np.isfinite(z)  # (n, d_v)
        gap = float(np.abs(out - z)[finite].max(initial=0.0))
        return (Msg.of("In {dtype}, O comes within {difference} of Z = A·V, the output of plain "
                       "attention: each tile rounds m, ℓ and Õ along another path than softmax.",
                       dtype=b.spec.dtype,
                       difference=Digits(b.spec.dtype, b.spec.display.precision).significant(gap)),)
    if not b.spec.display.round_intermediates:
        both_nan = np.isnan(out) & np.isnan(z)  # (n, d_v)
        close = np.abs(out - z) <= TOLERANCE * np.maximum(1.0, np.abs(z))  # (n, d_v)
        if bool((close | both_nan).all()):
            return (Msg.of("Check: O equals Z = A·V, the output of plain attention, cell for "
                           "cell, to 12 decimal places."),)
        return (Msg.of("Check failed: O differs from Z = A·V, the output of plain attention."),)
    precision = b.spec.display.precision
    differ = [(r, c) for r in range(z.shape[0]) for c in range(z.shape[1])
              if np.isfinite(z[r, c])
              and written(float(out[r, c]), precision) != written(float(z[r, c]), precision)]
    if not differ:
        return (Msg.of("Check: by hand too, every cell of O prints as the same cell of Z = A·V."),)
    notes = [Msg.plural_of(
        "By hand, {count} cell of O prints differently from Z = A·V: each tile rounds ℓ and Õ "
        "once more, and the rescales e^(m_old − m) carry that rounding on.",
        "By hand, {count} cells of O print differently from Z = A·V: each tile rounds ℓ and Õ "
        "once more, and the rescales e^(m_old − m) carry that rounding on.", len(differ))]
    notes += [Msg.of("O[{row}, {column}] = {tiled}, Z[{row}, {column}] = {plain}",
                     row=Z.rows[r], column=Z.columns[c], tiled=float(out[r, c]),
                     plain=float(z[r, c])) for r, c in differ]
    return tuple(notes)

