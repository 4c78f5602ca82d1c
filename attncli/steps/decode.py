"""Decoding with a KV cache: the prompt's keys and values computed once (prefill), then every
later token as one decode step that appends its key and value to the cache and attends to the
cache alone; each step checked against the same row of full causal attention. Last, what the
cache costs per token at float16, for this spec and for MHA, GQA and MQA of the same width."""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from attncli.arithmetic import elision
from attncli.arithmetic.numbers import constant
from attncli.i18n import Count, Msg, quoted
from attncli.model import Array, Formula, Matrix, Step, Walkthrough
from attncli.steps import scores as scoring
from attncli.steps.base import Build, HeadState, Made, State
from attncli.steps.labels import subscript

FLOAT16_BYTES = 2
# The unit of a cache's size, written after its formula: the symbol of bytes, B (Russian Б).
BYTES = Msg.of("B")
TOLERANCE = 1e-12  # how close a decode row must come to full attention's row to be called equal


def span(first: int, last: int) -> Formula:
    """The rows first..last (1-based) of the cache: `1:4`."""
    return Formula(f"{first}:{last}", f"{first}:{last}")


def prefill(b: Build, hs: HeadState) -> Made[HeadState]:
    """K and V of the prompt's p tokens, computed at once: the cache the decode steps start from,
    then one step per later token."""
    assert b.spec.decode is not None and hs.k is not None and hs.v is not None
    p = b.spec.decode.prefill
    rows = b.key_labels[:p]
    K = b.matrix(Formula(f"K[1:{p}]", f"K_{{1:{p}}}"), hs.k[:p], rows)
    V = b.matrix(Formula(f"V[1:{p}]", f"V_{{1:{p}}}"), hs.v[:p], rows)
    note = Msg.plural_of(
        "The prompt's {count} token is read at once; its key and value stay in the cache.",
        "The prompt's {count} tokens are read at once; their keys and values stay in the cache.",
        p)
    formula = Formula(f"K[1:{p}], V[1:{p}]",
                      rf"K_{{1:{p}}},\ V_{{1:{p}}}")
    steps = [Step("prefill", Msg.of("Prefill: the KV cache"), formula, (K, V), hs.index, (note,))]
    for t, left_out in worked(p, len(b.query_labels), b.few_decodes):
        step = decode_step(b, hs, t)
        if left_out:  # the first step after the gap says what the gap holds
            step = replace(step, notes=(gap(b, t, left_out), *step.notes))
        steps.append(step)
    return tuple(steps), hs


def worked(prefill: int, n: int, few: bool) -> list[tuple[int, int]]:
    """The tokens (0-based) that have a decode step, each with how many tokens before it are
    left out: every one past the prompt, or, when `few` (a summary), the first and last
    elision.EDGE as a large matrix shows its rows: a lecture shows a few decode steps, and
    4,095 of them took 33 s and 51 MB in LaTeX."""
    made, before = [], prefill - 1  # the token of the last step made: the prompt's last at first
    for i in elision.shown(n - prefill, few):
        if i is not None:
            made.append((prefill + i, prefill + i - before - 1))
            before = prefill + i
    return made


def gap(b: Build, t: int, left_out: int) -> Msg:
    """The sentence that stands for the decode steps of the `left_out` tokens before token t."""
    first, last = b.query_labels[t - left_out], b.query_labels[t - 1]
    return Msg.plural_of(
        "The decode steps of the tokens {first} to {last} ({count} step) are left out here; "
        "each is worked like the steps shown.",
        "The decode steps of the tokens {first} to {last} ({count} steps) are left out here; "
        "each is worked like the steps shown.", Count(left_out), first=quoted(first),
        last=quoted(last))


def blank(b: Build, hs: HeadState) -> Made[HeadState]:
    """The prefill step and the decode steps `prefill` would make in their places, with no
    matrix and nothing worked: for a walkthrough in which none of them is read
    (attncli/steps/base.py Family)."""
    assert b.spec.decode is not None
    steps = [Step("prefill", Msg.of("Prefill: the KV cache"), None, (), hs.index)]
    steps += [Step("decode", Msg.of("Decode step: {token}", token=quoted(b.query_labels[t])),
                   None, (), hs.index)
              for t, _ in worked(b.spec.decode.prefill, len(b.query_labels), b.few_decodes)]
    return tuple(steps), hs



