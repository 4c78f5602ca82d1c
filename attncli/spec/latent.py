"""The `latent` section: multi-head latent attention (DeepSeek-V2, V3). The heads' keys and
values come from one latent C_KV = X·W_DKV of d_c features per token (K_C = C_KV·W_UK,
V = C_KV·W_UV, each head its block of columns); RoPE turns a part of d_R features apart, whose
key K_R = X·W_KR one projection makes for every head, and whose query Q_R = X·W_QR each head
has of its own. A head's q and k are [Q_C | Q_R] and [K_C | K_R]: d_k = d_nope + d_R."""

from __future__ import annotations

import numpy as np

from attncli.i18n import Msg
from attncli.spec.arrays import Files, matrix_at, vector_at
from attncli.spec.model import Array, Convention, Head, Latent, RMSNorm
from attncli.spec.source import Node
from attncli.spec.values import (
    as_written,
    check_keys,
    check_shape,
    fail,
    fail_at,
    integer,
    number,
    optional,
)
from attncli.spec.weights import OUTPUT_KEYS, output_projection

LATENT_KEYS = ("W_DKV", "W_UK", "W_UV", "W_KR", "W_Q", "W_QR", "W_DQ", "norm")
NORM_KEYS = ("eps", "kv_gain", "q_gain")
REQUIRED = ("W_DKV", "W_UK", "W_UV", "W_KR", "W_Q", "W_QR")


def latent_spec(top: dict[str, Node], d_model: int, convention: Convention, rope: bool,
                files: Files) -> tuple[tuple[Head, ...], Array | None, Array | None, Latent]:
    """The latent's weights, shapes checked, each kept as x·W reads it (a matrix written in the
    column convention, out × in as PyTorch's Linear keeps it, is turned); the heads they make
    (each head's q, k and v weights as one linear map, for the sizes every step reads) and W_O,
    b_O from `weights`."""
    node = top["latent"]
    if "kv_heads" in top:  # the heads share K_R and the latent already
        fail(top["kv_heads"], "{key} does not work with {name} yet; remove {name} or {key}",
             key="kv_heads", name="latent")
    given = check_keys(top["weights"], OUTPUT_KEYS) if "weights" in top else {}
    heads_node = top.get("heads")
    if heads_node is not None and not isinstance(heads_node.value, int):
        fail(heads_node, "latent needs heads: h, a number of heads")
    h = 1 if heads_node is None else integer(heads_node, 1)
    keys = check_keys(node, LATENT_KEYS)
    for key in REQUIRED:
        if key not in keys:
            fail(node, "the key {key} is missing", key=key)
    row = convention == "row"

    def read(key: str, rows: tuple[str, int], columns: tuple[str, int | None]) -> Array:
        """keys[key] as x·W reads it: rows × columns, written so or (column) turned."""
        (row_name, size), (column_name, width) = rows, columns
        shape, names = ((size, width), f"{row_name} × {column_name}") if row else \
            ((width, size), f"{column_name} × {row_name}")
        w = matrix_at(keys[key], key, files, shape)
        full = width if width is not None else int(w.shape[1] if row else w.shape[0])
        check_shape(keys[key], w, (size, full) if row else (full, size), names)
        return w if row else w.T

    w_dq = read("W_DQ", ("d_model", d_model), ("d_cq", None)) if "W_DQ" in keys else None
    d_q = d_model if w_dq is None else int(w_dq.shape[1])
    w_dkv = read("W_DKV", ("d_model", d_model), ("d_c", None))
    d_c = int(w_dkv.shape[1])
    w_kr = read("W_KR", ("d_model", d_model), ("d_R", None))
    d_rope = int(w_kr.shape[1])
    if rope and d_rope % 2:
        fail(keys["W_KR"], "rope turns pairs of features and needs an even d_R; found d_R = "
             "{d_rope}", d_rope=d_rope)
    w_uk = per_head(keys["W_UK"], read("W_UK", ("d_c", d_c), ("heads·d_nope", None)), h)
    w_uv = per_head(keys["W_UV"], read("W_UV", ("d_c", d_c), ("heads·d_v", None)), h)
    d_nope = int(w_uk.shape[1]) // h
    q_from = "d_model" if w_dq is None else "d_cq"
    w_q = read("W_Q", (q_from, d_q), ("heads·d_nope", h * d_nope))
    w_qr = read("W_QR", (q_from, d_q), ("heads·d_R", h * d_rope))
    no_norm: tuple[RMSNorm | None, RMSNorm | None] = (None, None)
    kv_norm, q_norm = optional(keys, "norm", lambda n: norms(n, d_c, w_dq, files), no_norm)
    latent = Latent(w_dkv, w_uk, w_uv, w_kr, w_q, w_qr, w_dq, kv_norm, q_norm)
    heads = tuple(head(latent, i, row) for i in range(h))
    W_O, b_O = output_projection(given, d_model, h * latent.d_v, convention, files)
    return heads, W_O, b_O, latent


