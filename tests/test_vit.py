"""The Vision Transformer (`image`, `patch`, `patch_embedding`, `classifier`): a tiny random
ViTForImageClassification of `transformers` (float64, eager attention) is the oracle for the
patch embeddings with CLS and positions, every head's attention weights and the class scores;
a patch's flattening and a PNG's pixels are worked by hand."""

from __future__ import annotations

import json
import struct
import zlib
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from attncli import load_spec
from attncli.errors import SpecError
from attncli.i18n import translate
from attncli.spec import loads_spec
from attncli.spec.vit import patches
from attncli.steps.build import compute
from tests.test_checkpoints import needed
from tests.test_png_chunks import chunk

TOLERANCE = 1e-9


def tiny_vit(channels: int = 1, layers: int = 1) -> Any:
    """A random ViTForImageClassification: 8 x 8 images in patches of 4, d_model 8, 2 heads."""
    torch, transformers = needed("torch"), needed("transformers")
    torch.manual_seed(7)
    config = transformers.ViTConfig(
        image_size=8, patch_size=4, num_channels=channels, hidden_size=8,
        num_hidden_layers=layers, num_attention_heads=2, intermediate_size=16, num_labels=3,
        hidden_act="gelu", layer_norm_eps=1e-6, attn_implementation="eager")
    model = transformers.ViTForImageClassification(config).double().eval()
    with torch.no_grad():  # a random init leaves cls and biases zero: make every one count
        for parameter in model.parameters():
            parameter.add_(0.3 * torch.randn_like(parameter))
    return model


def spec_of(model: Any, image: np.ndarray) -> dict[str, Any]:
    """The plain keys of the model's first layer, as a spec writer would copy them."""
    state = {k: v.numpy() for k, v in model.state_dict().items()}
    at = "vit.layers.0."
    d = model.config.hidden_size

    def ln(name: str) -> dict[str, Any]:
        return {"gain": state[name + ".weight"].tolist(), "bias": state[name + ".bias"].tolist(),
                "eps": model.config.layer_norm_eps}

    return {
        "convention": "column",
        "image": {"pixels": image.tolist()},
        "patch": model.config.patch_size,
        "patch_embedding": {
            "W": state["vit.embeddings.patch_embeddings.projection.weight"].reshape(d, -1).tolist(),
            "b": state["vit.embeddings.patch_embeddings.projection.bias"].tolist(),
            "cls": state["vit.embeddings.cls_token"][0, 0].tolist()},
        "positional": state["vit.embeddings.position_embeddings"][0].tolist(),
        "heads": model.config.num_attention_heads,
        "weights": {
            **{f"{w}_{k}": state[f"{at}attention.{k.lower()}_proj.{part}"].tolist()
               for k in "QKVO" for w, part in (("W", "weight"), ("b", "bias"))}},
        "block": {"norm": "pre", "layer_norm": [ln(at + "layernorm_before"),
                                                 ln(at + "layernorm_after")],
                  "ffn": {"activation": "gelu",
                          "W_1": state[at + "mlp.fc1.weight"].tolist(),
                          "b_1": state[at + "mlp.fc1.bias"].tolist(),
                          "W_2": state[at + "mlp.fc2.weight"].tolist(),
                          "b_2": state[at + "mlp.fc2.bias"].tolist()}},
        "classifier": {"norm": ln("vit.layernorm"), "W": state["classifier.weight"].tolist(),
                       "b": state["classifier.bias"].tolist(),
                       "labels": ["zero", "one", "seven"]},
    }


def model_run(model: Any, image: np.ndarray) -> tuple[Any, np.ndarray]:
    """The model's outputs (attention weights, hidden states, logits) and its embeddings (CLS,
    patches, positions)."""
    import torch

    pixels = torch.tensor(image[None])  # (1, C, H, W)
    with torch.no_grad():
        out = model(pixel_values=pixels, output_attentions=True, output_hidden_states=True)
        embedded = model.vit.embeddings(pixels)[0].numpy()  # (1 + N, d_model)
    return out, embedded


def softmax_in_float64(monkeypatch: pytest.MonkeyPatch) -> None:
    """The library's eager attention takes its softmax in float32 inside a float64 model
    (`softmax(…, dtype=torch.float32)`): run that part in float64, the rest as it is."""
    import torch

    original = torch.nn.functional.softmax

    def softmax(x: Any, dim: int = -1, dtype: Any = None, **more: Any) -> Any:
        return original(x, dim=dim, dtype=torch.float64 if x.dtype == torch.float64 else dtype,
                        **more)

    monkeypatch.setattr(torch.nn.functional, "softmax", softmax)


