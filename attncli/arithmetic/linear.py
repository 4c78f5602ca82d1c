"""One cell of a linear map written out, x·W[:, a] (+ b[a]) or W[a, :]·x (+ b[a]): the
projections, the output projection, and the Vision Transformer's patch embeddings and class
scores (attncli/arithmetic/expand.py, expand_vit.py)."""

from __future__ import annotations

import numpy as np

from attncli.arithmetic.cells import Context, joined, token_latex
from attncli.model import Array, Expansion, Formula, Num, Sum, Terms


def dot(a: Array, b: Array) -> Sum:
    """Σₖ aₖ·bₖ, its terms made as they are read (attncli/model/expr.py)."""
    return Sum(Terms(np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64)))


def linear_cell(ctx: Context, result: Formula, x_name: Formula, x: Array, w: Array,
                w_name: Formula, b: Array | None, b_name: Formula, column: str, a: int,
                value: float) -> Expansion:
    """One cell of a linear map, x·W[:, a] (+ b[a]) in the row convention or W[a, :]·x (+ b[a])
    in the column convention: the projections Q, K, V and the output projection O."""
    if ctx.spec.convention == "row":
        slice_ = Formula(f"{w_name.text}[:, {column}]", f"{w_name.latex}[:, {token_latex(column)}]")
        symbolic, expr = joined(x_name, "·", slice_), dot(x, w[:, a])
    else:
        slice_ = Formula(f"{w_name.text}[{column}, :]", f"{w_name.latex}[{token_latex(column)}, :]")
        symbolic, expr = joined(slice_, "·", x_name), dot(w[a, :], x)
    if b is not None:
        bias = Formula(f"{b_name.text}[{column}]", f"{b_name.latex}[{token_latex(column)}]")
        symbolic = joined(symbolic, " + ", bias)
        expr = Sum((*expr.terms, Num(float(b[a]))))
    return ctx.line(result, symbolic, expr, value)
