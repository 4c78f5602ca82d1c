"""A bounded PNG reader for `image: {file: digit.png}`: the pixels of a grayscale or RGB image,
each channel a matrix of numbers in [0, 1] (the value over the largest the bit depth holds).

PNG is simple enough that the standard library reads it well: the header (IHDR) gives the size
before any pixel is decompressed, so the image is checked first against the share of the spec's
cell limit a decompressed source may give (max_slow_cells, a fifth); `open_png` stops there, so
the spec that names it is measured against its size (the walkthrough of its patches, the shape of
the patch embedding) before `pixels` decodes it. The compressed data is inflated at most to the
bytes that size needs: a small file that would inflate to gigabytes (a decompression bomb) is
refused after that many bytes. Only what a drawing program saves for a small picture is read: 8-
or 16-bit grayscale or RGB, with or without alpha (the alpha channel is dropped, as the models'
image processors convert to RGB), not interlaced; a palette image is refused with the reason.
"""

from __future__ import annotations

import struct
import zlib
from pathlib import Path

import numpy as np

from attncli.i18n import Count, Msg
from attncli.records import record
from attncli.spec.files import FileProblem
from attncli.spec.limits import max_slow_cells
from attncli.spec.model import Array
from attncli.spec.opened import read_regular_bytes, refused_read
from attncli.spec.source import LIMIT_HINT, byte_count

SIGNATURE = b"\x89PNG\r\n\x1a\n"
# color type -> channels in the file, channels kept (alpha dropped)
COLOR_TYPES = {0: (1, 1), 2: (3, 3), 4: (2, 1), 6: (4, 3)}
MAX_CHUNKS = 10_000  # a small image has a handful; more is no picture this reader is for
# pixels of a side: the filters are undone along the image's anti-diagonals, one NumPy step for
# each (height + width steps), so a side is bounded as the numbers are (a picture of 1,000,000
# x 1 pixels took 1,000,000 steps: killed at 20 s, where a model's image has at most about 1,000)
MAX_SIDE = 4096


@record
class Png:
    """A PNG whose header is read and checked, its pixels not yet inflated: `shape` is what
    `pixels` will give, so a spec can be measured against it first."""

    name: str
    width: int
    height: int
    depth: int
    color: int
    chunks: list[bytes]

    @property
    def shape(self) -> tuple[int, int, int]:
        """(channels kept, height, width): the array `pixels` gives."""
        return COLOR_TYPES[self.color][1], self.height, self.width


def read_png(path: Path, name: str, max_cells: int, max_bytes: int) -> Array:
    """The image at `path` as (channels, height, width) in [0, 1]; FileProblem if it is not a
    PNG this reader takes, or larger than the limits."""
    return pixels(open_png(path, name, max_cells, max_bytes))


def open_png(path: Path, name: str, max_cells: int, max_bytes: int) -> Png:
    """The PNG at `path` with its header checked against the limits, no pixel inflated;
    FileProblem if it is not a PNG this reader takes, or larger than the limits."""
    size = path.stat().st_size
    if size > max_bytes:
        raise FileProblem(Msg.plural_of(
            "{name} has {count} byte; the limit is {limit}, which {option} sets",
            "{name} has {count} bytes; the limit is {limit}, which {option} sets",
            Count(size), name=name, limit=byte_count(max_bytes), option=LIMIT_HINT))
    with refused_read(name):  # no more than the limit, should the file grow meanwhile
        data = read_regular_bytes(path, max_bytes)
    if len(data) > max_bytes:  # grown since its size was read (or a file of /proc, "0 bytes")
        raise FileProblem(Msg.of("{name}: {problem}", name=name, problem=Msg.plural_of(
            "the file is larger than {count} byte, the limit that {option} sets",
            "the file is larger than {count} bytes, the limit that {option} sets",
            Count(max_bytes), option=LIMIT_HINT)))
    if not data.startswith(SIGNATURE):
        raise FileProblem(Msg.of("{name}: expected a PNG image, found other bytes", name=name))
    width, height, depth, color, interlace, chunks = header(data, name)
    stored = COLOR_TYPES[color][0]
    # a PNG is a decompressed source: its numbers (alpha too, as the file holds it) are held to
    # the share of the cell limit any decompressed or text source is (max_slow_cells)
    limit = max_slow_cells(max_cells)
    if width * height * stored > limit:
        raise FileProblem(Msg.plural_of(
            "{name}: the image holds {count} number; the limit is {limit}, which {option} sets",
            "{name}: the image holds {count} numbers; the limit is {limit}, which {option} sets",
            Count(width * height * stored), name=name, limit=Count(limit), option=LIMIT_HINT))
    if interlace:
        raise FileProblem(Msg.of("{name}: an interlaced PNG is not read; save it without "
                                 "interlacing", name=name))
    return Png(name, width, height, depth, color, chunks)


