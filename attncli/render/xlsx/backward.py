"""The cells of the backward pass (attncli/compute/gradients.py), each gradient a formula of the
forward
blocks and of the gradients before it, so that an edited embedding or dO changes them too:

    dW_O = Zᵀ·dO,  dZ = dO·W_Oᵀ;  dV = Aᵀ·dZ,  dA = dZ·Vᵀ;  dS′ = A ⊙ (dA − rowsum(dA ⊙ A));
    dS = dS′ / √d_k;  dQ = dS·K,  dK = dSᵀ·Q;  dW_Q = Xᵀ·dQ …;  dX = Σ dQ·W_Qᵀ + dK·W_Kᵀ + dV·W_Vᵀ

The gradient through the rest of a layer (LayerNorm, FFN) and the `general` score keep attn's
numbers as values: a writer returns None for them."""

from __future__ import annotations

from attncli.model import Step
from attncli.render.xlsx.cells import Context, computed, find, given_piece, literal
from attncli.render.xlsx.grid import Block, Content, Fill, Formula, Piece


def head_key(ctx: Context, step: Step, key: str) -> Block:
    """`key` as it stood when the head of `step` was done (its A, its K …)."""
    return ctx.places[f"{key}@{step.head or 1}"]


def formulas(ctx: Context) -> bool:
    """Whether this spec's gradients are written as formulas here."""
    return ctx.spec.score.kind != "general"


def grad_output(ctx: Context, step: Step) -> list[Piece] | None:
    """dO: given (all ones by default), or, after a block, attn's values."""
    return [given_piece(step.matrices[0], 0, "dO", "dZ_all")]


def columns_product(ctx: Context, left: Block, i: int, right: Block, j: int) -> str:
    """Σ over rows of left[:, i]·right[:, j]: a cell of leftᵀ·right."""
    return f"SUMPRODUCT({left.column_range(i, ctx.sheet)},{right.column_range(j, ctx.sheet)})"


def times_transposed(ctx: Context, g: Block, i: int, w: Block, r: int) -> Formula:
    """(g·W_usedᵀ)[i, r]: the row convention's W row r; the column convention's W column r."""
    on = ctx.sheet
    if ctx.row:
        return Formula(f"SUMPRODUCT({g.row_range(i, on)},{w.row_range(r, on)})")
    return Formula(f"MMULT({g.row_range(i, on)},{w.column_range(r, on)})", array=True)


def weight_gradient(ctx: Context, x: Block, grad: Block) -> Fill:
    """dW as the spec writes W: xᵀ·grad (row convention), gradᵀ·x (column)."""
    def fill(i: int, j: int) -> Content:
        if ctx.row:
            return Formula("=" + columns_product(ctx, x, i, grad, j))
        return Formula("=" + columns_product(ctx, grad, i, x, j))
    return fill


def column_sums(ctx: Context, grad: Block) -> Fill:
    return lambda i, j: Formula(f"=SUM({grad.column_range(j, ctx.sheet)})")


def grad_out_projection(ctx: Context, step: Step) -> list[Piece] | None:
    if not formulas(ctx):
        return None
    d_o, w_o = ctx.places["dO"], ctx.places["W_O"]
    z = ctx.places.get("concat") or ctx.places["Z@1"]
    pieces = [computed(step, 0, "dW_O", weight_gradient(ctx, z, d_o))]
    at = find(step, "db_O")
    if at is not None:
        pieces.append(computed(step, at, "db_O", column_sums(ctx, d_o)))

    def dz(i: int, j: int) -> Content:
        f = times_transposed(ctx, d_o, i, w_o, j)
        return Formula("=" + f.text, f.array)

    return [*pieces, computed(step, len(step.matrices) - 1, "dZ_all", dz)]


def grad_values(ctx: Context, step: Step) -> list[Piece] | None:
    """dZ (this head's columns of the whole dZ), dV = Aᵀ·dZ, dA = dZ·Vᵀ."""
    if not formulas(ctx):
        return None
    head = step.head or 1
    offset = sum(ctx.places[f"Z@{h}"].shape[1] for h in range(1, head))
    whole = ctx.places["dZ_all"]
    a, v, on = head_key(ctx, step, "A"), head_key(ctx, step, "v_rows"), ctx.sheet
    return [
        computed(step, 0, "dZ", lambda i, j: Formula("=" + whole.cell(i, offset + j, on))),
        computed(step, 1, "dV", lambda i, j: Formula(
            "=" + columns_product(ctx, a, i, ctx.places["dZ"], j))),
        computed(step, 2, "dA", lambda i, j: Formula(
            f"=SUMPRODUCT({ctx.places['dZ'].row_range(i, on)},{v.row_range(j, on)})")),
    ]


