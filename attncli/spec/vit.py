"""The Vision Transformer's input: `image`, `patch`, `patch_embedding` and `classifier`.

The image is cut into p x p patches taken row by row; each patch is flattened channel by
channel, then row by row, then column by column (the order of the weight of the model's Conv2d of
stride p), projected to d_model, and a learned CLS row goes before them. Those rows are the
tokens' embeddings E: CLS, p1 … pN; the `positional` key adds the learned positions to them like
to any tokens', and attention runs over all of them, with no mask.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING

import numpy as np

from attncli.errors import SpecError
from attncli.i18n import Count, Msg
from attncli.spec.arrays import Files, matrix_at, vector_at
from attncli.spec.block import layer_norm
from attncli.spec.costs import least_vision
from attncli.spec.files import FileProblem, existing_file, resolve
from attncli.spec.limits import max_bytes
from attncli.spec.model import Array, Classifier, Convention, LayerNorm, Sequence, Vision
from attncli.spec.sequences import positional
from attncli.spec.source import Node
from attncli.spec.values import (
    check_keys,
    check_shape,
    expect,
    fail,
    fail_at,
    integer,
    items,
    matrix,
    number,
    text,
    tokens,
)

if TYPE_CHECKING:  # only a spec that names a PNG imports its reader
    from attncli.spec.png import Png

IMAGE_KEYS = ("pixels", "file", "mean", "std")
PATCH_EMBEDDING_KEYS = ("W", "b", "cls")
CLASSIFIER_KEYS = ("W", "b", "norm", "labels")
CLS = "CLS"
# what a spec with `image` may not say beside it: the tokens come from the image, and these
# steps do not take an image yet
NOT_BESIDE = ("tokens", "embeddings")
NOT_WITH = ("context", "decode", "backward", "tiling", "dtype")


def patch_labels(count: int) -> tuple[str, ...]:
    """The tokens of an image of `count` patches: CLS, p1 … pN."""
    return (CLS, *(f"p{i}" for i in range(1, count + 1)))


def patches(image: Array, p: int) -> Array:
    """The p x p patches of `image`, row by row, each flattened channel, row, column."""
    channels, height, width = image.shape
    rows, columns = height // p, width // p
    cut = image.reshape(channels, rows, p, columns, p)  # (C, rows, p, columns, p)
    return cut.transpose(1, 3, 0, 2, 4).reshape(rows * columns, channels * p * p)  # (N, C·p·p)


def embedded(vision: Vision, convention: Convention) -> Array:
    """E: the CLS row, then each patch's projection X_p·W_E + b_E (row) or W_E·x_p + b_E."""
    xp = patches(vision.image, vision.patch)  # (N, C·p·p)
    w = vision.W_E if convention == "row" else vision.W_E.T  # (C·p·p, d_model)
    with np.errstate(over="ignore", invalid="ignore"):  # a number past float64 is told later,
        e = xp @ w  # (N, C·p·p) @ (C·p·p, d_model) -> (N, d_model)   located, in one line
        if vision.b_E is not None:
            e = e + vision.b_E  # (N, d_model) + (d_model,)
    return np.vstack([vision.cls[None, :], e])  # (1 + N, d_model)


