"""The `model` section: `model: {path: DIR, layer: L}` stands for the keys of a layer of a model
saved by its own library (`config.json`, `model.safetensors` or a sharded
`model.safetensors.index.json`, and `tokenizer.json` for a text).

The folder is read into the keys a spec writer would have written by hand: the embeddings, what
the model does before the layer's attention, the projections of every head, the mask, and the
rest of the layer when `block: true`; each matrix a `{file: ..., key: ...}` of the checkpoint, so
it is read through the bounded reader of attncli/spec/checkpoint.py and counted against the spec's
limit like any other. Which tensor and which config field is which key is the architecture's
business (attncli/spec/architectures.py); this module reads the folder and the section.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any, TypeVar

import numpy as np

from attncli.errors import Location, SpecError
from attncli.i18n import Count, Msg
from attncli.spec.arch_rotary import MAX_EXPERTS
from attncli.spec.architectures import ARCHITECTURES, Checkpoint
from attncli.spec.arrays import Files
from attncli.spec.checkpoint import MAX_SIZES, open_tensor, read_json_object, tensor_names
from attncli.spec.costs import folder_cells
from attncli.spec.files import FileProblem, existing_file, read_as_model, resolve
from attncli.spec.limits import MAX_DEPTH, max_bytes
from attncli.spec.model import Array
from attncli.spec.source import Node
from attncli.spec.tokenizer_check import MAX_TOKENS
from attncli.spec.values import (
    boolean,
    check_keys,
    describe,
    expect,
    fail,
    fail_at,
    integer,
    items,
    optional,
    text,
)

MODEL_KEYS = ("path", "layer", "block")
# Layers a model folder's layer may be worked out through: the deepest open models have 126
# (Llama 3.1 405B), 96 (GPT-3), 61 (DeepSeek-V3)
MAX_LAYERS = 128
INPUT_KEYS = ("text", "ids")
# what a spec may say beside `model`: its input and how it is shown
BESIDE_MODEL = ("model", "tokens", "image", "display", "title", "description")
IMAGE_MODELS = ("vit",)  # whose input is an image, not tokens
WEIGHT_FILES = ("model.safetensors", "model.safetensors.index.json")
T = TypeVar("T")


def folder_specs(root: Node, files: Files) -> Iterator[tuple[Node, bool]]:
    """The specs that `model: {layer: L}` stands for, as trees of Nodes, each made where `model`
    is written: the whole layers 0 … L − 1 (their output is layer L's input), then layer L, its
    keys read from the folder beside the spec's own tokens, display, title and description;
    each with whether it is the last. Each is made as it is asked for, so that a layer is read
    (and its numbers charged) before the next is made: 1,000 layers of 2,000 tokens were all
    made before the tenth was refused."""
    top = dict(root.value)
    for key, child in top.items():
        if key not in BESIDE_MODEL:
            fail(Node(key, root.keys.get(key, child.where)),
                 "{key} comes from the model folder; remove it or model", key=key)
    keys = check_keys(top["model"], MODEL_KEYS)
    for key in ("path", "layer"):
        if key not in keys:
            fail(top["model"], "the key {key} is missing", key=key)
    path_node = keys["path"]
    name = text(path_node)
    folder = located(path_node, lambda: model_folder(files, name))
    config_name = f"{name}/config.json"
    config_path = located(path_node, lambda: existing(files, config_name))
    config = config_node(config_path, config_name, files.budget.max_cells)
    model_type = config.get("model_type")
    known = ", ".join(sorted(ARCHITECTURES))
    if model_type is not None and not isinstance(model_type.value, str):  # ["llama"]: no name
        fail(path_node, "config.json: model_type: expected {expected}, found {found}",
             expected=Msg.of("one of {options}", options=known), found=describe(model_type))
    if model_type is None:
        fail(path_node, "config.json gives no model_type; the supported ones are {known}",
             known=known)
    if model_type.value not in ARCHITECTURES:
        fail(path_node, "model_type {found} is not supported; the supported ones are {known}",
             found=str(model_type.value)[:40], known=known)
    architecture = ARCHITECTURES[model_type.value]
    given = "image" if model_type.value in IMAGE_MODELS else "tokens"
    for key in ("tokens", "image"):
        if key in top and key != given:
            fail(top[key], "{model} takes {expected} as its input; replace {key} with "
                 "{expected}", key=key, model=model_type.value, expected=given)
    if given not in top:
        fail(root, "the key {key} is missing", key=given)
    weights = located(path_node, lambda: weight_file(files, name, folder))
    weights_path = located(path_node, lambda: resolve(files.folder, weights, files.allow_outside))
    names = located(path_node, lambda: tensor_names(weights_path, weights,
                                                    files.budget.max_cells, files.headers))
    layers = integer(required(config, architecture.layers_key, config_name), 1)
    # every layer holds tensors of its own: a layer past the checkpoint's count of tensors is
    # refused before the layers before it are laid out (config.json may claim 10¹² of them);
    # and each layer before it is worked out in full, about 2 ms for a few tokens, so at most
    # MAX_LAYERS are (layer 999 of a 1,000-layer folder took 1.7 to 2.1 s)
    layer = integer(keys["layer"], 0,
                    min(layers, MAX_LAYERS, *([len(names)] if names else [])) - 1)
    if layer > 0 and not architecture.deep:
        fail(keys["layer"], "the layers before layer {layer} are not worked out for {model} "
             "yet; expected layer: 0", layer=layer, model=model_type.value)
    tokens, ids = (top["image"], []) if given == "image" else model_input(top["tokens"], name,
                                                                          files)

    def read(key: str, rows: list[int]) -> Array:
        return located(path_node, lambda: open_tensor(
            weights_path, weights, key, files.budget.max_cells, files.allow_outside,
            MAX_SIZES, files.headers).read(rows, files.budget.max_cells))

    def shape(key: str) -> tuple[int, ...]:
        return located(path_node, lambda: open_tensor(
            weights_path, weights, key, files.budget.max_cells, files.allow_outside,
            MAX_SIZES, files.headers).shape)

    checkpoint = Checkpoint(weights, layer, tuple(ids), config, config_name, names,
                            optional(keys, "block", boolean, False), keys.get("block"),
                            architecture.prefixes, read, shape)
    where = top["model"].where
    # what no walkthrough counts, charged before any layer is read: 128 layers of 758 tokens
    # passed within every limit and took 1.4 to 2.1 s, 65,536 experts 28 s
    files.budget.charge_walkthrough(
        keys["layer"], folder_cells(layer, experts_of(config, architecture.experts_key)), 0)

    def specs() -> Iterator[tuple[Node, bool]]:
        for before in range(layer + 1):
            made = architecture.keys(checkpoint if before == layer else
                                     replace(checkpoint, layer=before, block=True))
            spec = {key: tree(value, where) for key, value in made.items()}
            spec[given] = tokens
            if before == layer:
                spec |= {key: top[key] for key in ("display", "title", "description")
                         if key in top}
            yield Node(spec, root.where), before == layer

    return specs()


def experts_of(config: dict[str, Node], key: str | None) -> int:
    """The experts of each layer's mixture as config.json gives them, 0 for none; a count that
    is not a whole number from 1 to MAX_EXPERTS is refused where the layer reads it, in the
    order of the architecture's checks, before any expert is read."""
    found = None if key is None else config.get(key)
    count = None if found is None else found.value
    if type(count) is not int or not 1 <= count <= MAX_EXPERTS:
        return 0
    return count


def located(node: Node, read: Callable[[], T]) -> T:
    """What `read` gives, with a FileProblem said at `node`."""
    try:
        return read()
    except FileProblem as problem:
        raise SpecError(Msg.of("{path}: {problem}", path=node.where.path,
                               problem=problem.message), node.where) from None


def model_folder(files: Files, name: str) -> Path:
    folder = resolve(files.folder, name, files.allow_outside)
    if not folder.is_dir():
        raise FileProblem(Msg.of("{name}: expected a folder saved by the model's library",
                                 name=name))
    read_as_model(folder)
    return folder


def existing(files: Files, name: str) -> Path:
    path = resolve(files.folder, name, files.allow_outside)
    existing_file(path, name)
    return path


def weight_file(files: Files, name: str, folder: Path) -> str:
    """The folder's model.safetensors, or the index of its shards, as the spec names it."""
    for weights in WEIGHT_FILES:
        if (folder / weights).is_file():
            return f"{name}/{weights}"
    for weights in WEIGHT_FILES:  # there, but a FIFO, a folder, a device: said as what it is
        if os.path.lexists(folder / weights):
            existing_file(folder / weights, f"{name}/{weights}")
    raise FileProblem(Msg.of("{name}: expected {first} or {second}, found neither", name=name,
                             first=WEIGHT_FILES[0], second=WEIGHT_FILES[1]))


def config_node(path: Path, name: str, max_cells: int) -> dict[str, Node]:
    """config.json's fields as Nodes that say where they are (`config.json: num_attention_heads`),
    so a field of the wrong kind is refused by the spec's own checks, naming the file and the
    field."""
    try:
        found = read_json_object(path, name, path.stat().st_size, max_bytes(max_cells))
    except FileProblem as problem:
        raise SpecError(problem.message) from None  # the message names the file
    if deeper_than(found, MAX_DEPTH):  # a real one nests 3 levels; tree() recurses
        raise SpecError(Msg.plural_of(
            "{name}: the file nests lists and objects more than {count} level deep",
            "{name}: the file nests lists and objects more than {count} levels deep",
            Count(MAX_DEPTH), name=name))
    return {key: tree(value, Location(name, key)) for key, value in found.items()}


def deeper_than(value: Any, limit: int) -> bool:
    """Whether lists and objects nest in `value` more than `limit` levels, found without
    recursion (JSON parses some 990 levels, more than a recursive walk of them can take)."""
    level = [value]
    for _ in range(limit):
        level = [child for part in level if isinstance(part, (dict, list))
                 for child in (part.values() if isinstance(part, dict) else part)]
        if not level:
            return False
    return any(isinstance(part, (dict, list)) for part in level)


def required(config: dict[str, Node], key: str, name: str) -> Node:
    found = config.get(key)
    if found is None:
        raise SpecError(Msg.of("{path}: {problem}", path=key, problem=Msg.of(
            "the key {key} is missing", key=key)), Location(name, key))
    return found


def tree(value: Any, where: Location) -> Node:
    """A Node tree of plain Python values (a NumPy array as its nested lists), every Node at
    `where`."""
    if isinstance(value, np.ndarray):
        value = value.tolist()
    if isinstance(value, dict):
        made = Node({k: tree(v, Location(where.source, f"{where.path}.{k}" if where.path else k,
                                         where.line, where.column))
                     for k, v in value.items()}, where)
        return made
    if isinstance(value, list):
        if value and all(type(item) is int for item in value):  # rows: as a spec's list is read
            return Node.number_list(value, lambda: [tree(item, where) for item in value], where,
                                    whole=True)
        return Node([tree(item, where) for item in value], where)
    if isinstance(value, Node):
        return value
    return Node(value, where)


def model_input(node: Node, name: str, files: Files) -> tuple[Node, list[int]]:
    """`tokens: {text: "..."}` through the folder's tokenizer.json, or `tokens: {ids: [...]}`:
    the tokens as the spec reads them, and their ids (the rows of the embedding matrix)."""
    expected = Msg.of('{{text: "..."}} or {{ids: [...]}}')
    if not isinstance(node.value, dict):
        expect(node, expected)
    keys = check_keys(node, INPUT_KEYS)
    if len(keys) != 1:
        expect(node, expected)
    if "text" in keys:
        from attncli.spec.tokenizer import tokenize  # only a spec that names a text

        tokenizer = Node(f"{name}/tokenizer.json", keys["text"].where)
        written = Node({"tokenizer": tokenizer, "text": keys["text"]}, node.where)
        tokens, ids = tokenize(written, files.folder, files.allow_outside,
                               files.budget.max_cells)
        return Node([Node(t, keys["text"].where) for t in tokens], node.where), ids
    # a list written whole (`ids: [1, 2, 3]`, 100,000 of them) is read from its numbers, without
    # a Node for each (node.py): every token then points at the list
    written = keys["ids"]
    count = len(written.numbers) if written.numbers is not None else (
        len(written.value) if isinstance(written.value, list) else 0)
    if count > MAX_TOKENS:  # as for a text through the tokenizer: 200,000 ids took 1.4 s
        fail_at(written, Msg.plural_of(
            "expected at most {count} token id, as a tokenizer gives at most, found {found}",
            "expected at most {count} token ids, as a tokenizer gives at most, found {found}",
            Count(MAX_TOKENS), found=Count(count)))
    plain = written.numbers if written.whole else None
    if plain and all(0 <= n < 2**53 for n in plain):
        ids = [int(n) for n in plain]
        return Node([Node(str(i), written.where) for i in ids], written.where), ids
    ids = [integer(item, 0) for item in items(written, Msg.of("a list of token ids"))]
    names = [Node(str(i), item.where) for i, item in zip(ids, written.value, strict=True)]
    return Node(names, written.where), ids