def grad_softmax(ctx: Context, step: Step) -> list[Piece] | None:
    """dS′ = A ⊙ (dA − rowsum(dA ⊙ A)); N() reads an undefined weight (NaN) as 0, as attn."""
    if not formulas(ctx):
        return None
    a, da, on = head_key(ctx, step, "A"), ctx.places["dA"], ctx.sheet

    def fill(i: int, j: int) -> Content:
        return Formula(f"=N({a.cell(i, j, on)})*({da.cell(i, j, on)}-"
                       f"SUMPRODUCT({da.row_range(i, on)},{a.row_range(i, on)}))")

    return [computed(step, 0, "dS′", fill, "dS")]


def grad_scores(ctx: Context, step: Step) -> list[Piece] | None:
    """dS = dS′ / √d_k (or the spec's divisor)."""
    if not formulas(ctx):
        return None
    before, scale = ctx.places["dS′"], ctx.spec.scale
    by = (f"SQRT({head_key(ctx, step, 'q_rows').shape[1]})" if scale.kind == "sqrt_dk"
          else literal(scale.value))
    return [computed(step, 0, "dS", lambda i, j: Formula(
        f"={before.cell(i, j, ctx.sheet)}/{by}"))]


def grad_projections(ctx: Context, step: Step) -> list[Piece] | None:
    """dQ = dS·K, dK = dSᵀ·Q (the rotated Q̂, K̂ after RoPE, as attn takes them)."""
    if not formulas(ctx):
        return None
    ds, on = ctx.places["dS"], ctx.sheet
    q, k = head_key(ctx, step, "q_rows"), head_key(ctx, step, "k_rows")
    return [
        computed(step, 0, "dQ", lambda i, j: Formula(
            f"=MMULT({ds.row_range(i, on)},{k.column_range(j, on)})", array=True)),
        computed(step, 1, "dK", lambda i, j: Formula("=" + columns_product(ctx, ds, i, q, j))),
    ]


def grad_weights(ctx: Context, step: Step) -> list[Piece] | None:
    """dW_Q = Xᵀ·dQ, dW_K = Xᵀ·dK, dW_V = Xᵀ·dV (K and V from C with cross-attention), and
    each bias's gradient the column sums."""
    if not formulas(ctx):
        return None
    pieces = []
    for index, matrix in enumerate(step.matrices):
        name = matrix.symbol.text  # dW_Q, db_Q …
        letter = name[-1]
        grad = ctx.places["d" + letter]
        x = head_key(ctx, step, "x_in" if letter == "Q" else "keys_from")
        fill = (column_sums(ctx, grad) if name.startswith("db")
                else weight_gradient(ctx, x, grad))
        pieces.append(computed(step, index, name, fill))
    return pieces


def grad_input(ctx: Context, step: Step) -> list[Piece] | None:
    """dX = Σ_heads dQ·W_Qᵀ (+ dK·W_Kᵀ + dV·W_Vᵀ unless K and V come from C, whose dC they
    make); after a block attn adds the residual's share and LayerNorm's backward: values."""
    if not formulas(ctx) or ctx.spec.block is not None:
        return None
    heads = range(1, ctx.heads + 1)
    own = ctx.spec.context is None

    def terms(letters: str) -> list[tuple[Block, Block]]:
        return [(ctx.places[f"d{letter}@{h}"], ctx.places[f"W_{letter}@{h}"])
                for h in heads for letter in letters]

    def total(parts: list[tuple[Block, Block]]) -> Fill:
        def fill(i: int, r: int) -> Content:
            made = [times_transposed(ctx, g, i, w, r) for g, w in parts]
            return Formula("=" + "+".join(f.text for f in made), any(f.array for f in made))
        return fill

    pieces = [computed(step, 0, "dX", total(terms("QKV" if own else "Q")))]
    if not own:
        pieces.append(computed(step, 1, "dC", total(terms("KV"))))
    return pieces
