"""The `bias` section: what is added to the scaled scores before the mask (ALiBi, or matrices)."""

from __future__ import annotations

from attncli.i18n import Msg
from attncli.spec.arrays import Files, is_random, matrix_at
from attncli.spec.masks import is_matrix
from attncli.spec.model import Array, ScoreBias
from attncli.spec.source import Node
from attncli.spec.values import check_shape, expect, fail, items

BIAS_KINDS = ("alibi",)


def score_bias(node: Node, n: int, m: int, h: int, files: Files) -> ScoreBias | None:
    """none, alibi, one n x m matrix for every head, or a list of h of them (one per head)."""
    if node.value == "none":
        return None
    if node.value == "alibi":
        return ScoreBias("alibi")
    if isinstance(node.value, str):
        expect(node, Msg.of("none, alibi, a queries × keys matrix or a list of one per head"))
    if isinstance(node.value, list) and node.value and not is_matrix(node):
        entries = items(node, Msg.of("a list of matrices, one per head"))
        if len(entries) != h:
            fail(node, "expected one matrix per head ({expected}), found {found}",
                 found=len(entries), expected=h)
        return ScoreBias("matrix", tuple(one_matrix(entry, n, m, files) for entry in entries))
    return ScoreBias("matrix", (one_matrix(node, n, m, files),))


def one_matrix(node: Node, n: int, m: int, files: Files) -> Array:
    if isinstance(node.value, dict) and not is_random(node) and "file" not in node.value:
        expect(node, Msg.of("a queries × keys matrix, {{file: ...}} or {{random: ...}}"))
    values = matrix_at(node, "bias", files, (n, m))
    check_shape(node, values, (n, m), Msg.of("queries × keys"))
    return values
