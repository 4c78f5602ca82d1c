"""The terms a page writes for the cells it writes out, counted from the shapes before any line
is made: what the HTML page's default (`attn export --html`: every cell it shows, a softmax row
by its shown cells alone) is charged for the token names its lines repeat
(steps/name_charge.py).

Each count follows its writer in expand.py (expand_tiles.py, expand_vit.py) line by line. A
line's terms are those of its sum as the page writes it, a long one shortened
(elision.written_terms: 768 terms are written as 5), or 1 for a line of no sum (e^x, a quotient);
1 − Σ (a sink's share) is 1 and the sum's. A row whose query sees no key writes nothing, and a
score no angle where a length prints as 0. The lines a step writes of its own (RoPE's rotation,
the backward pass's) are not chosen cells and are not counted.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

from attncli.arithmetic.cells import Context
from attncli.arithmetic.elision import written_terms
from attncli.arithmetic.expand import Lengths, asked_columns, has_angle
from attncli.arithmetic.selection import Cell
from attncli.arithmetic.selection import cells as chosen_cells
from attncli.arithmetic.selection import rows as chosen_rows
from attncli.model import Matrix, Step

Count = Callable[[Context, Step, Sequence[Cell]], int]


def page_terms(ctx: Context, step: Step, cells: Sequence[Cell]) -> int:
    """The terms the lines of `cells` of `step` write on a page that shortens long sums."""
    return COUNTS[step.id](ctx, step, cells)


def cell_count(matrix: Matrix, cells: Sequence[Cell]) -> int:
    return sum(1 for _ in chosen_cells(matrix.rows, matrix.columns, cells))


def linear(width: int, bias: object) -> int:
    """x·W[:, a] (+ b[a]): a sum of `width` products, and the bias."""
    return written_terms(width + (bias is not None))


def projections(ctx: Context, step: Step, cells: Sequence[Cell]) -> int:
    weights = ctx.spec.heads[ctx.head.index - 1]
    inputs = ctx.projected()
    return sum(cell_count(m, cells) * linear(inputs[m.symbol.text].shape[1],
                                             getattr(weights, f"b_{m.symbol.text}"))
               for m in step.matrices)


def out_projection(ctx: Context, step: Step, cells: Sequence[Cell]) -> int:
    width = ctx.heads_side_by_side().shape[1]
    return cell_count(step.matrices[-1], cells) * linear(width, ctx.spec.b_O)


def scores(ctx: Context, step: Step, cells: Sequence[Cell]) -> int:
    """q_i·k_j and its angle cos θ; q_i·W·k_j, a product for each entry of W, and no angle."""
    matrix = step.matrices[0]
    general = ctx.spec.score.W
    if general is not None:
        return cell_count(matrix, cells) * written_terms(general.size)
    q, k = ctx.head.queries.values, ctx.head.keys.values  # (n, d_k), (m, d_k)
    q_norms, k_norms = Lengths(q), Lengths(k)
    return sum(written_terms(q.shape[1]) + has_angle(ctx, ctx.carry(q_norms[i]),
                                                     ctx.carry(k_norms[j]), matrix.at(i, j))
               for i, j in chosen_cells(matrix.rows, matrix.columns, cells))


def one_a_cell(ctx: Context, step: Step, cells: Sequence[Cell]) -> int:
    """A line of one term for each cell of each matrix: S′ = S / √d_k, c·tanh(S′ / c), Q̃ and
    K̃ of QK-norm (their RMS and gain are not written out)."""
    written = [m for m in step.matrices if step.id != "qk_norm"
               or m.symbol.text in ("Q\u0303", "K\u0303")]
    return sum(cell_count(m, cells) for m in written)


def seen(ctx: Context, i: int) -> int:
    """The keys query i sees."""
    return int(np.isfinite(ctx.head.scores.row(i)).sum())


def weights(ctx: Context, step: Step, cells: Sequence[Cell]) -> int:
    """e^x of each key written (all, or the shown cells' alone) and the sink's e^s, the row's Σ
    of every key it sees, each quotient written."""
    matrix = step.matrices[0]
    sink = ctx.spec.sinks is not None
    asked = asked_columns(matrix, cells) if ctx.terms_shown else {}
    terms = 0
    for i in chosen_rows(matrix.rows, cells):
        keys = seen(ctx, i) + sink
        if keys == 0 or not np.isfinite(matrix.row(i)).all():
            continue
        written = len(asked.get(i) or matrix.columns)
        terms += written + sink + written_terms(keys) + written
    return terms


def sinks(ctx: Context, step: Step, cells: Sequence[Cell]) -> int:
    """A_s[i] = 1 − Σⱼ A[i, j] over the keys query i sees."""
    share = step.matrices[0]
    return sum(1 + (written_terms(keys) if (keys := seen(ctx, i)) else 0)
               for i, _ in chosen_cells(share.rows, share.columns, cells))


def output(ctx: Context, step: Step, cells: Sequence[Cell]) -> int:
    """Σⱼ A[i, j]·v_j over the keys query i sees."""
    matrix = step.matrices[0]
    return sum(written_terms(keys) for i in chosen_rows(matrix.rows, cells)
               if (keys := seen(ctx, i)) and np.isfinite(ctx.head.weights.row(i)).all())


def tile(ctx: Context, step: Step, cells: Sequence[Cell]) -> int:
    """For each row the tile sees: e^(s − m) of each key it sees, ℓ and Õ; and where an earlier
    tile saw the row, its rescaling α and the old ℓ's and Õ's terms."""
    if not step.matrices:  # a skipped tile
        return 0
    S = step.matrices[0]
    top, left = ctx.head.weights.rows.index(S.rows[0]), ctx.head.weights.columns.index(S.columns[0])
    terms = 0
    for a in chosen_rows(S.rows, cells):
        keys = int(np.isfinite(S.row(a)).sum())
        if keys:
            before = int(np.isfinite(ctx.head.scores.row(top + a)[:left]).any())
            terms += before + keys + 2 * written_terms(keys + before)
    return terms


def tiled_output(ctx: Context, step: Step, cells: Sequence[Cell]) -> int:
    """O = Õ / ℓ for every column of each row whose ℓ is not 0."""
    ell, _, result = step.matrices
    return sum(len(result.columns) for i in chosen_rows(result.rows, cells)
               if ell.at(i, 0) != 0.0)


def patch_embedding(ctx: Context, step: Step, cells: Sequence[Cell]) -> int:
    """A patch's cell of E, x_p·W_E[:, a] + b_E[a]; the CLS row (row 0) is learned."""
    vision = ctx.spec.vision
    assert vision is not None
    result = step.matrices[-1]
    width = ctx.steps["patches"].matrices[0].shape[1]
    return sum(linear(width, vision.b_E)
               for i, _ in chosen_cells(result.rows, result.columns, cells) if i > 0)


def class_scores(ctx: Context, step: Step, cells: Sequence[Cell]) -> int:
    """z[CLS, c] = W_c[c, :]·h + b_c[c]."""
    vision = ctx.spec.vision
    assert vision is not None and vision.classifier is not None
    z = next(m for m in step.matrices if m.symbol.text == "z")
    h = (ctx.steps["classifier_norm"].matrices[-1] if "classifier_norm" in ctx.steps
         else step.matrices[0])  # (1, d_model)
    return cell_count(z, cells) * linear(h.shape[1], vision.classifier.b)


# step id -> the terms its writer (expand.WRITERS) writes for the chosen cells
COUNTS: dict[str, Count] = {
    "projections": projections,
    "scores": scores,
    "scaled": one_a_cell,
    "softcap": one_a_cell,
    "qk_norm": one_a_cell,
    "weights": weights,
    "sinks": sinks,
    "output": output,
    "out_projection": out_projection,
    "tile": tile,
    "tiled_output": tiled_output,
    "patch_embedding": patch_embedding,
    "class_scores": class_scores,
}
