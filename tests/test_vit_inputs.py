"""Hostile image inputs: the PNG reader's filters undone along the image's diagonals give the
bytes a textbook byte-by-byte decoder gives (written here, from the PNG specification); an image
larger than the share of the cell limit a decompressed source may give is refused from its
header, before anything is inflated; a mean or std that takes a pixel past float64 is told in
one line, with no warning of NumPy's before it."""

from __future__ import annotations

import os
import struct
import subprocess
import sys
import zlib
from pathlib import Path

import numpy as np
import pytest

from attncli.library import load_spec
from attncli.spec import png
from attncli.spec.png import unfilter
from tests.test_png_chunks import chunk
from tests.test_vit import refusal


def textbook(raw: bytes, height: int, stride: int, pixel: int) -> list[list[int]]:
    """PNG's five filters undone one byte at a time, as the specification states them."""
    rows: list[list[int]] = []
    above = [0] * stride
    for r in range(height):
        kind, line = raw[r * (1 + stride)], raw[r * (1 + stride) + 1:(r + 1) * (1 + stride)]
        row: list[int] = []
        for i, x in enumerate(line):
            a = row[i - pixel] if i >= pixel else 0
            b, c = above[i], (above[i - pixel] if i >= pixel else 0)
            p = a + b - c
            nearest = a if abs(p - a) <= abs(p - b) and abs(p - a) <= abs(p - c) else (
                b if abs(p - b) <= abs(p - c) else c)
            row.append((x + (0, a, b, (a + b) // 2, nearest)[kind]) % 256)
        rows.append(row)
        above = row
    return rows


@pytest.mark.parametrize("seed", range(40))
def test_the_filters_undone_by_diagonals_match_the_textbook_decoder(seed: int) -> None:
    rng = np.random.default_rng(seed)
    height, width = int(rng.integers(1, 10)), int(rng.integers(1, 10))
    pixel = int(rng.choice([1, 2, 3, 4, 6, 8]))
    lines = rng.integers(0, 256, (height, 1 + width * pixel)).astype(np.uint8)
    lines[:, 0] = rng.integers(0, 5, height)  # every filter, mixed row by row
    raw = lines.tobytes()
    got = unfilter(raw, height, width * pixel, pixel, "x.png")
    assert got.tolist() == textbook(raw, height, width * pixel, pixel)


@pytest.mark.parametrize(("kinds", "worked"), [
    ([4, 0, 4], [4] * 7),  # 3 rows of 5 pixels: 7 diagonals, Paeth alone on each
    ([1, 2, 3, 4, 0], [1, 2, 3, 4] * 6),  # 5 rows of 2: 6 diagonals, each filter used on each
    ([0, 0], []),  # nothing filtered, nothing worked
])
def test_only_the_filters_an_image_uses_are_worked(kinds: list[int], worked: list[int],
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    # all five filters were worked on every pixel of every diagonal, and each diagonal gathered
    # and scattered by index: a 16-bit 4,096 x 448 Paeth image took 1.0 to 1.1 s to validate
    calls: list[int] = []
    real = png.predictor

    def counted(kind: int, a: np.ndarray, b: np.ndarray, c: np.ndarray) -> np.ndarray:
        calls.append(kind)
        return real(kind, a, b, c)

    monkeypatch.setattr(png, "predictor", counted)
    height, width = len(kinds), 5 if len(kinds) == 3 else 2
    lines = np.random.default_rng(0).integers(0, 256, (height, 1 + width)).astype(np.uint8)
    lines[:, 0] = kinds
    got = unfilter(lines.tobytes(), height, width, 1, "x.png")
    assert got.tolist() == textbook(lines.tobytes(), height, width, 1)
    assert calls == worked


def test_an_image_is_laid_out_by_diagonal_along_its_shorter_side() -> None:
    # 2 rows of 3: diagonal s holds the pixels of row + column = s, by row (its places 0 and 1)
    grid = np.arange(6).reshape(2, 3, 1)  # [[0, 1, 2], [3, 4, 5]]
    laid = png.Diagonals(2, 3)
    assert laid.skewed(grid)[:, :, 0].tolist() == [[0, 0], [1, 3], [2, 4], [0, 5]]
    assert [laid.span(s) for s in range(4)] == [(0, 1), (0, 2), (0, 2), (1, 2)]
    # its transpose, 3 rows of 2, by column
    tall = png.Diagonals(3, 2)
    assert tall.skewed(grid.transpose(1, 0, 2))[:, :, 0].tolist() == [[0, 0], [1, 3], [2, 4],
                                                                      [0, 5]]
    assert np.array_equal(tall.straight(tall.skewed(grid.transpose(1, 0, 2))),
                          grid.transpose(1, 0, 2))


def test_an_image_over_the_decompressed_share_is_refused_from_its_header(
        tmp_path: Path) -> None:
    # 1000 x 600 RGBA of 16 bits: 2,400,000 numbers in the file (alpha too), over the fifth of
    # the default 10,000,000 cells (2,000,000) a decompressed source may give; before, only the
    # 1,800,000 kept were counted against 10,000,000 and each Paeth byte was undone in Python
    header = struct.pack(">IIBBBBB", 1000, 600, 16, 6, 0, 0, 0)
    data = (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header)
            + chunk(b"IDAT", zlib.compress(b"\x04" * 10)) + chunk(b"IEND", b""))
    (tmp_path / "big.png").write_bytes(data)
    spec = "image: {file: big.png}\npatch: 200\npatch_embedding: {W: [[1]], cls: [0]}\n"
    assert refusal(tmp_path / "spec.yaml", spec) == (
        "image.file: big.png: the image holds 2,400,000 numbers; the limit is 2,000,000, "
        "which max_cells sets")  # a library call's keyword


@pytest.mark.parametrize("case", ["image_mean_overflow", "image_std_subnormal"])
def test_a_pixel_past_float64_is_one_line_on_stderr(case: str) -> None:
    # (1 − 1e308)·4 and 1 / 1e-320 are past float64's largest number: NumPy's RuntimeWarning
    # went to stderr before attn's line (three lines, the first a path in attn's source)
    folder = Path(__file__).parent / "bad_inputs"
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).parent.parent)}
    run = subprocess.run([sys.executable, "-m", "attncli", "explain", f"{case}.yaml"],
                         cwd=folder, env=env, capture_output=True, text=True, timeout=60)
    assert run.returncode == 2
    assert run.stdout == ""
    assert run.stderr == (folder / f"{case}.expected").read_text(encoding="utf-8")