def vision_spec(top: dict[str, Node], root: Node, convention: Convention,
                files: Files) -> tuple[Sequence, Vision]:
    """The tokens of `image` (CLS and its patches), their embeddings and positions, and what
    the walkthrough shows of them."""
    for key in NOT_BESIDE:
        if key in top:
            fail(top[key], "{key} comes from the image's patches; remove {key} or image", key=key)
    for key in NOT_WITH:
        if key in top:
            fail(top[key], "{key} does not work with image yet; remove image or {key}", key=key)
    for key in ("patch", "patch_embedding"):
        if key not in top:
            fail(root, "the key {key} is missing", key=key)
    source = image_source(top["image"], files)  # a PNG's header read, not its pixels
    channels, height, width = source.shape
    p = integer(top["patch"], 1)
    if height % p or width % p:
        fail(top["patch"], "the image is {height} × {width}, which patches of {p} × {p} do not "
             "tile; expected a patch size that divides both", height=height, width=width, p=p)
    count = (height // p) * (width // p)
    keys = check_keys(top["patch_embedding"], PATCH_EMBEDDING_KEYS)
    for key in ("W", "cls"):
        if key not in keys:
            fail(top["patch_embedding"], "the key {key} is missing", key=key)
    flat = channels * p * p
    row = convention == "row"
    W = matrix_at(keys["W"], "W", files, (flat, None) if row else (None, flat))
    d_model = int(W.shape[1 if row else 0])
    names = "channels·p·p × d_model" if row else "d_model × channels·p·p"
    check_shape(keys["W"], W, (flat, d_model) if row else (d_model, flat), names)
    cells, products = least_vision(1 + count, channels * height * width, flat, d_model)
    files.budget.foresee_walkthrough(top["patch"], cells, products)
    image = image_spec(top["image"], source)
    cls = vector_at(keys["cls"], files, d_model, "d_model")
    b = None
    if "b" in keys:
        b = vector_at(keys["b"], files, d_model, "d_model")
    classifier = None
    if "classifier" in top:
        classifier = classifier_spec(top["classifier"], d_model, convention, files)
    vision = Vision(image, p, W, cls, b, classifier)
    labels = patch_labels(count)
    added = None
    if "positional" in top:
        added = positional(top["positional"], len(labels), d_model, files)
    return Sequence(labels, embedded(vision, convention), added), vision


def classifier_spec(node: Node, d_model: int, convention: Convention,
                    files: Files) -> Classifier:
    """classifier: {W, b, norm: {gain, bias, eps}, labels: [...]}: the MLP head's class scores."""
    keys = check_keys(node, CLASSIFIER_KEYS)
    if "W" not in keys:
        fail(node, "the key {key} is missing", key="W")
    row = convention == "row"
    W = matrix_at(keys["W"], "W", files, (d_model, None) if row else (None, d_model))
    classes = int(W.shape[1 if row else 0])
    check_shape(keys["W"], W, (d_model, classes) if row else (classes, d_model),
                "d_model × classes" if row else "classes × d_model")
    b = None
    if "b" in keys:
        b = vector_at(keys["b"], files, classes, "classes")
    norm = None
    if "norm" in keys:
        found = layer_norm(keys["norm"], d_model, files)
        assert isinstance(found, LayerNorm)
        norm = found
    labels = tuple(str(i) for i in range(classes))
    if "labels" in keys:
        labels = tokens(keys["labels"])
        if len(labels) != classes:
            fail_at(keys["labels"], Msg.plural_of(
                "has {count} label, expected one per class ({expected})",
                "has {count} labels, expected one per class ({expected})", Count(len(labels)),
                expected=Count(classes)))
    return Classifier(W, b, norm, labels)


def image_source(node: Node, files: Files) -> Array | Png:
    """image: {pixels: rows | [channel, …]} or {file: image.png}: the pixels written out, or the
    PNG with its header read and its pixels not yet decoded; either charged to the spec's
    numbers by its shape (channels, height, width)."""
    expected = Msg.of("{{pixels: [[...]]}} or {{file: image.png}}")
    if not isinstance(node.value, dict):
        expect(node, expected)
    keys = check_keys(node, IMAGE_KEYS)
    if ("pixels" in keys) == ("file" in keys):
        expect(node, expected)
    source = pixels(keys["pixels"]) if "pixels" in keys else png(keys["file"], files)
    files.budget.charge(keys["pixels" if "pixels" in keys else "file"], source.shape)
    return source


def image_spec(node: Node, source: Array | Png) -> Array:
    """The image's pixels (a PNG's decoded here), then (x − mean) / std per channel when given:
    the numbers the model takes, as (channels, height, width)."""
    keys = check_keys(node, IMAGE_KEYS)
    image = source if isinstance(source, np.ndarray) else decoded(keys["file"], source)
    channels = image.shape[0]
    for key, default in (("mean", 0.0), ("std", 1.0)):
        found = per_channel(keys[key], channels) if key in keys else np.full(channels, default)
        if key == "std" and (found <= 0).any():
            fail(keys[key], "expected a positive std, found {value}", value=float(found.min()))
        with np.errstate(over="ignore", invalid="ignore"):  # told with E, located, in one line
            image = image - found[:, None, None] if key == "mean" else \
                image / found[:, None, None]  # (C, H, W)
    return image  # (C, H, W)


def pixels(node: Node) -> Array:
    """A matrix of one channel's pixels, or a list of one matrix a channel (RGB: three)."""
    rows = items(node, Msg.of("a matrix (a list of rows of numbers)"))
    first = rows[0]
    if first.numbers is None and isinstance(first.value, list) and first.value and \
            isinstance(first.value[0].value, list):
        planes = [matrix(plane, "pixels") for plane in rows]
        for plane, made in zip(rows, planes, strict=True):
            check_shape(plane, made, planes[0].shape, Msg.of("height × width"))
        return np.stack(planes)  # (C, H, W)
    return matrix(node, "pixels")[None, :, :]  # (1, H, W)


def png(node: Node, files: Files) -> Png:
    """The PNG file named, its header read within the spec's limits (attncli/spec/png.py)."""
    from attncli.spec.png import open_png  # only a spec that names a PNG

    name = text(node)
    with named_file(node):
        path = resolve(files.folder, name, files.allow_outside)
        existing_file(path, name)
        return open_png(path, name, files.budget.max_cells, max_bytes(files.budget.max_cells))


def decoded(node: Node, source: Png) -> Array:
    """The PNG's pixels in [0, 1]: its data inflated and unfiltered, once the spec has been
    measured against its size."""
    from attncli.spec.png import pixels as png_pixels

    with named_file(node):
        return png_pixels(source)


@contextmanager
def named_file(node: Node) -> Iterator[None]:
    """A FileProblem of the image's file as a SpecError at `node`, which names it."""
    try:
        yield
    except FileProblem as problem:
        raise SpecError(Msg.of("{path}: {problem}", path=node.where.path,
                               problem=problem.message), node.where) from None


def per_channel(node: Node, channels: int) -> Array:
    """One number for every channel, or a list of one per channel."""
    if not isinstance(node.value, list):
        return np.full(channels, number(node))
    found = np.array([number(item) for item in items(node, Msg.of("a list of numbers"))])
    if len(found) != channels:
        fail_at(node, Msg.plural_of("has {count} number, expected one per channel ({expected})",
                                    "has {count} numbers, expected one per channel ({expected})",
                                    Count(len(found)), expected=Count(channels)))
    return found
