"""The `mask` and `masked_rows` sections: which keys each query sees, and what a query that
sees none gets."""

from __future__ import annotations

import numpy as np

from attncli.i18n import Count, Msg
from attncli.spec.arrays import Files, file_values
from attncli.spec.model import (
    Array,
    CausalMask,
    Mask,
    MaskedRows,
    MatrixMask,
    PaddingMask,
    WindowMask,
)
from attncli.spec.source import Node
from attncli.spec.values import (
    boolean,
    check_keys,
    check_shape,
    choice,
    expect,
    fail,
    fail_at,
    integer,
    items,
    matrix,
    optional,
)

MASK_KEYS = ("window", "causal", "padding", "sink_tokens")


def visible_flag(node: Node) -> bool:
    """A key's entry in a padding mask: true/false, or 1/0 as in a 0/1 mask matrix."""
    if isinstance(node.value, bool):
        return node.value
    if isinstance(node.value, (int, float)) and node.value in (0, 1):
        return node.value == 1
    expect(node, Msg.of("true, false, 1 or 0"))

def masks(node: Node, n: int, m: int, files: Files | None = None) -> tuple[Mask, ...]:
    """One mask, or a list of masks that all have to allow a key for it to be visible.

    n queries and m keys; with cross-attention the keys are the context tokens."""
    if isinstance(node.value, list) and node.value and not is_matrix(node):
        return tuple(mask for child in node.value for mask in masks(child, n, m, files))
    if node.value == "none":
        return ()
    return (one_mask(node, n, m, files),)


def is_matrix(node: Node) -> bool:
    return all(
        row.numbers is not None or (
            isinstance(row.value, list) and all(not isinstance(c.value, (list, dict, str))
                                                for c in row.value))
        for row in node.value
    )


def one_mask(node: Node, n: int, m: int, files: Files | None = None) -> Mask:
    expected = Msg.of("none, causal, {{window: w}}, {{padding: [...]}} or a 0/1 matrix")
    if files is not None and isinstance(node.value, dict) and "file" in node.value:
        return matrix_mask(node, file_values(node, files, 2), n, m)
    if isinstance(node.value, str):
        if node.value == "causal":
            if n != m:
                fail(node, "a causal mask needs as many queries as keys, found {n} × {m}",
                     n=Count(n), m=Count(m))
            return CausalMask()
        expect(node, expected, ("none", "causal"))
    if isinstance(node.value, list):
        return matrix_mask(node, matrix(node, "mask"), n, m)
    if not isinstance(node.value, dict):
        expect(node, expected)
    keys = check_keys(node, MASK_KEYS)
    if "padding" in keys:
        if len(keys) > 1:
            fail(node, "expected padding alone, found other keys beside it")
        keep = tuple(visible_flag(flag) for flag in items(
            keys["padding"], Msg.of("a list of true/false or 1/0")))
        if len(keep) != m:
            fail_at(keys["padding"], Msg.plural_of(
                "has {count} entry, expected one per key ({expected})",
                "has {count} entries, expected one per key ({expected})", len(keep),
                expected=m))
        return PaddingMask(keep)
    if "window" not in keys:
        if "sink_tokens" in keys:
            fail(keys["sink_tokens"], "sink_tokens keeps the first keys beside a window; add "
                 "window: w")
        if "causal" in keys and boolean(keys["causal"]):
            return one_mask(Node("causal", node.where), n, m)
        fail(node, "expected window, causal or padding")
    causal = optional(keys, "causal", boolean, False)
    if causal and n != m:
        fail(node, "a causal mask needs as many queries as keys, found {n} × {m}", n=Count(n),
             m=Count(m))
    # window 0 would leave each query only itself: no attention to speak of, and never meant
    sink_tokens = optional(keys, "sink_tokens", lambda k: integer(k, 0), 0)
    return WindowMask(integer(keys["window"], 1), causal, sink_tokens)


def matrix_mask(node: Node, visible: Array, n: int, m: int) -> MatrixMask:
    check_shape(node, visible, (n, m), Msg.of("queries × keys"))
    if not np.isin(visible, (0.0, 1.0)).all():
        fail(node, "expected only 1 (visible) and 0 (hidden) in a mask matrix")
    return MatrixMask(visible.astype(bool))


def masked_rows(node: Node) -> MaskedRows:
    policy = choice(node, ("zeros", "nan", "error"))
    return "nan" if policy == "nan" else "error" if policy == "error" else "zeros"
