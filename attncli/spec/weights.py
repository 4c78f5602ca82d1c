"""The `weights` and `heads` sections: each head's projections, and the output projection."""

from __future__ import annotations

import numpy as np

from attncli.i18n import Msg
from attncli.spec.arrays import Files, is_random, matrix_at, vector_at
from attncli.spec.limits import MAX_HEADS
from attncli.spec.model import Array, Convention, Head
from attncli.spec.source import Node
from attncli.spec.values import (
    check_keys,
    check_shape,
    expect,
    fail,
    fail_at,
    integer,
    items,
    shape_text,
)

PROJECTIONS = ("W_Q", "W_K", "W_V")
PROJECTION_KEYS = ("W_Q", "W_K", "W_V", "b_Q", "b_K", "b_V")
OUTPUT_KEYS = ("W_O", "b_O")
WEIGHT_KEYS = PROJECTION_KEYS + OUTPUT_KEYS


def projections(top: dict[str, Node], root: Node, d_model: int, convention: Convention,
                files: Files) -> tuple[tuple[Head, ...], Array | None, Array | None]:
    """The heads (from `weights`, split by `heads: h`, or one per entry of a `heads` list),
    and the output projection W_O, b_O from `weights`."""
    heads_node = top.get("heads")
    if heads_node is not None:
        many = heads_node.value if isinstance(heads_node.value, int) else (
            len(heads_node.value) if isinstance(heads_node.value, list) else 0)
        if many > MAX_HEADS:  # a walkthrough shows every head: bounded before any is read
            fail_at(heads_node, Msg.plural_of("expected at most {count} head, found {found}",
                                              "expected at most {count} heads, found {found}",
                                              MAX_HEADS, found=many))
    given = check_keys(top["weights"], WEIGHT_KEYS) if "weights" in top else {}
    if heads_node is None and "kv_heads" in top:
        fail(top["kv_heads"], "expected heads: h beside it, the number of query heads that "
             "share these key and value heads")
    if heads_node is None or is_count(heads_node):
        h = 1 if heads_node is None else integer(heads_node, 1)
        g = kv_heads(top.get("kv_heads"), h, given)
        full = head_weights(given, root, d_model, convention, files, None, (g, h))
        heads = (full,) if heads_node is None else split(full, heads_node, convention, g)
    else:
        if "kv_heads" in top:
            fail(top["kv_heads"], "kv_heads needs heads: h (a number of heads), not a list")
        entries = items(heads_node, Msg.of("a number of heads or a list of heads"))
        for key, child in given.items():
            if key not in OUTPUT_KEYS:
                fail(child, "with a list of heads, each head has its own projections; "
                     "weights may hold only W_O and b_O")
        heads = tuple(
            head_weights(check_keys(entry, PROJECTION_KEYS), entry, d_model, convention, files,
                         index)
            for index, entry in enumerate(entries, start=1)
        )
    W_O, b_O = output_projection(given, d_model, sum(h.d_v(convention) for h in heads),
                                 convention, files)
    return heads, W_O, b_O


def kv_heads(node: Node | None, h: int, given: dict[str, Node]) -> int:
    """kv_heads: g, the key/value heads that the h query heads share in groups of h/g (g = h
    when absent: every head has its own)."""
    if node is None:
        return h
    g = integer(node, 1)
    if h % g != 0:
        fail(node, "expected a number of key/value heads that divides heads = {h}, found {g}",
             h=h, g=g)
    for key in ("W_K", "W_V"):
        if g < h and (key not in given or given[key].value == "identity"):
            fail(node, "with kv_heads, weights needs {key} of kv_heads·d_k columns", key=key)
    return g


def is_count(node: Node) -> bool:
    return isinstance(node.value, int) and not isinstance(node.value, bool)