def step(walkthrough: Any, step_id: str) -> Any:
    return next(s for s in walkthrough.steps if s.id == step_id)


@pytest.mark.parametrize("channels", [1, 3])
def test_the_layer_reproduces_vit_for_image_classification(
        channels: int, monkeypatch: pytest.MonkeyPatch) -> None:
    model = tiny_vit(channels)
    rng = np.random.default_rng(3)
    image = rng.uniform(-1, 1, (channels, 8, 8))  # (C, H, W), as the processor gives it
    as_saved = model_run(model, image)[0]
    softmax_in_float64(monkeypatch)
    out, embedded = model_run(model, image)
    walkthrough = compute(loads_spec(json.dumps(spec_of(model, image))))
    assert walkthrough.heads[0].weights.rows == ("CLS", "p1", "p2", "p3", "p4")
    x = step(walkthrough, "positional").matrices[-1].values  # E + P
    assert np.abs(x - embedded).max() < TOLERANCE
    for h, result in enumerate(walkthrough.heads):
        assert np.abs(result.weights.whole() - out.attentions[0][0, h].numpy()).max() < TOLERANCE
        # the library as it runs, its softmax in float32
        assert np.abs(result.weights.whole() - as_saved.attentions[0][0, h].numpy()).max() < 1e-6
    # one layer, so its output is the last hidden state before the final LayerNorm
    assert np.abs(walkthrough.output.values - out.hidden_states[1][0].numpy()).max() < TOLERANCE
    logits = step(walkthrough, "class_scores").matrices[-2].values[0]  # z, then softmax(z)
    assert np.abs(logits - out.logits[0].numpy()).max() < TOLERANCE


def test_a_patch_is_flattened_channel_row_column_by_hand() -> None:
    # a 2-channel 4 x 4 image whose pixel (c, r, k) is 100c + 10r + k; patches of 2
    image = np.array([[[100 * c + 10 * r + k for k in range(4)] for r in range(4)]
                      for c in range(2)], dtype=np.float64)
    flat = patches(image, 2)
    assert flat.shape == (4, 8)
    # the second patch (top right): channel 0 rows 0-1 columns 2-3, then channel 1
    assert flat[1].tolist() == [2, 3, 12, 13, 102, 103, 112, 113]
    # the third patch (bottom left) starts at row 2, column 0
    assert flat[2].tolist() == [20, 21, 30, 31, 120, 121, 130, 131]


def test_e_is_cls_then_each_patch_projected_by_hand() -> None:
    spec = loads_spec(json.dumps({
        "image": {"pixels": [[1, 2, 0, 0], [3, 4, 0, 0], [0, 0, 0, 0], [0, 0, 0, 1]]},
        "patch": 2, "convention": "column",
        "patch_embedding": {"W": [[1, 0, 0, 0], [1, 1, 1, 1]], "b": [0, 0.5],
                            "cls": [9, 8]}}))
    e = step(compute(spec), "patch_embedding").matrices[-1].values
    # p1 = (1, 2, 3, 4): W·p1 + b = (1, 10.5); p4 = (0, 0, 0, 1): (0, 1.5)
    assert e.tolist() == [[9, 8], [1, 10.5], [0, 0.5], [0, 0.5], [0, 1.5]]


def png_bytes(rows: list[list[int]], filters: list[int]) -> bytes:
    """An 8-bit grayscale PNG, each row with the given filter (its bytes pre-filtered)."""
    raw = b""
    above = [0] * len(rows[0])
    for row, kind in zip(rows, filters, strict=True):
        if kind == 0:
            data = row
        elif kind == 1:  # sub: the pixel to the left
            data = [(v - (row[i - 1] if i else 0)) % 256 for i, v in enumerate(row)]
        elif kind == 2:  # up: the pixel above
            data = [(v - above[i]) % 256 for i, v in enumerate(row)]
        elif kind == 3:  # average of left and above, rounded down
            data = [(v - ((row[i - 1] if i else 0) + above[i]) // 2) % 256
                    for i, v in enumerate(row)]
        else:  # 4: Paeth, the one of left, above, corner nearest left + above − corner
            data = []
            for i, v in enumerate(row):
                a, b, c = (row[i - 1] if i else 0), above[i], (above[i - 1] if i else 0)
                p = a + b - c
                near = min((abs(p - a), 0, a), (abs(p - b), 1, b), (abs(p - c), 2, c))[2]
                data.append((v - near) % 256)
        raw += bytes([kind, *data])
        above = row
    header = struct.pack(">IIBBBBB", len(rows[0]), len(rows), 8, 0, 0, 0, 0)
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(raw))
            + chunk(b"IEND", b""))


