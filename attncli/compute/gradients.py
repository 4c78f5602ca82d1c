"""The formulas of attention's backward pass, pure NumPy (steps/backward.py labels them).

L = Σ dO ⊙ O, with dO from the spec's `backward` section (all ones: L is the sum of the
outputs). Read backwards through the forward results of walkthrough.compute, row convention
(the column convention's W is used transposed, and its gradient given back transposed):

    dW_O = Zᵀ·dO,  dZ = dO·W_Oᵀ                      (when W_O is given)
    dV = Aᵀ·dZ,  dA = dZ·Vᵀ                            (each head, dZ its columns)
    dS′ = A ⊙ (dA − rowsum(dA ⊙ A))                    (the softmax Jacobian, row by row)
    dS = dS′ / √d_k                                    (a hidden key has A = 0, so dS = 0)
    dQ = dS·K,  dK = dSᵀ·Q                             (general score: dS·K·Wᵀ, dSᵀ·Q·W)
    dW_Q = Xᵀ·dQ,  dW_K = Xᵀ·dK,  dW_V = Xᵀ·dV,  db = the column sums
    dX = Σ_h dQ·W_Qᵀ + dK·W_Kᵀ + dV·W_Vᵀ

RoPE, shared K/V heads, score biases, RMSNorm and gated feed-forwards:
attncli/compute/gradients_modern.py.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator

import numpy as np

from attncli.compute.gradients_block import BlockGradients, block_gradients, layer_norm_backward
from attncli.compute.gradients_modern import GroupGradients, shared, turned_back
from attncli.model import Array, HeadResult, Matrix
from attncli.records import record
from attncli.spec.model import Head, Spec


@record
class HeadGradients:
    dZ: Array  # (n, d_v)
    dV: Array  # (m, d_v)
    dA: Array  # (n, m); with `kept`, (len(kept), m): those rows only
    dS_scaled: Array  # (n, m): dL/dS′; with `kept`, its rows
    dS: Array  # (n, m); with `kept`, its rows
    dQ: Array  # (n, d_k)
    dK: Array  # (m, d_k)
    dW: dict[str, Array]  # dW_Q, dW_K, dW_V as the spec writes W; db_Q ... when biased
    # with RoPE, dQ and dK above are turned back (Rᵀ·dQ̂); these are dL/dQ̂, dL/dK̂
    dQ_hat: Array | None = None  # (n, d_k)
    dK_hat: Array | None = None  # (m, d_k)
    kept: tuple[int, ...] | None = None  # the rows dA, dS′, dS hold (a summary); None: all
    first_key: Array | None = None  # (n,): A's first column, the weights of the first key
    # with `kept`: the first query that sees the most keys, and its rows of dA, dS′, dS and A
    representative: int | None = None
    its_rows: tuple[Array, Array, Array, Array] | None = None  # 4 x (m,)

    def row(self, name: str, i: int) -> Array:
        """Row i (of every query) of dA, dS_scaled or dS (m,)."""
        values: Array = getattr(self, name)
        if self.kept is None:
            return values[i]
        if i == self.representative and self.its_rows is not None:
            return self.its_rows[("dA", "dS_scaled", "dS").index(name)]
        return values[self.kept.index(i)]

    def weights_row(self, weights: Matrix, i: int) -> Array:
        """Row i of the head's weights A (m,): a summary's may not hold the written-out row."""
        if i == self.representative and self.its_rows is not None:
            return self.its_rows[3]  # NaN (a query that sees no key) as 0, which it passes
        return weights.row(i)


# The rows of a head's weights, block by block: (first row, A's rows (rows, m) with NaN as 0,
# how many keys each of the rows sees (rows,))
WeightBlocks = Callable[[], Iterator[tuple[int, Array, Array]]]


@record
class Gradients:
    dO: Array  # (n, d_out)
    dZ: Array  # (n, h·d_v): the heads' outputs side by side
    heads: tuple[HeadGradients, ...]
    dX: Array  # (n, d_model)
    dC: Array | None  # (m, d_model), cross-attention's context
    dW_O: Array | None = None
    db_O: Array | None = None
    block: BlockGradients | None = None  # the rest of the layer, when the spec has one
    groups: tuple[GroupGradients, ...] = ()  # the shared K/V heads (kv_heads)


def used(w: Array, spec: Spec) -> Array:
    """W as it multiplies a row x (x·W): the column convention's W transposed."""
    return w if spec.convention == "row" else w.T


