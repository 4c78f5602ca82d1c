"""The cells of the layer around the heads: the embeddings and positions, the heads side by side,
W_O, the residual adds, LayerNorm or RMSNorm, and the feed-forward network."""

from __future__ import annotations

from attncli.model import Step
from attncli.render.xlsx.cells import (
    Context,
    added,
    computed,
    find,
    given_piece,
    literal,
    product,
    projected,
)
from attncli.render.xlsx.grid import Block, Content, Fill, Formula, Piece
from attncli.spec.model import Norm, RMSNorm


def embeddings(ctx: Context, step: Step) -> list[Piece]:
    """E (or X): the numbers every later cell comes from."""
    keys = ("E",) if step.matrices[0].symbol.text == "E" else ("X", "x_in", "keys_from", "h")
    return [given_piece(step.matrices[0], 0, *keys)]


def positional(ctx: Context, step: Step) -> list[Piece]:
    """P (sinusoidal: sin and cos of the position over base^(2i/d)), and X = E + P."""
    setting = ctx.spec.queries.positional
    if setting is not None and setting.kind == "sinusoidal":
        d = step.matrices[0].shape[1]
        base = literal(setting.base)

        def wave(i: int, j: int) -> Content:
            return Formula(f"={'SIN' if j % 2 == 0 else 'COS'}({i}/{base}^({2 * (j // 2)}/{d}))")

        p = computed(step, 0, "P", wave)
    else:
        p = given_piece(step.matrices[0], 0, "P")
    x = computed(step, 1, "X", lambda i, j: added(ctx, ctx.places["E"], ctx.places["P"])(i, j),
                 "x_in", "keys_from", "h")
    return [p, x]


def context(ctx: Context, step: Step) -> list[Piece]:
    return [given_piece(step.matrices[0], 0, "C", "keys_from")]


def norm(ctx: Context, step: Step) -> list[Piece]:
    """LayerNorm: μ and σ = √(mean of (x − μ)² + eps) of each row, then (x − μ)/σ·gain + bias;
    RMSNorm: RMS = √(mean of x² + eps), then x/RMS·gain. Which rows it reads and what it
    gives depends on where it stands: before the heads (pre-norm), after a sublayer (post-norm),
    or before the feed-forward network (pre-norm)."""
    block = ctx.spec.block
    assert block is not None and block.norms is not None
    first = step.id == "norm_1"
    setting = block.norms[0 if first else 1]
    pre = block.norm == "pre"
    source = ("X" if first else "h") if pre else ("h" if first else "out")
    if pre:  # before the heads, keys and values come from the normed rows too, unless from C
        gives = (("x_in",) + (("keys_from",) if ctx.spec.context is None else ())
                 if first else ("ffn_in",))
    else:
        gives = ("h",) if first else ("out",)
    return normed(ctx, step, setting, ctx.places[source], gives)


def sandwich(ctx: Context, step: Step) -> list[Piece]:
    """The norm of a sublayer's output before its residual add: O′ of the attention output, F′
    of the feed-forward's; what the residual add reads in their place."""
    block = ctx.spec.block
    assert block is not None and block.sandwich is not None
    if step.id == "sandwich_1":
        return normed(ctx, step, block.sandwich[0], ctx.places["attention"], ("attention", "h"))
    return normed(ctx, step, block.sandwich[1], ctx.places["F"], ("F", "out"))


def normed(ctx: Context, step: Step, setting: Norm, x: Block,
           gives: tuple[str, ...]) -> list[Piece]:
    """The cells of one LayerNorm or RMSNorm of the rows of `x`, its result found by `gives`."""
    on, d = ctx.sheet, x.shape[1]
    eps = literal(setting.eps)
    gain, bias = find(step, "gain"), find(step, "bias")
    pieces = [given_piece(step.matrices[i], i, name)
              for i, name in ((gain, "gain"), (bias, "bias")) if i is not None]
    last = len(step.matrices) - 1
    if isinstance(setting, RMSNorm):
        pieces.insert(0, computed(step, 0, "rms", lambda i, j: Formula(
            f"=SQRT(SUMSQ({x.row_range(i, on)})/{d}+{eps})")))

        def rms_out(i: int, j: int) -> Content:
            scaled = f"{x.cell(i, j, on)}/{ctx.at('rms', i, 0)}"
            return Formula("=" + scaled + (f"*{ctx.at('gain', 0, j)}" if gain is not None
                                           else ""))

        return [*pieces, computed(step, last, gives[0], rms_out, *gives[1:])]

    def stats(i: int, j: int) -> Content:
        if j == 0:
            return Formula(f"=AVERAGE({x.row_range(i, on)})")
        # (x − μ)·(x − μ), not ^2: LibreOffice's power is #NUM! where it underflows (a row
        # whose entries differ by 10⁻²⁰⁰), a product is 0 as in NumPy
        deviation = f"{x.row_range(i, on)}-{ctx.at('stats', i, 0)}"
        return Formula(f"=SQRT(SUMPRODUCT({deviation},{deviation})/{d}+{eps})")

    def normed(i: int, j: int) -> Content:
        text = f"({x.cell(i, j, on)}-{ctx.at('stats', i, 0)})/{ctx.at('stats', i, 1)}"
        if gain is not None:
            text += f"*{ctx.at('gain', 0, j)}"
        if bias is not None:
            text += f"+{ctx.at('bias', 0, j)}"
        return Formula("=" + text)

    return [computed(step, 0, "stats", stats), *pieces,
            computed(step, last, gives[0], normed, *gives[1:])]


