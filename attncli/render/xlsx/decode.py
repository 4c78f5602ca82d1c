"""The cells of decoding with a KV cache: the cache's rows are references to the rows of K and V,
and each decode step's scores, weights (max-subtracted) and output are formulas of them, so an
edit reaches the replay too."""

from __future__ import annotations

from attncli.model import Step
from attncli.render.xlsx.cells import Context, as_given, computed, literal
from attncli.render.xlsx.grid import Content, Formula, Piece
from attncli.render.xlsx.overflow import shifted_exp


def cached(ctx: Context, step: Step, index: int, key: str) -> Piece:
    """K[1:i] or V[1:i]: row r is row r of K (K̂ after RoPE) or of V."""
    source = ctx.places[key]
    return computed(step, index, f"cache_{key}", lambda i, j: Formula(
        "=" + source.cell(i, j, ctx.sheet)))


def prefill(ctx: Context, step: Step) -> list[Piece]:
    return [cached(ctx, step, 0, "k_rows"), cached(ctx, step, 1, "v_rows")]


def decode(ctx: Context, step: Step) -> list[Piece]:
    """q_i (row i of Q), the cache K[1:i] and V[1:i], s_i = q_i·K[1:i]ᵀ (scaled), a_i =
    softmax(s_i) with its maximum subtracted, z_i = a_i·V[1:i]."""
    if ctx.spec.score.kind == "general":
        return as_given(ctx, step)
    i = step.matrices[1].shape[0]  # the cache's rows: this token and the ones before it
    q_rows = ctx.places["q_rows"]
    scale = ctx.spec.scale
    by = {"sqrt_dk": f"/SQRT({q_rows.shape[1]})", "number": f"/{literal(scale.value)}"}.get(
        scale.kind, "")
    on = ctx.sheet
    pieces = [
        computed(step, 0, "q_t", lambda r, j: Formula("=" + q_rows.cell(i - 1, j, on))),
        cached(ctx, step, 1, "k_rows"),
        cached(ctx, step, 2, "v_rows"),
    ]

    def score(r: int, j: int) -> Content:
        q, k = ctx.places["q_t"], ctx.places["cache_k_rows"]
        return Formula(f"=SUMPRODUCT({q.row_range(0, on)},{k.row_range(j, on)}){by}")

    def weight(r: int, j: int) -> Content:
        s = ctx.places["s_t"]
        row, x = s.row_range(0, on), s.cell(0, j, on)
        top = f"MAX({row})"  # an array formula: IF takes each e^(s − max) of the sum apart
        return Formula(f"={shifted_exp(x, top)}/SUM({shifted_exp(row, top)})", array=True)

    def output(r: int, j: int) -> Content:
        a, v = ctx.places["a_t"], ctx.places["cache_v_rows"]
        return Formula(f"=MMULT({a.row_range(0, on)},{v.column_range(j, on)})", array=True)

    return [*pieces, computed(step, 3, "s_t", score), computed(step, 4, "a_t", weight),
            computed(step, 5, "z_t", output)]
