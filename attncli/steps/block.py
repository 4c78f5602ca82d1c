"""The rest of the layer around attention: residual adds, LayerNorms and the feed-forward
network, post-norm (after each sublayer) or pre-norm (before it)."""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from attncli.arithmetic.constants import constant
from attncli.compute import ops
from attncli.i18n import Msg
from attncli.model import Formula, Matrix, Step
from attncli.spec.model import Norm, RMSNorm, Spec
from attncli.spec.model_ffn import ACTIVATION_NAMES, GATES, FeedForward
from attncli.steps.base import Build, Made, State, weights_shown


def pre_norm(b: Build, state: State) -> Made[State]:
    """In a pre-norm layer the heads read LayerNorm(X) instead of X."""
    block = b.spec.block
    assert block is not None and block.norms is not None and state.x is not None
    X = b.matrix(Formula("X", "X"), state.x, b.query_labels)
    step, normed = norm(b, "norm_1", block.norms[0], X, Formula("X̃", r"\tilde{X}"))
    return (step,), replace(state, x_in=normed.values, pre_normed=True)


def layer(b: Build, state: State) -> Made[State]:
    """The rest of the layer: residual add, LayerNorm, feed-forward, residual add, LayerNorm
    (post-norm), or LayerNorm before attention and before the feed-forward (pre-norm)."""
    block = b.spec.block
    assert block is not None and state.attention is not None and state.x is not None
    steps: list[Step] = []

    def made(made: tuple[Step, Matrix]) -> Matrix:
        steps.append(made[0])
        return made[1]

    post = block.norm == "post" and block.norms is not None
    h = state.attention
    if block.sandwich is not None:
        h = made(sandwiched(b, "sandwich_1", block.sandwich[0], h))
    if block.residual:
        X = b.matrix(Formula("X", "X"), state.x, b.query_labels)
        h = made(residual(b, "residual_1", X, h, Formula("R₁", "R_1")))
    if post:
        assert block.norms is not None
        h = made(norm(b, "norm_1", block.norms[0], h, Formula("Y₁", "Y_1")))
    if block.ffn is None and block.moe is None:
        return tuple(steps), replace(state, output=h)
    ffn_in = h
    if block.norm == "pre" and block.norms is not None:
        ffn_in = made(norm(b, "norm_2", block.norms[1], h, Formula("Ỹ", r"\tilde{Y}")))
    if block.moe is not None:
        from attncli.steps.moe import mixture  # only a block with a mixture of experts

        experts, out = mixture(b, block.moe, ffn_in)
        steps.extend(experts)
    else:
        assert block.ffn is not None
        out = made(feed_forward(b, block.ffn, ffn_in))
    if block.sandwich is not None:
        out = made(sandwiched(b, "sandwich_2", block.sandwich[1], out))
    if block.residual:
        out = made(residual(b, "residual_2", h, out, Formula("R₂", "R_2")))
    if post:
        assert block.norms is not None
        out = made(norm(b, "norm_2", block.norms[1], out, Formula("Y", "Y")))
    return tuple(steps), replace(state, output=out)


def sandwiched(b: Build, step_id: str, ln: Norm, h: Matrix) -> tuple[Step, Matrix]:
    """The norm of a sublayer's output before its residual add: O′ of the attention, F′ of the
    feed-forward."""
    step, result = norm(b, step_id, ln, h, Formula(h.symbol.text + "′", h.symbol.latex + "'"))
    note = Msg.of("A sandwich norm: the sublayer's output is normalized before it is added "
                  "back, so that no sublayer outgrows the residual stream.")
    return replace(step, notes=(*step.notes, note)), result


def residual(b: Build, step_id: str, x: Matrix, y: Matrix,
             symbol: Formula) -> tuple[Step, Matrix]:
    r = b.calc.rounded(x.values + y.values)  # (n, d_model) + (n, d_model)
    b.finite(r, symbol.text, x.rows, x.columns)
    result = Matrix(symbol, r, x.rows, x.columns)
    step = Step(step_id, Msg.of("Residual add"),
                Formula(f"{symbol.text} = {x.symbol.text} + {y.symbol.text}",
                        f"{symbol.latex} = {x.symbol.latex} + {y.symbol.latex}"),
                (result,), None,
                (Msg.of("The layer's input is added back to what the sublayer made of it."),))
    return step, result


