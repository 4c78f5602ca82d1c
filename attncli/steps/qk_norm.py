"""QK-norm: RMSNorm of the queries and keys after the projections and before RoPE, so no query or
key grows without bound: over each head's d_k (Qwen3's q_norm and k_norm, one gain of d_k shared
by the heads), or over the whole projection, every head's features at once (OLMo 2's, one gain
of heads·d_k)."""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from attncli.arithmetic.constants import constant
from attncli.i18n import Msg
from attncli.model import Array, Formula, Matrix, Step
from attncli.spec.model import Head, QKNorm
from attncli.steps.base import COMBINING_TILDE, Build, HeadState, Made
from attncli.steps.projections import shows_kv


def normed(b: Build, hs: HeadState) -> Made[HeadState]:
    """RMS of each row, then Q̃ = Q / RMS(Q) ⊙ g_q and K̃ = K / RMS(K) ⊙ g_k."""
    norm = b.spec.qk_norm
    assert norm is not None and hs.q is not None and hs.k is not None
    d_k = int(hs.q.shape[1])
    q_slice, k_slice = slices(b.spec.heads, hs.head, d_k)
    q_square, k_square = squares(b, hs, norm)  # (n,), (m,): Σ x² over what is normalized
    matrices: list[Matrix] = []
    made = {}
    for letter, values, rows, square, gain, where in (
            ("q", hs.q, b.query_labels, q_square, norm.q_gain, q_slice),
            ("k", hs.k, b.key_labels, k_square, norm.k_gain, k_slice)):
        width = d_k if norm.over == "head" else len(norm_width(b, letter, d_k))
        rms = b.calc.rounded(np.sqrt(square / width + norm.eps))[:, None]  # (rows, 1)
        b.finite(rms, f"RMS({letter.upper()})", rows, ("RMS",))  # ∞ would make Q̃ 0, not refused
        g = gain if gain is None or norm.over == "head" else gain[where[0]:where[1]]  # (d_k,)
        normalized = b.calc.rounded(values / rms if g is None else values / rms * g)  # (rows, d_k)
        name = letter.upper()
        tilde = b.matrix(Formula(f"{name}{COMBINING_TILDE}", rf"\tilde{{{name}}}"), normalized,
                         rows)
        b.finite(normalized, tilde.symbol.text, tilde.rows, tilde.columns)
        made[letter] = (normalized, tilde)
        if letter == "k" and not shows_kv(hs):
            continue  # a shared K̃ is shown with the first head using it
        matrices.append(Matrix(Formula(f"RMS({name})", rf"\operatorname{{RMS}}({name})"), rms,
                               rows, ("RMS",)))
        if g is not None:
            matrices.append(b.matrix(Formula(f"g_{letter}", f"g_{{{letter}}}"), g[None, :],
                                     ("",), tilde.columns))
        matrices.append(tilde)
    formula = Formula(f"Q{COMBINING_TILDE} = Q / RMS(Q) ⊙ g_q,  K{COMBINING_TILDE} = K / RMS(K) "
                      "⊙ g_k", r"\tilde{Q} = Q / \operatorname{RMS}(Q) \odot g_{q},\quad "
                      r"\tilde{K} = K / \operatorname{RMS}(K) \odot g_{k}")
    notes = [Msg.of("RMS(x) = √((1/d)·Σᵢ xᵢ² + ε), summed over the d features of x, here "
                    "ε = {eps}: each query and key is divided by its root mean square, so however "
                    "large the projection makes it, the scores cannot grow without bound.",
                    eps=constant(norm.eps)),
             Msg.of("Over each head's d_k features, as Qwen3: each query and key of a head "
                    "keeps a length near √d_k before the gain g, one vector of d_k shared by the "
                    "heads.") if norm.over == "head" else
             Msg.of("Over the whole projection, as OLMo 2: the sum runs over every head's "
                    "features at once (d = heads·d_k for queries, d = kv_heads·d_k for keys), so "
                    "one head's RMS depends on the other heads, and only the whole projection "
                    "keeps a length near √(heads·d_k) or √(kv_heads·d_k).")]
    step = Step("qk_norm", Msg.of("QK-norm"), formula, tuple(matrices), hs.index, tuple(notes))
    (q, Q), (k, K) = made["q"], made["k"]
    return (step,), replace(hs, q=q, k=k, Q=Q, K=K)


def slices(heads: tuple[Head, ...], head: Head, d_k: int) -> tuple[tuple[int, int],
                                                                  tuple[int, int]]:
    """Where this head's queries and keys sit in the whole projection (a gain of heads·d_k)."""
    i = next(k for k, h in enumerate(heads) if h is head)
    group = head.group if head.group is not None else i
    return (i * d_k, (i + 1) * d_k), (group * d_k, (group + 1) * d_k)


def norm_width(b: Build, letter: str, d_k: int) -> range:
    """The features one RMS of the whole projection runs over: every head's, or every key/value
    head's."""
    heads = b.spec.heads
    count = len(heads) if letter == "q" or heads[0].group is None else len(
        {h.group for h in heads})
    return range(count * d_k)


def squares(b: Build, hs: HeadState, norm: QKNorm) -> tuple[Array, Array]:
    """Σ x² of each row's queries and keys: of this head's (head), or of every head's and every
    key/value head's (projection)."""
    assert hs.q is not None and hs.k is not None
    if norm.over == "head":
        return (hs.q**2).sum(axis=1), (hs.k**2).sum(axis=1)  # (n,), (m,)
    conv = b.spec.convention
    q_square = np.zeros(hs.q.shape[0])  # (n,)
    k_square = np.zeros(hs.k.shape[0])  # (m,)
    seen: set[int] = set()
    for i, head in enumerate(b.spec.heads):
        q = b.calc.project(hs.x, head.W_Q, head.b_Q, conv)  # (n, d_k)
        q_square += (q**2).sum(axis=1)
        group = head.group if head.group is not None else i
        if group not in seen:
            seen.add(group)
            k = b.calc.project(hs.xk, head.W_K, head.b_K, conv)  # (m, d_k)
            k_square += (k**2).sum(axis=1)
    return q_square, k_square



