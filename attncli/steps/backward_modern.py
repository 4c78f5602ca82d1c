"""The gradient steps of the variants after 2017, beside those of attncli/steps/backward.py:
RoPE turned back (dQ = Rᵀ·dQ̂, one pair written out), the shared K/V heads of grouped-query
attention (dK = Σ_h dK_h, one cell written out), and the notes on score biases, RMSNorm and gated
feed-forwards."""

from __future__ import annotations

import math

from attncli.arithmetic.cells import token_latex
from attncli.arithmetic.exactness import line
from attncli.arithmetic.expand import cell
from attncli.compute import ops
from attncli.compute.gradients import Gradients, HeadGradients
from attncli.compute.rope_scaling import attention_factor
from attncli.i18n import Msg, listing
from attncli.model import Expansion, Formula, HeadResult, Matrix, Num, Product, Step, Sum
from attncli.spec.model import RMSNorm, Spec
from attncli.spec.model_ffn import ACTIVATION_NAMES, GATES, FeedForward
from attncli.steps.base import feature_labels
from attncli.steps.rope import HAT

D_Q_HAT = Formula(f"dQ{HAT}", r"d\hat{Q}")
D_K_HAT = Formula(f"dK{HAT}", r"d\hat{K}")


def rope_step(spec: Spec, g: HeadGradients, r: HeadResult, index: int | None) -> Step:
    """dQ = Rᵀ·dQ̂ and dK = Rᵀ·dK̂: each pair of features turned back by its angle."""
    queries, keys = r.weights.rows, r.weights.columns
    matrices = []
    if g.dQ_hat is not None:
        matrices.append(Matrix(Formula("dQ", "dQ"), g.dQ, queries, r.queries.columns))
    if g.dK_hat is not None:
        matrices.append(Matrix(Formula("dK", "dK"), g.dK, keys, r.keys.columns))
    return Step("grad_rope", Msg.of("Gradient through the rotation"),
                Formula(f"dQ = Rᵀ·dQ{HAT},  dK = Rᵀ·dK{HAT}",
                        r"dQ = R^{\top} d\hat{Q},\quad dK = R^{\top} d\hat{K}"),
                tuple(matrices), index,
                (Msg.of("RoPE turned each pair of features by p·ωᵢ; its gradient turns back "
                        "by −p·ωᵢ (Rᵀ, the inverse rotation) before it reaches W_Q and W_K."),),
                turned_pair(spec, g, r))


def turned_pair(spec: Spec, g: HeadGradients, r: HeadResult) -> tuple[Expansion, ...]:
    """The first pair of dQ at position 1 (position 0 is not turned) written out:
    (a, b) -> (a·cos + b·sin, −a·sin + b·cos)."""
    setting = spec.rope("q")
    if g.dQ_hat is None or setting is None or attention_factor(setting.scaling) != 1.0:
        return ()  # YaRN's attention factor: the turn is a·R, not written out here
    i = min(1, g.dQ.shape[0] - 1)
    first, second = (int(p[0]) for p in ops.rope_pairs(g.dQ.shape[1], setting.layout))
    angle = float(ops.rope_angles(i + 1, g.dQ.shape[1], setting.base,  # p·ω₀
                                  setting.scaling)[i, 0])
    cos, sin = math.cos(angle), math.sin(angle)
    a, b = float(g.dQ_hat[i, first]), float(g.dQ_hat[i, second])
    row, columns = r.weights.rows[i], r.queries.columns
    one, two = columns[first], columns[second]
    hat = f"dQ{HAT}"
    text = (f"{hat}[{row}, {one}]·cos {i}ω₀ + {hat}[{row}, {two}]·sin {i}ω₀",
            f"−{hat}[{row}, {one}]·sin {i}ω₀ + {hat}[{row}, {two}]·cos {i}ω₀")
    row_tex, one_tex, two_tex = token_latex(row), token_latex(one), token_latex(two)
    latex = (rf"d\hat{{Q}}[{row_tex}, {one_tex}] \cos {i}\omega_0 + "
             rf"d\hat{{Q}}[{row_tex}, {two_tex}] \sin {i}\omega_0",
             rf"-d\hat{{Q}}[{row_tex}, {one_tex}] \sin {i}\omega_0 + "
             rf"d\hat{{Q}}[{row_tex}, {two_tex}] \cos {i}\omega_0")
    dq = Formula("dQ", "dQ")
    precision = spec.display.precision
    return (
        line(cell(dq, row, one), Formula(text[0], latex[0]),
             Sum((Product((Num(a), Num(cos))), Product((Num(b), Num(sin))))),
             float(g.dQ[i, first]), precision),
        line(cell(dq, row, two), Formula(text[1], latex[1]),
             Sum((Product((Num(-a), Num(sin))), Product((Num(b), Num(cos))))),
             float(g.dQ[i, second]), precision),
    )