def named(walkthrough: Walkthrough, prefill: int, n: int, few: bool) -> Walkthrough:
    """`walkthrough` with its blank prefill and decode steps given their matrices' names (and no
    numbers): what a `--matrix` refusal lists, without the steps worked. `n` tokens; `few`: the
    walkthrough is a summary's, with only the first and last decode steps (see `worked`)."""
    names: dict[int, tuple[Matrix, ...]] = {}  # the names of step t, alike in every head

    def at(t: int) -> tuple[Matrix, ...]:
        if t not in names:
            sub = subscript(t)
            symbols = ((f"K[1:{t}]", f"V[1:{t}]") if t == prefill else
                       (f"q{sub}", f"K[1:{t}]", f"V[1:{t}]", f"s{sub}", f"a{sub}", f"z{sub}"))
            names[t] = tuple(Matrix(Formula(s, s), NOTHING, (), ()) for s in symbols)
        return names[t]

    decoded = [t + 1 for t, _ in worked(prefill, n, few)]  # 1-based: K[1:t] holds t rows
    steps, later = [], iter(decoded)
    for step in walkthrough.steps:
        if step.id in ("prefill", "decode") and not step.matrices:
            if step.id == "prefill":
                later = iter(decoded)  # each head's decode steps follow its prefill
            step = replace(step, matrices=at(prefill if step.id == "prefill" else next(later)))
        steps.append(step)
    return replace(walkthrough, steps=tuple(steps))


NOTHING = np.empty((0, 0))  # (0, 0): a matrix known by its name alone

def decode_step(b: Build, hs: HeadState, t: int) -> Step:
    """Token t (0-based) alone: q_t, the cache with k_t and v_t appended, the scores of q_t
    against the cache, the weights, z_t; and the check against row t of Z."""
    assert hs.q is not None and hs.k is not None and hs.v is not None and hs.Z is not None
    token, i = b.query_labels[t], t + 1
    cached = b.key_labels[:i]
    q = hs.q[t:i]  # (1, d_k): the new token's query
    k, v = hs.k[:i], hs.v[:i]  # (t+1, d_k), (t+1, d_v): the cache, k_t and v_t appended
    if b.spec.score.kind == "general":
        assert b.spec.score.W is not None
        s = b.calc.general_scores(q, b.spec.score.W, k)  # (1, d_k) @ W @ (d_k, t+1) -> (1, t+1)
    else:
        s = b.calc.dot_scores(q, k)  # (1, d_k) @ (d_k, t+1) -> (1, t+1)
    divisor = scoring.divisor(b, hs.head)
    if b.spec.scale.kind != "none":
        s = b.calc.scale(s, divisor)  # (1, t+1)
    a, _ = b.calc.softmax(s)  # (1, t+1): the cache holds only keys the token may see
    z = b.calc.attend(a, v)  # (1, t+1) @ (t+1, d_v) -> (1, d_v)
    sub = subscript(i)
    matrices = (
        b.matrix(Formula(f"q{sub}", f"q_{{{i}}}"), q, (token,)),
        b.matrix(Formula(f"K[1:{i}]", f"K_{{1:{i}}}"), k, cached),
        b.matrix(Formula(f"V[1:{i}]", f"V_{{1:{i}}}"), v, cached),
        Matrix(Formula(f"s{sub}", f"s_{{{i}}}"), s, (token,), cached),
        Matrix(Formula(f"a{sub}", f"a_{{{i}}}"), a, (token,), cached),
        b.matrix(Formula(f"z{sub}", f"z_{{{i}}}"), z, (token,)),
    )
    notes = [Msg.of("The cache gains the key and value of {token} as its last row; the query of "
                    "{token} meets only the cache, so no mask is needed.", token=quoted(token))]
    if t in hs.Z.row_indices():
        notes.append(check(z[0], hs.Z.row(t), sub, token))
    return Step("decode", Msg.of("Decode step: {token}", token=quoted(token)),
                decode_formula(b, i, divisor), matrices, hs.index, tuple(notes))


def check(z: Array, full: Array, sub: str, token: str) -> Msg:
    """Whether a decode row equals full causal attention's row to TOLERANCE (relative to the
    row's size beyond 1: float64 may add the same numbers in another order)."""
    both_nan = np.isnan(z) & np.isnan(full)  # (d_v,)
    close = np.abs(z - full) <= TOLERANCE * np.maximum(1.0, np.abs(full))  # (d_v,)
    if bool((close | both_nan).all()):
        return Msg.of("Check: z{sub} equals row {token} of Z, the output of full causal "
                      "attention, to 12 decimal places.", sub=sub, token=quoted(token))
    return Msg.of("Check failed: z{sub} differs from row {token} of Z, the output of full "
                  "causal attention.", sub=sub, token=quoted(token))


def decode_formula(b: Build, i: int, divisor: float) -> Formula:
    sub = subscript(i)
    cache = f"K[1:{i}]ᵀ"
    if b.spec.score.kind == "general":
        text, latex = f"q{sub}·W·{cache}", rf"q_{{{i}}} W K_{{1:{i}}}^{{\top}}"
    else:
        text, latex = f"q{sub}·{cache}", rf"q_{{{i}}} K_{{1:{i}}}^{{\top}}"
    if b.spec.scale.kind == "sqrt_dk":
        text, latex = f"{text} / √d_k", rf"\frac{{{latex}}}{{\sqrt{{d_k}}}}"
    elif b.spec.scale.kind == "number":
        text, latex = (f"{text} / {constant(divisor)}",
                       rf"\frac{{{latex}}}{{{constant(divisor, tex=True)}}}")
    return Formula.holding(f"s{sub} = {text},  z{sub} = softmax(s{sub})·V[1:{i}]",
                           rf"s_{{{i}}} = {latex},\quad z_{{{i}}} = "
                           rf"\operatorname{{softmax}}(s_{{{i}}})\, V_{{1:{i}}}",
                           constant(divisor) if b.spec.scale.kind == "number" else "")


