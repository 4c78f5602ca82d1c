"""`{file: W.npy, rows: ..., columns: ...}`: part of a .npy array, read as the slice it is and
charged as the slice it is (attncli/spec/selection.py, files.read_npy_slice). The numbers are
checked against NumPy's own indexing of the whole array; the size case against the peak memory
of a real `attn` process, on a file larger than that peak."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from attncli import load_spec
from attncli.errors import SpecError
from tests.test_limits import PEAK_MB, peak_rss_mb

WHOLE = np.arange(5 * 7, dtype=np.float64).reshape(5, 7) / 4  # [5, 7], exact in binary


@pytest.mark.parametrize("stored", [
    WHOLE,  # C order
    np.asfortranarray(WHOLE),  # column by column
    WHOLE.astype(">f4"),  # big-endian float32
    WHOLE.astype(np.int16),
])
@pytest.mark.parametrize(("rows", "columns", "picked"), [
    ('"1:3"', '"2:4"', (slice(1, 3), slice(2, 4))),
    ("[4, 0, 4]", "[6, 1]", ([4, 0, 4], [6, 1])),  # repeated and out of order
    (None, '"5:"', (slice(None), slice(5, None))),
    ("[2]", None, ([2], slice(None))),
])
def test_a_slice_is_the_numbers_numpy_indexes(tmp_path: Path, stored: np.ndarray,
                                              rows: str | None, columns: str | None,
                                              picked: tuple[object, object]) -> None:
    np.save(tmp_path / "E.npy", stored)
    chosen = "".join(f", {key}: {value}" for key, value in (("rows", rows), ("columns", columns))
                     if value is not None)
    expected = stored.astype(np.float64)[picked[0]][:, picked[1]]  # type: ignore[index]
    tokens = ", ".join(f"t{i}" for i in range(expected.shape[0]))
    (tmp_path / "spec.yaml").write_text(f"tokens: [{tokens}]\n"
                                        f"embeddings: {{file: E.npy{chosen}}}\n")
    got = load_spec(str(tmp_path / "spec.yaml")).queries.embeddings
    assert got.dtype == np.float64
    assert np.array_equal(got, expected)


def test_the_columns_of_a_vector(tmp_path: Path) -> None:
    np.save(tmp_path / "b.npy", np.array([0.5, 1.5, 2.5, 3.5]))
    (tmp_path / "spec.yaml").write_text(
        "tokens: [a, b]\nembeddings: [[1, 0], [0, 1]]\nweights:\n  W_Q: identity\n"
        "  W_K: identity\n  W_V: identity\n  W_O: [[1, 0], [0, 1]]\n"
        "  b_O: {file: b.npy, columns: [3, 0]}\n")
    assert load_spec(str(tmp_path / "spec.yaml")).b_O.tolist() == [3.5, 0.5]


def test_a_slice_is_charged_as_the_slice(tmp_path: Path) -> None:
    # the whole [4, 1000] array is 4,000 numbers, past a limit of 100; two columns are 8
    np.save(tmp_path / "E.npy", np.ones((4, 1000)))
    (tmp_path / "spec.yaml").write_text("tokens: [a, b, c, d]\n"
                                        "embeddings: {file: E.npy, columns: '0:2'}\n")
    assert load_spec(str(tmp_path / "spec.yaml"), max_cells=100).queries.embeddings.shape == (4, 2)
    (tmp_path / "spec.yaml").write_text("tokens: [a, b, c, d]\nembeddings: {file: E.npy}\n")
    with pytest.raises(SpecError, match="holds 4,000 numbers"):
        load_spec(str(tmp_path / "spec.yaml"), max_cells=100)


def sparse_npy(path: Path, rows: int, columns: int) -> None:
    """A float64 .npy of rows x columns whose data is a hole but for each row's first two
    numbers (row r holds r + 1 and -(r + 1)): 8·rows·columns bytes that take no disk."""
    with open(path, "wb") as out:
        np.lib.format.write_array_header_1_0(
            out, {"descr": "<f8", "fortran_order": False, "shape": (rows, columns)})
        start = out.tell()
        for row in range(rows):
            out.seek(start + row * columns * 8)
            out.write(np.array([row + 1, -(row + 1)], dtype="<f8").tobytes())
        out.truncate(start + rows * columns * 8)


def test_128_heads_of_two_columns_of_a_file_larger_than_the_memory_bound(tmp_path: Path) -> None:
    # [4, 8,000,000] float64 is 256 MB: reading it whole once would pass the bound by itself
    sparse_npy(tmp_path / "W.npy", 4, 8_000_000)
    head = "{file: W.npy, columns: '0:2'}"
    (tmp_path / "spec.yaml").write_text(
        "tokens: [a, b]\nembeddings: [[1, 0, 0, 0], [0, 1, 0, 0]]\nheads:\n"
        + f"  - {{W_Q: {head}, W_K: {head}, W_V: {head}}}\n" * 128)
    code, stderr, peak = peak_rss_mb("validate", "spec.yaml", cwd=tmp_path)
    assert (code, stderr) == (0, "attn: 1 spec is valid\n")
    assert peak < PEAK_MB
    spec = load_spec(str(tmp_path / "spec.yaml"))
    # row r of W (0-based) holds r + 1 and -(r + 1) in its first two columns
    assert spec.heads[127].W_Q.tolist() == [[1, -1], [2, -2], [3, -3], [4, -4]]


class Counted:
    """A file in memory that counts the reads made of it."""

    def __init__(self, data: bytes) -> None:
        self.data, self.at, self.reads = data, 0, 0

    def seek(self, offset: int, /) -> int:
        self.at = offset
        return offset

    def read(self, size: int, /) -> bytes:
        self.reads += 1
        piece = self.data[self.at:self.at + size]
        self.at += len(piece)
        return piece


@pytest.mark.parametrize("order", ["C", "F"])
def test_rows_close_together_are_read_at_once(order: str) -> None:
    """4,096 shuffled rows of a 4,096 x 2 array (64 KiB) are one read, where a read per row
    made 256 heads each taking them 3 million reads (5 s); the numbers are NumPy's."""
    from attncli.spec.npy_slice import Layout, read_slice

    array = np.arange(8192.0).reshape(4096, 2) / 8
    rows = np.random.default_rng(0).permutation(4096).tolist()
    stored = np.asfortranarray(array) if order == "F" else array
    raw = stored.tobytes(order="F" if order == "F" else "C")
    file = Counted(b"\0" * 16 + raw)
    got = read_slice(file, Layout((4096, 2), np.dtype("<f8"), order == "F", 16), rows, [1, 0])
    assert np.array_equal(got, array[rows][:, [1, 0]])
    assert file.reads == 1  # Fortran: the two columns are two lines, next to each other


