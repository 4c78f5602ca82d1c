"""A mixture of experts in place of the feed-forward (gpt-oss): the router's logits and each
token's weights over its top k experts, each chosen expert on the tokens routed to it (its
clamped SwiGLU), and their weighted sum."""

from __future__ import annotations

import numpy as np

from attncli.arithmetic.constants import constant
from attncli.compute.moe import clamped_swiglu, route
from attncli.i18n import Msg, Symbol
from attncli.model import Formula, Matrix, Step
from attncli.spec.model_ffn import Expert, Mixture
from attncli.steps.base import Build, feature_labels, weights_shown


def mixture(b: Build, moe: Mixture, h: Matrix) -> tuple[tuple[Step, ...], Matrix]:
    """The router's step, one step per expert some token goes to, and F = Σₑ P[:, e]·Eₑ."""
    names = tuple(f"e{i}" for i in range(1, len(moe.experts) + 1))
    logits = b.calc.rounded(b.calc.project(h.values, moe.W_r, moe.b_r,
                                           b.spec.convention))  # (n, experts)
    b.finite(logits, "L", h.rows, names)
    weights = b.calc.rounded(route(logits, moe.top_k))  # (n, experts)
    steps = [router(b, moe, h, logits, weights, names)]
    f = np.zeros_like(h.values)  # (n, d_model)
    for index, expert in enumerate(moe.experts):
        routed = np.flatnonzero(weights[:, index] > 0.0)  # the tokens that chose it
        if routed.size == 0:
            continue
        step, out = expert_step(b, moe, expert, index + 1, h, routed)
        steps.append(step)
        f[routed] += weights[routed, index][:, None] * out  # (r, 1) * (r, d_model)
    f = b.calc.rounded(f)
    b.finite(f, "F", h.rows, h.columns)
    result = Matrix(Formula("F", "F"), f, h.rows, h.columns)
    steps.append(Step("moe", Msg.of("Weighted sum of the experts"),
                      Formula("F = Σₑ P[:, e]·Eₑ", r"F = \sum_e P_{:, e}\, E_e"), (result,), None,
                      (Msg.of("Each token's row of F is the sum of its experts' rows, each times "
                              "the token's weight for that expert."),)))
    return tuple(steps), result


def router(b: Build, moe: Mixture, h: Matrix, logits: np.ndarray, weights: np.ndarray,
           names: tuple[str, ...]) -> Step:
    """L = H·W_r + b_r, and P: a softmax over each row's top k logits, 0 elsewhere."""
    d = feature_labels(int(h.values.shape[1]))
    matrices = [b.matrix(Formula("W_r", "W_{r}"), moe.W_r, d if b.row else names,
                         names if b.row else d)]
    if moe.b_r is not None:
        matrices.append(b.matrix(Formula("b_r", "b_{r}"), moe.b_r[None, :], ("",), names))
    matrices += [Matrix(Formula("L", "L"), logits, h.rows, names),
                 Matrix(Formula("P", "P"), weights, h.rows, names)]
    bias = (" + b_r", " + b_{r}") if moe.b_r is not None else ("", "")
    k = moe.top_k
    top = (f"P = softmax(top_{k}(L))",
           rf"P = \operatorname{{softmax}}(\operatorname{{top}}_{{{k}}}(L))")
    if b.row:
        formula = Formula(f"L = {h.symbol.text}·W_r{bias[0]},  {top[0]}",
                          rf"L = {h.symbol.latex} W_{{r}}{bias[1]},\quad {top[1]}")
    else:
        formula = Formula(f"lᵢ = W_r·xᵢ{bias[0]},  {top[0]}",
                          rf"l_i = W_{{r}} x_i{bias[1]},\quad {top[1]}")
    # top_k = 1 (Switch-style routing) is its own sentence: its P is all 0 and 1, which reads as
    # a mistake unless said; gpt-oss takes the softmax after choosing, so the one weight is 1
    note = Msg.of(
        "Each token goes to the one expert with the largest logit, with weight 1: the softmax "
        "runs over that one logit alone (as gpt-oss takes it, after choosing the top k), and "
        "every other expert gets weight 0.") if k == 1 else Msg.plural_of(
        "Each token goes to the {count} expert with the largest logit; the softmax runs over it "
        "alone, and every other expert gets weight 0.",
        "Each token goes to the {count} experts with the largest logits; the softmax runs over "
        "those alone, and every other expert gets weight 0.", k)
    return Step("router", Msg.of("Router"), formula, tuple(matrices), None, (note,))


