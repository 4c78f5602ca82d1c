"""Strict JSON (RFC 8259): full-precision numbers, hidden scores and undefined weights as null."""

from __future__ import annotations

import json
import math
from typing import Any

from attncli.model import Matrix, Walkthrough
from attncli.render import RenderOptions
from attncli.render.common import number_format, title, translator

FORMAT_VERSION = 1


def values(matrix: Matrix) -> list[list[float | None]]:
    return [[float(x) if math.isfinite(x) else None for x in row] for row in matrix.values]


def matrix_doc(matrix: Matrix) -> dict[str, Any]:
    return {
        "name": matrix.symbol.text,
        "rows": list(matrix.rows),
        "columns": list(matrix.columns),
        "values": values(matrix),
    }


def render(walkthrough: Walkthrough, options: RenderOptions) -> str:
    t = translator(options, number_format(walkthrough, options))
    header = walkthrough.header
    doc = {
        "format_version": FORMAT_VERSION,
        "title": title(header, options.lang, t),
        "shape": {
            "n_queries": header.n_queries, "n_keys": header.n_keys, "d_model": header.d_model,
            "d_k": header.d_k, "d_v": header.d_v, "heads": header.n_heads,
            "convention": header.convention,
        },
        "output": values(walkthrough.output),
        "heads": [
            {
                "head": head.index,
                "queries": values(head.queries),
                "keys": values(head.keys),
                "values": values(head.values),
                "scores": values(head.scores),
                "weights": values(head.weights),
                "context": values(head.context),
            }
            for head in walkthrough.heads
        ],
        "steps": [
            {
                "id": step.id,
                "head": step.head,
                "title": t(step.title),
                "formula": step.formula.text if step.formula else None,
                "matrices": [matrix_doc(m) for m in step.matrices],
            }
            for step in walkthrough.steps
        ],
    }
    return json.dumps(doc, ensure_ascii=False, indent=2, allow_nan=False) + "\n"