def head_gradients(spec: Spec, head: Head, result: HeadResult, dz: Array,
                   blocks: WeightBlocks | None = None,
                   kept: tuple[int, ...] | None = None) -> HeadGradients:
    """One head's gradients; with `blocks`, worked a block of query rows at a time, so that no
    n x m array is held whole: dQ is made row by row, dV and dK are sums over the query rows
    and grow block by block (the blocking of FlashAttention-2's backward pass, Dao 2023, §3.2),
    and of dA, dS′ and dS only the rows `kept` stay."""
    q, k, v = result.queries.whole(), result.keys.whole(), result.values.whole()
    if blocks is None:
        whole = np.nan_to_num(result.weights.whole())  # (n, m); a NaN row passes nothing

        def blocks() -> Iterator[tuple[int, Array, Array]]:
            yield 0, whole, np.zeros(0)
    dv = dk = None
    dqs, das, dss_scaled, dss, first_key = [], [], [], [], []
    most, representative, its_rows = -1, None, None
    for first, a, seen in blocks():  # a: (rows, m)
        dz_rows, q_rows = dz[first:first + a.shape[0]], q[first:first + a.shape[0]]
        part_dv = a.T @ dz_rows  # (m, rows) @ (rows, d_v) -> (m, d_v)
        dv = part_dv if dv is None else dv + part_dv
        da = dz_rows @ v.T  # (rows, d_v) @ (d_v, m) -> (rows, m)
        # dS′ = A ⊙ (dA − rowsum(dA ⊙ A)), worked in one (rows, m) array: the product, its
        # row sums, then the difference and the product written over it (the same numbers as
        # a * (da - ...), without two more arrays of the block's size)
        ds_scaled = np.multiply(da, a)  # (rows, m)
        np.subtract(da, ds_scaled.sum(axis=1, keepdims=True), out=ds_scaled)  # (rows, m)
        ds_scaled *= a  # (rows, m)
        ds = ds_scaled / result.divisor  # (rows, m)
        if spec.score.W is None:
            dqs.append(ds @ k)  # (rows, m) @ (m, d_k) -> (rows, d_k)
            part_dk = ds.T @ q_rows  # (m, rows) @ (rows, d_k) -> (m, d_k)
        else:
            dqs.append(ds @ k @ spec.score.W.T)  # (rows, m) @ (m, d_k) @ (d_k, d_k)
            part_dk = ds.T @ q_rows @ spec.score.W  # (m, rows) @ (rows, d_k) @ (d_k, d_k)
        dk = part_dk if dk is None else dk + part_dk
        first_key.append(a[:, 0].copy())  # (rows,): not a view, which would hold all of a
        held = slice(None) if kept is None else [i - first for i in kept
                                                  if first <= i < first + a.shape[0]]
        if kept is not None and int(seen.max()) > most:  # the first of the most, as argmax
            at = int(np.argmax(seen))
            most, representative = int(seen[at]), first + at
            its_rows = (da[at].copy(), ds_scaled[at].copy(), ds[at].copy(), a[at].copy())
        das.append(da[held])
        dss_scaled.append(ds_scaled[held])
        dss.append(ds[held])
        # this block's arrays let go before the next is made, not after (a summary keeps rows)
        del a, da, ds_scaled, ds
    assert dv is not None and dk is not None
    dq = joined(dqs)  # (n, d_k)
    dq_hat, dk_hat = turned_back(spec, "q", dq), turned_back(spec, "k", dk)
    if dq_hat is not None:  # the scores read Q̂ = RoPE(Q): dq was dL/dQ̂
        dq, dq_hat = dq_hat, dq
    if dk_hat is not None:
        dk, dk_hat = dk_hat, dk
    x = result.query_inputs if result.query_inputs is not None else spec.queries.embeddings
    xk = result.key_inputs if result.key_inputs is not None else spec.keys_source.embeddings
    dw: dict[str, Array] = {}
    own = (("Q", x, dq), ("K", xk, dk), ("V", xk, dv))
    for letter, inputs, grad in own if head.group is None else own[:1]:  # shared: gradients.shared
        dw_used = inputs.T @ grad  # (d_model, rows) @ (rows, d) -> (d_model, d)
        dw[f"dW_{letter}"] = used(dw_used, spec)
        if getattr(head, f"b_{letter}") is not None:
            dw[f"db_{letter}"] = grad.sum(axis=0)  # (d,)
    return HeadGradients(dz, dv, joined(das), joined(dss_scaled), joined(dss), dq, dk, dw,
                         dq_hat, dk_hat, kept, joined(first_key), representative, its_rows)