def refusal(spec: Path, text: str) -> str:
    """Why load_spec refuses the spec `text` once it is written to `spec`, in English."""
    spec.write_text(text, encoding="utf-8")
    with pytest.raises(SpecError) as caught:
        load_spec(str(spec))
    return translate(caught.value.message)


def test_a_png_reads_as_its_pixels_over_255(tmp_path: Path) -> None:
    rows = [[0, 51, 102, 255], [255, 0, 51, 102], [10, 20, 30, 40], [40, 30, 20, 10],
            [200, 7, 99, 13]]
    (tmp_path / "four.png").write_bytes(png_bytes(rows, [0, 1, 2, 3, 4]))
    (tmp_path / "spec.yaml").write_text(
        "image: {file: four.png, mean: 0.5, std: 0.5}\npatch: 1\n"
        "patch_embedding: {W: [[1]], cls: [0]}\nconvention: column\n", encoding="utf-8")
    spec = load_spec(str(tmp_path / "spec.yaml"))
    assert spec.vision is not None
    # (v / 255 − 0.5) / 0.5: 0 -> −1, 51 -> −0.6, 102 -> −0.2, 255 -> 1
    assert np.allclose(spec.vision.image[0, 0], [-1, -0.6, -0.2, 1])
    for r in range(1, 5):  # every filter undone: sub, up, average, Paeth
        assert np.allclose(spec.vision.image[0, r], [v / 127.5 - 1 for v in rows[r]])


def test_a_png_bomb_is_refused_before_it_is_inflated(tmp_path: Path) -> None:
    # the header says 4 x 4, the data inflates to 10 MB of zeros; W fits the header's 1 · 2 · 2
    # numbers a patch, so the pixels are decoded (a W of another shape is refused before them)
    good = png_bytes([[0] * 4] * 4, [0] * 4)
    bomb = good.replace(good[good.index(b"IDAT") - 4:good.index(b"IEND") - 4], b"")
    body = zlib.compress(bytes(10_000_000))
    bomb = bomb[:-12] + chunk(b"IDAT", body) + bomb[-12:]
    (tmp_path / "bomb.png").write_bytes(bomb)
    assert refusal(
        tmp_path / "spec.yaml",
        "image: {file: bomb.png}\npatch: 2\npatch_embedding: {W: [[1], [0], [0], [0]], cls: [0]}\n"
    ) == (
        "image.file: bomb.png: the PNG's image data does not fit its header's size")


@pytest.mark.parametrize(("change", "said"), [
    ({"patch": 3}, "patches of 3 × 3 do not tile"),
    ({"tokens": ["a"]}, "tokens comes from the image's patches"),
    ({"decode": {"prefill": 1}}, "decode does not work with image yet"),
    ({"context": {"tokens": ["c"], "embeddings": [[1]]}}, "context does not work with image yet"),
])
def test_bad_values_are_one_located_line(change: dict[str, Any], said: str) -> None:
    spec = {"image": {"pixels": [[1, 2, 0, 0], [3, 4, 0, 0], [0, 0, 0, 0], [0, 0, 0, 1]]},
            "patch": 2, "patch_embedding": {"W": [[1, 0, 0, 0]], "cls": [0]}, **change}
    with pytest.raises(SpecError) as caught:
        loads_spec(json.dumps(spec))
    assert said in translate(caught.value.message)


