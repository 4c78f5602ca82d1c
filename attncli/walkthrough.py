"""build(spec) -> Walkthrough: runs the formulas of ops.py in order and labels every result."""

from __future__ import annotations

import math
from dataclasses import replace

import numpy as np

from attncli import elision, ops
from attncli.errors import Location, SpecError
from attncli.expand import Selection, attach
from attncli.handcalc import arithmetic, drift
from attncli.i18n import Msg
from attncli.labels import subscript, token_labels
from attncli.model import Array, Formula, Header, HeadResult, Matrix, Step, Walkthrough
from attncli.reading import read
from attncli.spec.model import (
    CausalMask,
    FeedForward,
    Head,
    LayerNorm,
    Mask,
    MatrixMask,
    PaddingMask,
    Sequence,
    Spec,
    WindowMask,
)

COMBINING_TILDE = "\u0303"  # X̃: the input after LayerNorm


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

    def __init__(self, spec: Spec, kept: tuple[int, ...] | None = None) -> None:
        self.spec = spec
        self.kept = kept  # the rows of the n x m matrices to keep (a summary), or None: all
        self.row = spec.convention == "row"
        self.query_labels = token_labels(spec.queries.tokens)
        self.key_labels = token_labels(spec.keys_source.tokens)
        self.steps: list[Step] = []
        self.pre_normed = False  # the heads read LayerNorm(X), written X̃
        self.calc = arithmetic(spec.display.round_intermediates, spec.display.precision)

    def matrix(self, symbol: Formula, values: Array, rows: tuple[str, ...],
               columns: tuple[str, ...] | None = None) -> Matrix:
        if columns is None:
            columns = feature_labels(int(values.shape[1]))
        return Matrix(symbol, values, rows, columns)

    def attention(self, symbol: Formula, values: Array) -> Matrix:
        """An n x m matrix of one head (queries by keys), whole or as a summary of the kept rows.
        A summary copies its rows out, so the whole array is freed as soon as the head is done."""
        labels = (self.query_labels, self.key_labels)
        if self.kept is None:
            return Matrix(symbol, values, *labels)
        return Matrix(symbol, values[list(self.kept)], *labels, kept=self.kept)  # (kept, m)

    def reuse(self, values: Array) -> Array | None:
        """Where the next n x m result may be written: into the last one, whose matrix is a
        summary (a copy of some rows), so nothing else reads it; None for whole matrices."""
        return values if self.kept is not None else None

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
        queries = self.spec.queries
        x = queries.embeddings  # (n, d_model)
        if queries.positional is None:
            self.add("embeddings", Msg.of("Token embeddings"), Formula("X = E", "X = E"),
                     (self.matrix(Formula("X", "X"), x, self.query_labels),))
            return x
        self.add("embeddings", Msg.of("Token embeddings"), None,
                 (self.matrix(Formula("E", "E"), x, self.query_labels),))
        return self.positional(queries, "positional", Formula("X", "X"), self.query_labels)

    def positional(self, sequence: Sequence, step_id: str, symbol: Formula,
                   labels: tuple[str, ...]) -> Array:
        """P (sinusoidal or given), then X = E + P, as one step."""
        added = sequence.positional
        assert added is not None
        e = sequence.embeddings  # (n, d_model)
        if added.kind == "sinusoidal":
            p = self.calc.rounded(ops.sinusoidal(sequence.n, sequence.d_model, added.base))
            note = Msg.of("Row k, columns 2i and 2i+1: sin(k / {base}^(2i/d)) and "
                          "cos(k / {base}^(2i/d)), d = {d}.", base=f"{added.base:g}",
                          d=sequence.d_model)
        else:
            assert added.values is not None
            p = added.values  # (n, d_model)
            note = Msg.of("P is a learned matrix: one row per position.")
        x = self.calc.rounded(e + p)  # (n, d_model) + (n, d_model)
        self.finite(x, symbol.text, labels, feature_labels(sequence.d_model))
        self.add(step_id, Msg.of("Positional encoding"),
                 Formula(f"{symbol.text} = E + P", f"{symbol.latex} = E + P"),
                 (self.matrix(Formula("P", "P"), p, labels),
                  self.matrix(symbol, x, labels)), None, (note,))
        return x

    def context_inputs(self) -> Array | None:
        """The context tokens that keys and values come from (cross-attention), or None."""
        context = self.spec.context
        if context is None:
            return None
        c = context.embeddings  # (m, d_model)
        note = Msg.of("Queries come from the tokens above; keys and values from these.")
        if context.positional is None:
            self.add("context", Msg.of("Context embeddings"), Formula("C = E_c", "C = E_c"),
                     (self.matrix(Formula("C", "C"), c, self.key_labels),), None, (note,))
            return c
        self.add("context", Msg.of("Context embeddings"), None,
                 (self.matrix(Formula("E_c", "E_c"), c, self.key_labels),), None, (note,))
        return self.positional(context, "context_positional", Formula("C", "C"),
                               self.key_labels)

    def head(self, index: int | None, head: Head, x: Array, xk: Array) -> HeadResult:
        """One head on queries from x (n, d_model) and keys and values from xk (m, d_model)."""
        spec = self.spec
        conv = spec.convention
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
        self.finite(s, "S", self.query_labels, self.key_labels)
        S = self.attention(Formula("S", "S"), s)
        self.add("scores", Msg.of("Scores"), formula, (S,), index, (note,))
        # Each n x m array is dropped once the next is made: a real-size head holds few at once.
        logits, scores = self.scaled(index, head, s, S)
        del s
        symbol = scores.symbol

        if spec.masks:
            visible = visible_keys(spec.masks, q.shape[0], k.shape[0])  # (n, m)
            logits = ops.apply_mask(logits, visible, self.reuse(logits))  # (n, m)
            del visible
            symbol = Formula(f"{symbol.text} + M", f"{symbol.latex} + M")
            scores = self.attention(symbol, logits)
            self.add("masked", Msg.of("Masked scores"), symbol, (scores,), index,
                     (Msg.of("A hidden key gets −∞, which softmax turns into weight 0."),))
        weights, empty = self.calc.softmax(logits, self.reuse(logits))  # (n, m), (n,)
        del logits
        notes = [Msg.of("Softmax is taken along each row, so every row of A sums to 1.")]
        if empty.any():
            weights = self.empty_rows(weights, empty, notes)
        A = self.attention(Formula("A", "A"), weights)
        if spec.masks:  # a hidden key's weight prints as —, not as a 0 it could have earned
            A = replace(A, hidden_by=scores)
        self.add("weights", Msg.of("Attention weights"),
                 Formula(f"A = softmax({symbol.text})",
                         rf"A = \operatorname{{softmax}}\left({symbol.latex}\right)"),
                 (A,), index, tuple(notes))
        z = self.calc.attend(weights, v)  # (n, m) @ (m, d_v) -> (n, d_v)
        Z = self.matrix(Formula("Z", "Z"), z, self.query_labels)
        if spec.masked_rows != "nan":  # NaN rows are the ones the user asked for
            self.finite(z, "Z", Z.rows, Z.columns)
        self.add("output", Msg.of("Output"), self.output_formula(), (Z,), index,
                 (Msg.of("Each output row is the weighted sum of the value rows."),))
        return HeadResult(index or 1, Q, K, V, scores, A, Z, self.divisor(head), x, xk)

    def parameters(self, index: int | None, head: Head) -> None:
        matrices = []
        for name in ("W_Q", "W_K", "W_V"):
            w = getattr(head, name)
            rows = feature_labels(int(w.shape[0]))
            matrix = self.matrix(Formula(name, name.replace("_", "_{") + "}"), w, rows)
            matrices.append(replace(matrix, identity=ops.is_identity(w)))
        for name in ("b_Q", "b_K", "b_V"):
            b = getattr(head, name)
            if b is not None:
                matrices.append(self.matrix(Formula(name, name.replace("_", "_{") + "}"),
                                            b[None, :], ("",)))
        notes: tuple[Msg, ...] = ()
        if head.split is not None:
            (k0, k1), (v0, v1) = head.split
            blocks = {"k_first": k0 + 1, "k_last": k1, "v_first": v0 + 1, "v_last": v1}
            if self.row:
                notes = (Msg.of("This head's part of the full weights: columns {k_first}–{k_last} "
                                "of W_Q and W_K, columns {v_first}–{v_last} of W_V.", **blocks),)
            else:
                notes = (Msg.of("This head's part of the full weights: rows {k_first}–{k_last} "
                                "of W_Q and W_K, rows {v_first}–{v_last} of W_V.", **blocks),)
        self.add("parameters", Msg.of("Projection weights"), None, tuple(matrices), index, notes)

    def projection_formula(self, head: Head) -> Formula:
        texts, latexes = [], []
        for letter in ("Q", "K", "V"):
            bias = getattr(head, f"b_{letter}") is not None
            source = "C" if letter != "Q" and self.spec.context is not None else "X"
            tilde = self.pre_normed and source == "X"
            if self.row:
                text = f"{letter} = {source}{COMBINING_TILDE if tilde else ''}·W_{letter}"
                src = rf"\tilde{{{source}}}" if tilde else source
                latex = f"{letter} = {src} W_{{{letter}}}"
            else:
                low, src = letter.lower(), source.lower()
                text = f"{low}ᵢ = W_{letter}·{src}{COMBINING_TILDE if tilde else ''}ᵢ"
                latex = f"{low}_i = W_{{{letter}}} " + (rf"\tilde{{{src}}}_i" if tilde
                                                        else f"{src}_i")
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

    def scaled(self, index: int | None, head: Head, s: Array, S: Matrix) -> tuple[Array, Matrix]:
        """S′ = S / divisor and its matrix (S itself when nothing scales)."""
        scale = self.spec.scale
        if scale.kind == "none":
            return s, S
        divisor = self.divisor(head)
        scaled = self.calc.scale(s, divisor, self.reuse(s))  # (n, m)
        self.finite(scaled, "S′", self.query_labels, self.key_labels)
        if scale.kind == "sqrt_dk":
            d_k = head.d_k(self.spec.convention)
            formula = Formula(f"S′ = S / √d_k = S / √{d_k}",
                              rf"S' = \frac{{S}}{{\sqrt{{d_k}}}} = \frac{{S}}{{\sqrt{{{d_k}}}}}")
            note = Msg.of("Dividing by √d_k = {root} keeps the scores from growing with the "
                          "dimension of the keys.", root=divisor)
        else:
            formula = Formula(f"S′ = S / {divisor:g}", rf"S' = \frac{{S}}{{{divisor:g}}}")
            note = Msg.of("The scores are divided by {divisor}.", divisor=divisor)
        matrix = self.attention(Formula("S′", "S'"), scaled)
        self.add("scaled", Msg.of("Scaled scores"), formula, (matrix,), index, (note,))
        return scaled, matrix

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

    def pre_norm(self, x: Array) -> Array:
        """In a pre-norm layer the heads read LayerNorm(X) instead of X."""
        block = self.spec.block
        if block is None or block.norm != "pre" or block.norms is None:
            return x
        X = self.matrix(Formula("X", "X"), x, self.query_labels)
        self.pre_normed = True
        return self.norm("norm_1", block.norms[0], X, Formula("X̃", r"\tilde{X}")).values

    def layer(self, x: Array, attention: Matrix) -> Matrix:
        """The rest of the layer: residual add, LayerNorm, feed-forward, residual add, LayerNorm
        (post-norm), or LayerNorm before attention and before the feed-forward (pre-norm)."""
        block = self.spec.block
        if block is None:
            return attention
        post = block.norm == "post" and block.norms is not None
        h = attention
        if block.residual:
            X = self.matrix(Formula("X", "X"), x, self.query_labels)
            h = self.residual("residual_1", X, attention, Formula("R₁", "R_1"))
        if post:
            assert block.norms is not None
            h = self.norm("norm_1", block.norms[0], h, Formula("Y₁", "Y_1"))
        if block.ffn is None:
            return h
        ffn_in = h
        if block.norm == "pre" and block.norms is not None:
            ffn_in = self.norm("norm_2", block.norms[1], h, Formula("Ỹ", r"\tilde{Y}"))
        out = self.feed_forward(block.ffn, ffn_in)
        if block.residual:
            out = self.residual("residual_2", h, out, Formula("R₂", "R_2"))
        if post:
            assert block.norms is not None
            out = self.norm("norm_2", block.norms[1], out, Formula("Y", "Y"))
        return out

    def residual(self, step_id: str, a: Matrix, b: Matrix, symbol: Formula) -> Matrix:
        r = self.calc.rounded(a.values + b.values)  # (n, d_model) + (n, d_model)
        self.finite(r, symbol.text, a.rows, a.columns)
        result = Matrix(symbol, r, a.rows, a.columns)
        self.add(step_id, Msg.of("Residual add"),
                 Formula(f"{symbol.text} = {a.symbol.text} + {b.symbol.text}",
                         f"{symbol.latex} = {a.symbol.latex} + {b.symbol.latex}"),
                 (result,), None,
                 (Msg.of("The layer's input is added back to what the sublayer made of it."),))
        return result

    def norm(self, step_id: str, ln: LayerNorm, h: Matrix, symbol: Formula) -> Matrix:
        """LayerNorm of each row, with the row's mean and spread shown beside it."""
        mu = h.values.mean(axis=1)  # (n,)
        sigma = np.sqrt(((h.values - mu[:, None]) ** 2).mean(axis=1) + ln.eps)  # (n,)
        self.finite(sigma[:, None], "σ", h.rows, ("σ",))
        y = ops.layer_norm(h.values, ln.gain, ln.bias, ln.eps)  # (n, d_model)
        self.finite(y, symbol.text, h.rows, h.columns)
        y = self.calc.rounded(y)  # (n, d_model)
        matrices = [Matrix(Formula("μ, σ", r"\mu, \sigma"),
                           self.calc.rounded(np.stack([mu, sigma], axis=1)),
                           h.rows, ("μ", "σ"))]
        for name, vec in (("gain", ln.gain), ("bias", ln.bias)):
            if vec is not None:
                matrices.append(self.matrix(Formula(name, name), vec[None, :], ("",)))
        matrices.append(Matrix(symbol, y, h.rows, h.columns))
        text = f"{symbol.text} = LayerNorm({h.symbol.text})"
        latex = rf"{symbol.latex} = \operatorname{{LayerNorm}}({h.symbol.latex})"
        self.add(step_id, Msg.of("Layer normalization"), Formula(text, latex), tuple(matrices),
                 None, (Msg.of("Each row becomes (x − μ) / σ with σ = √(variance + {eps}), "
                               "then times the gain plus the bias.", eps=f"{ln.eps:g}"),))
        return matrices[-1]

    def feed_forward(self, ffn: FeedForward, h: Matrix) -> Matrix:
        """F = activation(H·W_1 + b_1)·W_2 + b_2, applied to each row on its own."""
        conv = self.spec.convention
        act = ops.gelu if ffn.activation == "gelu" else ops.relu
        hidden = self.calc.rounded(act(self.calc.project(h.values, ffn.W_1, ffn.b_1, conv)))
        f = self.calc.project(hidden, ffn.W_2, ffn.b_2, conv)  # (n, d_ff) -> (n, d_model)
        self.finite(f, "F", h.rows, h.columns)
        matrices = []
        for name, w in (("W_1", ffn.W_1), ("b_1", ffn.b_1), ("W_2", ffn.W_2), ("b_2", ffn.b_2)):
            if w is None:
                continue
            latex = name.replace("_", "_{") + "}"
            if w.ndim == 1:
                matrices.append(self.matrix(Formula(name, latex), w[None, :], ("",)))
            else:
                matrices.append(self.matrix(Formula(name, latex), w,
                                            feature_labels(int(w.shape[0]))))
        matrices.append(self.matrix(Formula("H", "H"), hidden, h.rows))
        result = Matrix(Formula("F", "F"), f, h.rows, h.columns)
        matrices.append(result)
        self.add("ffn", Msg.of("Feed-forward network"),
                 self.ffn_formula(ffn, h.symbol), tuple(matrices), None,
                 (Msg.of("The same two-layer network is applied to every row on its own."),))
        return result

    def ffn_formula(self, ffn: FeedForward, given: Formula) -> Formula:
        b1 = (" + b_1", " + b_{1}") if ffn.b_1 is not None else ("", "")
        b2 = (" + b_2", " + b_{2}") if ffn.b_2 is not None else ("", "")
        act = ffn.activation
        if self.row:
            return Formula(f"H = {act}({given.text}·W_1{b1[0]}),  F = H·W_2{b2[0]}",
                           rf"H = \operatorname{{{act}}}({given.latex} W_{{1}}{b1[1]}),"
                           rf"\quad F = H W_{{2}}{b2[1]}")
        return Formula(f"hᵢ = {act}(W_1·xᵢ{b1[0]}),  fᵢ = W_2·hᵢ{b2[0]}",
                       rf"h_i = \operatorname{{{act}}}(W_{{1}} x_i{b1[1]}),"
                       rf"\quad f_i = W_{{2}} h_i{b2[1]}")

    def header(self) -> Header:
        spec = self.spec
        head = spec.heads[0]
        scale = spec.scale
        d_ks = {h.d_k(spec.convention) for h in spec.heads}
        if scale.kind == "sqrt_dk" and len(d_ks) > 1:
            scale_msg = Msg.of("÷ √d_k of each head")
        elif scale.kind == "sqrt_dk":
            scale_msg = Msg.of("÷ √d_k = {value}", value=self.divisor(head))
        elif scale.kind == "number":
            scale_msg = Msg.of("÷ {value}", value=scale.value)
        else:
            scale_msg = Msg.of("none")
        shapes = [(h.d_k(spec.convention), h.d_v(spec.convention)) for h in spec.heads]
        return Header(
            title=spec.title, description=spec.description,
            n_queries=spec.queries.n, n_keys=spec.keys_source.n, d_model=spec.queries.d_model,
            d_k=head.d_k(spec.convention), d_v=head.d_v(spec.convention),
            n_heads=len(spec.heads), convention=spec.convention,
            mask=describe_masks(spec.masks), scale=scale_msg,
            uniform_heads=len(set(shapes)) == 1, facts=self.facts(shapes),
        )

    def facts(self, shapes: list[tuple[int, int]]) -> tuple[Msg, ...]:
        """Header lines beyond the sizes: each head's shape when they differ, cross-attention,
        positions, the output projection and the rest of the layer."""
        spec = self.spec
        facts = []
        if len(set(shapes)) > 1:
            facts += [Msg.of("head {index}: d_k = {d_k}, d_v = {d_v}", index=i, d_k=k, d_v=v)
                      for i, (k, v) in enumerate(shapes, start=1)]
        if spec.context is not None:
            facts.append(Msg.of("cross-attention: queries from the tokens, keys and values from "
                                "the context"))
        for sequence in (spec.queries, spec.context):
            if sequence is not None and sequence.positional is not None:
                facts.append(Msg.of("positional encoding: {kind}", kind=positional_kind(sequence)))
                break
        if spec.W_O is not None:
            rows, columns = (int(d) for d in spec.W_O.shape)
            facts.append(Msg.of("output projection W_O: {rows} × {columns}", rows=rows,
                                columns=columns))
        if spec.block is not None:
            facts.append(Msg.of("the rest of the layer: {parts}", parts=describe_block(spec)))
        return tuple(facts)

    def combine(self, heads: tuple[HeadResult, ...]) -> Matrix:
        """The attention output: the heads side by side, then W_O when the spec has it."""
        z = heads[0].context if len(heads) == 1 else self.concat(heads)
        if self.spec.W_O is None:
            return z
        return self.out_projection(z)

    def concat(self, heads: tuple[HeadResult, ...]) -> Matrix:
        z = ops.concat(head.context.values for head in heads)  # (n, h·d_v)
        columns = tuple(f"h{head.index}.{c}" for head in heads for c in head.context.columns)
        h = len(heads)
        parts = ", ".join(f"Z{subscript(i)}" for i in range(1, h + 1)) if h <= 3 else \
            f"Z₁, …, Z{subscript(h)}"
        latex_parts = ", ".join(f"Z_{{{i}}}" for i in range(1, h + 1)) if h <= 3 else \
            rf"Z_1, \dots, Z_{{{h}}}"
        Z = Matrix(Formula("Z", "Z"), z, self.query_labels, columns)
        self.add("concat", Msg.of("Heads side by side"),
                 Formula(f"Z = Concat({parts})", rf"Z = \operatorname{{Concat}}({latex_parts})"),
                 (Z,), None, (Msg.plural_of("Row i joins the outputs of the {count} head for "
                                            "token i.", "Row i joins the outputs of the {count} "
                                            "heads for token i.", h),))
        return Z

    def out_projection(self, z: Matrix) -> Matrix:
        spec = self.spec
        assert spec.W_O is not None
        o = self.calc.project(z.values, spec.W_O, spec.b_O, spec.convention)  # (n, d_model)
        self.finite(o, "O", self.query_labels, feature_labels(int(o.shape[1])))
        if self.row:  # W_O's rows meet Z's columns
            w_labels = (z.columns, feature_labels(int(spec.W_O.shape[1])))
        else:
            w_labels = (feature_labels(int(spec.W_O.shape[0])), z.columns)
        matrices = [Matrix(Formula("W_O", "W_{O}"), spec.W_O, *w_labels)]
        if spec.b_O is not None:
            matrices.append(self.matrix(Formula("b_O", "b_{O}"), spec.b_O[None, :], ("",)))
        result = self.matrix(Formula("O", "O"), o, self.query_labels)
        bias = spec.b_O is not None
        if self.row:
            formula = Formula("O = Z·W_O" + (" + b_O" if bias else ""),
                              "O = Z W_{O}" + (" + b_{O}" if bias else ""))
        else:
            formula = Formula("oᵢ = W_O·zᵢ" + (" + b_O" if bias else ""),
                              "o_i = W_{O} z_i" + (" + b_{O}" if bias else ""))
        self.add("out_projection", Msg.of("Output projection"), formula, (*matrices, result), None,
                 (Msg.of("W_O mixes the heads' outputs back into d_model = {d} features.",
                         d=int(o.shape[1])),))
        return result


