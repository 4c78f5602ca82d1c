"""build(spec) -> Walkthrough: runs the formulas of ops.py in order and labels every result."""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import replace

import numpy as np

from attncli import ops
from attncli.errors import Location, SpecError
from attncli.expand import Selection, attach
from attncli.handcalc import arithmetic, drift
from attncli.i18n import Msg
from attncli.model import Array, Formula, Header, HeadResult, Matrix, Step, Walkthrough
from attncli.reading import read
from attncli.spec.model import (
    CausalMask,
    Head,
    Mask,
    MatrixMask,
    PaddingMask,
    Spec,
    WindowMask,
)


def token_labels(tokens: tuple[str, ...]) -> tuple[str, ...]:
    """Tokens as row/column labels; a repeated token gets its occurrence number (`the#2`)."""
    counts = Counter(tokens)
    seen: Counter[str] = Counter()
    labels = []
    for token in tokens:
        seen[token] += 1
        labels.append(f"{token}#{seen[token]}" if counts[token] > 1 else token)
    return tuple(labels)


def feature_labels(d: int) -> tuple[str, ...]:
    return tuple(f"d{i}" for i in range(1, d + 1))


def visible_keys(masks: tuple[Mask, ...], n: int, m: int) -> ops.Bools:
    """Where every mask lets query i see key j."""
    visible = np.ones((n, m), dtype=bool)  # (n, m)
    for mask in masks:
        if isinstance(mask, CausalMask):
            visible &= ops.causal(n, m)
        elif isinstance(mask, WindowMask):
            visible &= ops.window(n, m, mask.width, mask.causal)
        elif isinstance(mask, PaddingMask):
            visible &= ops.padding(n, mask.keep)
        elif isinstance(mask, MatrixMask):
            visible &= mask.visible
    return visible


def describe_masks(masks: tuple[Mask, ...]) -> Msg:
    if not masks:
        return Msg.of("none")
    parts = [describe_mask(mask) for mask in masks]
    result = parts[0]
    for part in parts[1:]:
        result = Msg.of("{first} and {second}", first=result, second=part)
    return result


def describe_mask(mask: Mask) -> Msg:
    if isinstance(mask, CausalMask):
        return Msg.of("causal")
    if isinstance(mask, WindowMask):
        if mask.causal:
            return Msg.of("causal window of {width}", width=mask.width)
        return Msg.of("window of ±{width}", width=mask.width)
    if isinstance(mask, PaddingMask):
        hidden = sum(1 for keep in mask.keep if not keep)
        return Msg.plural_of("padding ({count} key hidden)", "padding ({count} keys hidden)",
                             hidden)
    return Msg.of("explicit matrix")