def test_rows_far_apart_are_read_each_and_within_the_limit() -> None:
    """Two rows of a 2,000 x 1,000 array a megabyte apart are two reads of their numbers; a
    limit that ends inside the last row keeps reading to the numbers chosen."""
    from attncli.spec.npy_slice import Layout, read_slice

    array = np.arange(2_000_000.0).reshape(2000, 1000)
    file = Counted(array.tobytes())
    layout = Layout((2000, 1000), np.dtype("<f8"), False, 0)
    got = read_slice(file, layout, [0, 1999], [3, 4])
    assert np.array_equal(got, array[[0, 1999]][:, [3, 4]])
    assert file.reads == 2
    small = Counted(array[:3].tobytes())
    got = read_slice(small, Layout((3, 1000), np.dtype("<f8"), False, 0), [0, 1, 2], [0],
                     limit=(2 * 1000 + 1) * 8)
    assert np.array_equal(got, array[:3, [0]])
    assert small.reads == 3  # reading whole lines would pass the limit


@pytest.mark.parametrize(("dtype", "columns"), [("F32", None), ("F64", [1, 0, 1]),
                                                ("BF16", [2])])
def test_checkpoint_rows_close_together_are_read_at_once(tmp_path: Path, dtype: str,
                                                         columns: list[int] | None,
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    """4,096 shuffled and repeated rows of a [1,000, 3] tensor are one read of it (a read per row
    made 256 heads each taking 4,096 rows 3 million reads, 4.3 s); the numbers are NumPy's."""
    import json
    import struct

    from attncli.spec import checkpoint, opened
    from attncli.spec.opened import open_regular

    array = (np.arange(3000.0).reshape(1000, 3) / 4).astype(np.float32)
    stored = {"F32": array, "F64": array.astype(np.float64),
              "BF16": (array.view(np.uint32) >> 16).astype(np.uint16)}[dtype]
    header = json.dumps({"w": {"dtype": dtype, "shape": [1000, 3],
                               "data_offsets": [0, stored.nbytes]}}).encode()
    path = tmp_path / "m.safetensors"
    path.write_bytes(struct.pack("<Q", len(header)) + header + stored.tobytes())
    reads = []

    class Counting:
        """The file checkpoint.py opens, its reads counted."""

        def __init__(self, path: Path) -> None:
            self.file = open_regular(path)

        def __enter__(self) -> Counting:
            return self

        def __exit__(self, *exc: object) -> None:
            self.file.close()

        def seek(self, offset: int, whence: int = 0) -> int:
            return self.file.seek(offset, whence)

        def read(self, size: int = -1) -> bytes:
            reads.append(size)
            return self.file.read(size)

        def fileno(self) -> int:
            return self.file.fileno()

    monkeypatch.setattr(checkpoint, "open_regular", Counting)
    monkeypatch.setattr(opened, "open_regular", Counting)  # a tensor's rows: spec/opened.reading
    rows = np.random.default_rng(1).integers(0, 1000, 4096).tolist()
    tensor = checkpoint.open_tensor(path, "m.safetensors", "w", 10_000_000, False)
    reads.clear()
    got = tensor.read(rows, 10_000_000, columns)
    held = ((stored.astype(np.uint32) << 16).view(np.float32) if dtype == "BF16"
            else stored)  # bfloat16 keeps float32's top half
    expected = held.astype(np.float64)[rows]
    assert np.array_equal(got, expected if columns is None else expected[:, columns])
    assert len(reads) == 1