def pixels(png: Png) -> Array:
    """The image's pixels as (channels, height, width) in [0, 1]: its data inflated and its
    rows unfiltered, the work and memory of the whole image."""
    width, height, depth = png.width, png.height, png.depth
    stored, kept = COLOR_TYPES[png.color]
    item = depth // 8
    stride = width * stored * item  # bytes of one row of pixels
    expected = height * (1 + stride)  # each row after its filter byte
    raw = inflate(b"".join(png.chunks), expected, png.name)
    rows = unfilter(raw, height, stride, stored * item, png.name)  # (height, stride) bytes
    values = rows.view(">u2") if item == 2 else rows  # (height, width · stored)
    found = values.reshape(height, width, stored)[:, :, :kept].astype(np.float64)
    found /= float((1 << depth) - 1)  # (height, width, kept) in [0, 1]
    return np.ascontiguousarray(found.transpose(2, 0, 1))  # (kept, height, width)


def header(data: bytes, name: str) -> tuple[int, int, int, int, int, list[bytes]]:
    """IHDR's width, height, bit depth, color type and interlace, and the IDAT chunks' data.
    Every chunk's CRC is checked (a damaged chunk is refused, named), IHDR must come first and
    once, and a file of more than MAX_CHUNKS chunks is refused as what it is."""
    at, found, chunks = len(SIGNATURE), None, []
    view = memoryview(data)
    for count in range(MAX_CHUNKS + 1):
        if at + 8 > len(data):
            break
        if count == MAX_CHUNKS:
            raise FileProblem(Msg.plural_of(
                "{name}: the PNG has more than {count} chunk; an image this reader takes has a "
                "few", "{name}: the PNG has more than {count} chunks; an image this reader takes "
                "has a few", Count(MAX_CHUNKS), name=name))
        length, kind = struct.unpack(">I4s", data[at:at + 8])
        if at + 12 + length > len(data):
            raise FileProblem(Msg.of("{name}: the file ends inside a chunk", name=name))
        body = data[at + 8:at + 8 + length]
        chunk = kind.decode("ascii", "backslashreplace")
        (crc,) = struct.unpack(">I", data[at + 8 + length:at + 12 + length])
        if zlib.crc32(view[at + 4:at + 8 + length]) != crc:
            raise FileProblem(Msg.of("{name}: the PNG's chunk {chunk} is damaged: its CRC does "
                                     "not match its bytes", name=name, chunk=chunk))
        if (kind == b"IHDR") != (count == 0) or (kind == b"IHDR" and length != 13):
            raise FileProblem(Msg.of("{name}: expected the PNG's header chunk (IHDR, 13 bytes) "
                                     "first and once, found {chunk} ({length}) as chunk {index}",
                                     name=name, chunk=chunk, length=byte_count(length),
                                     index=count + 1))
        if kind == b"IHDR":
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
    if color not in COLOR_TYPES or depth not in (8, 16):
        raise FileProblem(Msg.of("{name}: expected an 8- or 16-bit grayscale or RGB PNG, found "
                                 "color type {color}, bit depth {depth}", name=name, color=color,
                                 depth=depth))
    if not width or not height:
        raise FileProblem(Msg.of("{name}: the PNG's header gives a size of {width} × {height}; "
                                 "expected at least one pixel each way", name=name,
                                 width=Count(width), height=Count(height)))
    if max(width, height) > MAX_SIDE:
        raise FileProblem(Msg.plural_of(
            "{name}: the PNG's header gives a size of {width} × {height}; expected at most "
            "{count} pixel each way", "{name}: the PNG's header gives a size of {width} × "
            "{height}; expected at most {count} pixels each way", Count(MAX_SIDE), name=name,
            width=Count(width), height=Count(height)))
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
    """The rows of bytes with PNG's filters (none, sub, up, average, Paeth) undone. Average and
    Paeth read the byte a pixel to the left, already undone: the pixels are undone along the
    image's anti-diagonals (each needs only its left, upper and upper-left neighbours, all on
    the one before), so the work is height + width NumPy steps, never a step per byte. The
    image is laid out diagonal by diagonal first (`Diagonals`), so that each step reads and
    writes runs of neighbouring memory, and only the filters the image uses are worked: a
    16-bit 4,096 x 448 Paeth image took 1.0 s to validate with each diagonal gathered and
    scattered by index and all five filters worked on every pixel."""
    lines = np.frombuffer(raw, dtype=np.uint8).reshape(height, 1 + stride)  # (height, 1 + stride)
    kinds = lines[:, 0]  # (height,)
    unknown = np.flatnonzero(kinds > 4)
    if unknown.size:
        first = int(unknown[0])
        raise FileProblem(Msg.of("{name}: the PNG's row {row} has an unknown filter {kind}",
                                 name=name, row=first + 1, kind=int(kinds[first])))
    width = stride // pixel
    laid = Diagonals(height, width)
    filtered = laid.skewed(lines[:, 1:].reshape(height, width, pixel))  # (K, L, pixel)
    by_kind = laid.skewed(np.broadcast_to(kinds[:, None, None], (height, width, 1)))
    rows_of = {kind: by_kind == kind for kind in np.unique(kinds).tolist() if kind}  # (K, L, 1)
    # undone[s + 2, j + 1]: the pixel at place j of diagonal s; a zero diagonal, place before
    undone = np.zeros((laid.count + 2, laid.places + 1, pixel), dtype=np.int16)
    left, up = (1, 0) if laid.by_rows else (0, 1)  # where a's and b's run begins
    for step in range(laid.count):
        lo, hi = laid.span(step)
        a = undone[step + 1, lo + left:hi + left]  # (n, pixel) left
        b = undone[step + 1, lo + up:hi + up]  # (n, pixel) up
        c = undone[step, lo:hi]  # (n, pixel) upper left
        predicted = np.zeros_like(a)
        for kind, rows in rows_of.items():
            np.copyto(predicted, predictor(kind, a, b, c), where=rows[step, lo:hi])
        target = undone[step + 2, lo + 1:hi + 1]  # (n, pixel)
        np.add(filtered[step, lo:hi], predicted, out=target)
        np.bitwise_and(target, 0xFF, out=target)
    return laid.straight(undone[2:, 1:]).reshape(height, stride).astype(np.uint8)


