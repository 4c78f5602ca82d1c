"""The Vision Transformer's steps: the image, its patches flattened, their linear projection with
the CLS row before them (the tokens' embeddings E), and after the layer the MLP head's class
scores of the CLS row. The image's patches are read in attncli/spec/vit.py."""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from attncli.i18n import Msg, quoted
from attncli.model import Formula, Matrix, Step
from attncli.spec.vit import CLS, patches
from attncli.steps.base import Build, Made, State, feature_labels
from attncli.steps.block import norm
from attncli.steps.labels import token_labels

RGB = "RGB"


def pixel_labels(channels: int, p: int) -> tuple[str, ...]:
    """The columns of a flattened patch, in its order: r1c1 … (one channel), R r1c1 … (RGB)."""
    inside = [f"r{i}c{j}" for i in range(1, p + 1) for j in range(1, p + 1)]
    if channels == 1:
        return tuple(inside)
    names = RGB if channels == 3 else [f"k{c}" for c in range(1, channels + 1)]
    return tuple(f"{names[c]}{cell}" for c in range(channels) for cell in inside)


def image(b: Build, state: State) -> Made[State]:
    """The image as the model takes it, one matrix a channel; its patches flattened; their
    projection; the CLS row before them: E."""
    vision = b.spec.vision
    assert vision is not None
    channels, height, width = vision.image.shape
    p = vision.patch
    count = (height // p) * (width // p)
    rows = tuple(f"r{i}" for i in range(1, height + 1))
    columns = tuple(f"c{j}" for j in range(1, width + 1))
    planes = tuple(Matrix(channel_symbol(c, channels), vision.image[c], rows, columns)
                   for c in range(channels))
    shown = Step("image", Msg.of("Image"), None, planes, None, (Msg.plural_of(
        "The image of {height} × {width} pixels is cut into {count} patch of {p} × {p}, row "
        "by row.", "The image of {height} × {width} pixels is cut into {count} patches of "
        "{p} × {p}, row by row.", count, height=height, width=width, p=p),))
    patch_rows = b.query_labels[1:]
    xp = patches(vision.image, p)  # (N, C·p·p)
    flat = Matrix(Formula("X_p", "X_{p}"), xp, patch_rows, pixel_labels(channels, p))
    cut = Step("patches", Msg.of("Patches, flattened"), None, (flat,), None, (Msg.of(
        "Each patch becomes one row: its pixels channel by channel, then row by row, then "
        "column by column, as the model's projection reads them."),))
    # E as the spec made it (attncli/spec/vit.py): the CLS row given, the patches' rows computed
    e = b.spec.queries.embeddings  # (1 + N, d_model)
    e = np.vstack([e[:1], b.calc.rounded(e[1:])])  # (1 + N, d_model)
    b.finite(e, "E", b.query_labels, feature_labels(int(e.shape[1])))
    w = "W_E" if b.spec.convention == "row" else "W_Eᵀ"
    wl = "W_E" if b.spec.convention == "row" else r"W_E^{\top}"
    plus = " + b_E" if vision.b_E is not None else ""
    matrices = [b.matrix(Formula("W_E", "W_E"), vision.W_E,
                         pixel_labels(channels, p) if b.spec.convention == "row"
                         else feature_labels(int(e.shape[1])),
                         None if b.spec.convention == "row" else pixel_labels(channels, p))]
    if vision.b_E is not None:
        matrices.append(b.matrix(Formula("b_E", "b_E"), vision.b_E[None, :], ("",)))
    matrices.append(b.matrix(Formula("E", "E"), e, b.query_labels))
    embedded = Step("patch_embedding", Msg.of("Patch embeddings and the CLS token"),
                    Formula(f"E = [cls; X_p·{w}{plus}]", rf"E = \begin{{bmatrix}} "
                            rf"\mathrm{{cls}} \\ X_{{p}} {wl}{plus} \end{{bmatrix}}"),
                    tuple(matrices), None, (Msg.of(
                        "Each patch is projected linearly to d_model = {d} features; the learned "
                        "{cls} row goes first and stands for the whole image.",
                        d=int(e.shape[1]), cls=quoted(CLS)),))
    return (shown, cut, embedded), replace(state, x=e)


def channel_symbol(c: int, channels: int) -> Formula:
    if channels == 1:
        return Formula("I", "I")
    name = RGB[c] if channels == 3 else str(c + 1)
    return Formula(f"I_{name}", f"I_{{{name}}}")


def classify(b: Build, state: State) -> Made[State]:
    """The class scores of the CLS row of the layer's output: z = W·LayerNorm(y_CLS) + b."""
    vision = b.spec.vision
    assert vision is not None and vision.classifier is not None
    head = vision.classifier
    # one label a class, as tokens get theirs: two classes both named 7 (ImageNet's id2label
    # names two classes crane) become 7₁ and 7₂, so the winner named below is one class
    labels = token_labels(head.labels)
    out = state.output if state.output is not None else state.attention
    assert out is not None
    y = Matrix(Formula("y_CLS", r"y_{\mathrm{CLS}}"), out.values[:1], (CLS,), out.columns)
    steps: list[Step] = []
    shown = []  # the CLS row the classifier reads, unless its LayerNorm's step shows it
    if head.norm is not None:
        step, y = norm(b, "classifier_norm", head.norm, y, Formula("h", "h"))
        steps.append(step)
    else:
        shown.append(y)
    z = b.calc.project(y.values, head.W, head.b, b.spec.convention)  # (1, classes)
    b.finite(z, "z", (CLS,), labels)
    z = b.calc.rounded(z)
    shifted = np.exp(z - z.max())  # (1, classes)
    probs = b.calc.rounded(shifted / shifted.sum())  # (1, classes)
    w = "W_c" if b.spec.convention == "row" else "W_cᵀ"
    wl = "W_c" if b.spec.convention == "row" else r"W_c^{\top}"
    plus = " + b_c" if head.b is not None else ""
    scores = Matrix(Formula("z", "z"), z, (CLS,), labels)
    d = feature_labels(int(y.values.shape[1]))
    weights = [Matrix(Formula("W_c", "W_c"), head.W, *((d, labels) if b.spec.convention ==
                                                         "row" else (labels, d)))]
    if head.b is not None:
        weights.append(Matrix(Formula("b_c", "b_c"), head.b[None, :], ("",), labels))
    chances = Matrix(Formula("softmax(z)", r"\operatorname{softmax}(z)"), probs, (CLS,),
                     labels)
    top = int(np.argmax(z[0]))
    steps.append(Step("class_scores", Msg.of("Class scores"),
                      Formula(f"z = {y.symbol.text}·{w}{plus}",
                              rf"z = {y.symbol.latex} {wl}{plus}"),
                      (*shown, *weights, scores, chances), None, (Msg.of(
                          "The classifier reads only the {cls} row; the highest score goes to "
                          "the class {label}, with probability {share} after the softmax.",
                          cls=quoted(CLS), label=quoted(labels[top]),
                          share=float(probs[0, top])),)))
    return tuple(steps), state
