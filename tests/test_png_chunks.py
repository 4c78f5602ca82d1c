"""A PNG's chunks as its specification orders them: each chunk's CRC is checked (a damaged
chunk is refused, named, where it was read as sound); the header chunk (IHDR) comes first and
once (an IDAT before it, or a second IHDR, was read); a file of more chunks than the reader
takes says so (it said "no image data" after 20,000 text chunks); a header of no pixels says
its size (it said its color type and bit depth). Each is one line on stderr, exit 2."""

from __future__ import annotations

import os
import struct
import subprocess
import sys
import zlib
from pathlib import Path

import pytest

SIGNATURE = b"\x89PNG\r\n\x1a\n"
ROOT = Path(__file__).parent.parent


def chunk(kind: bytes, body: bytes, crc: int | None = None) -> bytes:
    """A chunk: its length, type, data and CRC-32 of type and data (or the `crc` given)."""
    sound = zlib.crc32(kind + body)
    return struct.pack(">I", len(body)) + kind + body + struct.pack(
        ">I", sound if crc is None else crc)


def header(width: int = 4, height: int = 4) -> bytes:
    return chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 0, 0, 0, 0))


PIXELS = zlib.compress(b"\0\0\0\0\0" * 4)  # 4 rows: filter 0 and four black pixels
DATA, END = chunk(b"IDAT", PIXELS), chunk(b"IEND", b"")
PREFIX = "spec.yaml:1:15: image.file: p.png: "

CASES = {
    "ok": (SIGNATURE + header() + DATA + END, None),
    "header_crc": (SIGNATURE + header()[:-4] + b"\0\0\0\0" + DATA + END,
                   "the PNG's chunk IHDR is damaged: its CRC does not match its bytes"),
    "data_crc": (SIGNATURE + header() + chunk(b"IDAT", PIXELS[:6]) +
                 chunk(b"IDAT", PIXELS[6:], crc=1) + END,
                 "the PNG's chunk IDAT is damaged: its CRC does not match its bytes"),
    "end_crc": (SIGNATURE + header() + DATA + chunk(b"IEND", b"", crc=7),
                "the PNG's chunk IEND is damaged: its CRC does not match its bytes"),
    "hidden_type_crc": (SIGNATURE + header() + chunk(b"\x1b[2J", b"x", crc=0) + DATA + END,
                        "the PNG's chunk \\x1b[2J is damaged: its CRC does not match its bytes"),
    "data_first": (SIGNATURE + chunk(b"IDAT", PIXELS[:5]) + header() +
                   chunk(b"IDAT", PIXELS[5:]) + END,
                   "expected the PNG's header chunk (IHDR, 13 bytes) first and once, found IDAT "
                   "(5 bytes) as chunk 1"),
    "text_first": (SIGNATURE + chunk(b"tEXt", b"a\0b") + header() + DATA + END,
                   "expected the PNG's header chunk (IHDR, 13 bytes) first and once, found tEXt "
                   "(3 bytes) as chunk 1"),
    "header_twice": (SIGNATURE + header() + header() + DATA + END,
                     "expected the PNG's header chunk (IHDR, 13 bytes) first and once, found IHDR "
                     "(13 bytes) as chunk 2"),
    "header_long": (SIGNATURE + chunk(b"IHDR", struct.pack(">IIBBBBB", 4, 4, 8, 0, 0, 0, 0) +
                                      b"\0") + DATA + END,
                    "expected the PNG's header chunk (IHDR, 13 bytes) first and once, found IHDR "
                    "(14 bytes) as chunk 1"),
    "many_texts": (SIGNATURE + header() + chunk(b"tEXt", b"a\0b") * 20_000 + DATA + END,
                   "the PNG has more than 10,000 chunks; an image this reader takes has a few"),
    "no_rows": (SIGNATURE + header(4, 0) + DATA + END,
                "the PNG's header gives a size of 4 × 0; expected at least one pixel each way"),
    # the filters are undone in height + width steps: 1,000,000 x 1 pixels was killed at 20 s
    "too_wide": (SIGNATURE + header(4098, 2) + chunk(b"IDAT", zlib.compress(b"\4" * 8198)) + END,
                 "the PNG's header gives a size of 4,098 × 2; expected at most 4,096 pixels each "
                 "way"),
    "too_tall": (SIGNATURE + header(2, 4098) + chunk(b"IDAT", zlib.compress(b"\4\0\0" * 4098)) +
                 END, "the PNG's header gives a size of 2 × 4,098; expected at most 4,096 pixels "
                 "each way"),
}


