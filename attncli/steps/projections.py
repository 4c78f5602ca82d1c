"""Projections: each head's W_Q, W_K, W_V (and biases), and the queries, keys and values they
make of the inputs."""

from __future__ import annotations

from dataclasses import replace

from attncli import ops
from attncli.i18n import Msg
from attncli.model import Formula, Step
from attncli.spec.model import Head
from attncli.steps.base import COMBINING_TILDE, Build, HeadState, Made, feature_labels


def projections(b: Build, hs: HeadState) -> Made[HeadState]:
    """The head's weights, then Q = X·W_Q, K = X·W_K, V = X·W_V (+ biases)."""
    conv = b.spec.convention
    head = hs.head
    q = b.calc.project(hs.x, head.W_Q, head.b_Q, conv)  # (n, d_k)
    k = b.calc.project(hs.xk, head.W_K, head.b_K, conv)  # (m, d_k)
    v = b.calc.project(hs.xk, head.W_V, head.b_V, conv)  # (m, d_v)
    Q = b.matrix(Formula("Q", "Q"), q, b.query_labels)
    K = b.matrix(Formula("K", "K"), k, b.key_labels)
    V = b.matrix(Formula("V", "V"), v, b.key_labels)
    for mat, name in ((Q, "Q"), (K, "K"), (V, "V")):
        b.finite(mat.values, name, mat.rows, mat.columns)
    step = Step("projections", Msg.of("Queries, keys and values"),
                projection_formula(b, head, hs.pre_normed), (Q, K, V), hs.index)
    return (parameters(b, hs.index, head), step), replace(hs, q=q, k=k, v=v, Q=Q, K=K, V=V)


def parameters(b: Build, index: int | None, head: Head) -> Step:
    matrices = []
    for name in ("W_Q", "W_K", "W_V"):
        w = getattr(head, name)
        rows = feature_labels(int(w.shape[0]))
        matrix = b.matrix(Formula(name, name.replace("_", "_{") + "}"), w, rows)
        matrices.append(replace(matrix, identity=ops.is_identity(w)))
    for name in ("b_Q", "b_K", "b_V"):
        bias = getattr(head, name)
        if bias is not None:
            matrices.append(b.matrix(Formula(name, name.replace("_", "_{") + "}"),
                                     bias[None, :], ("",)))
    notes: tuple[Msg, ...] = ()
    if head.split is not None:
        (k0, k1), (v0, v1) = head.split
        blocks = {"k_first": k0 + 1, "k_last": k1, "v_first": v0 + 1, "v_last": v1}
        if b.row:
            notes = (Msg.of("This head's part of the full weights: columns {k_first}–{k_last} "
                            "of W_Q and W_K, columns {v_first}–{v_last} of W_V.", **blocks),)
        else:
            notes = (Msg.of("This head's part of the full weights: rows {k_first}–{k_last} "
                            "of W_Q and W_K, rows {v_first}–{v_last} of W_V.", **blocks),)
    return Step("parameters", Msg.of("Projection weights"), None, tuple(matrices), index, notes)


def projection_formula(b: Build, head: Head, pre_normed: bool) -> Formula:
    texts, latexes = [], []
    for letter in ("Q", "K", "V"):
        bias = getattr(head, f"b_{letter}") is not None
        source = "C" if letter != "Q" and b.spec.context is not None else "X"
        tilde = pre_normed and source == "X"
        if b.row:
            text = f"{letter} = {source}{COMBINING_TILDE if tilde else ''}·W_{letter}"
            src = rf"\tilde{{{source}}}" if tilde else source
            latex = f"{letter} = {src} W_{{{letter}}}"
        else:
            low, src = letter.lower(), source.lower()
            text = f"{low}ᵢ = W_{letter}·{src}{COMBINING_TILDE if tilde else ''}ᵢ"
            latex = f"{low}_i = W_{{{letter}}} " + (rf"\tilde{{{src}}}_i" if tilde
                                                    else f"{src}_i")
        if bias:
            text, latex = f"{text} + b_{letter}", f"{latex} + b_{{{letter}}}"
        texts.append(text)
        latexes.append(latex)
    return Formula(",  ".join(texts), r",\quad ".join(latexes))


