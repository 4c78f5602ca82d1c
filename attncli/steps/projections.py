"""Projections: each head's W_Q, W_K, W_V (and biases), and the queries, keys and values they
make of the inputs."""

from __future__ import annotations

from dataclasses import replace

from attncli.compute import ops
from attncli.i18n import Msg, listing
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
    letters = ("Q", "K", "V") if shows_kv(hs) else ("Q",)
    notes: tuple[Msg, ...] = ()
    if not shows_kv(hs):
        notes = (Msg.of("K and V are those of head {first}, which this head shares.",
                        first=head.sharing[0]),)
    step = Step("projections", Msg.of("Queries, keys and values"),
                projection_formula(b, head, hs.pre_normed, letters),
                (Q, K, V)[:len(letters)], hs.index, notes)
    return ((parameters(b, hs.index, head, letters), step),
            replace(hs, q=q, k=k, v=v, Q=Q, K=K, V=V))


def shows_kv(hs: HeadState) -> bool:
    """Whether this head shows its K and V: a head that shares them with an earlier head (in
    grouped-query attention) does not repeat them."""
    return not hs.head.sharing or hs.head.sharing[0] == hs.index


def parameters(b: Build, index: int | None, head: Head,
               letters: tuple[str, ...] = ("Q", "K", "V")) -> Step:
    matrices = []
    for name in (f"W_{letter}" for letter in letters):
        w = getattr(head, name)
        rows = feature_labels(int(w.shape[0]))
        matrix = b.matrix(Formula(name, name.replace("_", "_{") + "}"), w, rows)
        matrices.append(replace(matrix, identity=ops.is_identity(w)))
    for name in (f"b_{letter}" for letter in letters):
        bias = getattr(head, name)
        if bias is not None:
            matrices.append(b.matrix(Formula(name, name.replace("_", "_{") + "}"),
                                     bias[None, :], ("",)))
    notes: tuple[Msg, ...] = ()
    if head.kv_split is not None and head.split is not None:
        notes = (grouped_note(b, head),)
    elif head.split is not None:
        (k0, k1), (v0, v1) = head.split
        k, v = span(k0 + 1, k1, b.row), span(v0 + 1, v1, b.row)
        notes = (Msg.of("This head's part of the full weights: {k} of W_Q and W_K, {v} of "
                        "W_V.", k=k, v=v),)
    return Step("parameters", Msg.of("Projection weights"), None, tuple(matrices), index, notes)


def span(first: int, last: int, columns: bool) -> Msg:
    """`columns 3–4`, or `column 3` alone: never a range of one."""
    if columns:
        if first == last:
            return Msg.of("column {first}", first=first)
        return Msg.of("columns {first}–{last}", first=first, last=last)
    if first == last:
        return Msg.of("row {first}", first=first)
    return Msg.of("rows {first}–{last}", first=first, last=last)


def grouped_note(b: Build, head: Head) -> Msg:
    """Which blocks of the full weights a grouped-query head takes, and who shares its K, V."""
    assert head.kv_split is not None and head.split is not None
    (q0, q1), _ = head.split
    (k0, k1), (v0, v1) = head.kv_split
    blocks: dict[str, Msg | str | int] = {
        "q_first": q0 + 1, "q_last": q1, "k_first": k0 + 1, "k_last": k1, "v_first": v0 + 1,
        "v_last": v1, "heads": listing([str(n) for n in head.sharing])}
    if b.row:
        return Msg.of("This head's part of the full weights: columns {q_first}–{q_last} of W_Q; "
                      "columns {k_first}–{k_last} of W_K and {v_first}–{v_last} of W_V, shared "
                      "by heads {heads}.", **blocks)
    return Msg.of("This head's part of the full weights: rows {q_first}–{q_last} of W_Q; rows "
                  "{k_first}–{k_last} of W_K and {v_first}–{v_last} of W_V, shared by heads "
                  "{heads}.", **blocks)


def projection_formula(b: Build, head: Head, pre_normed: bool,
                       letters: tuple[str, ...] = ("Q", "K", "V")) -> Formula:
    texts, latexes = [], []
    for letter in letters:
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
            # `\tilde x_i`, not `\tilde{x}_i`: a `}_` opens emphasis in Markdown before KaTeX
            latex = f"{low}_i = W_{{{letter}}} " + (rf"\tilde {src}_i" if tilde
                                                    else f"{src}_i")
        if bias:
            text, latex = f"{text} + b_{letter}", f"{latex} + b_{{{letter}}}"
        texts.append(text)
        latexes.append(latex)
    return Formula(",  ".join(texts), r",\quad ".join(latexes))


