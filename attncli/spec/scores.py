"""The `score`, `scale` and `softcap` sections: how a query meets a key, what the scores are
divided by, and the cap c of Gemma 2's soft-capping c·tanh(S′ / c)."""

from __future__ import annotations

from attncli.spec.arrays import Files, matrix_at
from attncli.spec.model import Scale, Score
from attncli.spec.source import Node
from attncli.spec.values import as_written, check_keys, check_shape, choice, fail, number

SCORE_KEYS = ("general",)


def score_spec(node: Node, files: Files, d_k: int) -> tuple[str, Score]:
    if isinstance(node.value, dict):
        general = check_keys(node, SCORE_KEYS)
        if "general" not in general:
            fail(node, "expected scaled_dot, dot or {{general: W}}, found an empty mapping")
        w = matrix_at(general["general"], "general", files, (d_k, d_k))
        check_shape(general["general"], w, (d_k, d_k), "d_k × d_k")
        return "general", Score("general", w)
    kind = choice(node, ("scaled_dot", "dot"))
    return kind, Score("dot")


def scale_spec(node: Node) -> Scale:
    if isinstance(node.value, str):
        kind = choice(node, ("sqrt_dk", "none"))
        return Scale("sqrt_dk") if kind == "sqrt_dk" else Scale("none")
    value = number(node)
    if value <= 0:
        fail(node, "expected a positive number to divide by, found {value}",
             value=as_written(node, value))
    return Scale("number", value)


def softcap_spec(node: Node) -> float:
    """`softcap: c`, a positive number (Gemma 2's attn_logit_softcapping, 50.0)."""
    value = number(node)
    if value <= 0:
        fail(node, "expected a positive cap c of c·tanh(s / c), found {value}",
             value=as_written(node, value))
    return value
