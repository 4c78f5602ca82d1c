"""Multi-head latent attention (DeepSeek-V2, V3): the latent C_KV = X·W_DKV that the cache keeps
(after its RMSNorm, as DeepSeek's kv_a_layernorm), and K_R = RoPE(X·W_KR), the one RoPE part of
the keys that every head shares; then each head's

    Q = [X·W_Q | RoPE(X·W_QR)],  K = [C_KV·W_UK | K_R],  V = C_KV·W_UV

so that q·k = q_C·k_C + q_R·k_R, and q_C·k_C = (q_C·W_UKᵀ)·c: W_UK absorbed into the query,
the keys K_C never made (the `absorbed` step works one score out both ways)."""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from attncli.arithmetic.cells import cell, joined, token_latex
from attncli.arithmetic.exactness import line
from attncli.arithmetic.expand import dot
from attncli.compute import ops
from attncli.compute.latent import normed
from attncli.compute.rope_scaling import attention_factor
from attncli.i18n import Msg, Symbol
from attncli.model import (
    Array,
    Difference,
    Expansion,
    Formula,
    Matrix,
    Num,
    Product,
    Quotient,
    Step,
)
from attncli.spec.model import Latent, Positional, RMSNorm
from attncli.steps.base import COMBINING_TILDE, Build, Latents, Made, State
from attncli.steps.decode import BYTES, FLOAT16_BYTES, fewer_heads, mha

TOLERANCE = 1e-12  # the absorbed scores against S: the same sums in another order


def spec_latent(b: Build) -> Latent:
    latent = b.spec.latent
    assert latent is not None
    return latent


def row_of(source: Formula, token: str) -> Formula:
    """`X[the, :]`: a row of a matrix, by its token."""
    return Formula(f"{source.text}[{token}, :]", f"{source.latex}[{token_latex(token)}, :]")


def column_of(w: Formula, column: str) -> Formula:
    """`W_DKV[:, d1]`: a column of weights."""
    return Formula(f"{w.text}[:, {column}]", f"{w.latex}[:, {token_latex(column)}]")


def weight(b: Build, name: str, latex: str, w: Array) -> Matrix:
    """A matrix of weights, its rows the features it reads (d1 … d_rows)."""
    return b.matrix(Formula(name, latex), w, tuple(f"d{i}" for i in range(1, w.shape[0] + 1)))


def latent(b: Build, state: State) -> Made[State]:
    """C_KV (and its norm), K_R, and C_Q when the queries have a latent of their own; then what
    the cache keeps per token, beside MHA, GQA and MQA."""
    lat = spec_latent(b)
    assert state.x_in is not None
    x_kv = state.context if state.context is not None else state.x_in  # (m, d_model)
    source = "C" if state.context is not None else "X"
    tilde = COMBINING_TILDE if state.pre_normed and source == "X" else ""
    x_name = Formula(source + tilde, rf"\tilde {source}" if tilde else source)
    W_DKV = Formula("W_DKV", r"W_{\text{DKV}}")
    c, C, matrices, expansions = made_latent(b, x_kv, (lat.W_DKV, W_DKV), lat.kv_norm,
                                             Formula("C_KV", r"C_{\text{KV}}"), b.key_labels,
                                             x_name)
    formula = Formula(f"C_KV = {x_name.text}·W_DKV",
                      rf"C_{{\text{{KV}}}} = {x_name.latex} W_{{\text{{DKV}}}}")
    full = lat.heads * (lat.d_nope + lat.d_rope + lat.d_v)
    notes = [Msg.plural_of(
        "Every head makes its keys and values from this latent (d_c = {d_c} per token); the "
        "keys and values of all heads together have {count} feature per token.",
        "Every head makes its keys and values from this latent (d_c = {d_c} per token); the "
        "keys and values of all heads together have {count} features per token.", full,
        d_c=lat.d_c)]
    if lat.kv_norm is not None:
        formula = normed_formula(formula, "KV")
        notes.append(Msg.of("The latent passes through RMSNorm, as DeepSeek's kv_a_layernorm: "
                            "{name} is what the cache keeps.",
                            name=Symbol(C.symbol.text, C.symbol.latex)))
    steps = [Step("latent", Msg.of("The latent of keys and values"), formula,
                  (weight(b, W_DKV.text, W_DKV.latex, lat.W_DKV), *matrices), None, tuple(notes),
                  expansions)]
    k_r, K_R, rope_step = rope_keys(b, x_kv, x_name)
    steps.append(rope_step)
    q_from, q_name = state.x_in, Formula("X" + (COMBINING_TILDE if state.pre_normed else ""),
                                         r"\tilde X" if state.pre_normed else "X")
    if lat.W_DQ is not None:
        W_DQ = Formula("W_DQ", r"W_{\text{DQ}}")
        q_from, shown, more, lines = made_latent(b, state.x_in, (lat.W_DQ, W_DQ), lat.q_norm,
                                                 Formula("C_Q", "C_{Q}"), b.query_labels, q_name)
        formula = Formula(f"C_Q = {q_name.text}·W_DQ",
                          rf"C_{{Q}} = {q_name.latex} W_{{\text{{DQ}}}}")
        steps.append(Step("query_latent", Msg.of("The latent of the queries"),
                          formula if lat.q_norm is None else normed_formula(formula, "Q"),
                          (weight(b, W_DQ.text, W_DQ.latex, lat.W_DQ), *more), None,
                          (Msg.of("Every head makes its queries from this latent."),), lines))
        q_name = shown.symbol
    steps.append(cache_step(lat))
    return tuple(steps), replace(state, latent=Latents(c, k_r, q_from, C, K_R, q_name))