def shared_step(spec: Spec, grads: Gradients, forward: tuple[HeadResult, ...]) -> Step:
    """Each shared K/V head: the sums of the dK and dV of the query heads that read it, and
    the gradients of its block of W_K and W_V."""
    keys = forward[0].weights.columns
    matrices = []
    for group in grads.groups:
        first = forward[group.sharing[0] - 1]
        matrices += [Matrix(of_group("dK", group.group, len(grads.groups)), group.dK, keys,
                            first.keys.columns),
                     Matrix(of_group("dV", group.group, len(grads.groups)), group.dV, keys,
                            first.values.columns)]
        for name, values in group.dW.items():
            symbol = of_group(name, group.group, len(grads.groups))
            if values.ndim == 1:
                matrices.append(Matrix(symbol, values[None, :], ("",),
                                       feature_labels(values.shape[0])))
            else:
                matrices.append(Matrix(symbol, values, feature_labels(values.shape[0]),
                                       feature_labels(values.shape[1])))
    formula = Formula("dK = Σ_h dK_h,  dV = Σ_h dV_h",
                      r"dK = \sum_h dK_h,\quad dV = \sum_h dV_h")
    notes = [Msg.of("Heads {heads} read the same K and V (group {group}): what each sends back "
                    "adds up.", heads=listing([str(h) for h in group.sharing]), group=group.group)
             for group in grads.groups]
    notes.append(Msg.of("Then dW_K = Xᵀ·dK and dW_V = Xᵀ·dV, once for each shared pair.")
                 if spec.convention == "row" else
                 Msg.of("Then dW_K = dKᵀ·X and dW_V = dVᵀ·X, once for each shared pair."))
    return Step("grad_shared", Msg.of("Gradient of the shared keys and values"), formula,
                tuple(matrices), None, tuple(notes), shared_cell(spec, grads, forward))


def of_group(name: str, group: int, groups: int) -> Formula:
    """`dK`, `dW_V` ...; `dK (g2)` when there are several groups."""
    latex = name if "_" not in name else "{}_{{{}}}".format(*name.split("_", 1))
    if groups == 1:
        return Formula(name, latex)
    return Formula(f"{name} (g{group})", rf"{latex}\ (g{group})")


def shared_cell(spec: Spec, grads: Gradients, forward: tuple[HeadResult, ...]
                ) -> tuple[Expansion, ...]:
    """dK of the first group, first key, first feature: the sum over the heads sharing it."""
    group = grads.groups[0]
    first = forward[group.sharing[0] - 1]
    key, column = first.weights.columns[0], first.keys.columns[0]
    parts = [float(grads.heads[h - 1].dK[0, 0]) for h in group.sharing]
    names = [f"dK_h{h}[{key}, {column}]" for h in group.sharing]
    symbolic = Formula(" + ".join(names), " + ".join(
        f"dK_{{h{h}}}[{token_latex(key)}, {token_latex(column)}]" for h in group.sharing))
    target = cell(of_group("dK", group.group, len(grads.groups)), key, column)
    return (line(target, symbolic, Sum(tuple(Num(x) for x in parts)), float(group.dK[0, 0]),
                 spec.display.precision),)


def bias_note(spec: Spec) -> tuple[Msg, ...]:
    """With a score bias: why dS′ goes on to the scores as it is."""
    if spec.bias is None:
        return ()
    return (Msg.of("The bias B added to the scores is given, not learned: it takes no gradient, "
                   "and dS′ passes through the addition unchanged."),)


def block_notes(spec: Spec) -> tuple[Msg, ...]:
    """The way back through the rest of the layer, and what RMSNorm and a gated or SiLU
    feed-forward do on it."""
    block = spec.block
    assert block is not None
    if block.norms is not None and isinstance(block.norms[0], RMSNorm):
        notes = [Msg.of("From the layer's output back through RMSNorm, the feed-forward network "
                        "and the residual adds, to the attention output O."),
                 Msg.of("RMSNorm backwards: dx = (dx̂ − x̂·(1/d)·Σⱼ dx̂ⱼ·x̂ⱼ) / RMS(x) with "
                        "dx̂ = dy ⊙ gain; no mean is subtracted, and there is no bias to learn "
                        "either.")]
    else:
        notes = [Msg.of("From the layer's output back through LayerNorm, the feed-forward network "
                        "and the residual adds, to the attention output O.")]
    if block.sandwich is not None:
        notes.append(Msg.of("Each sandwich norm is read backwards like the block's own: the "
                            "gradient of R₁ passes through it to O, that of R₂ to F."))
    ffn: FeedForward | None = block.ffn
    if ffn is not None and ffn.gated:
        notes.append(Msg.of("The gated feed-forward backwards: dM = dF·W_2ᵀ, dU = dM ⊙ {act}(A₁) "
                            "for W_3, dA₁ = dM ⊙ U ⊙ {act}′(A₁) for W_1.",
                            act=ACTIVATION_NAMES[GATES[ffn.activation]]))
    elif ffn is not None and ffn.activation == "silu":
        notes.append(Msg.of("SiLU backwards: SiLU′(a) = σ(a)·(1 + a·(1 − σ(a)))."))
    return tuple(notes)