def head_weights(given: dict[str, Node], where: Node, d_model: int, convention: Convention,
                 files: Files, index: int | None, groups: tuple[int, int] = (1, 1)) -> Head:
    """W_Q, W_K, W_V (identity when absent) and optional biases of one head, shapes checked.

    `index` is the head's number in a `heads` list (None for `weights`), for the messages.
    With `groups` (g, h), g < h: W_K and W_V hold g blocks where W_Q holds h (grouped-query).
    """
    g, h = groups
    identity = frozenset(
        key for key in PROJECTIONS if key not in given or given[key].value == "identity"
    )
    row = convention == "row"
    for key in (k for k in PROJECTIONS if k in identity):
        files.budget.charge(given.get(key, where), (d_model, d_model),
                            Msg.of("the identity {name} of {found}", name=key,
                                   found=shape_text((d_model, d_model))))
    arrays: dict[str, Array] = {key: np.eye(d_model) for key in identity}  # (d_model, d_model)
    dims: dict[str, int | None] = {
        "d_k": d_model if "W_Q" in identity else None,
        "d_v": d_model if "W_V" in identity else None,
    }
    names = ("d_model × {dim}" if row else "{dim} × d_model")
    # matrices whose shape is known first (written out, from files, random with a shape), in
    # the order W_Q, W_K, W_V: a random one without a shape takes its shape from them
    def shapeless(key: str) -> bool:
        return is_random(given[key]) and given[key].get("shape") is None

    for key in sorted((k for k in PROJECTIONS if k not in identity),
                      key=lambda k: (shapeless(k), PROJECTIONS.index(k))):
        node = given[key]
        if isinstance(node.value, str):
            expect(node, Msg.of("a matrix or identity"))
        dim_name = "d_v" if key == "W_V" else "d_k"
        known = dims[dim_name]
        if key == "W_K" and known is not None:
            known = known * g // h  # W_K: g blocks of the d_k of W_Q's h
        if known is None and shapeless(key):
            known = d_model if key == "W_Q" or g == h else None
            known = known or (dims["d_k"] or d_model) * g // h  # W_V like W_K
        arrays[key] = matrix_at(node, key, files, (d_model, known) if row else (known, d_model))
        size = known if known is not None else int(arrays[key].shape[1 if row else 0])
        if g < h and key != "W_Q":
            dim_name = f"kv_heads·{dim_name}"
        shape = (d_model, size) if row else (size, d_model)
        check_shape(node, arrays[key], shape, names.format(dim=dim_name), index)
        if key == "W_K":
            if size % g != 0:
                fail_at(node, Msg.plural_of(
                    "cannot split {name} = {total} of the weights into {count} equal head",
                    "cannot split {name} = {total} of the weights into {count} equal heads", g,
                    name="d_k", total=size))
            size = size * h // g
        dims["d_v" if key == "W_V" else "d_k"] = size
    d_k, d_v = dims["d_k"], dims["d_v"]
    assert d_k is not None and d_v is not None
    if "W_K" in identity and d_k != d_model:
        if index is None:
            fail(where, "weights.W_K is missing, so it is the identity, which needs d_k = d_model")
        fail(where, "W_K is missing, so it is the identity, which needs d_k = d_model")
    biases: dict[str, Array | None] = {}
    for key, dim in (("b_Q", d_k), ("b_K", d_k * g // h), ("b_V", d_v)):
        bias_node = given.get(key)
        biases[key] = None
        if bias_node is not None:
            biases[key] = vector_at(bias_node, files, dim, "d_k" if key != "b_V" else "d_v",
                                    index)
    return Head(
        W_Q=arrays["W_Q"], W_K=arrays["W_K"], W_V=arrays["W_V"],
        b_Q=biases["b_Q"], b_K=biases["b_K"], b_V=biases["b_V"], identity=identity,
    )


def split(full: Head, node: Node, convention: Convention, g: int | None = None) -> tuple[Head, ...]:
    """`heads: h`: head i takes the i-th block of d_k = d/h columns of W_Q, W_K, W_V (rows in
    the column convention) and of the biases, as PyTorch's nn.MultiheadAttention does.

    With kv_heads g < h, W_K and W_V hold g blocks: head i takes block ⌊i / (h/g)⌋ of them, as
    PyTorch's scaled_dot_product_attention(..., enable_gqa=True)."""
    h = integer(node, 1)
    if g is not None and g < h:
        return grouped(full, h, g, node, convention)
    total_k, total_v = full.d_k(convention), full.d_v(convention)
    check_split(node, (("d_k", total_k, h), ("d_v", total_v, h)))
    d_k, d_v = total_k // h, total_v // h
    axis = 1 if convention == "row" else 0
    heads = []
    for i in range(h):
        k_cols, v_cols = (i * d_k, (i + 1) * d_k), (i * d_v, (i + 1) * d_v)

        def bias(b: Array | None, cols: tuple[int, int]) -> Array | None:
            return None if b is None else b[cols[0]:cols[1]]  # (d,)

        heads.append(Head(
            W_Q=block(full.W_Q, k_cols, axis), W_K=block(full.W_K, k_cols, axis),
            W_V=block(full.W_V, v_cols, axis),
            b_Q=bias(full.b_Q, k_cols), b_K=bias(full.b_K, k_cols), b_V=bias(full.b_V, v_cols),
            split=(k_cols, v_cols),
        ))
    return tuple(heads)


def output_projection(given: dict[str, Node], d_model: int, width: int, convention: Convention,
                      files: Files) -> tuple[Array | None, Array | None]:
    """W_O ((h·d_v) x d_model, or d_model x (h·d_v) in the column convention) and b_O."""
    if "W_O" not in given:
        if "b_O" in given:
            fail(given["b_O"], "b_O needs W_O beside it in weights")
        return None, None
    row = convention == "row"
    shape = (width, d_model) if row else (d_model, width)
    W_O = matrix_at(given["W_O"], "W_O", files, shape)
    check_shape(given["W_O"], W_O, shape, "h·d_v × d_model" if row else "d_model × h·d_v")
    b_O = None
    if "b_O" in given:
        b_O = vector_at(given["b_O"], files, d_model, "d_model")
    return W_O, b_O


def check_split(node: Node, splits: tuple[tuple[str, int, int], ...]) -> None:
    """Each (name, total, count): `total` columns of the weights split into `count` equal heads,
    else one located error."""
    for name, total, count in splits:
        if total % count != 0:
            fail_at(node, Msg.plural_of(
                "cannot split {name} = {total} of the weights into {count} equal head",
                "cannot split {name} = {total} of the weights into {count} equal heads", count,
                name=name, total=total))


def block(w: Array, cols: tuple[int, int], axis: int) -> Array:
    """One head's block of the weights' columns (rows in the column convention): a view of the
    whole matrix, not a copy (BLAS reads a block of columns in place, with the same numbers as
    from a copy), so the heads' blocks take no memory beside the weights they come from."""
    start, stop = cols
    return w[:, start:stop] if axis == 1 else w[start:stop]  # (d_model, d) or (d, d_model)


def grouped(full: Head, h: int, g: int, node: Node, convention: Convention) -> tuple[Head, ...]:
    """Grouped-query heads: W_Q split into h blocks, W_K and W_V into g, shared by h/g heads."""
    total_q, total_v = full.d_k(convention), full.d_v(convention)
    check_split(node, (("d_k", total_q, h), ("d_v", total_v, g)))
    d_k, d_v = total_q // h, total_v // g
    axis = 1 if convention == "row" else 0
    per_group = h // g

    def bias(b: Array | None, cols: tuple[int, int]) -> Array | None:
        return None if b is None else b[cols[0]:cols[1]]  # (d,)

    heads = []
    for i in range(h):
        group = i // per_group
        q_cols = (i * d_k, (i + 1) * d_k)
        k_cols, v_cols = (group * d_k, (group + 1) * d_k), (group * d_v, (group + 1) * d_v)
        heads.append(Head(
            W_Q=block(full.W_Q, q_cols, axis), W_K=block(full.W_K, k_cols, axis),
            W_V=block(full.W_V, v_cols, axis),
            b_Q=bias(full.b_Q, q_cols), b_K=bias(full.b_K, k_cols), b_V=bias(full.b_V, v_cols),
            split=(q_cols, v_cols), group=group, kv_split=(k_cols, v_cols),
            sharing=tuple(range(group * per_group + 1, (group + 1) * per_group + 1)),
        ))
    return tuple(heads)
