"""The header of a walkthrough: the sizes, the mask and scale in words, and the facts about the
example beyond them (heads' shapes, cross-attention, positions, W_O, the rest of the layer)."""

from __future__ import annotations

from attncli.compute import ops
from attncli.i18n import Digits, Msg, listing
from attncli.i18n.visible import visible, visible_lines
from attncli.model import Header
from attncli.steps.base import Build
from attncli.steps.block import describe_block
from attncli.steps.labels import subscript
from attncli.steps.masks import describe_masks
from attncli.steps.positions import positional_kind
from attncli.steps.scores import divisor


def header(b: Build) -> Header:
    spec = b.spec
    head = spec.heads[0]
    scale = spec.scale
    d_ks = {h.d_k(spec.convention) for h in spec.heads}
    if scale.kind == "sqrt_dk" and len(d_ks) > 1:
        scale_msg = Msg.of("÷ √d_k of each head")
    elif scale.kind == "sqrt_dk":
        scale_msg = Msg.of("÷ √d_k = {value}", value=divisor(b, head))
    elif scale.kind == "number":
        scale_msg = Msg.of("÷ {value}", value=scale.value)
    else:
        scale_msg = Msg.of("none")
    shapes = [(h.d_k(spec.convention), h.d_v(spec.convention)) for h in spec.heads]
    return Header(
        title={lang: visible(text) for lang, text in spec.title.items()},
        description={lang: visible_lines(text) for lang, text in spec.description.items()},
        n_queries=spec.queries.n, n_keys=spec.keys_source.n, d_model=spec.queries.d_model,
        d_k=head.d_k(spec.convention), d_v=head.d_v(spec.convention),
        n_heads=len(spec.heads), convention=spec.convention,
        mask=describe_masks(spec.masks), scale=scale_msg,
        uniform_heads=len(set(shapes)) == 1, facts=facts(b, shapes),
    )


def facts(b: Build, shapes: list[tuple[int, int]]) -> tuple[Msg, ...]:
    """Header lines beyond the sizes: each head's shape when they differ, cross-attention,
    positions, the output projection and the rest of the layer."""
    spec = b.spec
    found = []
    if len(set(shapes)) > 1:
        found += [Msg.of("head {index}: d_k = {d_k}, d_v = {d_v}", index=i, d_k=k, d_v=v)
                  for i, (k, v) in enumerate(shapes, start=1)]
    if spec.context is not None:
        found.append(Msg.of("cross-attention: queries from the tokens, keys and values from "
                            "the context"))
    for sequence in (spec.queries, spec.context):
        if sequence is not None and sequence.positional is not None:
            found.append(Msg.of("positional encoding: {kind}", kind=positional_kind(sequence)))
            break
    found += grouped(b)
    if spec.bias is not None and spec.bias.kind == "alibi":
        slopes = Digits(", ".join(f"{s:.6g}" for s in ops.alibi_slopes(len(spec.heads))))
        found.append(Msg.of("score bias: ALiBi, slopes {slopes}", slopes=slopes))
    elif spec.bias is not None:
        found.append(Msg.of("score bias: a matrix added to the scaled scores"))
    if spec.W_O is not None:
        rows, columns = (int(d) for d in spec.W_O.shape)
        found.append(Msg.of("output projection W_O: {rows} × {columns}", rows=rows,
                            columns=columns))
    if spec.block is not None:
        found.append(Msg.of("the rest of the layer: {parts}", parts=describe_block(spec)))
    if spec.dtype != "float64":
        found.append(Msg.of("computed in {dtype}: every number below is a {dtype} number",
                            dtype=spec.dtype))
    return tuple(found)


def grouped(b: Build) -> list[Msg]:
    """Grouped-query (or multi-query) attention: which heads share which K and V, and what that
    saves against multi-head attention, where every head has its own."""
    spec = b.spec
    g, h = spec.kv_heads, len(spec.heads)
    if g is None:
        return []
    conv = spec.convention
    kv = sum(head.d_k(conv) + head.d_v(conv) for head in spec.heads[:: h // g])
    full = sum(head.d_k(conv) + head.d_v(conv) for head in spec.heads)
    found = [Msg.of("multi-query attention: kv_heads = 1, both heads share one K and V")
             if g == 1 and h == 2 else  # "both": Polish "obie", Russian "обе"
             Msg.of("multi-query attention: kv_heads = 1, every head shares one K and V")
             if g == 1 else
             Msg.of("grouped-query attention: kv_heads = {groups}, heads = {heads}",
                    heads=h, groups=g)]
    found += [Msg.of("heads {heads} use K{group} and V{group}", group=subscript(i),
                     heads=listing([str(n) for n in head.sharing]))
              for i, head in enumerate(spec.heads[:: h // g], start=1)] if g > 1 else []
    found.append(Msg.of("size of K and V per token: {kv}, against {full} with a K and V for "
                        "every head", kv=kv, full=full))
    return found
