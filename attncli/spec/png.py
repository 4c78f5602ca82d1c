"""A bounded PNG reader for `image: {file: digit.png}`: the pixels of a grayscale or RGB image,
each channel a matrix of numbers in [0, 1] (the value over the largest the bit depth holds).

PNG is simple enough that the standard library reads it well: the header (IHDR) gives the size
before any pixel is decompressed, so the image is checked against the spec's cell limit first,
and the compressed data is inflated at most to the bytes that size needs: a small file that
would inflate to gigabytes (a decompression bomb) is refused after that many bytes. Only what a
drawing program saves for a small picture is read: 8- or 16-bit grayscale or RGB, with or without
alpha (the alpha channel is dropped, as the models' image processors convert to RGB), not
interlaced; a palette image is refused with the reason.
"""

from __future__ import annotations

import struct
import zlib
from pathlib import Path

import numpy as np

from attncli.i18n import Count, Msg
from attncli.spec.files import FileProblem
from attncli.spec.model import Array
from attncli.spec.source import LIMIT_HINT, byte_count

SIGNATURE = b"\x89PNG\r\n\x1a\n"
# color type -> channels in the file, channels kept (alpha dropped)
COLOR_TYPES = {0: (1, 1), 2: (3, 3), 4: (2, 1), 6: (4, 3)}
MAX_CHUNKS = 10_000  # a small image has a handful; more is no picture this reader is for


def read_png(path: Path, name: str, max_cells: int, max_bytes: int) -> Array:
    """The image at `path` as (channels, height, width) in [0, 1]; FileProblem if it is not a
    PNG this reader takes, or larger than the limits."""
    size = path.stat().st_size
    if size > max_bytes:
        raise FileProblem(Msg.plural_of(
            "{name} has {count} byte; the limit is {limit}, which {option} sets",
            "{name} has {count} bytes; the limit is {limit}, which {option} sets",
            Count(size), name=name, limit=byte_count(max_bytes), option=LIMIT_HINT))
    data = path.read_bytes()
    if not data.startswith(SIGNATURE):
        raise FileProblem(Msg.of("{name}: expected a PNG image, found other bytes", name=name))
    width, height, depth, color, interlace, chunks = header(data, name)
    stored, kept = COLOR_TYPES[color]
    if width * height * kept > max_cells:
        raise FileProblem(Msg.plural_of(
            "{name}: the image holds {count} number; the limit is {limit}, which {option} sets",
            "{name}: the image holds {count} numbers; the limit is {limit}, which {option} sets",
            Count(width * height * kept), name=name, limit=Count(max_cells), option=LIMIT_HINT))
    if interlace:
        raise FileProblem(Msg.of("{name}: an interlaced PNG is not read; save it without "
                                 "interlacing", name=name))
    item = depth // 8
    stride = width * stored * item  # bytes of one row of pixels
    expected = height * (1 + stride)  # each row after its filter byte
    raw = inflate(b"".join(chunks), expected, name)
    rows = unfilter(raw, height, stride, stored * item, name)  # (height, stride) bytes
    values = rows.view(">u2") if item == 2 else rows  # (height, width · stored)
    pixels = values.reshape(height, width, stored)[:, :, :kept].astype(np.float64)
    pixels /= float((1 << depth) - 1)  # (height, width, kept) in [0, 1]
    return np.ascontiguousarray(pixels.transpose(2, 0, 1))  # (kept, height, width)


def header(data: bytes, name: str) -> tuple[int, int, int, int, int, list[bytes]]:
    """IHDR's width, height, bit depth, color type and interlace, and the IDAT chunks' data."""
    at, found, chunks = len(SIGNATURE), None, []
    for _ in range(MAX_CHUNKS):
        if at + 8 > len(data):
            break
        length, kind = struct.unpack(">I4s", data[at:at + 8])
        body = data[at + 8:at + 8 + length]
        if len(body) != length or at + 12 + length > len(data):
            raise FileProblem(Msg.of("{name}: the file ends inside a chunk", name=name))
        if kind == b"IHDR" and length == 13:
            found = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            chunks.append(body)
        elif kind == b"IEND":
            break
        at += 12 + length
    if found is None:
        raise FileProblem(Msg.of("{name}: expected a PNG image, found no header chunk (IHDR)",
                                 name=name))
    width, height, depth, color, _, _, interlace = found
    if color == 3:
        raise FileProblem(Msg.of("{name}: a palette PNG is not read; save it as grayscale or "
                                 "RGB", name=name))
    if color not in COLOR_TYPES or depth not in (8, 16) or not width or not height:
        raise FileProblem(Msg.of("{name}: expected an 8- or 16-bit grayscale or RGB PNG, found "
                                 "color type {color}, bit depth {depth}", name=name, color=color,
                                 depth=depth))
    if not chunks:
        raise FileProblem(Msg.of("{name}: the PNG has no image data (IDAT)", name=name))
    return width, height, depth, color, interlace, chunks


def inflate(compressed: bytes, expected: int, name: str) -> bytes:
    """The image's bytes, inflated to at most `expected` + 1: more is refused unread."""
    inflater = zlib.decompressobj()
    try:
        raw = inflater.decompress(compressed, expected + 1)
    except zlib.error:
        raise FileProblem(Msg.of("{name}: the PNG's image data is damaged", name=name)) from None
    if len(raw) != expected or inflater.unconsumed_tail:
        raise FileProblem(Msg.of("{name}: the PNG's image data does not fit its header's size",
                                 name=name))
    return raw


def unfilter(raw: bytes, height: int, stride: int, pixel: int, name: str) -> np.ndarray:
    """The rows of bytes with PNG's filters (none, sub, up, average, Paeth) undone."""
    lines = np.frombuffer(raw, dtype=np.uint8).reshape(height, 1 + stride)  # (height, 1 + stride)
    out = np.zeros((height, stride), dtype=np.uint8)
    above = np.zeros(stride, dtype=np.int32)
    for r in range(height):
        kind, line = int(lines[r, 0]), lines[r, 1:].astype(np.int32)  # (stride,)
        if kind == 0:
            row = line
        elif kind == 2:
            row = (line + above) & 0xFF
        elif kind in (1, 3, 4):
            row = np.zeros(stride, dtype=np.int32)
            for i in range(stride):  # each byte reads the one a pixel to its left
                left = int(row[i - pixel]) if i >= pixel else 0
                up = int(above[i])
                corner = int(above[i - pixel]) if i >= pixel else 0
                row[i] = (int(line[i]) + (left if kind == 1 else (left + up) // 2 if kind == 3
                                          else paeth(left, up, corner))) & 0xFF
        else:
            raise FileProblem(Msg.of("{name}: the PNG's row {row} has an unknown filter {kind}",
                                     name=name, row=r + 1, kind=kind))
        out[r] = row
        above = row
    return out


def paeth(a: int, b: int, c: int) -> int:
    """PNG's Paeth predictor: of left, up and corner, the nearest to left + up − corner."""
    p = a + b - c
    pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
    if pa <= pb and pa <= pc:
        return a
    return b if pb <= pc else c
