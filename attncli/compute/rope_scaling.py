"""RoPE's frequencies ωᵢ = base^(−2i/d_k), scaled for a longer context as a checkpoint's
`rope_scaling` says: `linear` (position interpolation), `llama3` (Llama 3.1) or `yarn` (Peng et
al., gpt-oss), as transformers' `_compute_*_parameters` compute them, in float64."""

from __future__ import annotations

import math

import numpy as np

from attncli.spec.model import Array, RopeScaling


def unscaled(d_k: int, base: float) -> Array:
    """ωᵢ = base^(−2i/d_k), i = 0 .. d_k/2 − 1."""
    return base ** (-2.0 * np.arange(d_k // 2) / d_k)  # (d_k/2,)


def frequencies(d_k: int, base: float, scaling: RopeScaling | None) -> Array:
    """ωᵢ after the scaling (the unscaled ones without it)."""
    omega = unscaled(d_k, base)  # (d_k/2,)
    if scaling is None:
        return omega
    if scaling.kind == "linear":
        return omega / scaling.factor  # (d_k/2,)
    if scaling.kind == "llama3":
        return llama3(omega, scaling)
    kept = yarn_ramp(d_k, base, scaling)  # (d_k/2,)
    return omega * kept + omega / scaling.factor * (1.0 - kept)  # (d_k/2,)


def llama3(omega: Array, s: RopeScaling) -> Array:
    """Wavelengths 2π/ωᵢ shorter than L/high_freq_factor are kept, longer than
    L/low_freq_factor divided by the factor, and those between blended by
    (L/λ − low) / (high − low), L the original context."""
    length = float(s.original_max_position_embeddings)
    wavelength = 2 * math.pi / omega  # (d_k/2,)
    kept = np.where(wavelength > length / s.low_freq_factor, omega / s.factor, omega)  # (d_k/2,)
    smooth = (length / wavelength - s.low_freq_factor) / (s.high_freq_factor - s.low_freq_factor)
    blended = (1 - smooth) * kept / s.factor + smooth * kept  # (d_k/2,)
    fast, slow = length / s.high_freq_factor, length / s.low_freq_factor  # the two wavelengths
    medium = ~(wavelength < fast) & ~(wavelength > slow)  # (d_k/2,)
    return np.where(medium, blended, kept)  # (d_k/2,)


def yarn_bounds(d_k: int, base: float, s: RopeScaling) -> tuple[float, float]:
    """The pairs between which YaRN blends: where a pair turns beta_fast and beta_slow times over
    the original context, floored and ceiled unless `truncate: false`."""
    def pair_of(turns: float) -> float:
        length = s.original_max_position_embeddings
        ratio = length / (turns * 2 * math.pi)
        if not 0 < ratio < math.inf:  # a beta of 1e308 made 2π·beta inf and the ratio 0: the
            # log of 0 was 'math domain error', exit 3; the same log, taken term by term
            return d_k * (math.log(length) - math.log(turns) - math.log(2 * math.pi)) / (
                2 * math.log(base))
        return d_k * math.log(ratio) / (2 * math.log(base))

    low, high = pair_of(s.beta_fast), pair_of(s.beta_slow)
    if s.truncate:
        low, high = math.floor(low), math.ceil(high)
    return max(low, 0), min(high, d_k - 1)


def yarn_ramp(d_k: int, base: float, s: RopeScaling) -> Array:
    """How much of each pair keeps its own frequency (1) rather than the interpolated one (0):
    1 − clamp((i − low) / (high − low), 0, 1)."""
    low, high = yarn_bounds(d_k, base, s)
    if low == high:
        high += 0.001  # as transformers: no division by zero
    ramp = np.clip((np.arange(d_k // 2, dtype=np.float64) - low) / (high - low), 0, 1)
    return 1.0 - ramp  # (d_k/2,)


def attention_factor(scaling: RopeScaling | None) -> float:
    """What cos and sin are multiplied by: YaRN's `attention_factor`, 0.1·ln(factor) + 1 by
    default (1 for a factor ≤ 1); 1 for the other kinds."""
    if scaling is None or scaling.kind != "yarn":
        return 1.0
    if scaling.attention_factor is not None:
        return scaling.attention_factor
    return 1.0 if scaling.factor <= 1 else 0.1 * math.log(scaling.factor) + 1.0
