"""The backward pass as a step family: the gradient steps after the forward ones, computed by
attncli/compute/gradients.py and labelled like the forward steps, with one row of the softmax
Jacobian,
one row of dV and one cell of dQ written out."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import replace
from functools import partial

from attncli.arithmetic.cells import token_latex
from attncli.arithmetic.exactness import line
from attncli.arithmetic.expand import cell, representative
from attncli.arithmetic.numbers import NumberFormat, constant
from attncli.compute.gradients import Gradients, HeadGradients, gradients
from attncli.compute.gradients_block import BlockGradients
from attncli.i18n import Digits, Msg
from attncli.model import (
    Array,
    Difference,
    Expansion,
    Formula,
    HeadResult,
    Labels,
    Lazy,
    Matrix,
    Num,
    Product,
    Step,
    Sum,
    Vec,
    Walkthrough,
)
from attncli.spec.model import Spec
from attncli.steps.backward_modern import (
    D_K_HAT,
    D_Q_HAT,
    bias_note,
    block_notes,
    rope_step,
    shared_step,
)
from attncli.steps.base import Build, Forward, Made, State, feature_labels

CHECK_DECIMALS = 6


def symbol(name: str) -> Formula:
    """`dW_Q` and its LaTeX `dW_{Q}`; `dS′` and `dS'`."""
    latex = name.replace("′", "'")
    if "_" in latex:
        base, sub = latex.split("_", 1)
        latex = f"{base}_{{{sub}}}"
    return Formula(name, latex)


def labelled(name: str, values: Array, rows: Labels,
             columns: Labels | None = None) -> Matrix:
    if values.ndim == 1:
        return Matrix(symbol(name), values[None, :], ("",), feature_labels(values.shape[0]))
    return Matrix(symbol(name), values, rows,
                  columns if columns is not None else feature_labels(int(values.shape[1])))


def held(name: str, values: Array, g: HeadGradients, rows: Labels,
         columns: Labels) -> Matrix:
    """dA, dS′ or dS: whole, or as a summary of the rows the gradients kept."""
    return Matrix(symbol(name), values, rows, columns, kept=g.kept)


def backward(b: Build, state: State) -> Made[State]:
    """The gradient steps, in backward order, from the heads the forward families made. A
    summary's heads keep some rows only: their weights are made again a block of rows at a time
    (attncli/steps/backward_rows.py), or, where the forward pass is not worked in blocks,
    computed again in full."""
    spec = b.spec
    heads = state.heads
    assert b.forward is not None, "the build lends the backward family its forward pass"
    blocks = None
    if b.kept is not None:
        from attncli.steps.backward_rows import weight_blocks

        blocks = weight_blocks(b, state)
        if blocks is None:
            heads = b.forward(replace(spec, backward=None), None).heads
    assert state.attention is not None
    grads = gradients(spec, heads, state.x, state.attention.whole(), blocks,
                      b.kept if blocks is not None else None)
    run = b.forward if blocks is None else summary_of(b.forward, b.kept)
    return backward_steps(spec, heads, state.attention, grads, run), state


def summary_of(forward: Forward, kept: tuple[int, ...] | None) -> Forward:
    """The forward pass as a summary of the rows `kept` (its output is whole, and the same)."""
    def run(spec: Spec, _: tuple[int, ...] | None) -> Walkthrough:
        return forward(spec, kept)

    return run


def backward_steps(spec: Spec, forward: tuple[HeadResult, ...], output: Matrix,
                   grads: Gradients, run: Forward) -> tuple[Step, ...]:
    rows = output.rows
    loss = Msg.of("L = Σ dO ⊙ O stands for the rest of the network: dO is the gradient that "
                  "arrives at the output; when dO is all ones, L is simply the sum of the "
                  "outputs.")
    steps = [] if grads.block is None else [block_step(spec, grads.block, rows, output.columns)]
    steps += [Step("grad_output", Msg.of("Gradient of the output"),
                  Formula("dO = ∂L/∂O", r"dO = \partial L / \partial O"),
                  (labelled("dO", grads.dO, rows, output.columns),), None, (loss,))]
    if grads.dW_O is not None:
        z = forward[0].context if len(forward) == 1 else None
        z_columns = z.columns if z is not None else tuple(
            f"h{h.index}.{c}" for h in forward for c in h.context.columns)
        mats = [labelled("dW_O", grads.dW_O, feature_labels(grads.dW_O.shape[0]))]
        if grads.db_O is not None:
            mats.append(labelled("db_O", grads.db_O, ("",)))
        mats.append(labelled("dZ", grads.dZ, rows, z_columns))
        formula = (Formula("dW_O = Zᵀ·dO,  dZ = dO·W_Oᵀ", r"dW_{O} = Z^{\top} dO,\quad "
                           r"dZ = dO\, W_{O}^{\top}") if spec.convention == "row" else
                   Formula("dW_O = dOᵀ·Z,  dZ = dO·W_O", r"dW_{O} = dO^{\top} Z,\quad "
                           r"dZ = dO\, W_{O}"))
        steps.append(Step("grad_out_projection", Msg.of("Gradient through W_O"), formula,
                          tuple(mats)))
    several = len(forward) > 1
    # without W_O the output is Z itself (the heads' Z side by side): say where dZ comes from
    same = (() if grads.dW_O is not None else
            (Msg.of("O is the heads' Z side by side (there is no W_O), so the dZ of each head is "
                    "its columns of dO."),) if several else
            (Msg.of("O = Z (there is no W_O), so dZ = dO."),))
    for head, result in zip(grads.heads, forward, strict=True):
        steps += head_steps(spec, head, result, result.index if several else None, run, same)
    if grads.groups:
        steps.append(shared_step(spec, grads, forward))
    steps.append(input_step(grads, rows, forward[0].keys.rows))
    return tuple(steps)


def head_steps(spec: Spec, g: HeadGradients, r: HeadResult, index: int | None,
               run: Forward, first_notes: tuple[Msg, ...] = ()) -> list[Step]:
    queries, keys = r.weights.rows, r.weights.columns
    steps = [Step("grad_values", Msg.of("Gradient of V and of the weights"),
                  Formula("dV = Aᵀ·dZ,  dA = dZ·Vᵀ", r"dV = A^{\top} dZ,\quad dA = dZ\, V^{\top}"),
                  (labelled("dZ", g.dZ, queries, r.context.columns),
                   labelled("dV", g.dV, keys, r.values.columns),
                   held("dA", g.dA, g, queries, keys)), index, first_notes,
                  written(g, partial(value_row, spec, g, r)))]
    steps.append(Step("grad_softmax", Msg.of("Gradient through softmax"),
                      Formula("dS′ = A ⊙ (dA − rowsum(dA ⊙ A))",
                              r"dS' = A \odot \left(dA - \operatorname{rowsum}(dA \odot A)\right)"),
                      (held("dS′", g.dS_scaled, g, queries, keys),), index,
                      (Msg.of("A weight that is 0 (a hidden key) passes no gradient back."),
                       *bias_note(spec)),
                      written(g, partial(jacobian_row, spec, g, r))))
    if r.divisor != 1.0:
        steps.append(Step("grad_scores", Msg.of("Gradient of the scores"),
                          Formula("dS = dS′ / √d_k", r"dS = dS' / \sqrt{d_k}")
                          if spec.scale.kind == "sqrt_dk" else
                          Formula.holding(f"dS = dS′ / {constant(r.divisor)}",
                                          rf"dS = dS' / {constant(r.divisor, tex=True)}",
                                          constant(r.divisor)),
                          (held("dS", g.dS, g, queries, keys),), index))
    steps.append(Step("grad_projections", Msg.of("Gradient of Q and K"),
                      projection_formula(spec, g),
                      (Matrix(D_Q_HAT if g.dQ_hat is not None else symbol("dQ"),
                              g.dQ if g.dQ_hat is None else g.dQ_hat, queries, r.queries.columns),
                       Matrix(D_K_HAT if g.dK_hat is not None else symbol("dK"),
                              g.dK if g.dK_hat is None else g.dK_hat, keys, r.keys.columns)),
                      index, (), written(g, partial(query_cell, spec, g, r))
                      if spec.score.W is None else ()))
    if g.dQ_hat is not None or g.dK_hat is not None:
        steps.append(rope_step(spec, g, r, index))
    formula = (Formula("dW_Q = Xᵀ·dQ,  dW_K = Xᵀ·dK,  dW_V = Xᵀ·dV",
                       r"dW_{Q} = X^{\top} dQ,\quad dW_{K} = X^{\top} dK,\quad dW_{V} = "
                       r"X^{\top} dV") if spec.convention == "row" else
               Formula("dW_Q = dQᵀ·X,  dW_K = dKᵀ·X,  dW_V = dVᵀ·X",
                       r"dW_{Q} = dQ^{\top} X,\quad dW_{K} = dK^{\top} X,\quad dW_{V} = "
                       r"dV^{\top} X"))
    notes: tuple[Msg, ...] = ()
    if index in (None, 1):
        notes = (Msg.of("Check by finite differences, h = 10⁻⁶: (L(W_Q[d1, d1] + h) − "
                        "L(W_Q[d1, d1] − h)) / 2h = {estimate}; the gradient dW_Q[d1, d1] is "
                        "{exact}.",
                        estimate=fine(finite_difference(spec, run)),
                        exact=fine(float(g.dW["dW_Q"][0, 0]))),)
    if "dW_K" not in g.dW:  # K and V shared by several heads: in the step grad_shared
        formula = (Formula("dW_Q = Xᵀ·dQ", r"dW_{Q} = X^{\top} dQ") if spec.convention == "row"
                   else Formula("dW_Q = dQᵀ·X", r"dW_{Q} = dQ^{\top} X"))
    steps.append(Step("grad_weights", Msg.of("Gradient of the projection weights"), formula,
                      tuple(labelled(name, values, feature_labels(values.shape[0])
                                     if values.ndim == 2 else ("",))
                            for name, values in g.dW.items()), index, notes))
    return steps


def projection_formula(spec: Spec, g: HeadGradients) -> Formula:
    """dQ = dS·K, dK = dSᵀ·Q (with the general score's W); with RoPE, of Q̂ and K̂."""
    q, k = ("Q̂", "K̂") if g.dQ_hat is not None else ("Q", "K")
    lq, lk = (r"\hat{Q}", r"\hat{K}") if g.dQ_hat is not None else ("Q", "K")
    if spec.score.W is None:
        return Formula(f"d{q} = dS·{k},  d{k} = dSᵀ·{q}",
                       rf"d{lq} = dS\, {lk},\quad d{lk} = dS^{{\top}} {lq}")
    return Formula(f"d{q} = dS·{k}·Wᵀ,  d{k} = dSᵀ·{q}·W",
                   rf"d{lq} = dS\, {lk} W^{{\top}},\quad d{lk} = dS^{{\top}} {lq} W")


def block_step(spec: Spec, g: BlockGradients, rows: Labels,
               columns: Labels) -> Step:
    """The rest of the layer read backwards: from dY at its output to dO at attention's."""
    mats = []
    for name, values in g.named.items():
        if values.ndim == 1:
            mats.append(labelled(name, values, ("",)))
        elif values.shape[0] == len(rows):
            mats.append(labelled(name, values, rows, columns if name == "dY" else None))
        else:
            mats.append(labelled(name, values, feature_labels(values.shape[0])))
    return Step("grad_block", Msg.of("Gradient through the rest of the layer"),
                Formula("dY → dO", r"dY \to dO"), tuple(mats), None,
                block_notes(spec))


def fine(x: float) -> Digits:
    """A number of the finite-difference check: to 6 decimals, where the two agree and a
    display precision of 2 would hide whether they do; with the reader's decimal mark, as the
    document writes it (Digits)."""
    return Digits(NumberFormat(precision=CHECK_DECIMALS)(x))


def written(g: HeadGradients, make: Callable[[], Iterable[Expansion]]) -> Sequence[Expansion]:
    """A step's written-out cells: made now for a whole head, as they are written for a
    summary's (a row of a real-size head is thousands of cells, and `validate` writes none)."""
    if g.kept is None:
        return tuple(make())
    return Lazy(lambda: iter(make()))


def chosen_row(g: HeadGradients, r: HeadResult) -> str:
    """The query whose row is written out: the first that sees the most keys."""
    if g.representative is not None:  # found as the gradients were worked in blocks
        return r.weights.rows[g.representative]
    return representative(r)


def jacobian_row(spec: Spec, g: HeadGradients, r: HeadResult) -> Iterator[Expansion]:
    """One query's row of dS′ written out: the row sum Σⱼ A·dA, then each visible cell, each
    made as it is read."""
    row = chosen_row(g, r)
    i = r.weights.rows.index(row)
    a, da = g.weights_row(r.weights, i), g.row("dA", i)  # (m,), (m,)
    seen = [j for j in range(len(a)) if a[j] > 0.0]
    if not seen:  # the query sees no key (a mask of zeros): no sum to write out
        return
    ds_scaled = g.row("dS_scaled", i)  # (m,)
    precision = spec.display.precision
    total = float((a * da).sum())
    tex = token_latex(row)
    sigma = Formula(f"Σⱼ A[{row}, j]·dA[{row}, j]", rf"\sum_j A[{tex}, j]\, dA[{tex}, j]")
    yield line(sigma, None, Sum(tuple(Product((Num(float(a[j])), Num(float(da[j]))))
                                      for j in seen)), total, precision)
    for j in seen:
        target = cell(symbol("dS′"), row, r.weights.columns[j])
        yield line(target, None, Product((Num(float(a[j])), Difference(
            Num(float(da[j])), Num(total)))), float(ds_scaled[j]), precision)


def value_row(spec: Spec, g: HeadGradients, r: HeadResult) -> tuple[Expansion, ...]:
    """dV of the first key written out: the weighted sum of dZ rows of the queries that see it."""
    a = g.first_key  # (n,): A's first column
    assert a is not None
    key = r.weights.columns[0]
    seen = [i for i in range(a.shape[0]) if a[i] > 0.0]
    if not seen:
        return ()
    tex = token_latex(key)
    target = Formula(f"dV[{key}]", f"dV[{tex}]")
    symbolic = Formula(f"Σᵢ A[i, {key}]·dz_i", rf"\sum_i A[i, {tex}]\, dz_i")
    expr = Sum(tuple(Product((Num(float(a[i])), Vec(tuple(float(x) for x in g.dZ[i]))))
                     for i in seen))
    return (line(target, symbolic, expr, tuple(float(x) for x in g.dV[0]),
                 spec.display.precision),)


def query_cell(spec: Spec, g: HeadGradients, r: HeadResult) -> tuple[Expansion, ...]:
    """dQ of the Jacobian's row, first column, written out: Σⱼ dS[row, j]·k_j."""
    row = chosen_row(g, r)
    i = r.weights.rows.index(row)
    k = r.keys.whole()  # (m, d_k)
    a = g.weights_row(r.weights, i)  # (m,)
    seen = [j for j in range(k.shape[0]) if a[j] > 0.0]
    if not seen:  # the query sees no key: dQ's row is 0 with no sum to write out
        return ()
    column = r.queries.columns[0]
    dq = g.dQ if g.dQ_hat is None else g.dQ_hat  # the scores read Q̂ under RoPE
    target = cell(D_Q_HAT if g.dQ_hat is not None else symbol("dQ"), row, column)
    k_name = ("K̂", r"\hat{K}") if g.dQ_hat is not None else ("K", "K")
    symbolic = Formula(f"Σⱼ dS[{row}, j]·{k_name[0]}[j, {column}]",
                       rf"\sum_j dS[{token_latex(row)}, j]\, {k_name[1]}[j, {token_latex(column)}]")
    ds = g.row("dS", i)  # (m,)
    expr = Sum(tuple(Product((Num(float(ds[j])), Num(float(k[j, 0])))) for j in seen))
    return (line(target, symbolic, expr, float(dq[i, 0]), spec.display.precision),)


def input_step(grads: Gradients, rows: Labels, keys: Labels) -> Step:
    mats = [labelled("dX", grads.dX, rows)]
    if grads.dC is not None:
        mats.append(labelled("dC", grads.dC, keys))
    return Step("grad_input", Msg.of("Gradient of the input"),
                Formula("dX = Σ_h dQ·W_Qᵀ + dK·W_Kᵀ + dV·W_Vᵀ",
                        r"dX = \sum_h dQ\, W_{Q}^{\top} + dK\, W_{K}^{\top} + "
                        r"dV\, W_{V}^{\top}"), tuple(mats), None,
                (Msg.of("Each input row gets gradient from its query and, through the keys and "
                        "values, from every query that sees it."),))


STEP = 1e-6  # the h of the finite-difference check


def finite_difference(spec: Spec, run: Forward, w_name: str = "W_Q") -> float:
    """(L(W + h) − L(W − h)) / 2h for the first entry of head 1's W, at full precision."""
    assert spec.backward is not None
    full = replace(spec, display=replace(spec.display, round_intermediates=False), backward=None)
    losses = []
    for sign in (1.0, -1.0):
        w = getattr(full.heads[0], w_name).copy()
        w[0, 0] += sign * STEP
        heads = (replace(full.heads[0], **{w_name: w, "identity": frozenset()}),
                 *full.heads[1:])
        output = run(replace(full, heads=heads), None).output.whole()  # (n, d_out)
        losses.append(float((spec.backward.dO * output).sum()))
    return (losses[0] - losses[1]) / (2 * STEP)