def joined(parts: list[Array]) -> Array:
    """The blocks' rows as one array; the one block itself when there is one (whole)."""
    return parts[0] if len(parts) == 1 else np.concatenate(parts)


def gradients(spec: Spec, forward: tuple[HeadResult, ...], x: Array | None = None,
              attention: Array | None = None,
              blocks: tuple[WeightBlocks, ...] | None = None,
              kept: tuple[int, ...] | None = None) -> Gradients:
    """Every gradient of L = Σ dO ⊙ O, from the forward pass's heads (whole, not summaries,
    unless `blocks` gives each head's weights a block of rows at a time: then dA, dS′ and dS
    keep the rows `kept`); with a block, L = Σ dY ⊙ Y at the layer's output, and X and the
    attention output O are needed too."""
    assert spec.backward is not None
    d_out = spec.backward.dO  # (n, d_out)
    block = None
    if spec.block is not None:
        assert x is not None and attention is not None
        block = block_gradients(spec, x, attention, d_out)
        d_out = block.d_attention  # (n, d_model)
    z = np.concatenate([h.context.whole() for h in forward], axis=1)  # (n, h·d_v)
    dw_o = db_o = None
    dz = d_out
    if spec.W_O is not None:
        w_o = used(spec.W_O, spec)  # (h·d_v, d_out)
        dw_o = used(z.T @ d_out, spec)  # (h·d_v, n) @ (n, d_out)
        db_o = d_out.sum(axis=0) if spec.b_O is not None else None  # (d_out,)
        dz = d_out @ w_o.T  # (n, d_out) @ (d_out, h·d_v) -> (n, h·d_v)
    heads, at = [], 0
    dx = np.zeros_like(spec.queries.embeddings)  # (n, d_model)
    dc = np.zeros_like(spec.keys_source.embeddings)  # (m, d_model)
    for i, (head, result) in enumerate(zip(spec.heads, forward, strict=True)):
        width = result.context.shape[1]
        grads = head_gradients(spec, head, result, dz[:, at:at + width],
                               None if blocks is None else blocks[i], kept)
        at += width
        heads.append(grads)
        dx += grads.dQ @ used(head.W_Q, spec).T  # (n, d_k) @ (d_k, d_model)
        dc += grads.dK @ used(head.W_K, spec).T + grads.dV @ used(head.W_V, spec).T  # (m, d_model)
    groups: tuple[GroupGradients, ...] = ()
    if spec.heads[0].group is not None:  # kv_heads < heads: K and V shared in groups
        groups = shared(spec, forward, [g.dK for g in heads], [g.dV for g in heads])
    if spec.context is None:
        dx, dc_out = dx + dc, None
    else:
        dc_out = dc
    if block is not None:
        if block.pre_norm is not None:  # the heads read LayerNorm(X)
            dx = layer_norm_backward(dx, block.pre_norm, "1", block.named)
        dx = dx + block.d_x  # (n, d_model): the residual add's share
    return Gradients(d_out, dz, tuple(heads), dx, dc_out, dw_o, db_o, block, groups)