def normed_formula(formula: Formula, which: str) -> Formula:
    """`C_KV = X·W_DKV` and then `C̃_KV = RMSNorm(C_KV)`."""
    sub = rf"\text{{{which}}}" if len(which) > 1 else which  # C_{\text{KV}}, C_{Q}
    return Formula(f"{formula.text},  C{COMBINING_TILDE}_{which} = RMSNorm(C_{which})",
                   rf"{formula.latex},\quad \tilde C_{{{sub}}} = "
                   rf"\operatorname{{RMSNorm}}(C_{{{sub}}})")


def rope_keys(b: Build, x_kv: Array, x_name: Formula) -> tuple[Array, Matrix, Step]:
    """K_R = RoPE(X·W_KR), one for every head."""
    lat = spec_latent(b)
    k_r = b.calc.project(x_kv, lat.W_KR, None, "row")  # (m, d_R)
    setting = b.spec.rope("k")
    name = Formula("K_R", "K_{R}")
    text, latex = f"{x_name.text}·W_KR", rf"{x_name.latex} W_{{\text{{KR}}}}"
    expansions: tuple[Expansion, ...] = ()
    if setting is not None:
        before = k_r
        k_r = turned(b, k_r, setting)  # (m, d_R)
        expansions = turn_cell(b, before, k_r, setting, name,
                               Formula(f"({text})", f"({latex})"), b.key_labels)
        text, latex = f"RoPE({text})", rf"\operatorname{{RoPE}}({latex})"
    K_R = b.matrix(name, k_r, b.key_labels)
    b.finite(k_r, "K_R", K_R.rows, K_R.columns)
    note = (Msg.of("K_R carries the position: RoPE turns it, and one K_R serves every head. The "
                   "latent is not turned, so each head's W_UK can be absorbed into its query.")
            if setting is not None else
            Msg.of("K_R is the part of the keys for the position, one for every head; without "
                   "RoPE nothing turns it."))
    step = Step("latent_rope", Msg.of("The keys' RoPE part, shared by the heads"),
                Formula(f"K_R = {text}", f"K_{{R}} = {latex}"),
                (weight(b, "W_KR", r"W_{\text{KR}}", lat.W_KR), K_R), None, (note,), expansions)
    return k_r, K_R, step