class _Builder:
    """Builds the steps of one spec; one instance per build."""

    def __init__(self, spec: Spec) -> None:
        self.spec = spec
        self.row = spec.convention == "row"
        self.query_labels = token_labels(spec.queries.tokens)
        self.key_labels = token_labels(spec.keys_source.tokens)
        self.steps: list[Step] = []
        self.calc = arithmetic(spec.display.round_intermediates, spec.display.precision)

    def matrix(self, symbol: Formula, values: Array, rows: tuple[str, ...],
               columns: tuple[str, ...] | None = None) -> Matrix:
        if columns is None:
            columns = feature_labels(int(values.shape[1]))
        return Matrix(symbol, values, rows, columns)

    def finite(self, values: Array, name: str, rows: tuple[str, ...],
               columns: tuple[str, ...]) -> None:
        """Refuse a result that overflowed float64: no silent inf or NaN downstream."""
        bad = ~np.isfinite(values)
        if bad.any():
            i, j = (int(x) for x in np.argwhere(bad)[0])
            raise SpecError(
                Msg.of("{name}[{row}, {column}] is too large for a 64-bit float; "
                       "scale the inputs down", name=name, row=rows[i], column=columns[j]),
                Location(self.spec.source),
            )

    def add(self, step_id: str, title: Msg, formula: Formula | None,
            matrices: tuple[Matrix, ...], head: int | None = None,
            notes: tuple[Msg, ...] = ()) -> None:
        self.steps.append(Step(step_id, title, formula, matrices, head, notes))

    def embeddings(self) -> Array:
        x = self.spec.queries.embeddings  # (n, d_model)
        self.add("embeddings", Msg.of("Token embeddings"), Formula("X = E", "X = E"),
                 (self.matrix(Formula("X", "X"), x, self.query_labels),))
        return x

    def head(self, index: int | None, head: Head, x: Array) -> HeadResult:
        spec = self.spec
        conv = spec.convention
        xk = spec.context.embeddings if spec.context is not None else x  # (m, d_model)
        self.parameters(index, head)
        q = self.calc.project(x, head.W_Q, head.b_Q, conv)  # (n, d_k)
        k = self.calc.project(xk, head.W_K, head.b_K, conv)  # (m, d_k)
        v = self.calc.project(xk, head.W_V, head.b_V, conv)  # (m, d_v)
        Q = self.matrix(Formula("Q", "Q"), q, self.query_labels)
        K = self.matrix(Formula("K", "K"), k, self.key_labels)
        V = self.matrix(Formula("V", "V"), v, self.key_labels)
        for mat, name in ((Q, "Q"), (K, "K"), (V, "V")):
            self.finite(mat.values, name, mat.rows, mat.columns)
        self.add("projections", Msg.of("Queries, keys and values"), self.projection_formula(head),
                 (Q, K, V), index)

        if spec.score.kind == "general":
            assert spec.score.W is not None
            s = self.calc.general_scores(q, spec.score.W, k)  # (n, m)
            formula = Formula("S = Q·W·Kᵀ", r"S = Q W K^{\top}")
            note = Msg.of("Each score compares a query with a key through W: qᵢ·W·kⱼ.")
        else:
            s = self.calc.dot_scores(q, k)  # (n, m)
            formula = Formula("S = Q·Kᵀ", r"S = Q K^{\top}")
            note = Msg.of("Each score is the dot product of a query and a key: qᵢ·kⱼ.")
        labels = (self.query_labels, self.key_labels)
        self.finite(s, "S", *labels)
        self.add("scores", Msg.of("Scores"), formula,
                 (Matrix(Formula("S", "S"), s, *labels),), index, (note,))
        logits = self.scaled(index, head, s)
        symbol = Formula("S′", "S'") if spec.scale.kind != "none" else Formula("S", "S")

        visible = visible_keys(spec.masks, q.shape[0], k.shape[0])  # (n, m)
        if spec.masks:
            logits = ops.apply_mask(logits, visible)  # (n, m)
            self.add("masked", Msg.of("Masked scores"),
                     Formula(f"{symbol.text} + M", f"{symbol.latex} + M"),
                     (Matrix(Formula(f"{symbol.text} + M", f"{symbol.latex} + M"), logits,
                             *labels),),
                     index, (Msg.of("A hidden key gets −∞, which softmax turns into weight 0."),))
            symbol = Formula(f"{symbol.text} + M", f"{symbol.latex} + M")
        weights, empty = self.calc.softmax(logits)  # (n, m), (n,)
        notes = [Msg.of("Softmax is taken along each row, so every row of A sums to 1.")]
        if empty.any():
            weights = self.empty_rows(weights, empty, notes)
        A = Matrix(Formula("A", "A"), weights, *labels)
        self.add("weights", Msg.of("Attention weights"),
                 Formula(f"A = softmax({symbol.text})",
                         rf"A = \operatorname{{softmax}}\left({symbol.latex}\right)"),
                 (A,), index, tuple(notes))
        z = self.calc.attend(weights, v)  # (n, m) @ (m, d_v) -> (n, d_v)
        Z = self.matrix(Formula("Z", "Z"), z, self.query_labels)
        self.add("output", Msg.of("Output"), self.output_formula(), (Z,), index,
                 (Msg.of("Each output row is the weighted sum of the value rows."),))
        return HeadResult(index or 1, Q, K, V, Matrix(symbol, logits, *labels), A, Z,
                          self.divisor(head))

    def parameters(self, index: int | None, head: Head) -> None:
        matrices = []
        for name in ("W_Q", "W_K", "W_V"):
            w = getattr(head, name)
            rows = feature_labels(int(w.shape[0]))
            matrices.append(self.matrix(Formula(name, name.replace("_", "_{") + "}"), w, rows))
        for name in ("b_Q", "b_K", "b_V"):
            b = getattr(head, name)
            if b is not None:
                matrices.append(self.matrix(Formula(name, name.replace("_", "_{") + "}"),
                                            b[None, :], ("",)))
        self.add("parameters", Msg.of("Projection weights"), None, tuple(matrices), index)

    def projection_formula(self, head: Head) -> Formula:
        texts, latexes = [], []
        for letter in ("Q", "K", "V"):
            bias = getattr(head, f"b_{letter}") is not None
            if self.row:
                text, latex = f"{letter} = X·W_{letter}", f"{letter} = X W_{{{letter}}}"
            else:
                low = letter.lower()
                text, latex = f"{low}ᵢ = W_{letter}·xᵢ", f"{low}_i = W_{{{letter}}} x_i"
            if bias:
                text, latex = f"{text} + b_{letter}", f"{latex} + b_{{{letter}}}"
            texts.append(text)
            latexes.append(latex)
        return Formula(",  ".join(texts), r",\quad ".join(latexes))

    def output_formula(self) -> Formula:
        if self.row:
            return Formula("Z = A·V", "Z = A V")
        return Formula("zᵢ = Σⱼ Aᵢⱼ·vⱼ", r"z_i = \sum_j A_{ij} v_j")

    def divisor(self, head: Head) -> float:
        scale = self.spec.scale
        if scale.kind == "sqrt_dk":
            return self.calc.divisor(math.sqrt(head.d_k(self.spec.convention)))
        if scale.kind == "number":
            return scale.value
        return 1.0

    def scaled(self, index: int | None, head: Head, s: Array) -> Array:
        scale = self.spec.scale
        if scale.kind == "none":
            return s
        divisor = self.divisor(head)
        scaled = self.calc.scale(s, divisor)  # (n, m)
        labels = (self.query_labels, self.key_labels)
        if scale.kind == "sqrt_dk":
            d_k = head.d_k(self.spec.convention)
            formula = Formula(f"S′ = S / √d_k = S / √{d_k}",
                              rf"S' = \frac{{S}}{{\sqrt{{d_k}}}} = \frac{{S}}{{\sqrt{{{d_k}}}}}")
            note = Msg.of("Dividing by √d_k = {root} keeps the scores from growing with the "
                          "dimension of the keys.", root=divisor)
        else:
            formula = Formula(f"S′ = S / {divisor:g}", rf"S' = \frac{{S}}{{{divisor:g}}}")
            note = Msg.of("The scores are divided by {divisor}.", divisor=divisor)
        self.add("scaled", Msg.of("Scaled scores"), formula,
                 (Matrix(Formula("S′", "S'"), scaled, *labels),), index, (note,))
        return scaled

    def empty_rows(self, weights: Array, empty: ops.Bools, notes: list[Msg]) -> Array:
        """Apply masked_rows to queries that see no key at all."""
        policy = self.spec.masked_rows
        first = self.query_labels[int(np.argmax(empty))]
        if policy == "error":
            raise SpecError(
                Msg.of("mask: the query {token} sees no key (masked_rows: error)", token=first),
                Location(self.spec.source, "mask"),
            )
        count = int(empty.sum())
        if policy == "nan":
            weights = weights.copy()
            weights[empty] = np.nan  # (n, m): the rows the user asked to be undefined
            notes.append(Msg.plural_of(
                "{count} query sees no key; its weights are undefined (NaN).",
                "{count} queries see no key; their weights are undefined (NaN).", count))
        else:
            notes.append(Msg.plural_of(
                "{count} query sees no key; its weights and output are 0.",
                "{count} queries see no key; their weights and output are 0.", count))
        return weights

    def header(self) -> Header:
        spec = self.spec
        head = spec.heads[0]
        scale = spec.scale
        if scale.kind == "sqrt_dk":
            scale_msg = Msg.of("÷ √d_k = {value}", value=self.divisor(head))
        elif scale.kind == "number":
            scale_msg = Msg.of("÷ {value}", value=scale.value)
        else:
            scale_msg = Msg.of("none")
        return Header(
            title=spec.title, description=spec.description,
            n_queries=spec.queries.n, n_keys=spec.keys_source.n, d_model=spec.queries.d_model,
            d_k=head.d_k(spec.convention), d_v=head.d_v(spec.convention),
            n_heads=len(spec.heads), convention=spec.convention,
            mask=describe_masks(spec.masks), scale=scale_msg,
        )