def build(spec: Spec, expand: Selection | None = None, summary: bool = False) -> Walkthrough:
    """Every step of attention on `spec`, in order, each result labelled with the tokens, with the
    work shown: the cells chosen by `expand` written out (default: `auto`), a reading of the
    weights in words, and, in hand calculation, where it drifts from full precision.

    With `summary`, a large n x m matrix keeps only the rows that a view eliding its middle shows
    (text, rich, svg) and the rows written out, and the reading reads those queries: the memory of
    a real-size layer stays that of a few of its n x m matrices (see attncli/elision.py)."""
    selection = expand or Selection()
    kept = kept_rows(spec, selection) if summary else None
    walkthrough, angles = attach(compute(spec, kept), spec, selection)
    walkthrough = replace(walkthrough, reading=read(walkthrough, angles))
    if spec.display.round_intermediates:
        full = compute(replace(spec, display=replace(spec.display, round_intermediates=False)),
                       kept)
        walkthrough = replace(walkthrough, drift=drift(walkthrough, full))
    return walkthrough


def summarizes(spec: Spec) -> bool:
    """Whether build(spec, summary=True) keeps less than build(spec) does."""
    return kept_rows(spec, Selection()) is not None


def kept_rows(spec: Spec, selection: Selection) -> tuple[int, ...] | None:
    """The query rows a summary keeps: the shown ones and those written out; None for all."""
    if selection.mode == "all":
        return None
    labels = token_labels(spec.queries.tokens)
    where = {label: i for i, label in enumerate(labels)}
    wanted = {where[row] for _, (row, _) in selection.cells if row in where}
    return elision.summary_rows(spec.queries.n, spec.keys_source.n, wanted)


