"""An .npz whose bytes lie or are damaged is one located line, exit 2: a deflated member whose
stream is broken (zlib's own error was an internal error, exit 3), and end records that the
count of arrays was read from where zipfile does not read them (a directory of 19,280 or
3,000 arrays was read whole: 417 MB for one of 195 MB)."""

from __future__ import annotations

import io
import struct
import zipfile
import zlib
from pathlib import Path

import numpy as np
import pytest

from tests.conftest import run

EYE = io.BytesIO()
np.save(EYE, np.eye(2))
NPY = EYE.getvalue()
SPEC = ("tokens: [a, b]\nembeddings: {file: e.npz, key: w%s}\n"
        "weights: {W_Q: identity, W_K: identity, W_V: identity}\n")


def refused(tmp_path: Path, archive: bytes, selection: str = "", lang: str = "en") -> str:
    (tmp_path / "e.npz").write_bytes(archive)
    spec = tmp_path / "s.yaml"
    spec.write_text(SPEC % selection, encoding="utf-8")
    result = run("validate", str(spec), "--lang", lang)
    assert result.exit_code == 2, result.stderr
    lines = result.stderr.splitlines()
    assert len(lines) == 2, result.stderr  # the refusal, then validate's count
    return lines[0].split(": ", 1)[1]


def damaged() -> bytes:
    """np.savez_compressed's archive of one 2 x 2 array, 17 bytes of its stream flipped."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("w.npy", NPY)
    raw = bytearray(buffer.getvalue())
    start = 30 + len("w.npy")  # the local header and the name, then the deflated stream
    for at in range(start + 8, start + 25):
        raw[at] ^= 0x5A
    with pytest.raises(zlib.error):  # what zipfile itself raises for it
        zipfile.ZipFile(io.BytesIO(bytes(raw))).read("w.npy")
    return bytes(raw)


@pytest.mark.parametrize("selection", ["", ", rows: [0, 1]", ", columns: [1, 0]"])
@pytest.mark.parametrize(("lang", "said"), [
    ("en", "e.npz: cannot read the numbers: the archive's compressed data is damaged"),
    ("pl", "e.npz: nie można odczytać liczb: skompresowane dane archiwum są uszkodzone"),
    ("ru", "e.npz: не удаётся прочитать числа: сжатые данные архива повреждены"),
])
def test_a_damaged_deflated_member_is_one_line(tmp_path: Path, selection: str, lang: str,
                                              said: str) -> None:
    assert refused(tmp_path, damaged(), selection, lang) == f"embeddings.file: {said}"


def entry(name: bytes, comment: bytes = b"") -> bytes:
    """A zip directory entry of the stored w.npy at offset 0."""
    return struct.pack("<4sHHHHHHIIIHHHHHII", b"PK\x01\x02", 20, 20, 0, 0, 0, 0, zlib.crc32(NPY),
                       len(NPY), len(NPY), len(name), 0, len(comment), 0, 0, 0, 0) + name + comment


def local() -> bytes:
    return struct.pack("<4sHHHHHIIIHH", b"PK\x03\x04", 20, 0, 0, 0, 0, zlib.crc32(NPY), len(NPY),
                       len(NPY), 5, 0) + b"w.npy" + NPY


def test_an_end_record_holding_its_own_signature_is_counted(tmp_path: Path) -> None:
    """The record says 0x4B50 ("PK") arrays in a directory of 0x0605 bytes: the signature again,
    12 bytes from the end. zipfile takes the record from the last 22 bytes and reads the whole
    directory (here 1,541 bytes: 30 entries; at 0x04000605 bytes it is 1.3 million)."""
    directory = entry(b"w.npy") + b"".join(entry(b"%04d" % k) for k in range(28))
    directory += entry(b"z" * (0x0605 - len(directory) - 46))
    assert len(directory) == 0x0605
    end = struct.pack("<4sHHHHIIH", b"PK\x05\x06", 0, 0, 0x4B50, 0x4B50, len(directory),
                      len(local()), 0)
    archive = local() + directory + end
    assert end[10:14] == b"PK\x05\x06"
    assert len(zipfile.ZipFile(io.BytesIO(archive)).namelist()) == 30  # zipfile reads it
    assert refused(tmp_path, archive) == ("embeddings.file: e.npz lists 19,280 arrays; the "
                                          "limit is 1,024")


def test_a_zip64_record_in_an_entrys_comment_is_no_record(tmp_path: Path) -> None:
    """zipfile reads a ZIP64 end record only right before its locator, before the end record;
    one in the last entry's comment gave counts of 0 for 1,100 arrays."""
    fake = b"PK\x06\x06" + struct.pack("<QHHIIQQQQ", 44, 45, 45, 0, 0, 0, 0, 0, 0)
    directory = entry(b"w.npy") + b"".join(entry(b"%04d" % k) for k in range(1098))
    directory += entry(b"last", fake)
    end = struct.pack("<4sHHHHIIH", b"PK\x05\x06", 0, 0, 1100, 1100, len(directory),
                      len(local()), 0)
    archive = local() + directory + end
    assert len(zipfile.ZipFile(io.BytesIO(archive)).namelist()) == 1100
    assert refused(tmp_path, archive) == ("embeddings.file: e.npz lists 1,100 arrays; the "
                                          "limit is 1,024")


def test_a_npy_header_longer_than_numpys_bound_is_refused_unread(tmp_path: Path) -> None:
    """A deflated member whose .npy header length says 4 GB, then 16 MB of spaces: NumPy reads
    all the length promises before it checks it against its bound of 10,000 bytes (256 MB of
    spaces took 547 MB to be refused); the length is now checked first."""

    start = b"\x93NUMPY\x02\x00" + struct.pack("<I", 0xFFFFFFF0)
    packer = zlib.compressobj(9, zlib.DEFLATED, -15)
    stream = packer.compress(start) + b"".join(packer.compress(b" " * (1 << 24))
                                                for _ in range(1)) + packer.flush()
    size = len(start) + (16 << 20)
    name = b"w.npy"
    head = struct.pack("<4sHHHHHIIIHH", b"PK\x03\x04", 20, 0, 8, 0, 0, 0, len(stream), size,
                       len(name), 0) + name
    directory = struct.pack("<4sHHHHHHIIIHHHHHII", b"PK\x01\x02", 20, 20, 0, 8, 0, 0, 0,
                            len(stream), size, len(name), 0, 0, 0, 0, 0, 0) + name
    end = struct.pack("<4sHHHHIIH", b"PK\x05\x06", 0, 0, 1, 1, len(directory),
                      len(head) + len(stream), 0)
    said = refused(tmp_path, head + stream + directory + end)
    assert said == ("embeddings.file: e.npz (w): its header says it is 4,294,967,280 bytes "
                    "long; attn reads .npy headers of up to 10,000 bytes")