def cache_sizes(b: Build, state: State) -> Made[State]:
    """Bytes the cache keeps per token per layer at float16: K and V of every key-value head."""
    conv = b.spec.convention
    heads = b.spec.heads
    h = len(heads)
    d_k, d_v = heads[0].d_k(conv), heads[0].d_v(conv)
    kv = b.spec.kv_heads or h  # key-value heads: fewer than h when the heads share them (GQA)
    own = FLOAT16_BYTES * sum(head.d_k(conv) + head.d_v(conv) for head in heads) * kv // h
    notes = [
        Msg.of("At float16 a number takes 2 bytes; per token and per layer the cache keeps a "
               "key and a value for every key-value head."),
        mha(h, d_k, d_v),
    ]
    if any((head.d_k(conv), head.d_v(conv)) != (d_k, d_v) for head in heads):
        # heads of different sizes: no one MHA, GQA or MQA of the same width to compare with
        notes[1:] = [Msg.plural_of(
            "This spec, heads of different sizes: {count} byte per token per layer.",
            "This spec, heads of different sizes: {count} bytes per token per layer.", own)]
        return (kv_step(notes),), state
    notes.insert(1, Msg.plural_of(
        "This spec: {heads} · ({d_k} + {d_v}) · 2 = {count} byte per token per layer.",
        "This spec: {heads} · ({d_k} + {d_v}) · 2 = {count} bytes per token per layer.", own,
        heads=kv, d_k=d_k, d_v=d_v))
    notes.extend(fewer_heads(h, d_k, d_v))
    return (kv_step(notes),), state


def mha(h: int, d_k: int, d_v: int) -> Msg:
    """What MHA of h heads of these sizes keeps per token per layer at float16."""
    return Msg.plural_of("Multi-head attention (MHA), a key-value head for every query head: "
                         "{heads} · ({d_k} + {d_v}) · 2 = {count} byte.",
                         "Multi-head attention (MHA), a key-value head for every query head: "
                         "{heads} · ({d_k} + {d_v}) · 2 = {count} bytes.",
                         h * FLOAT16_BYTES * (d_k + d_v), heads=h, d_k=d_k, d_v=d_v)


def fewer_heads(h: int, d_k: int, d_v: int) -> list[Msg]:
    """What GQA and MQA of h query heads of these sizes keep per token per layer at float16."""
    per_head = FLOAT16_BYTES * (d_k + d_v)  # one key-value head: a key and a value, 2 bytes each
    sizes = {"d_k": d_k, "d_v": d_v}
    notes = []
    groups = gqa_groups(h)
    if groups is not None:
        notes.append(Msg.plural_of(
            "Grouped-query attention (GQA), query heads in groups of {per}, a key-value head per "
            "group: {groups} · ({d_k} + {d_v}) · 2 = {count} byte.",
            "Grouped-query attention (GQA), query heads in groups of {per}, a key-value head per "
            "group: {groups} · ({d_k} + {d_v}) · 2 = {count} bytes.", groups * per_head,
            groups=groups, per=h // groups, **sizes))
    else:
        notes.append(Msg.plural_of(
            "Grouped-query attention (GQA): {count} head cannot be split into several equal "
            "groups of several heads.",
            "Grouped-query attention (GQA): {count} heads cannot be split into several equal "
            "groups of several heads.", h))
    notes.append(Msg.plural_of("Multi-query attention (MQA), one key-value head for both query "
                               "heads: ({d_k} + {d_v}) · 2 = {count} byte.",
                               "Multi-query attention (MQA), one key-value head for both query "
                               "heads: ({d_k} + {d_v}) · 2 = {count} bytes.", per_head, **sizes)
                 if h == 2 else  # "both": Polish "obu", Russian "обе"
                 Msg.plural_of("Multi-query attention (MQA), one key-value head for all query "
                               "heads: ({d_k} + {d_v}) · 2 = {count} byte.",
                               "Multi-query attention (MQA), one key-value head for all query "
                               "heads: ({d_k} + {d_v}) · 2 = {count} bytes.", per_head, **sizes))
    return notes


def kv_step(notes: list[Msg]) -> Step:
    return Step("kv_cache", Msg.of("Size of the KV cache"),
                Formula("n_kv · (d_k + d_v) · 2", r"n_{kv} (d_k + d_v) \cdot 2", BYTES),
                (), None, tuple(notes))


def gqa_groups(h: int) -> int | None:
    """The key-value heads of GQA for h query heads: the largest divisor of h below h/2 + 1
    other than 1 (8 heads: 4 groups of 2), or None when h is 1 or prime."""
    return next((g for g in range(h // 2, 1, -1) if h % g == 0), None)