def compute(spec: Spec, kept: tuple[int, ...] | None = None) -> Walkthrough:
    """The steps alone: every matrix of attention on `spec`, in order; the n x m ones of the
    heads only in the rows `kept`, when given."""
    builder = _Builder(spec, kept)
    # An overflow becomes inf here and is reported by _Builder.finite as a SpecError.
    with np.errstate(over="ignore", invalid="ignore"):
        x = builder.embeddings()  # (n, d_model)
        context = builder.context_inputs()  # (m, d_model) for cross-attention, else None
        x_in = builder.pre_norm(x)  # LayerNorm(X) for a pre-norm layer, else X
        heads = tuple(
            builder.head(i + 1 if len(spec.heads) > 1 else None, head, x_in,
                         context if context is not None else x_in)
            for i, head in enumerate(spec.heads)
        )
        output = builder.layer(x, builder.combine(heads))
    return Walkthrough(
        header=builder.header(),
        steps=tuple(builder.steps),
        heads=heads,
        output=output,
        precision=spec.display.precision,
        round_intermediates=spec.display.round_intermediates,
        decimal=spec.display.decimal,
    )


def positional_kind(sequence: Sequence) -> Msg:
    added = sequence.positional
    assert added is not None
    if added.kind == "sinusoidal":
        return Msg.of("sinusoidal, base {base}", base=f"{added.base:g}")
    return Msg.of("a learned matrix")


def describe_block(spec: Spec) -> Msg:
    block = spec.block
    assert block is not None
    parts = []
    if block.residual:
        parts.append(Msg.of("residual add"))
    if block.norms is not None:
        parts.append(Msg.of("LayerNorm (pre-norm)") if block.norm == "pre"
                     else Msg.of("LayerNorm (post-norm)"))
    if block.ffn is not None:
        d_ff = int(block.ffn.W_1.shape[1 if spec.convention == "row" else 0])
        parts.append(Msg.of("feed-forward ({activation}, d_ff = {d_ff})",
                            activation=block.ffn.activation, d_ff=d_ff))
    result = parts[0]
    for part in parts[1:]:
        result = Msg.of("{first}, {second}", first=result, second=part)
    return result