def build(spec: Spec, expand: Selection | None = None) -> Walkthrough:
    """Every step of attention on `spec`, in order, each result labelled with the tokens, with the
    work shown: the cells chosen by `expand` written out (default: `auto`), a reading of the
    weights in words, and, in hand calculation, where it drifts from full precision."""
    walkthrough, angles = attach(compute(spec), spec, expand or Selection())
    walkthrough = replace(walkthrough, reading=read(walkthrough, angles))
    if spec.display.round_intermediates:
        full = compute(replace(spec, display=replace(spec.display, round_intermediates=False)))
        walkthrough = replace(walkthrough, drift=drift(walkthrough, full))
    return walkthrough


def compute(spec: Spec) -> Walkthrough:
    """The steps alone: every matrix of attention on `spec`, in order."""
    builder = _Builder(spec)
    # An overflow becomes inf here and is reported by _Builder.finite as a SpecError.
    with np.errstate(over="ignore", invalid="ignore"):
        x = builder.embeddings()
        heads = tuple(
            builder.head(i + 1 if len(spec.heads) > 1 else None, head, x)
            for i, head in enumerate(spec.heads)
        )
    return Walkthrough(
        header=builder.header(),
        steps=tuple(builder.steps),
        heads=heads,
        output=heads[-1].context,
        precision=spec.display.precision,
        round_intermediates=spec.display.round_intermediates,
        decimal=spec.display.decimal,
    )
