"""The Vision Transformer's cells written out (attncli/steps/patches.py): a cell of E, the
projection of a flattened patch, and a class score of the CLS row."""

from __future__ import annotations

from collections.abc import Iterator, Sequence

from attncli.arithmetic.cells import Context, cell, named
from attncli.arithmetic.linear import linear_cell
from attncli.arithmetic.selection import Cell
from attncli.arithmetic.selection import cells as chosen_cells
from attncli.model import Expansion, Formula, Step


def patch_cells(ctx: Context, step: Step, cells: Sequence[Cell]) -> Iterator[Expansion]:
    """E[p, a] = W_E[a, :]·x_p + b_E[a] (x_p·W_E[:, a] + b_E[a] in the row convention). The CLS
    row is learned, not computed: it has no cells to write out."""
    vision = ctx.spec.vision
    assert vision is not None
    result = step.matrices[-1]  # (1 + N, d_model): CLS, then the patches
    patches = ctx.steps["patches"].matrices[0].values  # (N, C·p·p)
    for i, a in chosen_cells(result.rows, result.columns, cells):
        if i > 0:
            yield linear_cell(
                ctx, cell(result.symbol, result.rows[i], result.columns[a]),
                named("x", result.rows[i]), patches[i - 1], vision.W_E,
                Formula("W_E", "W_{E}"), vision.b_E, Formula("b_E", "b_{E}"),
                result.columns[a], a, result.at(i, a))


def class_cells(ctx: Context, step: Step, cells: Sequence[Cell]) -> Iterator[Expansion]:
    """z[CLS, c] = W_c[c, :]·h + b_c[c]: a class score of the CLS row (h after the final
    LayerNorm, or the layer's CLS row y_CLS when the classifier has no norm)."""
    vision = ctx.spec.vision
    assert vision is not None and vision.classifier is not None
    head = vision.classifier
    scores = next(m for m in step.matrices if m.symbol.text == "z")  # (1, classes)
    h = (ctx.steps["classifier_norm"].matrices[-1] if "classifier_norm" in ctx.steps
         else step.matrices[0])  # (1, d_model)
    for i, a in chosen_cells(scores.rows, scores.columns, cells):
        yield linear_cell(
            ctx, cell(scores.symbol, scores.rows[i], scores.columns[a]),
            Formula(h.symbol.text, h.symbol.latex), h.values[0], head.W,
            Formula("W_c", "W_{c}"), head.b, Formula("b_c", "b_{c}"), scores.columns[a], a,
            scores.at(i, a))
