"""Strict JSON (RFC 8259): full-precision numbers, hidden scores and undefined weights as null."""

from __future__ import annotations

import math
from collections.abc import Iterator
from typing import Any

from attncli.arithmetic.numbers import NumberFormat
from attncli.model import (
    Cell,
    Difference,
    Exp,
    Expansion,
    Expr,
    LowPrecisionReport,
    Matrix,
    Num,
    Product,
    Quotient,
    Step,
    Sum,
    Tanh,
    Vec,
    Walkthrough,
)
from attncli.render import RenderOptions
from attncli.render.common import (
    Translate,
    expansion_text,
    formula_text,
    machine_unit,
    number_format,
    reading_sections,
    title,
    translator,
)
from attncli.render.drawn import kept, per_matrix, same_in_every_language, several
from attncli.render.json_text import Numbers, Streamed, pieces

FORMAT_VERSION = 1


@per_matrix
def values(matrix: Matrix) -> list[list[float | None]]:
    """The numbers by rows, a hidden score or undefined weight (±inf, NaN) as None; for a
    matrix whose drawings are kept (drawn.kept), the same object while the matrix lives, its
    text written once (json_text.Numbers)."""
    import numpy as np

    whole = matrix.whole()  # (rows, columns)
    rows: list[list[float | None]] = whole.tolist()
    finite = np.isfinite(whole).all(axis=1)  # (rows,)
    for i in np.flatnonzero(~finite).tolist():
        rows[i] = [x if math.isfinite(x) else None for x in whole[i].tolist()]
    return Numbers(rows) if kept(matrix) else rows


def matrix_doc(matrix: Matrix) -> dict[str, Any]:
    return {
        "name": matrix.symbol.text,
        "rows": list(matrix.rows),
        "columns": list(matrix.columns),
        "values": values(matrix),
    }


def _number(x: float) -> float | None:
    return float(x) if math.isfinite(x) else None


def expr_doc(expr: Expr) -> dict[str, Any]:
    """The expression tree: {"num": x}, {"vec": [...]}, {"op": "sum", "args": [...]} ..."""
    if isinstance(expr, Num):
        return {"num": _number(expr.value)}
    if isinstance(expr, Vec):
        return {"vec": [_number(x) for x in expr.values]}
    if isinstance(expr, Exp):
        return {"op": "exp", "args": [expr_doc(expr.argument)]}
    if isinstance(expr, Tanh):
        return {"op": "tanh", "args": [expr_doc(expr.argument)]}
    args: tuple[Expr, ...]
    if isinstance(expr, Sum):
        op, args = "sum", tuple(expr.terms)
    elif isinstance(expr, Product):
        op, args = "product", expr.factors
    elif isinstance(expr, Quotient):
        op, args = "quotient", (expr.numerator, expr.denominator)
    else:
        assert isinstance(expr, Difference)
        op, args = "difference", (expr.left, expr.right)
    return {"op": op, "args": [expr_doc(a) for a in args]}


def expansion_doc(expansion: Expansion, number: NumberFormat, t: Translate) -> dict[str, Any]:
    result = expansion.result
    return {
        "target": expansion.target.text if expansion.target else None,
        "symbolic": expansion.symbolic.text if expansion.symbolic else None,
        "expression": expr_doc(expansion.expression),
        "result": [_number(x) for x in result] if isinstance(result, tuple) else _number(result),
        "exact": expansion.exact,
        "text": expansion_text(expansion, number, t, full=True),
    }


@same_in_every_language
def expansions_doc(step: Step, t: Translate, number: NumberFormat) -> Streamed | Numbers:
    """The step's written-out cells, made as they are written; in `attn snippets` (see
    drawn.py's several_languages) all at once, kept and written once for every language."""
    docs = (expansion_doc(e, number, t) for e in step.expansions)
    return Numbers(docs) if several() else Streamed(docs)


def cell_doc(at: Cell) -> dict[str, Any]:
    return {"step": at.step, "matrix": at.matrix, "row": at.row, "column": at.column}


def low_precision_doc(report: LowPrecisionReport | None) -> dict[str, Any] | None:
    """A dtype below float64: each step's largest errors, every overflow, underflow and NaN,
    and the verdicts on softmax without its safeguards; null in float64."""
    if report is None:
        return None
    return {
        "dtype": report.dtype,
        "errors": [{"step": e.step, "largest": e.largest, "at": cell_doc(e.at),
                    "relative": e.relative,
                    "relative_at": None if e.relative_at is None else cell_doc(e.relative_at)}
                   for e in report.errors],
        "findings": [{"kind": f.kind, "at": cell_doc(f.at), "float64": f.full}
                     for f in report.findings],
        "verdicts": [{"head": v.head, "without": v.without, "outcome": v.outcome,
                      "at": cell_doc(v.at), "x": _number(v.x), "exp": _number(v.exp),
                      "cells": v.count} for v in report.verdicts],
    }


def render(walkthrough: Walkthrough, options: RenderOptions) -> str:
    return "".join(stream(walkthrough, options))


def stream(walkthrough: Walkthrough, options: RenderOptions) -> Iterator[str]:
    """The document in pieces (the same bytes as json.dumps with indent 2)."""
    yield from pieces(json_document(walkthrough, options))
    yield "\n"


def json_document(walkthrough: Walkthrough, options: RenderOptions) -> dict[str, Any]:
    number = number_format(walkthrough, options)
    t = translator(options, number)
    header = walkthrough.header
    return {
        "format_version": FORMAT_VERSION,
        "title": title(header, options.lang, t),
        "shape": {
            "n_queries": header.n_queries, "n_keys": header.n_keys, "d_model": header.d_model,
            "d_k": header.d_k, "d_v": header.d_v, "heads": header.n_heads,
            "convention": header.convention,
        },
        "precision": number.precision,
        "round_intermediates": walkthrough.round_intermediates,
        "output": values(walkthrough.output),
        "heads": Streamed(
            {
                "head": head.index,
                "d_k": head.queries.shape[1],
                "d_v": head.values.shape[1],
                "queries": values(head.queries),
                "keys": values(head.keys),
                "values": values(head.values),
                "scores": values(head.scores),
                "weights": values(head.weights),
                "context": values(head.context),
            }
            for head in walkthrough.heads
        ),
        "steps": Streamed(
            {
                "id": step.id,
                "number": step.number,
                "head": step.head,
                "title": t(step.title),
                "formula": formula_text(step.formula, machine_unit) if step.formula else None,
                "matrices": [matrix_doc(m) for m in step.matrices],
                "expansions": expansions_doc(step, t, number),
            }
            for step in walkthrough.steps
        ),
        "reading": Streamed(
            {"heading": heading, "sentences": Streamed(sentences)}
            for heading, sentences in reading_sections(walkthrough, t)
        ),
        "drift": None if walkthrough.drift is None else [
            {"matrix": d.matrix, "head": d.head, "row": d.row, "column": d.column,
             "rounded": d.rounded, "full": d.full}
            for d in walkthrough.drift
        ],
        "low_precision": low_precision_doc(walkthrough.low_precision),
    }
