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