def norm(b: Build, step_id: str, ln: Norm, h: Matrix, symbol: Formula) -> tuple[Step, Matrix]:
    """LayerNorm of each row, with the row's mean and spread shown beside it."""
    if isinstance(ln, RMSNorm):
        return rms_norm(b, step_id, ln, h, symbol)
    mu = h.values.mean(axis=1)  # (n,)
    sigma = np.sqrt(((h.values - mu[:, None]) ** 2).mean(axis=1) + ln.eps)  # (n,)
    b.finite(sigma[:, None], "σ", h.rows, ("σ",))
    y = ops.layer_norm(h.values, ln.gain, ln.bias, ln.eps)  # (n, d_model)
    b.finite(y, symbol.text, h.rows, h.columns)
    y = b.calc.rounded(y)  # (n, d_model)
    matrices = [Matrix(Formula("μ, σ", r"\mu, \sigma"),
                       b.calc.rounded(np.stack([mu, sigma], axis=1)),
                       h.rows, ("μ", "σ"))]
    for name, vec in (("gain", ln.gain), ("bias", ln.bias)):
        if vec is not None:
            matrices.append(b.matrix(Formula(name, name), vec[None, :], ("",)))
    matrices.append(Matrix(symbol, y, h.rows, h.columns))
    text = f"{symbol.text} = LayerNorm({h.symbol.text})"
    latex = rf"{symbol.latex} = \operatorname{{LayerNorm}}({h.symbol.latex})"
    step = Step(step_id, Msg.of("Layer normalization"), Formula(text, latex), tuple(matrices),
                None, (Msg.of("Each row becomes (x − μ) / σ with σ = √(variance + {eps}), "
                              "then times the gain plus the bias.", eps=constant(ln.eps)),))
    return step, matrices[-1]


def rms_norm(b: Build, step_id: str, rms: RMSNorm, h: Matrix,
             symbol: Formula) -> tuple[Step, Matrix]:
    """RMSNorm of each row, with the row's root mean square shown beside it."""
    root = np.sqrt((h.values**2).mean(axis=1) + rms.eps)  # (n,)
    b.finite(root[:, None], "RMS", h.rows, ("RMS",))
    y = ops.rms_norm(h.values, rms.gain, rms.eps)  # (n, d_model)
    b.finite(y, symbol.text, h.rows, h.columns)
    matrices = [Matrix(Formula("RMS", r"\operatorname{RMS}"), b.calc.rounded(root[:, None]),
                       h.rows, ("RMS",))]
    if rms.gain is not None:
        matrices.append(b.matrix(Formula("gain", "gain"), rms.gain[None, :], ("",)))
    matrices.append(Matrix(symbol, b.calc.rounded(y), h.rows, h.columns))
    text = f"{symbol.text} = RMSNorm({h.symbol.text})"
    latex = rf"{symbol.latex} = \operatorname{{RMSNorm}}({h.symbol.latex})"
    step = Step(step_id, Msg.of("RMS normalization"), Formula(text, latex), tuple(matrices),
                None, (Msg.of("Each row x is divided by RMS(x) = √((1/d)·Σᵢ xᵢ² + ε), where "
                              "d = {d} (the number of features) and ε = {eps}, then multiplied "
                              "by the gain; unlike LayerNorm, no mean is subtracted and no bias "
                              "added.", d=int(h.values.shape[1]), eps=constant(rms.eps)),))
    return step, matrices[-1]


def feed_forward(b: Build, ffn: FeedForward, h: Matrix) -> tuple[Step, Matrix]:
    """F = activation(H·W_1 + b_1)·W_2 + b_2, applied to each row on its own; gated (swiglu,
    geglu): F = (activation(H·W_1 + b_1) ⊙ (H·W_3 + b_3))·W_2 + b_2."""
    conv = b.spec.convention
    act = ops.ACTIVATION[ffn.activation]
    gate = b.calc.rounded(act(b.calc.project(h.values, ffn.W_1, ffn.b_1, conv)))  # (n, d_ff)
    hidden = gate
    shown: list[Matrix] = []
    if ffn.W_3 is not None:
        up = b.calc.rounded(b.calc.project(h.values, ffn.W_3, ffn.b_3, conv))  # (n, d_ff)
        hidden = b.calc.rounded(gate * up)  # (n, d_ff) ⊙ (n, d_ff)
        shown = [b.matrix(Formula("G", "G"), gate, h.rows), b.matrix(Formula("U", "U"), up,
                                                                       h.rows)]
    f = b.calc.project(hidden, ffn.W_2, ffn.b_2, conv)  # (n, d_ff) -> (n, d_model)
    b.finite(f, "F", h.rows, h.columns)
    matrices = weights_shown(b, (("W_1", ffn.W_1), ("b_1", ffn.b_1), ("W_3", ffn.W_3),
                                 ("b_3", ffn.b_3), ("W_2", ffn.W_2), ("b_2", ffn.b_2)))
    matrices += shown
    matrices.append(b.matrix(Formula("H", "H"), hidden, h.rows))
    result = Matrix(Formula("F", "F"), f, h.rows, h.columns)
    matrices.append(result)
    notes = [Msg.of("The same two-layer network is applied to every row on its own.")]
    if ffn.activation in ("gelu_tanh", "geglu_tanh"):
        notes.append(replace(Msg.of(
            "GELU_tanh is GELU's tanh approximation (GPT-2's gelu_new): "
            "GELU_tanh(x) = 0.5·x·(1 + tanh(√(2/π)·(x + 0.044715·x³)))."),
            decimals=("0.5", "0.044715")))  # written with the reader's decimal mark
    step = Step("ffn", Msg.of("Feed-forward network"), ffn_formula(b, ffn, h.symbol),
                tuple(matrices), None, tuple(notes))
    return step, result


