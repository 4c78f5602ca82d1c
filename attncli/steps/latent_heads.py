"""Multi-head latent attention, one head: its queries [X·W_Q | RoPE(X·W_QR)], its keys
[C_KV·W_UK | K_R] and values C_KV·W_UV from the latent (attncli/steps/latent.py), and after the
scores one of them worked out again with W_UK absorbed into the query: (q_C·W_UKᵀ)·c + q_R·k_R,
the keys K_C never made."""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from attncli.arithmetic.cells import cell, joined, named
from attncli.arithmetic.exactness import line
from attncli.arithmetic.expand import dot
from attncli.compute import ops
from attncli.compute.latent import absorbed_parts, head_block
from attncli.i18n import Msg, quoted
from attncli.model import Array, Formula, Step
from attncli.steps.base import Build, HeadState, Made
from attncli.steps.latent import column_of, row_of, spec_latent, turned, weight

TOLERANCE = 1e-12  # the absorbed scores against S: the same sums in another order


def heads(b: Build, hs: HeadState) -> Made[HeadState]:
    """One head's W_Q, W_QR, W_UK, W_UV, and its queries, keys and values from the latent."""
    lat, made = spec_latent(b), hs.latent
    assert made is not None
    i, dn, dr, dv = (hs.index or 1) - 1, lat.d_nope, lat.d_rope, lat.d_v
    w_q, w_qr = head_block(lat.W_Q, i, dn), head_block(lat.W_QR, i, dr)  # (d_q, dn), (d_q, dr)
    w_uk, w_uv = head_block(lat.W_UK, i, dn), head_block(lat.W_UV, i, dv)  # (d_c, dn), (d_c, dv)
    q_c = b.calc.project(made.q_from, w_q, None, "row")  # (n, d_nope)
    q_r = b.calc.project(made.q_from, w_qr, None, "row")  # (n, d_R)
    setting = b.spec.rope("q")
    if setting is not None:
        q_r = turned(b, q_r, setting)  # (n, d_R)
    k_c = b.calc.project(made.c, w_uk, None, "row")  # (m, d_nope)
    v = b.calc.project(made.c, w_uv, None, "row")  # (m, d_v)
    q = np.concatenate([q_c, q_r], axis=1)  # (n, d_k)
    k = np.concatenate([k_c, made.k_rope], axis=1)  # (m, d_k)
    Q = b.matrix(Formula("Q", "Q"), q, b.query_labels)
    K = b.matrix(Formula("K", "K"), k, b.key_labels)
    V = b.matrix(Formula("V", "V"), v, b.key_labels)
    for mat in (Q, K, V):
        b.finite(mat.values, mat.symbol.text, mat.rows, mat.columns)
    x, c = made.q_name, made.C.symbol
    q_r_text, q_r_latex = f"{x.text}·W_QR", rf"{x.latex} W_{{\text{{QR}}}}"
    if setting is not None:
        q_r_text, q_r_latex = f"RoPE({q_r_text})", rf"\operatorname{{RoPE}}({q_r_latex})"
    q_row, k_row = b.query_labels[0], b.key_labels[0]
    precision = b.spec.display.precision
    queries = Step(
        "latent_q", Msg.of("Queries: a part without position, a part for RoPE"),
        Formula(f"Q = [{x.text}·W_Q | {q_r_text}]", rf"Q = [{x.latex} W_{{Q}} \mid {q_r_latex}]"),
        (weight(b, "W_Q", "W_{Q}", w_q), weight(b, "W_QR", r"W_{\text{QR}}", w_qr), Q), hs.index,
        (Msg.of("In Q and K the first part (d_nope = {d_nope}) carries no position; the last "
                "part (d_R = {d_rope}) carries it, and in K it is K_R, the same in every head.",
                d_nope=dn, d_rope=dr),),
        (line(cell(Q.symbol, q_row, "d1"), joined(row_of(x, q_row), "·", column_of(
            Formula("W_Q", "W_{Q}"), "d1")), dot(made.q_from[0], w_q[:, 0]), float(q[0, 0]),
            precision),))
    expansions = (
        line(cell(K.symbol, k_row, "d1"), joined(row_of(c, k_row), "·", column_of(
            Formula("W_UK", r"W_{\text{UK}}"), "d1")), dot(made.c[0], w_uk[:, 0]), float(k[0, 0]),
            precision),
        line(cell(V.symbol, k_row, "d1"), joined(row_of(c, k_row), "·", column_of(
            Formula("W_UV", r"W_{\text{UV}}"), "d1")), dot(made.c[0], w_uv[:, 0]), float(v[0, 0]),
            precision),
    )
    notes = (Msg.of("The scores are divided by √d_k, where d_k = d_nope + d_R = {d_k}: both "
                    "parts of q and k count.", d_k=dn + dr) if b.spec.scale.kind == "sqrt_dk"
             else Msg.of("Both parts of q and k count in each score: d_k = d_nope + d_R = {d_k}.",
                         d_k=dn + dr),)
    keys = Step("latent_kv", Msg.of("Keys and values from the latent"), Formula(
        f"K = [{c.text}·W_UK | K_R],  V = {c.text}·W_UV",
        rf"K = [{c.latex} W_{{\text{{UK}}}} \mid K_{{R}}],\quad V = {c.latex} W_{{\text{{UV}}}}"),
        (weight(b, "W_UK", r"W_{\text{UK}}", w_uk), weight(b, "W_UV", r"W_{\text{UV}}", w_uv),
         K, V), hs.index,
        notes, expansions)
    return (queries, keys), replace(hs, q=q, k=k, v=v, Q=Q, K=K, V=V)


