"""The cells of a mixture of experts (gpt-oss): the router's logits and each token's weights over
its top k, each expert's clamped SwiGLU on the rows routed to it, and their weighted sum."""

from __future__ import annotations

from attncli.model import Step
from attncli.render.xlsx.cells import (
    Context,
    computed,
    find,
    given_piece,
    literal,
    product,
    projected,
)
from attncli.render.xlsx.grid import Block, Content, Formula, Piece
from attncli.render.xlsx.overflow import half_product, shifted_exp
from attncli.steps.labels import token_labels


def source(ctx: Context) -> Block:
    """What the mixture reads: the normed rows of a pre-norm layer, else the sublayer's input."""
    return ctx.places["ffn_in"] if ctx.places.get("ffn_in") is not None else ctx.places["h"]


def router(ctx: Context, step: Step) -> list[Piece]:
    """L = X·W_r + b_r; P = e^(L − max) over the experts the token is routed to, divided by
    their sum, and 0 for the rest. The experts are attn's: those it gave a weight above 0 (its
    top k, the first of those tied at the k-th logit), as its experts' rows are (steps/moe.py).
    A spreadsheet compares numbers to about 15 digits: logits attn tells apart by one ulp
    (0.3 and 0.30000000000000004) tied there, and its own choice routed the token to an expert
    whose rows had no place for it (F was 0). Each term is 0 where its e^(L − max) is too
    small to tell from 0, which a logit of −1e308 under a max of 1e308 made #NUM!."""
    x = source(ctx)
    pieces = [given_piece(m, i, m.symbol.text) for i, m in enumerate(step.matrices)
              if m.symbol.text in ("W_r", "b_r")]
    biased = find(step, "b_r") is not None
    logits = find(step, "L")
    assert logits is not None
    weights = step.matrices[-1].values  # (n, experts), attn's P

    def weight(i: int, e: int) -> Content:
        routed = [ctx.at("L", i, c) for c in range(weights.shape[1]) if weights[i, c] > 0.0]
        if weights[i, e] <= 0.0:
            return Formula("=0")
        top = f"MAX({','.join(routed)})"
        total = "+".join(shifted_exp(cell, top) for cell in routed)
        return Formula(f"={shifted_exp(ctx.at('L', i, e), top)}/({total})")

    return [*pieces,
            computed(step, logits, "L", lambda i, j: projected(
                ctx, x, ctx.places["W_r"], ctx.places["b_r"] if biased else None)(i, j)),
            computed(step, len(step.matrices) - 1, "P", weight)]


def expert(ctx: Context, step: Step) -> list[Piece]:
    """G = MIN(X·W_1 + b_1, ℓ), U = MAX(MIN(X·W_3 + b_3, ℓ), −ℓ), M = (U + 1)·G·σ(α·G),
    Eₑ = M·W_2 + b_2, on the rows of the tokens routed to this expert."""
    settings = ctx.spec.block
    assert settings is not None and settings.moe is not None
    moe = settings.moe
    index = dict(step.title.params)["index"]  # which expert: the number in its title
    assert isinstance(index, int)
    x = source(ctx)
    g_at = find(step, "G")
    assert g_at is not None
    labels = token_labels(ctx.spec.queries.tokens)
    rows = [labels.index(label) for label in step.matrices[g_at].rows]
    ctx.routed[index] = rows
    pieces = [given_piece(m, i, m.symbol.text) for i, m in enumerate(step.matrices)
              if m.symbol.text in ("W_1", "b_1", "W_3", "b_3", "W_2", "b_2")]
    limit = literal(moe.limit)

    def linear(w: str, b: str, i: int, j: int) -> str:
        plus = "" if find(step, b) is None else "+" + ctx.at(b, 0, j)
        return product(ctx, x, rows[i], ctx.places[w], j) + plus

    def gate(i: int, j: int) -> Content:
        return Formula(f"=MIN({linear('W_1', 'b_1', i, j)},{limit})", array=ctx.row)

    def up(i: int, j: int) -> Content:
        return Formula(f"=MAX(MIN({linear('W_3', 'b_3', i, j)},{limit}),-{limit})",
                       array=ctx.row)

    def gated(i: int, j: int) -> Content:
        g = ctx.at("G", i, j)
        return Formula(f"=({ctx.at('U', i, j)}+1)*{g}*0.5*(1+TANH({half_product(moe.alpha, g)}))")

    def out(i: int, j: int) -> Content:
        plus = "" if find(step, "b_2") is None else "+" + ctx.at("b_2", 0, j)
        return Formula(f"={product(ctx, ctx.places['M'], i, ctx.places['W_2'], j)}{plus}",
                       array=ctx.row)

    last = len(step.matrices) - 1
    return [*pieces, computed(step, g_at, "G", gate), computed(step, g_at + 1, "U", up),
            computed(step, g_at + 2, "M", gated), computed(step, last, f"E@{index}", out)]


def weighted(ctx: Context, step: Step) -> list[Piece]:
    """F = Σₑ P[:, e]·Eₑ: each token's row the sum over the experts routed to it."""
    def fill(i: int, j: int) -> Content:
        terms = [f"{ctx.at('P', i, e - 1)}*{ctx.at(f'E@{e}', rows.index(i), j)}"
                 for e, rows in sorted(ctx.routed.items()) if i in rows]
        return Formula("=" + ("+".join(terms) or "0"))

    return [computed(step, 0, "F", fill, "out")]
