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
    """L = X·W_r + b_r; P = e^(L − max) over the row's k largest entries, divided by their sum,
    and 0 for the rest; of entries tied at the k-th largest, the first ones, as attn's stable
    order takes them (a router of zero weights ties every expert: each was given 1/experts).
    An array formula, so that IF takes each term of the sum apart: SUMPRODUCT((row>=kth)*
    EXP(row-max)) was #NUM! where an unrouted logit of −1e308 under a max of 1e308 made its
    e^(L − max) overflow, though its factor was 0."""
    settings = ctx.spec.block
    assert settings is not None and settings.moe is not None
    k = settings.moe.top_k
    x = source(ctx)
    pieces = [given_piece(m, i, m.symbol.text) for i, m in enumerate(step.matrices)
              if m.symbol.text in ("W_r", "b_r")]
    biased = find(step, "b_r") is not None
    logits = find(step, "L")
    assert logits is not None

    def weight(i: int, e: int) -> Content:
        row = ctx.places["L"].row_range(i, ctx.sheet)
        cell = ctx.at("L", i, e)
        kth, top = f"LARGE({row},{k})", f"MAX({row})"
        above = f"SUM(IF({row}>{kth},1,0))"  # experts above the k-th logit, all routed
        # of the experts tied at the k-th logit, the first k − above (attn's stable order)
        earlier = ctx.places["L"].row_range(i, ctx.sheet, columns=e)
        before = "0" if e == 0 else f"SUM(IF({earlier}={kth},1,0))"
        chosen = f"OR({cell}>{kth},AND({cell}={kth},{before}<{k}-{above}))"
        routed = (f"(SUM(IF({row}>{kth},{shifted_exp(row, top)},0))"
                  f"+({k}-{above})*{shifted_exp(kth, top)})")
        return Formula(f"=IF({chosen},{shifted_exp(cell, top)}/{routed},0)", array=True)

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
