"""The `tokens`, `embeddings` and `positional` of the queries, and the `context` that keys and
values come from in cross-attention."""

from __future__ import annotations

from attncli.i18n import Msg
from attncli.spec.arrays import Files, check_one_per_token, embeddings_at, matrix_at
from attncli.spec.model import Positional, Sequence
from attncli.spec.rope_scaling import rope_scaling
from attncli.spec.source import Node
from attncli.spec.values import (
    as_written,
    check_keys,
    check_shape,
    choice,
    expect,
    fail,
    fail_at,
    number,
    optional,
    tokens,
)

CONTEXT_KEYS = ("tokens", "embeddings", "positional")
POSITIONAL_KINDS = ("sinusoidal", "rope")
SINUSOIDAL_KEYS = ("base",)
ROPE_KEYS = ("base", "layout", "scaling")
ROPE_LAYOUTS = ("half", "interleaved")


def sequence(tokens_node: Node, embeddings_node: Node, positional_node: Node | None,
             files: Files) -> Sequence:
    if isinstance(tokens_node.value, dict) and (  # {tokenizer: tokenizer.json, text: "..."}
            "tokenizer" in tokens_node.value or "text" in tokens_node.value):
        from attncli.spec.tokenizer import tokenize  # only a spec that names a tokenizer

        names, ids = tokenize(tokens_node, files.folder, files.allow_outside,
                              files.budget.max_cells)
        files.token_ids[:] = ids
    else:
        names = tokens(tokens_node)
    embeddings = embeddings_at(embeddings_node, len(names), files)
    check_one_per_token(embeddings_node, embeddings.shape[0], len(names))
    added = None
    if positional_node is not None:
        added = positional(positional_node, len(names), int(embeddings.shape[1]), files)
    return Sequence(names, embeddings, added)


def context_sequence(node: Node, d_model: int, files: Files) -> Sequence:
    """The tokens that keys and values come from (cross-attention)."""
    keys = check_keys(node, ("tokens", "embeddings", "positional"))
    for key in ("tokens", "embeddings"):
        if key not in keys:
            fail(node, "the key {key} is missing", key=key)
    context = sequence(keys["tokens"], keys["embeddings"], keys.get("positional"), files)
    if context.d_model != d_model:
        fail_at(keys["embeddings"], Msg.plural_of(
            "has {count} column, expected d_model = {expected} as in the query embeddings",
            "has {count} columns, expected d_model = {expected} as in the query embeddings",
            context.d_model, expected=d_model))
    return context


def positional(node: Node, n: int, d_model: int, files: Files) -> Positional | None:
    """none, sinusoidal, {sinusoidal: {base: n}}, rope, {rope: {base, layout, scaling}}, or a
    learned n × d_model matrix."""
    expected = Msg.of("none, sinusoidal, rope, {{sinusoidal: {{base: n}}}}, {{rope: {{base: n, "
                      "layout: half}}}} or a tokens × d_model matrix")
    if node.value == "none":
        return None
    if node.value in POSITIONAL_KINDS:
        return Positional("rope" if node.value == "rope" else "sinusoidal")
    if isinstance(node.value, str):
        expect(node, expected)
    if isinstance(node.value, dict) and any(kind in node.value for kind in POSITIONAL_KINDS):
        kind, options_node = next(iter(check_keys(node, POSITIONAL_KINDS).items()))
        if len(node.value) > 1:
            fail(node, "expected one of sinusoidal and rope, found both")
        options = check_keys(options_node, ROPE_KEYS if kind == "rope" else SINUSOIDAL_KEYS)
        base = optional(options, "base", number, 10000.0)
        if base <= 1.0:
            fail(options["base"], "expected a base greater than 1, found {value}",
                 value=as_written(options["base"], base))
        if kind == "sinusoidal":
            return Positional("sinusoidal", base=base)
        layout = optional(options, "layout", lambda n: choice(n, ROPE_LAYOUTS), "half")
        scaling = options.get("scaling")
        return Positional("rope", base=base, layout="half" if layout == "half" else "interleaved",
                          scaling=None if scaling is None else rope_scaling(scaling))
    values = matrix_at(node, "positional", files, (n, d_model))
    check_shape(node, values, (n, d_model), Msg.of("tokens × d_model"))
    return Positional("matrix", values=values)
