"""Positions: the token embeddings, a positional encoding added to them, and the context tokens
that keys and values come from in cross-attention."""

from __future__ import annotations

from dataclasses import replace

from attncli.arithmetic.numbers import constant
from attncli.compute import ops
from attncli.i18n import Constant, Digits, Msg
from attncli.model import Array, Formula, Step
from attncli.spec.model import Positional, Sequence
from attncli.steps.base import Build, Made, State, feature_labels, power_base


def embeddings(b: Build, state: State) -> Made[State]:
    """X = E, or E and then X = E + P (E shown already when it was made of an image)."""
    queries = b.spec.queries
    x = queries.embeddings if state.x is None else state.x  # (n, d_model)
    if queries.positional is None or queries.positional.kind == "rope":
        step = Step("embeddings", Msg.of("Token embeddings"), Formula("X = E", "X = E"),
                    (b.matrix(Formula("X", "X"), x, b.query_labels),), None,
                    rope_note(queries))
        return (step,), replace(state, x=x, x_in=x)
    first = Step("embeddings", Msg.of("Token embeddings"), None,
                 (b.matrix(Formula("E", "E"), x, b.query_labels),))
    added, x = positional(b, replace(queries, embeddings=x), "positional", Formula("X", "X"),
                          b.query_labels)
    return (first, added) if state.x is None else (added,), replace(state, x=x, x_in=x)


def context(b: Build, state: State) -> Made[State]:
    """The context tokens that keys and values come from (cross-attention)."""
    sequence = b.spec.context
    assert sequence is not None
    c = sequence.embeddings  # (m, d_model)
    note = Msg.of("Queries come from the tokens above; keys and values come from the context "
                  "tokens.")
    if sequence.positional is None or sequence.positional.kind == "rope":
        step = Step("context", Msg.of("Context embeddings"), Formula("C = E_c", "C = E_c"),
                    (b.matrix(Formula("C", "C"), c, b.key_labels),), None,
                    (note, *rope_note(sequence)))
        return (step,), replace(state, context=c)
    first = Step("context", Msg.of("Context embeddings"), None,
                 (b.matrix(Formula("E_c", "E_c"), c, b.key_labels),), None, (note,))
    added, c = positional(b, sequence, "context_positional", Formula("C", "C"), b.key_labels)
    return (first, added), replace(state, context=c)


def rope_note(sequence: Sequence) -> tuple[Msg, ...]:
    if sequence.positional is None:
        return ()
    return (Msg.of("Nothing is added to E: with RoPE the positions turn each head's queries and "
                   "keys after the projections."),)


def positional(b: Build, sequence: Sequence, step_id: str, symbol: Formula,
               labels: tuple[str, ...]) -> tuple[Step, Array]:
    """P (sinusoidal or given), then X = E + P, as one step."""
    added = sequence.positional
    assert added is not None
    e = sequence.embeddings  # (n, d_model)
    if added.kind == "sinusoidal":
        p = b.calc.rounded(ops.sinusoidal(sequence.n, sequence.d_model, added.base))
        note = Msg.of("Row k, columns 2i and 2i+1: sin(k / {base}^(2i/d)) and "
                      "cos(k / {base}^(2i/d)), d = {d}.", base=power_base(added.base),
                      d=sequence.d_model)
    else:
        assert added.values is not None
        p = added.values  # (n, d_model)
        note = Msg.of("P is a learned matrix: one row per position.")
    x = b.calc.rounded(e + p)  # (n, d_model) + (n, d_model)
    b.finite(x, symbol.text, labels, feature_labels(sequence.d_model))
    step = Step(step_id, Msg.of("Positional encoding"),
                Formula(f"{symbol.text} = E + P", f"{symbol.latex} = E + P"),
                (b.matrix(Formula("P", "P"), p, labels), b.matrix(symbol, x, labels)),
                None, (note,))
    return step, x


def stated(value: float) -> Digits | Constant:
    """A number of the spec named in a sentence ("base 1000000", "factor 8"): its digits, or
    m × 10^k past a million (a Symbol: TeX writes it in math), as attn writes every number."""
    text = constant(value, bracket=False)
    if "×" not in text:
        return Digits(text)
    return Constant(text, constant(value, tex=True, bracket=False))


def positional_kind(sequence: Sequence) -> Msg:
    added = sequence.positional
    assert added is not None
    if added.kind == "rope" and added.scaling is not None:
        return Msg.of("{rope}, frequencies scaled by {kind} (factor {factor})",
                      rope=unscaled_kind(added), kind=added.scaling.kind,
                      factor=stated(added.scaling.factor))
    return unscaled_kind(added)


def unscaled_kind(added: Positional) -> Msg:
    if added.kind == "sinusoidal":
        return Msg.of("sinusoidal, base {base}", base=stated(added.base))
    if added.kind == "rope" and added.layout == "half":
        return Msg.of("rotary (RoPE), base {base}, pairs (i, i + d_k/2)",
                      base=stated(added.base))
    if added.kind == "rope":
        return Msg.of("rotary (RoPE), base {base}, pairs (2i, 2i+1)", base=stated(added.base))
    return Msg.of("a learned matrix")