def absorbed(b: Build, hs: HeadState) -> Made[HeadState]:
    """Q_C·W_UKᵀ, and one score worked out both ways: q·k, and (q_C·W_UKᵀ)·c + q_R·k_R."""
    lat, made = spec_latent(b), hs.latent
    assert made is not None and hs.q is not None and hs.k is not None and hs.logits is not None
    i, dn = (hs.index or 1) - 1, lat.d_nope
    w_uk = head_block(lat.W_UK, i, dn)  # (d_c, d_nope)
    q_c, q_r = hs.q[:, :dn], hs.q[:, dn:]  # (n, d_nope), (n, d_R)
    u = by_rows(b, q_c, w_uk.T)  # (n, d_nope) @ (d_nope, d_c) -> (n, d_c)
    U = b.matrix(Formula("Q_C·W_UKᵀ", r"Q_{C} W_{\text{UK}}^{\top}"), u, b.query_labels)
    queries, keys = absorbed_parts(u, q_r, made.c, made.k_rope)  # (n, d_c + d_R), (m, ...)
    s = b.calc.dot_scores(queries, keys)  # (n, m)
    row, col = len(b.query_labels) - 1, 0  # the last query and the first key: causal sees it
    q_label, k_label = b.query_labels[row], b.key_labels[col]
    precision = b.spec.display.precision
    target = cell(Formula("S", "S"), q_label, k_label)
    c = made.C.symbol
    both = dot(queries[row], keys[col])  # (d_c + d_R,) · (d_c + d_R,)
    expansions = (
        line(target, joined(named("q", q_label), "·", named("k", k_label)),
             dot(hs.q[row], hs.k[col]), float(hs.logits[row, col]), precision),
        line(cell(Formula("(Q_C·W_UKᵀ)", r"(Q_{C} W_{\text{UK}}^{\top})"), q_label, "d1"),
             joined(row_of(Formula("Q_C", "Q_{C}"), q_label), "·",
                    Formula("W_UK[d1, :]", r"W_{\text{UK}}[\text{d1}, :]")),
             dot(q_c[row], w_uk[0]), float(u[row, 0]), precision),
        line(target, joined(row_of(Formula("(Q_C·W_UKᵀ)", r"(Q_{C} W_{\text{UK}}^{\top})"),
                                   q_label),
                            "·", row_of(c, k_label), " + ", row_of(Formula("Q_R", "Q_{R}"),
                                                                    q_label),
                            "·", row_of(Formula("K_R", "K_{R}"), k_label)),
             both, float(s[row, col]), precision),
    )
    # |s − S| <= TOLERANCE·max(1, |s|), in two (n, m) arrays: s itself is not read again
    gap = np.subtract(s, hs.logits)  # (n, m)
    np.abs(gap, out=gap)  # (n, m), in place
    np.abs(s, out=s)  # (n, m), in place
    np.maximum(s, 1.0, out=s)  # (n, m), in place
    np.multiply(s, TOLERANCE, out=s)  # (n, m), in place
    same = bool(np.all(gap <= s))
    del gap
    notes: tuple[Msg, ...] = (Msg.of(
        "The same score without K_C: W_UK moves into the query, so a head reads the cached "
        "latent itself (d_c = {d_c} for each key), and K_C is never made.", d_c=lat.d_c),)
    if not b.in_blocks:  # in blocks of rows, once every block is checked (absorbed_joined)
        notes += checked(b, same)
    formula = Formula(f"S = (Q_C·W_UKᵀ)·{c.text}ᵀ + Q_R·K_Rᵀ",
                      rf"S = (Q_{{C}} W_{{\text{{UK}}}}^{{\top}})\, {c.latex}^{{\top}}"
                      r" + Q_{R} K_{R}^{\top}")
    step = Step("absorbed", Msg.of("Scores with W_UK absorbed into the query"), formula, (U,),
                hs.index, notes, expansions)
    return (step,), replace(hs, same=same)


def by_rows(b: Build, q_c: Array, w: Array) -> Array:
    """Q_C·W_UKᵀ, ops.ROWS queries at a time as the scores are (attncli/compute/ops.py), so a
    block of rows gives the whole matrix's numbers."""
    parts = [b.calc.project(q_c[first:first + ops.ROWS], w, None, "row")  # (ROWS, d_c)
             for first in range(0, max(len(q_c), 1), ops.ROWS)]
    return parts[0] if len(parts) == 1 else np.concatenate(parts)  # (n, d_c)


def checked(b: Build, same: bool) -> tuple[Msg, ...]:
    """Whether every score made the absorbed way equals S, and the query worked both ways (the
    last one)."""
    check = (Msg.of("Check: every score made this way equals S to 12 decimal places.") if same
             else Msg.of("Check failed: the scores made this way differ from S."))
    if b.spec.display.round_intermediates and not same:  # each product written down rounded
        check = Msg.of("In hand calculation Q_C·W_UKᵀ and K_C are rounded as they are written "
                       "down, so some scores made this way differ from S in the last digits; "
                       "in full precision they are the same.")
    return check, Msg.of("The query {token} against the key {key}, both ways.",
                         token=quoted(b.query_labels[-1]), key=quoted(b.key_labels[0]))


def absorbed_joined(b: Build, steps: list[Step], hs: HeadState) -> list[Step]:
    """The blocks' steps of a head with the absorbed scores' check over every block."""
    assert hs.same is not None
    return [replace(step, notes=(*step.notes, *checked(b, hs.same))) if step.id == "absorbed"
            else step for step in steps]