def per_head(node: Node, w: Array, h: int) -> Array:
    """A matrix with a block of columns (as x·W reads it) for each of the h heads."""
    if w.shape[1] % h:
        fail_at(node, Msg.plural_of(
            "cannot split {name} = {total} of the weights into {count} equal head",
            "cannot split {name} = {total} of the weights into {count} equal heads", h,
            name=node.where.path.rsplit(".", 1)[-1], total=int(w.shape[1])))
    return w


def norms(node: Node, d_c: int, w_dq: Array | None,
          files: Files) -> tuple[RMSNorm | None, RMSNorm | None]:
    """`norm: {eps, kv_gain, q_gain}`: RMSNorm of C_KV, and of C_Q when there is W_DQ."""
    keys = check_keys(node, NORM_KEYS)
    eps = optional(keys, "eps", number, RMSNorm.eps)
    if eps <= 0:
        fail(keys["eps"], "expected a positive eps, found {value}",
             value=as_written(keys["eps"], eps))
    kv_gain = optional(keys, "kv_gain", lambda n: gain(n, d_c, "d_c", files), None)
    if w_dq is None:
        if "q_gain" in keys:
            fail(keys["q_gain"], "q_gain needs W_DQ beside it in latent")
        return RMSNorm(kv_gain, eps), None
    q_gain = optional(keys, "q_gain", lambda n: gain(n, int(w_dq.shape[1]), "d_cq", files), None)
    return RMSNorm(kv_gain, eps), RMSNorm(q_gain, eps)


def gain(node: Node, length: int, name: str, files: Files) -> Array:
    return vector_at(node, files, length, name)


def head(latent: Latent, i: int, row: bool) -> Head:
    """Head i's queries, keys and values as one linear map of x each, as they are without the
    norms: [W_Q | W_QR] (after W_DQ), [W_DKV·W_UK | W_KR] and W_DKV·W_UV, for the sizes d_k,
    d_v that every step reads (the steps compute through the latent itself)."""
    dn, dr, dv = latent.d_nope, latent.d_rope, latent.d_v
    with np.errstate(over="ignore", invalid="ignore"):  # a product past float64 is refused
        return _head(latent, i, row, dn, dr, dv)  # when the steps make K (Build.finite)


def _head(latent: Latent, i: int, row: bool, dn: int, dr: int, dv: int) -> Head:
    w_q = np.concatenate([latent.W_Q[:, i * dn:(i + 1) * dn],
                          latent.W_QR[:, i * dr:(i + 1) * dr]], axis=1)  # (d_q, d_k)
    if latent.W_DQ is not None:
        w_q = latent.W_DQ @ w_q  # (d_model, d_cq) @ (d_cq, d_k)
    w_k = np.concatenate([latent.W_DKV @ latent.W_UK[:, i * dn:(i + 1) * dn], latent.W_KR],
                         axis=1)  # (d_model, d_k)
    w_v = latent.W_DKV @ latent.W_UV[:, i * dv:(i + 1) * dv]  # (d_model, d_v)
    if row:
        return Head(W_Q=w_q, W_K=w_k, W_V=w_v)
    return Head(W_Q=w_q.T, W_K=w_k.T, W_V=w_v.T)  # (d_k, d_model), as the column convention