def concat(ctx: Context, step: Step) -> list[Piece]:
    """The heads' outputs side by side: each cell the cell of a head's Z."""
    where: list[tuple[Block, int]] = []  # column of the concatenation -> (head's Z, its column)
    head = 1
    while (z := ctx.places.get(f"Z@{head}")) is not None:
        where += [(z, j) for j in range(z.shape[1])]
        head += 1

    def fill(i: int, j: int) -> Content:
        z, column = where[j]
        return Formula("=" + z.cell(i, column, ctx.sheet))

    return [computed(step, 0, "concat", fill, "attention", "h")]


def out_projection(ctx: Context, step: Step) -> list[Piece]:
    """O = Concat(…)·W_O + b_O."""
    pieces = [given_piece(m, i, m.symbol.text) for i, m in enumerate(step.matrices[:-1])]
    x = ctx.places["attention"]  # the heads side by side, or the one head's Z
    b = "b_O" if find(step, "b_O") is not None else None

    def fill(i: int, j: int) -> Content:
        bias = ctx.places[b] if b is not None else None
        return projected(ctx, x, ctx.places["W_O"], bias)(i, j)

    return [*pieces, computed(step, len(step.matrices) - 1, "O", fill, "attention", "h")]


def residual(ctx: Context, step: Step) -> list[Piece]:
    """R₁ = X + the attention sublayer; R₂ = its input + F."""
    if step.id == "residual_1":
        return [computed(step, 0, "R1", lambda i, j: added(
            ctx, ctx.places["X"], ctx.places["attention"])(i, j), "h")]
    return [computed(step, 0, "R2", lambda i, j: added(ctx, ctx.places["h"],
                                                       ctx.places["F"])(i, j), "out")]


ACTIVATION = {  # x -> activation(x), as attncli/compute/ops.py computes it
    "relu": "MAX(0,{x})",
    "gelu": "0.5*{x}*(1+ERF({x}/SQRT(2)))",
    # past |x| = 20 the tanh is 1 (or −1) in a float64, and x³ overflows a spreadsheet's
    # numbers from |x| ≈ 5.6×10¹⁰² where NumPy's inf passes through tanh: the result as NumPy's.
    # x·x·x, not x^3: LibreOffice's power is #NUM! where it underflows (|x| below ≈ 10⁻¹⁰³),
    # a product is 0 there, as in NumPy
    "gelu_tanh": "IF(ABS({x})>20,0.5*{x}*(1+SIGN({x})),"
                 "0.5*{x}*(1+TANH(SQRT(2/PI())*({x}+0.044715*{x}*{x}*{x}))))",
    "geglu": "0.5*{x}*(1+ERF({x}/SQRT(2)))",
    "geglu_tanh": "IF(ABS({x})>20,0.5*{x}*(1+SIGN({x})),"
                  "0.5*{x}*(1+TANH(SQRT(2/PI())*({x}+0.044715*{x}*{x}*{x}))))",
    "silu": "{x}*0.5*(1+TANH(0.5*{x}))",
    "swiglu": "{x}*0.5*(1+TANH(0.5*{x}))",
}


def ffn(ctx: Context, step: Step) -> list[Piece]:
    """H = act(Y·W_1 + b_1) (gated: G = act(Y·W_1 + b_1), U = Y·W_3 + b_3, H = G ⊙ U), then
    F = H·W_2 + b_2; the pre-activation Y·W_1 + b_1 is a block of its own, so that no formula
    repeats it."""
    settings = ctx.spec.block
    assert settings is not None and settings.ffn is not None
    act = ACTIVATION[settings.ffn.activation]
    source = "ffn_in" if ctx.places.get("ffn_in") is not None else "h"
    names = ("W_1", "b_1", "W_3", "b_3", "W_2", "b_2")
    pieces = [given_piece(m, i, m.symbol.text) for i, m in enumerate(step.matrices)
              if m.symbol.text in names]
    hidden = step.matrices[find(step, "H") or 0]

    def bias(name: str) -> Block | None:
        return ctx.places[name] if find(step, name) is not None else None

    def linear(w: str, b: str) -> Fill:
        return lambda i, j: projected(ctx, ctx.places[source], ctx.places[w], bias(b))(i, j)

    given_to = ctx.places[source].name
    title = (f"{given_to}·W_1" if ctx.row else f"W_1·{given_to}") + (
        " + b_1" if find(step, "b_1") is not None else "")
    pieces.append(Piece("pre", title, hidden.rows, hidden.columns, linear("W_1", "b_1"), None))

    def activated(i: int, j: int) -> Content:
        return Formula("=" + act.format(x=ctx.at("pre", i, j)))

    gate, up = find(step, "G"), find(step, "U")
    if gate is not None and up is not None:
        pieces.append(computed(step, gate, "G", activated))
        pieces.append(computed(step, up, "U", linear("W_3", "b_3")))
        pieces.append(computed(step, find(step, "H") or 0, "H", lambda i, j: Formula(
            f"={ctx.at('G', i, j)}*{ctx.at('U', i, j)}")))
    else:
        pieces.append(computed(step, find(step, "H") or 0, "H", activated))

    def out(i: int, j: int) -> Content:
        h, w, on = ctx.places["H"], ctx.places["W_2"], ctx.sheet
        b = bias("b_2")
        plus = "" if b is None else "+" + b.cell(0, j, on)
        return Formula(f"={product(ctx, h, i, w, j)}{plus}", array=ctx.row)

    return [*pieces, computed(step, find(step, "F") or 0, "F", out, "out")]
