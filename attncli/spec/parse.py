"""From a Node tree to a validated Spec: the top-level keys, each read by its section module
(values, arrays, sequences, weights, scores, masks, block). Every error names the key path, what
was expected and what was found, and carries the line:column of the offending value."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from importlib import import_module
from typing import Any

from attncli.i18n import Msg
from attncli.spec import view_keys
from attncli.spec.arrays import Files, spec_files
from attncli.spec.costs import walkthrough_cells, walkthrough_products
from attncli.spec.files import resolving_once, spec_folder
from attncli.spec.limits import DEFAULT_MAX_CELLS, MAX_PRECISION
from attncli.spec.masks import masked_rows, masks
from attncli.spec.model import Convention, Display, Head, Mask, Scale, Score, Sequence, Spec
from attncli.spec.opened import kept_open
from attncli.spec.precision import check_dtype, dtype_spec
from attncli.spec.scores import scale_spec, score_spec, softcap_spec
from attncli.spec.sequences import context_sequence, sequence
from attncli.spec.source import Node
from attncli.spec.values import (
    boolean,
    check_keys,
    choice,
    fail,
    fail_at,
    integer,
    localized,
    optional,
)
from attncli.spec.weights import projections

TOP_KEYS = (
    "tokens", "embeddings", "convention", "weights", "score", "scale", "mask",
    "masked_rows", "display", "title", "description",
    "heads", "context", "positional", "block", "bias", "kv_heads", "backward", "decode",
    "dtype",
    "tiling", "softcap", "qk_norm", "sinks", "model", "image", "patch", "patch_embedding",
    "classifier", "latent",
)
# The sections a spec may leave out, each read by a module of its own that is imported only when
# its key is there (a plain spec loads none of them): key -> (module, function). The modules are
# named in full, so tests/test_layers.py counts each as an import of this one.
SECTIONS: dict[str, tuple[str, str]] = {
    "block": ("attncli.spec.block", "block_spec"),
    "decode": ("attncli.spec.decode", "decode_spec"),
    "tiling": ("attncli.spec.tiling", "tiling_spec"),
    "bias": ("attncli.spec.biases", "score_bias"),
    "qk_norm": ("attncli.spec.qk_norm", "qk_norm_spec"),
    "sinks": ("attncli.spec.sinks", "sinks_spec"),
    "backward": ("attncli.spec.backward", "backward_spec"),
    "model": ("attncli.spec.model_folder", "folder_specs"),
    "image": ("attncli.spec.vit", "vision_spec"),
    "latent": ("attncli.spec.latent", "latent_spec"),
}


def section(key: str) -> Callable[..., Any]:
    """The function that reads the section `key` (see SECTIONS), its module imported now."""
    module, function = SECTIONS[key]
    reader: Callable[..., Any] = getattr(import_module(module), function)
    return reader


DISPLAY_KEYS = ("precision", "round_intermediates", "decimal", "steps", "expand", "head",
                "reading", "header", "md_flavor")


def load(root: Node, allow_outside: bool = False, max_cells: int = DEFAULT_MAX_CELLS,
         read: Files | None = None) -> Spec:
    """The Spec that `root` describes, or SpecError at the first problem.

    Files named in the spec are read from the spec's folder (or below it); `allow_outside`
    lifts that limit. The matrices the spec makes and the numbers its walkthrough computes may
    number at most `max_cells` in all. `read` (a model folder's layers) shares the files read
    so far: each is read once for all of them.
    """
    # a name a spec (and its layers) gives again is resolved once, a checkpoint opened once
    with resolving_once(), kept_open():
        return _load(root, allow_outside, max_cells, read)


def _load(root: Node, allow_outside: bool, max_cells: int, read: Files | None) -> Spec:
    top = check_keys(root, TOP_KEYS)
    files = spec_files(spec_folder(root.where.source), allow_outside, max_cells)
    if read is not None:  # a model's earlier layer: the files the spec has read, read once,
        # and its numbers counted with the spec's, before any layer is worked out
        files = Files(files.folder, allow_outside, read.budget, kept=read.kept,
                      wholes=read.wholes, headers=read.headers, archives=read.archives)
    earlier: tuple[Spec, ...] = ()
    if "model" in top:  # a layer of a saved model: the keys its folder stands for
        read_before = []
        for layer, last in section("model")(root, files):  # each read before the next is made
            if last:
                root = layer
            else:
                read_before.append(load(layer, allow_outside, max_cells, files))
        earlier = tuple(read_before)
        top = check_keys(root, TOP_KEYS)
    convention: Convention = "row"
    if "convention" in top:
        convention = "row" if choice(top["convention"], ("row", "column")) == "row" else "column"
    vision = None
    if "image" in top:  # a Vision Transformer's: the tokens are the image's patches
        queries, vision = section("image")(top, root, convention, files)
    else:
        for key in ("patch", "patch_embedding", "classifier"):
            if key in top:
                fail(top[key], "{key} needs an image; add image or remove {key}", key=key)
        for key in ("tokens", "embeddings"):
            if key not in top:
                fail(root, "the key {key} is missing", key=key)
        queries = sequence(top["tokens"], top["embeddings"], top.get("positional"), files)
    context = optional(top, "context", lambda n: context_sequence(n, queries.d_model, files), None)
    keys_n = context.n if context is not None else queries.n
    latent = None
    if "latent" in top:
        rope = queries.positional is not None and queries.positional.kind == "rope"
        heads, W_O, b_O, latent = section("latent")(top, queries.d_model, convention, rope,
                                                    files)
    else:
        heads, W_O, b_O = projections(top, root, queries.d_model, convention, files)
    d_k = heads[0].d_k(convention)
    kind, score_model = optional(top, "score", lambda n: score_spec(n, files, d_k),
                                 ("scaled_dot", Score()))
    if score_model.W is not None:
        for index, head in enumerate(heads, start=1):
            if head.d_k(convention) != d_k:
                fail(top["score"], "the general score needs one d_k for every head; head "
                     "{index} has d_k = {found}, head 1 has {expected}",
                     index=index, found=head.d_k(convention), expected=d_k)
    if latent is None:  # the latent checks its own RoPE part, d_R
        rotary(queries, top.get("positional"), heads, convention)
    if context is not None and latent is None:
        rotary(context, top["context"].get("positional"), heads, convention)
    default_scale = Scale("sqrt_dk") if kind == "scaled_dot" else Scale("none")
    block = optional(top, "block",
                     lambda n: section("block")(n, queries.d_model, convention, files), None)
    if block is not None:
        width = queries.d_model if W_O is not None else sum(h.d_v(convention) for h in heads)
        if width != queries.d_model:
            fail_at(top["block"], Msg.plural_of(
                "the layer needs the attention output to have d_model = {count} column, found "
                "{width}; add W_O to weights", "the layer needs the attention output to have "
                "d_model = {count} columns, found {width}; add W_O to weights", queries.d_model,
                width=width))
    no_mask: tuple[Mask, ...] = ()
    mask = optional(top, "mask", lambda n: masks(n, queries.n, keys_n, files), no_mask)
    decoding = optional(top, "decode", lambda n: section("decode")(n, queries.n, mask, context,
                                                             "bias" in top), None)
    spec = Spec(
        source=root.where.source,
        queries=queries,
        heads=heads,
        convention=convention,
        context=context,
        W_O=W_O,
        b_O=b_O,
        block=block,
        score=score_model,
        scale=optional(top, "scale", scale_spec, default_scale),
        masks=mask,
        decode=decoding,
        tiling=optional(top, "tiling", lambda n: section("tiling")(n, queries.n, keys_n, decoding,
                                                                   len(heads)), None),
        bias=optional(top, "bias",
                      lambda n: section("bias")(n, queries.n, keys_n, len(heads), files), None),
        kv_heads=len({h.group for h in heads}) if heads[0].group is not None else None,
        masked_rows=optional(top, "masked_rows", masked_rows, "zeros"),
        dtype=optional(top, "dtype", dtype_spec, "float64"),
        display=optional(top, "display", display, Display()),
        title=optional(top, "title", localized, {}),
        description=optional(top, "description", localized, {}),
        softcap=optional(top, "softcap", softcap_spec, None),
        qk_norm=optional(top, "qk_norm", lambda n: section("qk_norm")(n, heads, convention, files),
                         None),
        sinks=optional(top, "sinks", lambda n: section("sinks")(n, len(heads)), None),
        vision=vision,
        latent=latent,
        earlier=earlier,
    )
    if "backward" in top:
        spec = replace(spec, backward=section("backward")(top["backward"], spec, files))
    check_dtype(spec, top)
    forward_only(spec, top)
    files.budget.charge_walkthrough(root, walkthrough_cells(spec), walkthrough_products(spec))
    return spec


def rotary(sequence: Sequence | None, node: Node | None, heads: tuple[Head, ...],
           convention: Convention) -> None:
    """RoPE turns pairs of features: every head needs an even d_k."""
    if sequence is None or node is None or sequence.positional is None:
        return
    if sequence.positional.kind != "rope":
        return
    for index, head in enumerate(heads, start=1):
        d_k = head.d_k(convention)
        if d_k % 2:
            fail(node, "rope turns pairs of features and needs an even d_k; head {index} has "
                 "d_k = {d_k}", index=index, d_k=d_k)


def forward_only(spec: Spec, top: dict[str, Node]) -> None:
    """Soft-capping, QK-norm, sink logits and a mixture of experts are worked out in the
    forward pass of a whole prompt (see forward_passes)."""
    if spec.block is not None and spec.block.moe is not None and "backward" in top:
        fail(top["block"].value["moe"], "{key} does not work with {name} yet; remove {name} or "
             "{key}", key="backward", name="moe")
    forward_passes(spec, top)


def forward_passes(spec: Spec, top: dict[str, Node]) -> None:
    """Soft-capping, QK-norm and sink logits are worked out in the forward pass of a whole
    prompt: the decode steps and the backward pass do not cap the scores, normalize q and k or
    add a sink yet, so they are refused beside them; nor do the online softmax's tiles add a
    sink."""
    for name, on in (("softcap", spec.softcap is not None), ("qk_norm", spec.qk_norm is not None),
                     ("sinks", spec.sinks is not None), ("latent", spec.latent is not None)):
        for key in ("decode", "backward") + (("tiling",) if name == "sinks" else ()) + (
                ("tiling", "qk_norm", "score") if name == "latent" else ()):
            if on and key in top:
                fail(top[name], "{key} does not work with {name} yet; remove {name} or {key}",
                     key=key, name=name)


def display(node: Node) -> Display:
    keys = check_keys(node, DISPLAY_KEYS)
    return Display(
        precision=optional(keys, "precision", lambda n: integer(n, 0, MAX_PRECISION), 2),
        round_intermediates=optional(keys, "round_intermediates", boolean, False),
        decimal="comma" if optional(
            keys, "decimal", lambda n: choice(n, ("dot", "comma")), "dot") == "comma" else "dot",
        steps=optional(keys, "steps", view_keys.steps, None),
        expand=optional(keys, "expand", view_keys.expand, ()),
        head=optional(keys, "head", view_keys.head, None),
        reading=optional(keys, "reading", boolean, True),
        header=optional(keys, "header", boolean, True),
        md_flavor=optional(keys, "md_flavor", view_keys.md_flavor, None),
        where={key: child.where for key, child in keys.items()},
    )
