"""The cells of one head: Q, K, V from the weights, RoPE, the scores, the mask, the softmax with
its row maximum subtracted (so e^x never overflows) and the output, each a formula of the cells
before it."""

from __future__ import annotations

import math

from attncli.compute.rope_scaling import attention_factor
from attncli.i18n import Msg
from attncli.model import Step
from attncli.render.xlsx.cells import (
    Context,
    computed,
    find,
    given_piece,
    literal,
    number,
    projected,
)
from attncli.render.xlsx.grid import HIDDEN, Block, Content, Formula, Piece
from attncli.render.xlsx.overflow import shifted_exp


def parameters(ctx: Context, step: Step) -> list[Piece]:
    """W_Q, W_K, W_V and the biases this head has: given. A bias this head has not must not be
    read from the head before it."""
    for letter in "QKV":
        if find(step, "b_" + letter) is None:
            ctx.places.latest.pop("b_" + letter, None)
    return [given_piece(m, index, m.symbol.text) for index, m in enumerate(step.matrices)]


def projections(ctx: Context, step: Step) -> list[Piece]:
    """Q = X·W_Q + b_Q; K and V likewise, from the context C when keys come from another
    sequence. A head sharing K and V (grouped queries) shows only Q; later formulas read the
    shared K and V where they stand."""
    pieces = []
    for letter in "QKV":
        index = find(step, letter)
        if index is None:
            continue
        x = ctx.places["x_in"] if letter == "Q" else ctx.places["keys_from"]
        fill = projected(ctx, x, ctx.places["W_" + letter], ctx.places.get("b_" + letter))
        pieces.append(computed(step, index, letter, fill, letter.lower() + "_rows"))
    return pieces


def qk_norm(ctx: Context, step: Step) -> list[Piece]:
    """RMS(Q) = √(mean(q²) + eps) of each row, Q̃ = Q / RMS(Q) ⊙ g_q; K alike. Over the whole
    projection the RMS reads every head's queries, on other sheets: it is held as a number."""
    norm = ctx.spec.qk_norm
    assert norm is not None
    pieces: list[Piece] = []
    on = ctx.sheet
    for letter in "QK":
        result = find(step, letter + "\u0303")
        if result is None:
            continue  # a shared K̃ is read where it stands
        rms, gain = f"RMS({letter})", find(step, f"g_{letter.lower()}")
        rms_at = find(step, rms)
        assert rms_at is not None
        source = ctx.places[letter]
        d_k = step.matrices[result].shape[1]
        if norm.over == "head":
            def root(i: int, j: int, source: Block = source, d_k: int = d_k) -> Content:
                return Formula(f"=SQRT(SUMSQ({source.row_range(i, on)})/{d_k}"
                               f"+{literal(norm.eps)})")

            pieces.append(computed(step, rms_at, rms, root))
        else:
            pieces.append(given_piece(step.matrices[rms_at], rms_at, rms))
        if gain is not None:
            pieces.append(given_piece(step.matrices[gain], gain, f"g_{letter.lower()}"))

        def fill(i: int, j: int, source: Block = source, letter: str = letter, rms: str = rms,
                 scaled: bool = gain is not None) -> Content:
            value = f"={source.cell(i, j, on)}/{ctx.at(rms, i, 0)}"
            return Formula(value + (f"*{ctx.at('g_' + letter.lower(), 0, j)}" if scaled else ""))

        pieces.append(computed(step, result, letter + "_normed", fill, letter.lower() + "_rows",
                               letter))
    return pieces