@pytest.mark.parametrize("channels", [1, 3])
def test_a_saved_vit_folder_reproduces_the_model(
        channels: int, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Two keys: the folder as save_pretrained writes it, and the image."""
    model = tiny_vit(channels)
    model.config.id2label = {0: "zero", 1: "one", 2: "seven"}
    model.save_pretrained(tmp_path)
    image = np.random.default_rng(5).uniform(-1, 1, (channels, 8, 8))
    (tmp_path / "spec.json").write_text(json.dumps({
        "model": {"path": ".", "layer": 0, "block": True},
        "image": {"pixels": image.tolist()}}), encoding="utf-8")
    softmax_in_float64(monkeypatch)
    out, embedded = model_run(model, image)
    walkthrough = compute(load_spec(str(tmp_path / "spec.json")))
    x = step(walkthrough, "positional").matrices[-1].values  # E + P
    assert np.abs(x - embedded).max() < TOLERANCE
    for h, result in enumerate(walkthrough.heads):
        assert np.abs(result.weights.whole() - out.attentions[0][0, h].numpy()).max() < TOLERANCE
    scores = step(walkthrough, "class_scores").matrices
    logits = next(m for m in scores if m.symbol.text == "z")
    assert logits.columns == ("zero", "one", "seven")
    assert np.abs(logits.values[0] - out.logits[0].numpy()).max() < TOLERANCE


def test_a_saved_vit_folder_without_its_block_shows_the_heads(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    model = tiny_vit(1, layers=2)
    model.save_pretrained(tmp_path)
    image = np.random.default_rng(6).uniform(-1, 1, (1, 8, 8))
    (tmp_path / "spec.yaml").write_text(
        "model: {path: ., layer: 0}\nimage: {pixels: " + json.dumps(image[0].tolist()) + "}\n",
        encoding="utf-8")
    softmax_in_float64(monkeypatch)
    out, _ = model_run(model, image)
    walkthrough = compute(load_spec(str(tmp_path / "spec.yaml")))
    assert "class_scores" not in {s.id for s in walkthrough.steps}  # not the last layer
    for h, result in enumerate(walkthrough.heads):
        assert np.abs(result.weights.whole() - out.attentions[0][0, h].numpy()).max() < TOLERANCE
    spec = tmp_path / "spec.yaml"
    assert refusal(spec, "model: {path: ., layer: 1}\nimage: {pixels: [[0]]}\n") == (
        "model.layer: the layers before layer 1 are not worked out for vit yet; expected layer: 0")
    assert refusal(spec, "model: {path: ., layer: 0}\ntokens: {ids: [1]}\n") == (
        "tokens: vit takes image as its input; replace tokens with image")


def test_a_patch_and_a_class_score_are_written_out(tmp_path: Path) -> None:
    """configs/vit_digit.yaml: the first patch of the 7 holds ink at r2c2, r2c3 and r2c4, so
    E[p1, d1] = 0.25·3 = 0.75; z[CLS, 7] = 0.50·1.37 + (−0.50)·(−1.20) + 1.00·0.49 ≈ 1.78."""
    from tests.conftest import run

    example = Path(__file__).parent.parent / "configs" / "vit_digit.yaml"
    result = run("explain", str(example), "--format", "text", "--width", "200",
                 "--steps", "patch_embedding,class_scores")
    assert result.exit_code == 0
    text = " ".join(result.stdout.split())  # the lines as one, unwrapped
    terms = ["0.25·0.00"] * 5 + ["0.25·1.00"] * 3 + ["0.25·0.00"] * 8  # p1: r1c1 … r4c4
    assert "E[p1, d1] = W_E[d1, :]·x_p1 = " + " + ".join(terms) + " = 0.75" in text
    assert ("z[CLS, 7] = W_c[7, :]·h = 0.50·1.37 + (−0.50)·(−1.20) + 0.00·(−0.66) + "
            "1.00·0.49 = 1.78") in text


def test_a_saved_vit_model_without_its_classifier_reads_too(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """ViTModel saves its tensors without the `vit.` prefix, and has no classifier."""
    torch, transformers = needed("torch"), needed("transformers")
    classifier = tiny_vit(1)
    model = transformers.ViTModel(classifier.config, add_pooling_layer=False).double().eval()
    model.load_state_dict(classifier.vit.state_dict())
    model.save_pretrained(tmp_path)
    image = np.random.default_rng(8).uniform(-1, 1, (1, 8, 8))
    (tmp_path / "spec.yaml").write_text(
        "model: {path: ., layer: 0, block: true}\nimage: {pixels: "
        + json.dumps(image[0].tolist()) + "}\n", encoding="utf-8")
    softmax_in_float64(monkeypatch)
    with torch.no_grad():
        out = model(pixel_values=torch.tensor(image[None]), output_attentions=True,
                    output_hidden_states=True)
    walkthrough = compute(load_spec(str(tmp_path / "spec.yaml")))
    assert "class_scores" not in {s.id for s in walkthrough.steps}
    for h, result in enumerate(walkthrough.heads):
        assert np.abs(result.weights.whole() - out.attentions[0][0, h].numpy()).max() < TOLERANCE
    assert np.abs(walkthrough.output.values - out.hidden_states[1][0].numpy()).max() < TOLERANCE


@pytest.mark.parametrize(("color", "depth", "pixel", "expected"), [
    (0, 16, [0x80, 0x00], [[0x8000 / 65535]]),  # 16-bit gray, big-endian
    (2, 8, [255, 0, 51], [[1.0], [0.0], [0.2]]),  # RGB: three channels
    (6, 8, [255, 0, 51, 7], [[1.0], [0.0], [0.2]]),  # RGBA: the alpha dropped
    (4, 16, [0xFF, 0xFF, 0x00, 0x01], [[1.0]]),  # 16-bit gray with alpha
])
def test_a_png_of_each_kind_reads_as_its_channels(
        tmp_path: Path, color: int, depth: int, pixel: list[int],
        expected: list[list[float]]) -> None:
    """A 1 x 1 image of each color type the reader takes, its bytes written by hand."""
    header = struct.pack(">IIBBBBB", 1, 1, depth, color, 0, 0, 0)
    data = (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header)
            + chunk(b"IDAT", zlib.compress(bytes([0, *pixel]))) + chunk(b"IEND", b""))
    (tmp_path / "one.png").write_bytes(data)
    (tmp_path / "spec.yaml").write_text(
        "image: {file: one.png}\npatch: 1\nconvention: column\n"
        f"patch_embedding: {{W: [{[1] * len(expected)}], cls: [0]}}\n", encoding="utf-8")
    spec = load_spec(str(tmp_path / "spec.yaml"))
    assert spec.vision is not None
    assert np.allclose(spec.vision.image[:, 0, :], expected)


def test_attn_check_takes_the_class_scores_before_their_softmax() -> None:
    """A student's z of configs/vit_digit.yaml (worked in the written-out lines: 0.19, −0.44,
    1.78) is checked against z, not against softmax(z)."""
    from tests.conftest import run

    example = str(Path(__file__).parent.parent / "configs" / "vit_digit.yaml")
    right = run("check", example, "--step", "class_scores", "--answer", "0.19 -0.44 1.78")
    assert (right.exit_code, right.stdout) == (0, "z: right to your precision (all 3 numbers).\n")
    wrong = run("check", example, "--step", "class_scores", "--answer", "0.19 -0.44 1.80")
    assert wrong.exit_code == 1
    assert "z[CLS, 7]: you wrote 1.80, the right value is 1.78 (1.7781)" in wrong.stdout


def test_the_spreadsheet_refuses_an_image_and_writes_nothing(tmp_path: Path) -> None:
    from tests.conftest import run

    example = str(Path(__file__).parent.parent / "configs" / "vit_digit.yaml")
    result = run("export", example, "--xlsx", "-o", str(tmp_path / "vit.xlsx"))
    assert (result.exit_code, result.stderr) == (2, (
        "attn: --xlsx does not write an image's patches and class scores as formulas yet; "
        "leave out image for the spreadsheet\n"))
    assert not (tmp_path / "vit.xlsx").exists()


def test_the_backward_option_refuses_an_image() -> None:
    """As the spec's backward key does: no gradient goes through the patches yet."""
    from tests.conftest import run

    example = str(Path(__file__).parent.parent / "configs" / "vit_digit.yaml")
    result = run("explain", example, "--backward")
    assert (result.exit_code, result.stdout, result.stderr) == (
        2, "", "attn: --backward: --backward does not work with image yet; remove image or "
        "--backward\n")