def predictor(kind: int, a: np.ndarray, b: np.ndarray, c: np.ndarray) -> np.ndarray:
    """What filter `kind` (1 to 4) adds to a byte from its left (a), upper (b) and upper-left
    (c) neighbours, all undone: sub a, up b, average ⌊(a + b) / 2⌋, or Paeth's nearest of the
    three to a + b − c (a first, then b, on ties)."""
    if kind == 1:
        return a
    if kind == 2:
        return b
    if kind == 3:
        return (a + b) >> 1
    pa, pb, pc = np.abs(b - c), np.abs(a - c), np.abs(a + b - c - c)  # |p − a|, |p − b|, |p − c|
    return np.where((pa <= pb) & (pa <= pc), a, np.where(pb <= pc, b, c))


class Diagonals:
    """An image's pixels laid out by anti-diagonal (s = row + column), each diagonal's pixels in
    a row of `places`, by their image row or, for an image taller than wide, by their column
    (the shorter side, so that few places are left empty)."""

    def __init__(self, height: int, width: int) -> None:
        self.height, self.width = height, width
        self.by_rows = height <= width
        self.places = min(height, width)
        self.count = height + width - 1
        rows, columns = np.indices((height, width), dtype=np.int32)  # (H, W) each
        self.index = rows + columns, rows if self.by_rows else columns  # (s, j) of each pixel

    def span(self, step: int) -> tuple[int, int]:
        """The places of diagonal `step` that hold a pixel."""
        other = self.width if self.by_rows else self.height
        return max(0, step - other + 1), min(self.places, step + 1)

    def skewed(self, grid: np.ndarray) -> np.ndarray:
        """(height, width, pixel) as (diagonals, places, pixel); the empty places zero."""
        laid = np.zeros((self.count, self.places, grid.shape[2]), dtype=grid.dtype)
        laid[self.index] = grid
        return laid

    def straight(self, laid: np.ndarray) -> np.ndarray:
        """(diagonals, places, pixel) back as (height, width, pixel)."""
        return laid[self.index]
