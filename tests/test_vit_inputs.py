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
        "which --max-cells sets")


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