def test_two_classes_of_one_name_get_labels_apart_and_the_winner_is_one_of_them() -> None:
    """ImageNet's id2label names two classes crane: classes named 7, 1, 7 are labelled as
    repeated tokens are, 7₁, 1, 7₂, and the note names the winning one. Every row of E is
    [1, 2] (the CLS row, and each patch's W·p + b with W = 0), so the attention output's CLS
    row is [1, 2] too; W_c picks d1 and d2 of it: z = (1, 0, 2), the third class wins."""
    spec = loads_spec(json.dumps({
        "image": {"pixels": [[0, 0], [0, 0]]}, "patch": 2, "convention": "column",
        "patch_embedding": {"W": [[0, 0, 0, 0], [0, 0, 0, 0]], "b": [1, 2], "cls": [1, 2]},
        "classifier": {"W": [[1, 0], [0, 0], [0, 1]], "labels": ["7", "1", "7"]}}))
    scores = step(compute(spec), "class_scores")
    z = next(m for m in scores.matrices if m.symbol.text == "z")
    assert z.columns == ("7₁", "1", "7₂")
    assert z.values.tolist() == [[1.0, 0.0, 2.0]]
    assert translate(scores.notes[0]).startswith(
        "The classifier reads only the “CLS” row; the highest score goes to the class “7₂”,")