def rope(ctx: Context, step: Step) -> list[Piece]:
    """ωᵢ = base^(−2i/d_k), the angles p·ωᵢ, and Q̂, K̂: each pair of features turned."""
    settings = (ctx.spec.queries.positional, ctx.spec.keys_source.positional)
    setting = next(p for p in settings if p is not None and p.kind == "rope")
    pairs = step.matrices[0].shape[1]
    d_k = 2 * pairs
    pieces = [computed(step, 0, "ω" if setting.scaling is None else "ω_unscaled",
                       lambda i, j: Formula(f"={literal(setting.base)}^(-2*{j}/{d_k})"))]
    if setting.scaling is not None:  # the scaled ωᵢ as attn computed them (the step's cell)
        pieces.append(given_piece(step.matrices[1], 1, "ω"))
    gain = attention_factor(setting.scaling)  # YaRN's attention factor on cos and sin
    opened, times = ("", "") if gain == 1.0 else ("(", f")*{literal(gain)}")
    angle_indices = [i for i, m in enumerate(step.matrices) if m.symbol.text.startswith("p·ω")]
    for n, at in enumerate(angle_indices):
        pieces.append(computed(step, at, "angles_q" if n == 0 else "angles_k", lambda i, j: (
            Formula(f"={i}*{ctx.at('ω', 0, j)}")), *(("angles_k",) if n == 0 else ())))
    if setting.layout == "half":
        first, second = list(range(pairs)), [i + pairs for i in range(pairs)]
    else:
        first, second = [2 * i for i in range(pairs)], [2 * i + 1 for i in range(pairs)]
    for letter in "QK":
        turned = find(step, letter + "\u0302")
        if turned is None:
            continue
        source, angles = letter, "angles_" + letter.lower()

        def fill(i: int, j: int, source: str = source, angles: str = angles) -> Content:
            pair = first.index(j) if j in first else second.index(j)
            a, b = ctx.at(source, i, first[pair]), ctx.at(source, i, second[pair])
            angle = ctx.at(angles, i, pair)
            if j in first:
                return Formula(f"={opened}{a}*COS({angle})-{b}*SIN({angle}){times}")
            return Formula(f"={opened}{a}*SIN({angle})+{b}*COS({angle}){times}")

        pieces.append(computed(step, turned, letter + "_turned", fill, letter.lower() + "_rows"))
    return pieces


def scores(ctx: Context, step: Step) -> list[Piece]:
    """S[i, j] = qᵢ·kⱼ, or qᵢ·W·kⱼ for the `general` score (W given beside it)."""
    q, k, on = ctx.places["q_rows"], ctx.places["k_rows"], ctx.sheet
    W = ctx.spec.score.W
    if ctx.spec.score.kind != "general" or W is None:
        return [computed(step, 0, "logits", lambda i, j: Formula(
            f"=SUMPRODUCT({q.row_range(i, on)},{k.row_range(j, on)})"))]
    weights = Piece("W_score", "W", tuple(f"d{r + 1}" for r in range(W.shape[0])),
                    tuple(f"d{c + 1}" for c in range(W.shape[1])),
                    lambda i, j: number(float(W[i, j])), None, computed=False)

    def general(i: int, j: int) -> Content:
        w = ctx.places["W_score"]
        whole = f"{w.cell(0, 0, on)}:{w.cell(w.shape[0] - 1, w.shape[1] - 1, on)}"
        return Formula(f"=SUMPRODUCT(MMULT({q.row_range(i, on)},{whole}),{k.row_range(j, on)})",
                       array=True)

    return [weights, computed(step, 0, "logits", general)]


def scaled(ctx: Context, step: Step) -> list[Piece]:
    """S′ = S / √d_k (or the spec's divisor)."""
    scale = ctx.spec.scale
    d_k = ctx.places["q_rows"].shape[1]
    by = f"SQRT({d_k})" if scale.kind == "sqrt_dk" else literal(scale.value)
    before = ctx.places["logits"]
    return [computed(step, 0, "logits", lambda i, j: Formula(
        f"={before.cell(i, j, ctx.sheet)}/{by}"))]


def softcap(ctx: Context, step: Step) -> list[Piece]:
    """S″ = c·tanh(S′ / c), Gemma 2's soft-capping. Past |S′ / c| = 20 the tanh is ±1 in a
    float64, and S′ / c overflows a spreadsheet's numbers where a tiny cap (5e-324) meets a
    score of 1 and NumPy's inf passes through tanh: there the result as NumPy's, ±c."""
    assert ctx.spec.softcap is not None
    c = literal(ctx.spec.softcap)
    before = ctx.places["logits"]

    def fill(i: int, j: int) -> Content:
        s = before.cell(i, j, ctx.sheet)
        return Formula(f"=IF(ABS({s})/20>{c},SIGN({s})*{c},{c}*TANH({s}/{c}))")
    return [computed(step, 0, "logits", fill)]


def sinks(ctx: Context, step: Step) -> list[Piece]:
    """A_s = 1 − Σⱼ A[i, j], the weight each query gave the sink (gpt-oss)."""
    a = ctx.places["A"]
    return [computed(step, 0, "sink", lambda i, j: Formula(
        f"=1-SUM({a.row_range(i, ctx.sheet)})"))]