def plain_png(width: int, height: int, color: int) -> bytes:
    """An 8-bit PNG of black pixels (color type 0: grayscale, 2: RGB), no row filtered."""
    channels = {0: 1, 2: 3}[color]
    rows = (b"\0" + b"\0" * width * channels) * height
    return (b"\x89PNG\r\n\x1a\n"
            + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, color, 0, 0, 0))
            + chunk(b"IDAT", zlib.compress(rows)) + chunk(b"IEND", b""))


@pytest.fixture
def inflated(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The bytes each decoding of a PNG's pixels asked for, one entry a decoding."""
    import attncli.spec.png as png

    calls: list[int] = []
    inflate = png.inflate

    def counted(compressed: bytes, expected: int, name: str) -> bytes:
        calls.append(expected)
        return inflate(compressed, expected, name)

    monkeypatch.setattr(png, "inflate", counted)
    return calls


def test_a_walkthrough_past_the_limit_is_refused_from_the_png_header(
        tmp_path: Path, inflated: list[int]) -> None:
    # 96 x 96 grayscale in patches of 1: n = 9,217 tokens (CLS and 9,216 patches), d_model 1.
    # The fewest numbers one head computes: 4n² = 4 · 84,953,089 = 339,812,356 scores, weights and
    # the like, 5n = 46,085 for Q, K, V, Z and the heads side by side, 3n·d_model = 27,651 for
    # W_O's output and E, 2 · 9,216 = 18,432 for the patches; with the 9,216 pixels and W's 1
    # number already charged, 339,913,741 > 320,000,000 (32 × the default 10,000,000). Before, the
    # pixels were inflated and unfiltered first, and the spec refused with every part read.
    (tmp_path / "p.png").write_bytes(plain_png(96, 96, 0))
    spec = "image: {file: p.png}\npatch: 1\npatch_embedding: {W: [[1]], cls: [0]}\n"
    assert refusal(tmp_path / "spec.yaml", spec) == (
        "patch: the walkthrough of this spec would compute at least 339,913,741 numbers; the "
        "limit is 320,000,000, 32 times what max_cells sets")
    assert inflated == []


def test_a_patch_embedding_of_the_wrong_shape_is_refused_before_the_pixels(
        tmp_path: Path, inflated: list[int]) -> None:
    # RGB in patches of 2: W must have 3 · 2 · 2 = 12 rows, read from the header's color type
    (tmp_path / "p.png").write_bytes(plain_png(4, 4, 2))
    spec = "image: {file: p.png}\npatch: 2\npatch_embedding: {W: [[1]], cls: [0]}\n"
    assert refusal(tmp_path / "spec.yaml", spec) == (
        "patch_embedding.W is 1 × 1, expected channels·p·p × d_model = 12 × 1")
    assert inflated == []
    (tmp_path / "spec.yaml").write_text(spec.replace("[[1]]", "[" + "[1], " * 11 + "[1]]"),
                                        encoding="utf-8")
    assert load_spec(str(tmp_path / "spec.yaml")).queries.n == 5  # CLS and 4 patches
    assert inflated == [4 * (1 + 4 * 3)]  # decoded once: 4 rows of a filter byte and 12 bytes