def expert_step(b: Build, moe: Mixture, expert: Expert, index: int, h: Matrix,
                routed: np.ndarray) -> tuple[Step, np.ndarray]:
    """Expert `index` on the rows `routed`: G = min(H·W_1 + b_1, limit),
    U = clip(H·W_3 + b_3, −limit, limit), M = (U + 1) ⊙ G·σ(alpha·G), Eₑ = M·W_2 + b_2."""
    conv = b.spec.convention
    rows = tuple(h.rows[i] for i in routed)
    x = h.values[routed]  # (r, d_model)
    gate = b.calc.project(x, expert.W_1, expert.b_1, conv)  # (r, d_ff)
    up = b.calc.project(x, expert.W_3, expert.b_3, conv)  # (r, d_ff)
    g, u, m = (b.calc.rounded(a) for a in clamped_swiglu(gate, up, moe.alpha, moe.limit))
    out = b.calc.rounded(b.calc.project(m, expert.W_2, expert.b_2, conv))  # (r, d_model)
    symbol = f"E{str(index).translate(str.maketrans('0123456789', '₀₁₂₃₄₅₆₇₈₉'))}"
    b.finite(out, symbol, rows, h.columns)
    matrices = weights_shown(b, (("W_1", expert.W_1), ("b_1", expert.b_1), ("W_3", expert.W_3),
                                 ("b_3", expert.b_3), ("W_2", expert.W_2), ("b_2", expert.b_2)))
    matrices += [b.matrix(Formula("G", "G"), g, rows), b.matrix(Formula("U", "U"), u, rows),
                 b.matrix(Formula("M", "M"), m, rows),
                 Matrix(Formula(symbol, f"E_{{{index}}}"), out, rows, h.columns)]
    b2 = (" + b_2", " + b_{2}") if expert.b_2 is not None else ("", "")
    given = (f"{symbol} = M·W_2{b2[0]}", f"E_{{{index}}} = M W_{{2}}{b2[1]}") if b.row else (
        f"eᵢ = W_2·mᵢ{b2[0]}", f"e_i = W_{{2}} m_i{b2[1]}")
    step = Step("expert", Msg.of("Expert {index}", index=index),
                expert_formula(b, expert, h.symbol), tuple(matrices), None,
                (Msg.of("gpt-oss's expert: the gate is clamped from above at ℓ = {limit} and the "
                        "up projection to [−ℓ, ℓ], with α = {alpha}; the expert gives "
                        "{output}. Only the tokens routed to it are computed.",
                        limit=constant(moe.limit), alpha=constant(moe.alpha),
                        output=Symbol(given[0].replace(" ", "\u00a0"), given[1])),))
    # (the formula a sentence names is one unit: no line ends inside `E₁ = M·W_2 + b_2`)
    return step, out


def expert_formula(b: Build, expert: Expert, given: Formula) -> Formula:
    """G, U and M on the whole rows (row convention) or on each token's column vector xᵢ
    (column convention), with ℓ the limit and α the gate's factor (their numbers in the note):
    short enough for one line of a page."""
    def bias(w: object, name: str) -> tuple[str, str]:
        return (f" + b_{name}", f" + b_{{{name}}}") if w is not None else ("", "")

    b1, b3 = bias(expert.b_1, "1"), bias(expert.b_3, "3")
    if b.row:
        g, u, m, gt, ut, mt = "G", "U", "M", "G", "U", "M"
        a1, a3 = f"{given.text}·W_1", f"{given.text}·W_3"
        l1, l3 = f"{given.latex} W_{{1}}", f"{given.latex} W_{{3}}"
    else:
        g, u, m, gt, ut, mt = "gᵢ", "uᵢ", "mᵢ", "g_i", "u_i", "m_i"
        a1, a3, l1, l3 = "W_1·xᵢ", "W_3·xᵢ", "W_{1} x_i", "W_{3} x_i"
    text = (f"{g} = min({a1}{b1[0]}, ℓ),  {u} = clip({a3}{b3[0]}, ±ℓ),  "
            f"{m} = ({u} + 1) ⊙ {g}·σ(α·{g})")
    latex = (rf"{gt} = \min({l1}{b1[1]}, \ell),\ \ {ut} = \operatorname{{clip}}({l3}"
             rf"{b3[1]}, \pm\ell),\ \ {mt} = ({ut} + 1) \odot {gt} \sigma(\alpha {gt})")
    return Formula(text, latex)