def made_latent(b: Build, x: Array, weights: tuple[Array, Formula], norm: RMSNorm | None,
                name: Formula, rows: tuple[str, ...], x_name: Formula
                ) -> tuple[Array, Matrix, list[Matrix], tuple[Expansion, ...]]:
    """x·w, then its RMSNorm when there is one: the values used, their matrix, the matrices
    shown and one cell of each written out."""
    w, w_name = weights
    raw = b.calc.project(x, w, None, "row")  # (m, d_c)
    first = Matrix(name, raw, rows, tuple(f"d{i}" for i in range(1, raw.shape[1] + 1)))
    b.finite(raw, name.text, first.rows, first.columns)
    column = first.columns[0]
    lines = [line(cell(name, rows[0], column), joined(
        row_of(x_name, rows[0]), "·", column_of(w_name, column)), dot(x[0], w[:, 0]),
        float(raw[0, 0]), b.spec.display.precision)]
    if norm is None:
        return raw, first, [first], tuple(lines)
    values, rms = normed(raw, norm, b.calc.rounded)  # (m, d), (m, 1)
    assert rms is not None
    base = name.text.split("_")[0]
    tilded = Formula(base + COMBINING_TILDE + name.text[len(base):],
                     rf"\tilde {base}" + name.latex[len(base):])
    rms_m = Matrix(Formula(f"RMS({name.text})", rf"\operatorname{{RMS}}({name.latex})"),
                   rms, rows, ("RMS",))
    b.finite(rms, rms_m.symbol.text, rows, ("RMS",))  # a square past float64: RMS = ∞, C̃ = 0
    shown = [first, rms_m]
    expr: Product | Quotient = Quotient(Num(float(raw[0, 0])), Num(float(rms[0, 0])))
    symbolic = joined(cell(name, rows[0], column), " / ", Formula(
        f"RMS({name.text}[{rows[0]}, :])",
        rf"\operatorname{{RMS}}({name.latex}[{token_latex(rows[0])}, :])"))
    if norm.gain is not None:
        shown.append(b.matrix(Formula("g", "g"), norm.gain[None, :], ("",), first.columns))
        expr = Product((expr, Num(float(norm.gain[0]))))
        symbolic = joined(symbolic, "·", Formula(f"g[{column}]", rf"g[{token_latex(column)}]"))
    result = b.matrix(tilded, values, rows)
    shown.append(result)
    lines.append(line(cell(tilded, rows[0], column), symbolic, expr, float(values[0, 0]),
                      b.spec.display.precision))
    return values, result, shown, tuple(lines)


def turned(b: Build, x: Array, setting: Positional) -> Array:
    """x with each pair of its features turned by RoPE at each row's position."""
    angles = ops.rope_angles(x.shape[0], x.shape[1], setting.base, setting.scaling)  # (n, d/2)
    return b.calc.rounded(ops.rope(x, angles, setting.layout,  # (n, d)
                                   attention_factor(setting.scaling)))


def turn_cell(b: Build, before: Array, after: Array, setting: Positional, name: Formula,
              source: Formula, rows: tuple[str, ...]) -> tuple[Expansion, ...]:
    """The first feature of the second row turned: a·cos(ω₀) − b·sin(ω₀), written out when
    RoPE's cos and sin are not scaled (YaRN's factor) and there is a second row."""
    if len(rows) < 2 or attention_factor(setting.scaling) != 1.0:
        return ()
    first, second = ops.rope_pairs(before.shape[1], setting.layout)
    i, j = int(first[0]), int(second[0])
    angle = float(ops.rope_angles(2, before.shape[1], setting.base, setting.scaling)[1, 0])
    a, c = (f"d{i + 1}", f"d{j + 1}")
    symbolic = Formula(f"{source.text}[{rows[1]}, {a}]·cos ω₀ − {source.text}[{rows[1]}, {c}]"
                       "·sin ω₀",
                       rf"{source.latex}[{token_latex(rows[1])}, \text{{{a}}}] \cos\omega_0 - "
                       rf"{source.latex}[{token_latex(rows[1])}, \text{{{c}}}] \sin\omega_0")
    expr = Difference(Product((Num(float(before[1, i])), Num(np.cos(angle)))),
                      Product((Num(float(before[1, j])), Num(np.sin(angle)))))
    return (line(cell(name, rows[1], a), symbolic, expr, float(after[1, i]),
                 b.spec.display.precision),)


def cache_step(lat: Latent) -> Step:
    """What the cache keeps per token per layer at float16: the latent and K_R, beside MHA, GQA
    and MQA of the same heads."""
    d_k = lat.d_nope + lat.d_rope
    own = FLOAT16_BYTES * (lat.d_c + lat.d_rope)
    notes = [Msg.plural_of(
        "At float16 a number takes 2 bytes. Per token and per layer the cache of multi-head "
        "latent attention keeps the latent and K_R alone: ({d_c} + {d_rope}) · 2 = {count} "
        "byte.", "At float16 a number takes 2 bytes. Per token and per layer the cache of "
        "multi-head latent attention keeps the latent and K_R alone: ({d_c} + {d_rope}) · 2 = "
        "{count} bytes.", own, d_c=lat.d_c, d_rope=lat.d_rope),
        Msg.of("The same heads with their keys and values cached (d_k = {d_nope} + {d_rope}):",
               d_nope=lat.d_nope, d_rope=lat.d_rope),
        mha(lat.heads, d_k, lat.d_v), *fewer_heads(lat.heads, d_k, lat.d_v)]
    return Step("latent_cache", Msg.of("Size of the latent cache"),
                Formula("(d_c + d_R) · 2", r"(d_c + d_R) \cdot 2", BYTES), (), None,
                tuple(notes))