def bias(ctx: Context, step: Step) -> list[Piece]:
    """S′ + B, with B given (ALiBi's slopes or the spec's matrix); −∞ in B hides a key."""
    before = ctx.places["logits"]
    pieces = [given_piece(step.matrices[0], 0, "B")]

    def fill(i: int, j: int) -> Content:
        s, b = before.cell(i, j, ctx.sheet), ctx.at("B", i, j)
        return Formula(f'=IF(AND(ISNUMBER({s}),ISNUMBER({b})),{s}+{b},"{HIDDEN}")')

    return [*pieces, computed(step, 1, "logits", fill)]


def masked(ctx: Context, step: Step) -> list[Piece]:
    """S + M, M holding 0 where a key is visible and −∞ (text) where it is hidden: a student may
    hide a key by typing any text into M, or show it with a 0."""
    result = step.matrices[0]
    before = ctx.places["logits"]
    values = result.whole()
    mask = Piece("M", "M", result.rows, result.columns,
                 lambda i, j: HIDDEN if values[i, j] == -math.inf else 0.0, None, computed=False)

    def fill(i: int, j: int) -> Content:
        s, m = before.cell(i, j, ctx.sheet), ctx.at("M", i, j)
        return Formula(f'=IF(AND(ISNUMBER({s}),ISNUMBER({m})),{s}+{m},"{HIDDEN}")')

    return [mask, computed(step, 0, "logits", fill)]


def weights(ctx: Context, step: Step) -> list[Piece]:
    """max of each row, e^(s − max), their row sum Σ, and A = e / Σ; with a sink logit
    (gpt-oss), the sink joins the max and adds its e^(s − max) to Σ. e^(s − max) is 0 where
    s − max is far below −745 (`shifted_exp`): a bias of −1e308 under a max of 1e308 was
    #NUM!, and so was every weight and output after it."""
    s, on = ctx.places["logits"], ctx.sheet
    labels = step.matrices[0].rows
    t = ctx.t
    empty = '"NaN"' if ctx.spec.masked_rows == "nan" else "0"
    sinks = ctx.spec.sinks
    sink = None if sinks is None else literal(sinks[(step.head or 1) - 1])

    def row_max(i: int, j: int) -> Content:  # MAX skips the text −∞ of hidden keys
        if sink is not None:
            return Formula(f"=MAX({s.row_range(i, on)},{sink})")
        return Formula(f"=MAX({s.row_range(i, on)})")

    def exp(i: int, j: int) -> Content:
        x = s.cell(i, j, on)
        return Formula(f"=IF(ISNUMBER({x}),{shifted_exp(x, ctx.at('max', i, 0))},0)")

    def total(i: int, j: int) -> Content:
        if sink is not None:
            return Formula(f"=SUM({ctx.places['exp'].row_range(i, on)})"
                           f"+{shifted_exp(sink, ctx.at('max', i, 0))}")
        return Formula(f"=SUM({ctx.places['exp'].row_range(i, on)})")

    def weight(i: int, j: int) -> Content:
        z = ctx.at("sum", i, 0)
        return Formula(f"=IF({z}>0,{ctx.at('exp', i, j)}/{z},{empty})")

    max_name, sum_name = t(Msg.of("row max")), t(Msg.of("row sum"))
    columns_of = step.matrices[0].columns
    return [
        Piece("max", "max", labels, (max_name,), row_max, None),
        Piece("exp", "e^(x − max)", labels, columns_of, exp, None,
              hidden=step.matrices[0].hidden if step.matrices[0].hidden_by is not None else None),
        Piece("sum", "Σ", labels, (sum_name,), total, None),
        computed(step, 0, "A", weight),
    ]


def output(ctx: Context, step: Step) -> list[Piece]:
    """Z = A·V: row i of A times column j of V."""
    a, v, on = ctx.places["A"], ctx.places["v_rows"], ctx.sheet

    def fill(i: int, j: int) -> Content:
        return Formula(f"=MMULT({a.row_range(i, on)},{v.column_range(j, on)})", array=True)

    keys = ("attention", "h") if ctx.heads == 1 else ()
    return [computed(step, 0, "Z", fill, f"Z@{step.head or 1}", *keys)]
