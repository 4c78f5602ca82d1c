"""Writes the binary files the bad-input catalogue refers to. Run from this folder:
python make.py (the files are committed; this says how they were made)."""

import json
import os
import struct
import zipfile

import numpy as np

np.save("objects.npy", np.array([{"a": 1}], dtype=object), allow_pickle=True)
np.save("words.npy", np.array([["a", "b"]]))
np.save("complex.npy", np.array([[1 + 2j, 0]]))
np.save("cube.npy", np.zeros((1, 2, 1)))
np.save("vector.npy", np.zeros(2))
np.save("nan.npy", np.array([[np.nan, 1.0]]))
np.save("empty.npy", np.zeros((1, 0)))
np.save("wide.npy", np.zeros((1, 3)))
np.savez("two.npz", a=np.eye(2), b=np.eye(2))
with open("truncated.npy", "wb") as out:
    np.lib.format.write_array_header_1_0(
        out, {"descr": "<f8", "fortran_order": False, "shape": (1, 2)})
    out.write(b"\0" * 8)  # one number of two
with zipfile.ZipFile("truncated.npz", "w") as archive, archive.open("W.npy", "w") as member:
    np.lib.format.write_array_header_1_0(
        member, {"descr": "<f8", "fortran_order": False, "shape": (1, 2)})
    member.write(b"\0" * 8)  # one number of two
with open("unbalanced_header.npy", "wb") as out:  # a header NumPy's tokenizer cannot end
    header = b"{'descr': '<f8', 'fortran_order': False, 'shape': ((1, 2), }"
    header += b" " * (63 - len(header) % 64) + b"\n"
    out.write(b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)) + header + b"\0" * 16)
with open("deep.npy", "wb") as out:  # 65 dimensions, one more than NumPy can hold; 6 numbers
    header = b"{'descr': '<f8', 'fortran_order': False, 'shape': (" + b"1," * 63 + b"3, 2), }"
    header += b" " * (63 - len(header) % 64) + b"\n"
    out.write(b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)) + header + b"\0" * 48)
with open("huge_header.npy", "wb") as out:  # claims 10^8 numbers, holds none
    np.lib.format.write_array_header_1_0(
        out, {"descr": "<f8", "fortran_order": False, "shape": (10000, 10000)})
with zipfile.ZipFile("huge_header.npz", "w") as archive, archive.open("W.npy", "w") as member:
    np.lib.format.write_array_header_1_0(
        member, {"descr": "<f8", "fortran_order": False, "shape": (10000, 10000)})
with open("not_a_zip.npz", "wb") as out:
    out.write(b"PK\x03\x04 this is not a zip archive")
np.save("npy_named_npz.npy", np.eye(2))  # a .npy under an .npz's name: NumPy read it as an array
os.replace("npy_named_npz.npy", "npy_named_npz.npz")
with open("text.csv", "w") as out:
    out.write("1,two\n3,4\n")
with open("trailing_comma.csv", "w") as out:  # a comma at each line's end: an empty cell
    out.write("1,0,\n0,1,\n")
with open("ragged.csv", "w") as out:
    out.write("1,2\n3\n")
with open("empty.csv", "w") as out:
    out.write("")
with zipfile.ZipFile("many_members.npz", "w") as archive:  # one more array than attn reads
    for i in range(1025):
        archive.writestr(f"a{i}.npy", b"")
# An archive whose one member says it is encrypted (flag bit 0), as `zip -P` writes it.
with zipfile.ZipFile("encrypted.npz", "w") as archive, archive.open("W.npy", "w") as member:
    np.save(member, np.eye(1))
with open("encrypted.npz", "r+b") as out:
    data = bytearray(out.read())
    for signature, flags_at in ((b"PK\x03\x04", 6), (b"PK\x01\x02", 8)):
        at = data.find(signature)
        data[at + flags_at] |= 1
    out.seek(0)
    out.write(data)
np.save("longdouble.npy", np.array([[np.longdouble("1e4000")]]))
with open("bom.csv", "w", encoding="utf-8-sig") as out:  # Excel's "CSV UTF-8": read, not refused
    out.write("1,two\n")


def safetensors(name, header, data=b"", length=None):
    """A .safetensors file: the header's length (or `length`), the JSON header, the data."""
    raw = json.dumps(header).encode()
    with open(name, "wb") as out:
        out.write(struct.pack("<Q", len(raw) if length is None else length) + raw + data)


W = {"dtype": "F64", "shape": [2, 2], "data_offsets": [0, 32]}
safetensors("model.safetensors", {"W": W}, np.eye(2).tobytes())
safetensors("huge_header.safetensors", {"W": W}, np.eye(2).tobytes(), length=1 << 40)
safetensors("truncated.safetensors", {"W": W}, np.eye(2).tobytes()[:16])
safetensors("bool.safetensors", {"W": {**W, "dtype": "BOOL", "data_offsets": [0, 4]}}, b"\1" * 4)
safetensors("bad_offsets.safetensors", {"W": {**W, "data_offsets": [0, 24]}}, b"\0" * 24)
safetensors("nan.safetensors", {"W": {**W, "shape": [1, 2], "data_offsets": [0, 16]}},
            np.array([np.nan, 1.0]).tobytes())
with open("empty_map.safetensors.index.json", "w") as out:  # an index of no tensors
    json.dump({"metadata": {}, "weight_map": {}}, out)
# V's first 16 bytes are W's last 16: each would be read with the other's numbers
safetensors("overlap.safetensors", {"W": W, "V": {**W, "data_offsets": [16, 48]}},
            np.arange(6.0).tobytes())
with open("model.safetensors.index.json", "w") as out:
    json.dump({"weight_map": {"W": "model.safetensors", "up": "../../outside.safetensors"}}, out)


def png(width: int, height: int, color: int, data: bytes) -> bytes:
    """A PNG of one IHDR (8 bits), one IDAT of `data` compressed, and IEND."""
    import zlib

    def chunk(kind: bytes, body: bytes) -> bytes:
        return (struct.pack(">I", len(body)) + kind + body
                + struct.pack(">I", zlib.crc32(kind + body)))

    header = struct.pack(">IIBBBBB", width, height, 8, color, 0, 0, 0)
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(data))
            + chunk(b"IEND", b""))


with open("not_a_png.png", "wb") as out:
    out.write(b"not a picture\n")
with open("palette.png", "wb") as out:  # color type 3: its pixels are indices into a palette
    out.write(png(2, 2, 3, b"\0\0\0" * 2))
with open("bomb.png", "wb") as out:  # says 2 x 2 gray, inflates to 10 MB
    out.write(png(2, 2, 0, bytes(10_000_000)))
