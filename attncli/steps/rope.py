"""RoPE: each head's queries and keys turned, pair of features by pair, by an angle that grows
with the position (Su et al., RoFormer); the values are left as they are."""

from __future__ import annotations

from dataclasses import replace

from attncli.arithmetic.exactness import line
from attncli.arithmetic.expand import dot, named
from attncli.compute import ops
from attncli.compute.rope_scaling import attention_factor
from attncli.i18n import Msg
from attncli.model import Array, Expansion, Formula, Matrix, Step
from attncli.spec.model import Positional
from attncli.steps import rope_scaling as scaling
from attncli.steps.base import Build, HeadState, Made, power_base
from attncli.steps.labels import subscript
from attncli.steps.projections import shows_kv

HAT = "\u0302"  # Q̂: the queries after RoPE


def turned(b: Build, which: str) -> Positional | None:
    """The RoPE of the queries (`q`) or of the keys' sequence (`k`), or None."""
    return b.spec.rope(which)


def rope(b: Build, hs: HeadState) -> Made[HeadState]:
    """ωᵢ, the angle p·ωᵢ of each pair at each position, and Q̂, K̂: Q and K turned. The paper's
    θᵢ is written ωᵢ here: θ is already the angle between a query and a key (cos θ)."""
    assert hs.q is not None and hs.k is not None and hs.Q is not None and hs.K is not None
    d_k = int(hs.q.shape[1])
    matrices: list[Matrix] = []
    pairs = tuple(f"ω{i}" for i in range(d_k // 2))  # i = 0 .. d_k/2 - 1, as in ωᵢ = base^(−2i/d_k)
    q, k, Q, K = hs.q, hs.k, hs.Q, hs.K
    first = turned(b, "q") or turned(b, "k")
    assert first is not None
    omega = ops.rope_angles(2, d_k, first.base, first.scaling)[1]  # (d_k/2,): the angle at p = 1
    if first.scaling is not None:  # ωᵢ before the scaling, then after it
        matrices.append(scaling.unscaled_row(b, first, d_k, pairs))
    matrices.append(Matrix(Formula("ω", r"\omega"), b.calc.rounded(omega[None, :]), ("",), pairs))
    for letter, rows, values, setting in (("q", b.query_labels, q, turned(b, "q")),
                                          ("k", b.key_labels, k, turned(b, "k"))):
        if setting is None:
            continue
        angles = ops.rope_angles(len(rows), d_k, setting.base, setting.scaling)  # (n, d_k/2)
        if letter == "q" or b.spec.context is not None:
            name = "p·ω" if b.spec.context is None else f"p·ω ({letter.upper()})"
            matrices.append(Matrix(Formula(name, r"p\,\omega"), b.calc.rounded(angles), rows,
                                   pairs))
        turned_values = b.calc.rounded(ops.rope(values, angles, setting.layout,  # (n, d_k)
                                                attention_factor(setting.scaling)))
        symbol = Formula(f"{letter.upper()}{HAT}", rf"\hat{{{letter.upper()}}}")
        made = b.matrix(symbol, turned_values, rows)
        b.finite(turned_values, symbol.text, made.rows, made.columns)
        if letter == "q" or shows_kv(hs):  # a shared K̂ is shown with the first head using it
            matrices.append(made)
        if letter == "q":
            q, Q = turned_values, made
        else:
            k, K = turned_values, made
    layout = first.layout
    notes = [Msg.of("At position p, the i-th pair of features turns by the angle p·ωᵢ, where "
                    "ωᵢ = {base}^(−2i/d_k); V is not turned.", base=power_base(first.base)),
             Msg.of("Pairs (i, i + d_k/2), as GPT-NeoX and Llama (layout half); the interleaved "
                    "layout of GPT-J and RoFormer pairs features (2i, 2i+1) instead, so the "
                    "same weights give other rotated queries and keys.") if layout == "half" else
             Msg.of("Pairs (2i, 2i+1), as GPT-J and RoFormer (layout interleaved); the half "
                    "layout of GPT-NeoX and Llama pairs features (i, i + d_k/2) instead, so "
                    "the same weights give other rotated queries and keys.")]
    expansions: tuple[Expansion, ...] = ()
    if first.scaling is not None:
        notes[1:1] = scaling.notes(first, d_k)
        expansions = scaling.cell(b, first, d_k)
    if turned(b, "q") is not None and turned(b, "k") is not None:
        if "rope" not in b.unread:  # a worked example only: a layer before the one shown
            expansions += relative(b, hs.q[0], hs.k[0], b.query_labels[0], b.key_labels[0],
                                   first)
        notes.append(Msg.of("The same q and k at positions (1, 0) and (2, 1) give the same "
                            "score: after RoPE a score depends only on how far apart the "
                            "query and the key are."))
    formula = Formula(f"Q{HAT} = RoPE(Q),  K{HAT} = RoPE(K)",
                      r"\hat{Q} = \operatorname{RoPE}(Q),\quad \hat{K} = \operatorname{RoPE}(K)")
    step = Step("rope", Msg.of("Rotary position embedding"), formula, tuple(matrices), hs.index,
                tuple(notes), expansions)
    return (step,), replace(hs, q=q, k=k, Q=Q, K=K)


def relative(b: Build, q: Array, k: Array, q_label: str, k_label: str,
             setting: Positional) -> tuple[Expansion, ...]:
    """q at position m and k at position n, turned, dotted: the same for (1, 0) and (2, 1)."""
    d_k = int(q.shape[0])
    angles = ops.rope_angles(3, d_k, setting.base, setting.scaling)  # (3, d_k/2): p = 0, 1, 2
    factor = attention_factor(setting.scaling)
    lines = []
    for m, n in ((1, 0), (2, 1)):
        q_m = b.calc.rounded(ops.rope(q[None, :], angles[m:m + 1], setting.layout,
                                      factor))[0]  # (d_k,)
        k_n = b.calc.rounded(ops.rope(k[None, :], angles[n:n + 1], setting.layout,
                                      factor))[0]  # (d_k,)
        score = float(b.calc.dot_scores(q_m[None, :], k_n[None, :])[0, 0])
        q_name, k_name = named("q", q_label), named("k", k_label)
        symbolic = Formula(f"R{subscript(m)}·{q_name.text} · R{subscript(n)}·{k_name.text}",
                           rf"R_{{{m}}} {q_name.latex} \cdot R_{{{n}}} {k_name.latex}")
        target = Formula(f"s({m}, {n})", f"s({m}, {n})")
        lines.append(line(target, symbolic, dot(q_m, k_n), score, b.spec.display.precision))
    return tuple(lines)