def ffn_formula(b: Build, ffn: FeedForward, given: Formula) -> Formula:
    b1 = (" + b_1", " + b_{1}") if ffn.b_1 is not None else ("", "")
    b2 = (" + b_2", " + b_{2}") if ffn.b_2 is not None else ("", "")
    act = ACTIVATION_NAMES[ffn.activation]
    if ffn.gated:
        return gated_formula(b, ffn, given, b1, b2)
    tex = operator(act)
    if b.row:
        return Formula(f"H = {act}({given.text}·W_1{b1[0]}),  F = H·W_2{b2[0]}",
                       rf"H = {tex}({given.latex} W_{{1}}{b1[1]}),"
                       rf"\quad F = H W_{{2}}{b2[1]}")
    return Formula(f"hᵢ = {act}(W_1·xᵢ{b1[0]}),  fᵢ = W_2·hᵢ{b2[0]}",
                   rf"h_i = {tex}(W_{{1}} x_i{b1[1]}),"
                   rf"\quad f_i = W_{{2}} h_i{b2[1]}")


def operator(name: str) -> str:
    """An activation's name as a LaTeX operator: GELU_tanh as GELU with tanh below it (inside
    the operator, so that Markdown reads no `}_` as emphasis)."""
    base, _, below = name.partition("_")
    return rf"\operatorname{{{base}" + (f"_{{{below}}}" if below else "") + "}"


def gated_formula(b: Build, ffn: FeedForward, given: Formula, b1: tuple[str, str],
                  b2: tuple[str, str]) -> Formula:
    """G = act(X·W_1), U = X·W_3, H = G ⊙ U, F = H·W_2 (Llama's w1, w3, w2)."""
    b3 = (" + b_3", " + b_{3}") if ffn.b_3 is not None else ("", "")
    act = ACTIVATION_NAMES[GATES[ffn.activation]]
    tex = operator(act)
    if b.row:
        return Formula(f"G = {act}({given.text}·W_1{b1[0]}),  U = {given.text}·W_3{b3[0]},  "
                       f"H = G ⊙ U,  F = H·W_2{b2[0]}",
                       rf"G = {tex}({given.latex} W_{{1}}{b1[1]}),"
                       rf"\quad U = {given.latex} W_{{3}}{b3[1]},\quad H = G \odot U,"
                       rf"\quad F = H W_{{2}}{b2[1]}")
    return Formula(f"gᵢ = {act}(W_1·xᵢ{b1[0]}),  uᵢ = W_3·xᵢ{b3[0]},  hᵢ = gᵢ ⊙ uᵢ,  "
                   f"fᵢ = W_2·hᵢ{b2[0]}",
                   rf"g_i = {tex}(W_{{1}} x_i{b1[1]}),\quad u_i = W_{{3}} x_i"
                   rf"{b3[1]},\quad h_i = g_i \odot u_i,\quad f_i = W_{{2}} h_i{b2[1]}")


def describe_block(spec: Spec) -> Msg:
    block = spec.block
    assert block is not None
    parts = []
    if block.residual:
        parts.append(Msg.of("residual add"))
    if block.norms is not None and isinstance(block.norms[0], RMSNorm):
        parts.append(Msg.of("RMSNorm (pre-norm)") if block.norm == "pre"
                     else Msg.of("RMSNorm (post-norm)"))
    elif block.norms is not None:
        parts.append(Msg.of("LayerNorm (pre-norm)") if block.norm == "pre"
                     else Msg.of("LayerNorm (post-norm)"))
    if block.sandwich is not None:
        kind = "RMSNorm" if isinstance(block.sandwich[0], RMSNorm) else "LayerNorm"
        parts.append(Msg.of("{norm} of each sublayer's output", norm=kind))
    if block.moe is not None:
        parts.append(Msg.plural_of(
            "a mixture of {count} expert (top {top_k})",
            "a mixture of {count} experts (top {top_k})", len(block.moe.experts),
            top_k=block.moe.top_k))
    if block.ffn is not None:
        d_ff = int(block.ffn.W_1.shape[1 if spec.convention == "row" else 0])
        parts.append(Msg.of("feed-forward ({activation}, d_ff = {d_ff})",
                            activation=ACTIVATION_NAMES[block.ffn.activation], d_ff=d_ff))
    result = parts[0]
    for part in parts[1:]:
        result = Msg.of("{first}, {second}", first=result, second=part)
    return result
