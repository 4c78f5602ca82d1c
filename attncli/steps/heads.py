"""Heads: each head's output Z = A·V, then the heads side by side and the output projection W_O."""

from __future__ import annotations

from dataclasses import replace

from attncli.compute import ops
from attncli.i18n import Msg
from attncli.model import Formula, HeadResult, Labels, Matrix, Step
from attncli.steps.base import Build, HeadState, Made, State, feature_labels
from attncli.steps.labels import subscript


def output(b: Build, hs: HeadState) -> Made[HeadState]:
    """Z = A·V: each output row is the weighted sum of the value rows."""
    assert hs.weights is not None and hs.v is not None
    z = b.calc.attend(hs.weights, hs.v)  # (n, m) @ (m, d_v) -> (n, d_v)
    Z = b.matrix(Formula("Z", "Z"), z, b.query_labels)
    if b.spec.masked_rows != "nan":  # NaN rows are the ones the user asked for
        b.finite(z, "Z", Z.rows, Z.columns)
    if b.row:
        formula = Formula("Z = A·V", "Z = A V")
    else:
        formula = Formula("zᵢ = Σⱼ Aᵢⱼ·vⱼ", r"z_i = \sum_j A_{ij} v_j")
    step = Step("output", Msg.of("Output"), formula, (Z,), hs.index,
                (Msg.of("Each output row is the weighted sum of the value rows."),))
    return (step,), replace(hs, weights=None, Z=Z)


def combine(b: Build, state: State) -> Made[State]:
    """The attention output: the heads side by side, then W_O when the spec has it."""
    heads = state.heads
    steps: tuple[Step, ...] = ()
    if len(heads) == 1:
        z = heads[0].context
    else:
        step, z = concat(b, heads)
        steps += (step,)
    if b.spec.W_O is not None:
        step, z = out_projection(b, z)
        steps += (step,)
    return steps, replace(state, attention=z)


def concat(b: Build, heads: tuple[HeadResult, ...]) -> tuple[Step, Matrix]:
    z = ops.concat(head.context.values for head in heads)  # (n, h·d_v)
    columns = tuple(f"h{head.index}.{c}" for head in heads for c in head.context.columns)
    h = len(heads)
    parts = ", ".join(f"Z{subscript(i)}" for i in range(1, h + 1)) if h <= 3 else \
        f"Z₁, …, Z{subscript(h)}"
    latex_parts = ", ".join(f"Z_{{{i}}}" for i in range(1, h + 1)) if h <= 3 else \
        rf"Z_1, \dots, Z_{{{h}}}"
    Z = Matrix(Formula("Z", "Z"), z, b.query_labels, columns)
    step = Step("concat", Msg.of("Heads side by side"),
                Formula(f"Z = Concat({parts})", rf"Z = \operatorname{{Concat}}({latex_parts})"),
                (Z,), None, (Msg.plural_of("Row i joins the outputs of the {count} head for "
                                           "token i.", "Row i joins the outputs of the {count} "
                                           "heads for token i.", h),))
    return step, Z


def out_projection(b: Build, z: Matrix) -> tuple[Step, Matrix]:
    spec = b.spec
    assert spec.W_O is not None
    o = b.calc.project(z.values, spec.W_O, spec.b_O, spec.convention)  # (n, d_model)
    b.finite(o, "O", b.query_labels, feature_labels(int(o.shape[1])))
    w_labels: tuple[Labels, Labels]
    if b.row:  # W_O's rows meet Z's columns
        w_labels = (z.columns, feature_labels(int(spec.W_O.shape[1])))
    else:
        w_labels = (feature_labels(int(spec.W_O.shape[0])), z.columns)
    matrices = [Matrix(Formula("W_O", "W_{O}"), spec.W_O, *w_labels)]
    if spec.b_O is not None:
        matrices.append(b.matrix(Formula("b_O", "b_{O}"), spec.b_O[None, :], ("",)))
    result = b.matrix(Formula("O", "O"), o, b.query_labels)
    bias = spec.b_O is not None
    if b.row:
        formula = Formula("O = Z·W_O" + (" + b_O" if bias else ""),
                          "O = Z W_{O}" + (" + b_{O}" if bias else ""))
    else:
        formula = Formula("oᵢ = W_O·zᵢ" + (" + b_O" if bias else ""),
                          "o_i = W_{O} z_i" + (" + b_{O}" if bias else ""))
    step = Step("out_projection", Msg.of("Output projection"), formula, (*matrices, result),
                None, (Msg.of("W_O mixes the heads' outputs back into d_model = {d} features.",
                              d=int(o.shape[1])),))
    return step, result
