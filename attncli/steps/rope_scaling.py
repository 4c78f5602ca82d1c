"""RoPE's frequencies scaled for a longer context (`rope: {scaling}`): the unscaled ωᵢ beside
the scaled ones, what each kind does in a note, one frequency written out, and YaRN's attention
factor (attncli/compute/rope_scaling.py computes them)."""

from __future__ import annotations

import math

import numpy as np

from attncli.arithmetic.exactness import line
from attncli.arithmetic.numbers import constant
from attncli.compute import rope_scaling as scaled
from attncli.i18n import Digits, Msg
from attncli.model import Array, Expansion, Formula, Matrix
from attncli.model.expr import Difference, Expr, Num, Product, Quotient, Sum
from attncli.spec.model import Positional, RopeScaling
from attncli.steps.base import Build


def shown(value: float) -> Digits:
    """A number of the spec a sentence names (a factor, a bound), as a formula writes it."""
    return Digits(constant(value))


def unscaled_row(b: Build, setting: Positional, d_k: int, pairs: tuple[str, ...]) -> Matrix:
    """base^(−2i/d_k): ωᵢ before the scaling."""
    base, base_tex = constant(setting.base), constant(setting.base, tex=True)
    return Matrix(Formula.holding(f"{base}^(−2i/d_k)", rf"{base_tex}^{{-2i/d_k}}", base),
                  b.calc.rounded(scaled.unscaled(d_k, setting.base)[None, :]), ("",), pairs)


def notes(setting: Positional, d_k: int) -> list[Msg]:
    """What the scaling does, in its numbers."""
    s = setting.scaling
    assert s is not None
    if s.kind == "linear":
        return [Msg.of("Linear scaling (position interpolation): every ωᵢ is divided by the "
                       "factor {factor}.", factor=shown(s.factor))]
    length = s.original_max_position_embeddings
    if s.kind == "llama3":
        return [Msg.of("Scaling llama3 (Llama 3.1), factor {factor}, trained on {length} "
                       "positions: a pair whose wavelength 2π/ωᵢ is shorter than {fast} keeps "
                       "ωᵢ, one longer than {slow} takes ωᵢ/{factor}, and one between takes "
                       "(1 − s)·ωᵢ/{factor} + s·ωᵢ, s = ({length}·ωᵢ/2π − {low})/({high} − "
                       "{low}).", factor=shown(s.factor), length=length,
                       fast=shown(length / s.high_freq_factor),
                       slow=shown(length / s.low_freq_factor), low=shown(s.low_freq_factor),
                       high=shown(s.high_freq_factor))]
    low, high = scaled.yarn_bounds(d_k, setting.base, s)
    factor = scaled.attention_factor(s)
    return [Msg.of("Scaling YaRN, factor {factor}, trained on {length} positions: pair i takes "
                   "r·ωᵢ + (1 − r)·ωᵢ/{factor}, r = 1 − clamp((i − {low})/({high} − {low}), 0, "
                   "1), so the fast pairs keep ωᵢ and the slow ones are divided by {factor}.",
                   factor=shown(s.factor), length=length, low=shown(low), high=shown(high)),
            Msg.of("YaRN multiplies cos and sin by the attention factor a = {a}: every turned "
                   "query and key is a times as long, and every score a² = {square} times what "
                   "it would be without it.", a=Digits(f"{factor:.6g}"),
                   square=Digits(f"{factor * factor:.6g}"))]


def chosen(s: RopeScaling, d_k: int, base: float, omega: Array) -> int:
    """The pair to write out: the first that is blended, else the first that is divided."""
    shares = [share_of(s, d_k, base, float(w), i) for i, w in enumerate(omega)]
    blended = [i for i, share in enumerate(shares) if 0 < share < 1]
    divided = [i for i, share in enumerate(shares) if share == 0]
    return (blended or divided or [0])[0]


def cell(b: Build, setting: Positional, d_k: int) -> tuple[Expansion, ...]:
    """One scaled frequency written out from the unscaled one; for YaRN also the attention
    factor 0.1·ln(factor) + 1 (unless the spec gives it)."""
    s = setting.scaling
    assert s is not None
    omega = scaled.unscaled(d_k, setting.base)  # (d_k/2,)
    result = scaled.frequencies(d_k, setting.base, s)  # (d_k/2,)
    i = chosen(s, d_k, setting.base, omega) if s.kind != "linear" else 0
    w, f = Num(float(b.calc.rounded(omega[i:i + 1])[0])), Num(s.factor)
    name = Formula(f"ω{i}", rf"\omega_{{{i}}}")
    base, factor = constant(setting.base), constant(s.factor)
    factor_tex = constant(s.factor, tex=True)
    power = (f"{base}^(−{2 * i}/{d_k})", f"{constant(setting.base, tex=True)}^{{-{2 * i}/{d_k}}}")
    expr: Expr
    if s.kind == "linear":
        symbolic = Formula.holding(f"{power[0]} / {factor}", rf"{power[1]} / {factor_tex}",
                                   base, factor)
        expr = Quotient(w, f)
    else:
        share = share_of(s, d_k, setting.base, float(omega[i]), i)
        r = Num(float(b.calc.rounded(np.array([share]))[0]))
        x = "s" if s.kind == "llama3" else "r"
        symbolic = Formula.holding(f"(1 − {x})·{power[0]}/{factor} + {x}·{power[0]}",
                                   rf"(1 - {x}) \cdot {power[1]}/{factor_tex} + {x} \cdot "
                                   rf"{power[1]}", base, factor)
        expr = Sum((Product((Difference(Num(1.0), r), Quotient(w, f))), Product((r, w))))
    lines = [line(name, symbolic, expr, float(b.calc.rounded(result[i:i + 1])[0]),
                  b.spec.display.precision)]
    if s.kind == "yarn" and s.attention_factor is None and s.factor > 1:
        log = Num(float(b.calc.rounded(np.array([math.log(s.factor)]))[0]))
        lines.append(line(Formula("a", "a"), Formula.holding(f"0.1·ln({factor}) + 1",
                                                             rf"0.1 \cdot \ln {factor_tex} + 1",
                                                             "0.1", factor),
                          Sum((Product((Num(0.1), log)), Num(1.0))),
                          float(b.calc.rounded(np.array([scaled.attention_factor(s)]))[0]),
                          b.spec.display.precision))
    return tuple(lines)


def share_of(s: RopeScaling, d_k: int, base: float, omega: float, i: int) -> float:
    """How much of pair i's own ωᵢ it keeps: llama3's s, YaRN's r."""
    if s.kind == "llama3":
        length = s.original_max_position_embeddings
        wavelength = 2 * math.pi / omega
        if wavelength > length / s.low_freq_factor:
            return 0.0
        if wavelength < length / s.high_freq_factor:
            return 1.0
        return (length / wavelength - s.low_freq_factor) / (s.high_freq_factor
                                                            - s.low_freq_factor)
    return float(scaled.yarn_ramp(d_k, base, s)[i])

