"""The Vision Transformer (`vit`, transformers' ViTModel and ViTForImageClassification): the keys
of one layer of its checkpoint, the image coming from the spec (see
attncli/spec/architectures.py and attncli/spec/vit.py)."""

from __future__ import annotations

from attncli.i18n import Count, Msg
from attncli.spec.arch_keys import Checkpoint, Keys, activation, layer_norm, linears
from attncli.spec.limits import MAX_TEXT
from attncli.spec.values import fail_at, text

# the names transformers saves a ViT's layer under (`encoder.layer.L.attention.attention.query`),
# and the ones its code calls them since (`layers.L.attention.q_proj`): either is read
SAVED = {"Q": "attention.query", "K": "attention.key", "V": "attention.value",
         "O": "output.dense"}
RENAMED = {"Q": "q_proj", "K": "k_proj", "V": "v_proj", "O": "o_proj"}


def vit(c: Checkpoint) -> Keys:
    """ViT: the image cut into `patch_size` patches, projected by the Conv2d
    `patch_embeddings.projection` (its weight d_model x channels x p x p, flattened channel, row,
    column), `cls_token` before them and `position_embeddings` added; pre-norm layers
    (`layernorm_before`, attention, residual, `layernorm_after`, the MLP, residual) with
    `Linear` query, key and value (the column convention); for the last layer with its block,
    the classifier on the final `layernorm` of the CLS row, its classes named by `id2label`."""
    saved = c.has(f"encoder.layer.{c.layer}.attention.attention.query.weight")
    at = f"encoder.layer.{c.layer}." if saved else f"layers.{c.layer}."
    d = c.whole("hidden_size")
    eps = c.number("layer_norm_eps", 1e-12)
    weights = linears(c, at + "attention.", SAVED if saved else RENAMED, True)
    projection = c.rows_of("embeddings.patch_embeddings.projection.weight", list(range(d)))
    count = int(c.rows_of("embeddings.position_embeddings", [0]).shape[1])
    keys: Keys = {
        "convention": "column",
        "patch": c.whole("patch_size"),
        "patch_embedding": {
            "W": projection.reshape(d, -1),  # (d_model, channels·p·p)
            "b": c.tensor("embeddings.patch_embeddings.projection.bias"),
            "cls": c.rows_of("embeddings.cls_token", [0]).reshape(d)},
        "positional": c.rows_of("embeddings.position_embeddings", [0]).reshape(count, d),
        "heads": c.whole("num_attention_heads"),
        "weights": weights,
        "block": {"norm": "pre", "residual": c.block, "layer_norm": [
            layer_norm(c, at + name, eps) for name in ("layernorm_before", "layernorm_after")]},
    }
    if c.block:
        mlp = (("intermediate.dense", "output.dense") if saved else ("mlp.fc1", "mlp.fc2"))
        keys["block"]["ffn"] = {
            "activation": activation(c, "hidden_act", "gelu"),
            "W_1": c.tensor(f"{at}{mlp[0]}.weight"), "b_1": c.tensor(f"{at}{mlp[0]}.bias"),
            "W_2": c.tensor(f"{at}{mlp[1]}.weight"), "b_2": c.tensor(f"{at}{mlp[1]}.bias")}
    last = c.layer == c.whole("num_hidden_layers") - 1
    if c.block and last and c.has("classifier.weight"):
        keys["classifier"] = {"W": c.tensor("classifier.weight"),
                              "norm": layer_norm(c, "layernorm", eps)}
        if c.has("classifier.bias"):
            keys["classifier"]["b"] = c.tensor("classifier.bias")
        names = labels(c)
        if names:
            keys["classifier"]["labels"] = names
    return keys


def labels(c: Checkpoint) -> list[str]:
    """The classes' names as config.json's `id2label` gives them, in the order of their ids;
    none when it does not name them all by their ids 0, 1, …. As many as the classifier has
    rows, each a text of at most MAX_TEXT characters like a label written in a spec (a label
    of 100,000 characters took seconds to lay out), checked before any is read."""
    found = c.config.get("id2label")
    if found is None or not isinstance(found.value, dict):
        return []
    classes = c.shape("classifier.weight")[0]
    if len(found.value) != classes:
        fail_at(found, Msg.plural_of("has {count} label, expected one per class ({expected})",
                                     "has {count} labels, expected one per class ({expected})",
                                     Count(len(found.value)), expected=Count(classes)))
    names = {key: text(node) for key, node in found.value.items()}
    for key, name in names.items():
        if not name:  # was refused at the spec's model.labels, as a token
            fail_at(found.value[key], Msg.of("expected a class's name, found an empty text"))
        if len(name) > MAX_TEXT:
            fail_at(found.value[key], Msg.plural_of(
                "expected a text of at most {count} character, found {length}",
                "expected a text of at most {count} characters, found {length}",
                Count(MAX_TEXT), length=Count(len(name))))
    ids = [str(i) for i in range(len(names))]
    return [names[i] for i in ids] if set(ids) == set(names) else []