@pytest.mark.parametrize("case", CASES)
def test_a_png_is_read_only_as_its_specification_orders_it(tmp_path: Path, case: str) -> None:
    data, said = CASES[case]
    (tmp_path / "p.png").write_bytes(data)
    (tmp_path / "spec.yaml").write_text(
        "image: {file: p.png}\npatch: 2\nconvention: column\n"
        "patch_embedding: {W: [[1, 0, 0, 0]], cls: [0]}\n", encoding="utf-8")
    before = sorted(os.listdir(tmp_path))
    run = subprocess.run([sys.executable, "-m", "attncli", "explain", "spec.yaml", "--format",
                          "text"], cwd=tmp_path, env={**os.environ, "PYTHONPATH": str(ROOT)},
                         capture_output=True, text=True, timeout=60)
    assert sorted(os.listdir(tmp_path)) == before
    if said is None:
        assert (run.returncode, run.stderr) == (0, "")
        return
    assert (run.returncode, run.stdout) == (2, "")
    assert run.stderr == PREFIX + said + "\n"


def test_a_link_that_leads_to_itself_is_named_without_the_systems_words(
        tmp_path: Path) -> None:
    # pathlib's RuntimeError, in English and naming the absolute path, was the reason given
    os.symlink("p.png", tmp_path / "p.png")
    (tmp_path / "spec.yaml").write_text(
        "image: {file: p.png}\npatch: 2\npatch_embedding: {W: [[1, 0, 0, 0]], cls: [0]}\n",
        encoding="utf-8")
    run = subprocess.run([sys.executable, "-m", "attncli", "explain", "spec.yaml"],
                         cwd=tmp_path, env={**os.environ, "PYTHONPATH": str(ROOT)},
                         capture_output=True, text=True, timeout=60)
    assert (run.returncode, run.stdout) == (2, "")
    assert run.stderr == PREFIX + "the symbolic links lead in a loop\n"


def test_a_png_grown_past_its_checked_size_is_not_read_whole(tmp_path: Path,
                                                             monkeypatch: pytest.MonkeyPatch
                                                             ) -> None:
    """The file's size is checked, then the file read: one that grew in between (another
    process writing it) was read whole. Now no more than the limit and a byte is read, and
    the file is refused as larger than the limit."""
    from attncli.i18n import translate
    from attncli.spec import opened, png
    from attncli.spec.file_problem import FileProblem

    path = tmp_path / "p.png"
    path.write_bytes(SIGNATURE + header() + DATA + END)
    small = path.stat()
    path.write_bytes(SIGNATURE + header() + DATA + chunk(b"tEXt", b"a\0" + b"b" * 10_000) + END)
    read: list[int] = []
    whole = opened.read_regular_bytes

    def counted(where: Path, limit: int | None = None) -> bytes:
        data = whole(where, limit)
        read.append(len(data))
        return data

    monkeypatch.setattr(png, "read_regular_bytes", counted)
    monkeypatch.setattr(type(path), "stat", lambda self, **_: small)  # the size first seen
    with pytest.raises(FileProblem) as refused:
        png.open_png(path, "p.png", 10_000_000, 1_000)
    assert read == [1_001]
    assert translate(refused.value.message) == (
        "p.png: the file is larger than 1,000 bytes, the limit that --max-cells sets")
