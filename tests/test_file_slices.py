"""`rows:` and `columns:` of a .npy, .npz or .csv file, read without a memory map and charged as
the slice (attncli/spec/file_slices.py, npy_slice.py). The numbers are checked against NumPy
reading the whole file; a file cut short under attn is one line; a slice of a 2 GB file reads
one row."""

from __future__ import annotations

import subprocess
import sys
import tracemalloc
import zipfile
from pathlib import Path

import numpy as np
import pytest

from attncli.errors import SpecError
from attncli.i18n import translate
from attncli.spec.file_slices import opened
from attncli.spec.files import FileProblem
from attncli.spec.loading import load_spec  # as the command line loads a spec
from attncli.spec.node import Node
from tests.test_npy_slices import WHOLE, sparse_npy

ROOT = Path(__file__).resolve().parent.parent
PICKS = [
    ('"1:3"', '"2:4"', (slice(1, 3), slice(2, 4))),
    ("[4, 0, 4]", "[6, 1, 6]", ([4, 0, 4], [6, 1, 6])),  # repeated and out of order
    (None, '"5:"', (slice(None), slice(5, None))),
    ("[2]", None, ([2], slice(None))),
]


def spec_of(tmp_path: Path, file: str, rows: str | None, columns: str | None, count: int,
            key: str | None = None) -> Path:
    chosen = "".join(f", {name}: {value}" for name, value in
                     (("key", key), ("rows", rows), ("columns", columns)) if value is not None)
    tokens = ", ".join(f"t{i}" for i in range(count))
    (tmp_path / "spec.yaml").write_text(f"tokens: [{tokens}]\n"
                                        f"embeddings: {{file: {file}{chosen}}}\n")
    return tmp_path / "spec.yaml"


@pytest.mark.parametrize("save", [np.savez, np.savez_compressed])
@pytest.mark.parametrize("stored", [WHOLE, np.asfortranarray(WHOLE), WHOLE.astype(">f4")])
@pytest.mark.parametrize(("rows", "columns", "picked"), PICKS)
def test_an_npz_slice_is_the_numbers_numpy_reads(tmp_path: Path, save: object,
                                                 stored: np.ndarray, rows: str | None,
                                                 columns: str | None,
                                                 picked: tuple[object, object]) -> None:
    save(tmp_path / "w.npz", other=np.eye(3), E=stored)  # type: ignore[operator]
    whole = np.load(tmp_path / "w.npz")["E"].astype(np.float64)
    expected = whole[picked[0]][:, picked[1]]  # type: ignore[index]
    spec = spec_of(tmp_path, "w.npz", rows, columns, expected.shape[0], key="E")
    assert np.array_equal(load_spec(str(spec)).queries.embeddings, expected)


@pytest.mark.parametrize(("rows", "columns", "picked"), PICKS)
def test_a_csv_slice_is_the_numbers_numpy_reads(tmp_path: Path, rows: str | None,
                                                columns: str | None,
                                                picked: tuple[object, object]) -> None:
    lines = [",".join(repr(float(x)) for x in row) for row in WHOLE]
    # a byte order mark, a comment, a blank line and \r\n ends: none of them is a row
    text = "\ufeff# W\r\n" + "\r\n".join(lines[:2]) + "\r\n\r\n" + "\r\n".join(lines[2:]) + "\r\n"
    (tmp_path / "w.csv").write_text(text, encoding="utf-8", newline="")
    whole = np.loadtxt(tmp_path / "w.csv", delimiter=",", comments="#", encoding="utf-8-sig")
    expected = whole[picked[0]][:, picked[1]]  # type: ignore[index]
    spec = spec_of(tmp_path, "w.csv", rows, columns, expected.shape[0])
    assert np.array_equal(load_spec(str(spec)).queries.embeddings, expected)


@pytest.mark.parametrize("name", ["E.csv", "E.npz"])
def test_a_csv_or_npz_slice_is_charged_as_the_slice(tmp_path: Path, name: str) -> None:
    # the whole [4, 1000] array is 4,000 numbers, past a limit of 100; two columns are 8
    whole = np.arange(4000.0).reshape(4, 1000)
    if name.endswith(".csv"):
        np.savetxt(tmp_path / name, whole, delimiter=",", fmt="%g")
    else:
        np.savez(tmp_path / name, E=whole)
    spec = spec_of(tmp_path, name, None, "'998:1000'", 4)
    got = load_spec(str(spec), max_cells=100).queries.embeddings
    assert got.tolist() == [[998, 999], [1998, 1999], [2998, 2999], [3998, 3999]]
    with pytest.raises(SpecError, match=r"4,000 numbers|more than 100 numbers"):
        load_spec(str(spec_of(tmp_path, name, None, None, 4)), max_cells=100)


def test_a_compressed_member_is_decompressed_only_within_the_limit(tmp_path: Path) -> None:
    np.savez_compressed(tmp_path / "E.npz", E=np.arange(4000.0).reshape(4, 1000))
    # the first row's first two numbers: 2 numbers decompressed, under 100
    spec = spec_of(tmp_path, "E.npz", "[0]", "'0:2'", 1)
    assert load_spec(str(spec), max_cells=100).queries.embeddings.tolist() == [[0, 1]]
    # the last row's last two: every number before them is decompressed to reach them
    spec = spec_of(tmp_path, "E.npz", "[3]", "'998:1000'", 1)
    with pytest.raises(SpecError, match=r"E\.npz \(E\) is compressed: reaching the chosen "
                                        r"numbers means decompressing 4,000 numbers; the limit "
                                        r"is 100"):
        load_spec(str(spec), max_cells=100)
    # as the refusal advises: saved with np.savez, the same slice is read in place
    np.savez(tmp_path / "E.npz", E=np.arange(4000.0).reshape(4, 1000))
    assert load_spec(str(spec), max_cells=100).queries.embeddings.tolist() == [[3998, 3999]]


def test_the_refusal_of_a_deep_compressed_slice_advises_np_savez(tmp_path: Path) -> None:
    np.savez_compressed(tmp_path / "E.npz", E=np.arange(4000.0).reshape(4, 1000))
    spec = spec_of(tmp_path, "E.npz", "[3]", "'998:1000'", 1)
    with pytest.raises(SpecError) as caught:
        load_spec(str(spec), max_cells=100)
    assert translate(caught.value.message) == (
        "embeddings.file: E.npz (E) is compressed: reaching the chosen numbers means "
        "decompressing 4,000 numbers; the limit is 100, which --max-cells sets; saved with "
        "np.savez (uncompressed), any slice of it is read in place")


@pytest.mark.parametrize(("members", "said"), [
    # NumPy's own words, untranslated, quoting the bytes: "the magic string is not correct"
    ({"E.npy": b"PK\0\0not an array"}, "E.npz (E): expected a .npy array, found other bytes"),
    # an archive of no members: "holds 0 arrays (); say which with key"
    ({}, "E.npz: the archive holds no arrays"),
])
def test_an_npz_of_no_arrays_or_other_bytes_says_so(tmp_path: Path, members: dict[str, bytes],
                                                    said: str) -> None:
    with zipfile.ZipFile(tmp_path / "E.npz", "w", zipfile.ZIP_DEFLATED) as archive:
        for name, data in members.items():
            archive.writestr(name, data)
    spec = spec_of(tmp_path, "E.npz", None, None, 1)
    with pytest.raises(SpecError) as caught:
        load_spec(str(spec))
    assert translate(caught.value.message) == f"embeddings.file: {said}"


def test_a_file_cut_short_after_its_header_was_read_is_one_line(tmp_path: Path) -> None:
    np.save(tmp_path / "E.npy", np.ones((4, 1000)))
    with pytest.raises(FileProblem) as caught, \
            opened(tmp_path / "E.npy", "E.npy", None, 10_000_000) as array:
        assert array.shape == (4, 1000)  # the header is read, the file is whole
        with open(tmp_path / "E.npy", "r+b") as file:
            file.truncate(128 + 8 * 2500)  # another process cuts it to 2,500 numbers of 4,000
        array.read([3], [0, 999])
    assert translate(caught.value.message, "en") == (
        "E.npy: the file ends before its data does: its header promises 32,000 bytes of numbers, "
        "the file holds 20,000 bytes")


def test_a_header_promising_more_than_the_file_holds_exits_2(tmp_path: Path) -> None:
    with open(tmp_path / "W.npy", "wb") as out:
        np.lib.format.write_array_header_1_0(
            out, {"descr": "<f8", "fortran_order": False, "shape": (1, 2)})
        out.write(np.ones(1).tobytes())  # 1 number of 2
    spec_of(tmp_path, "W.npy", "'0:1'", "'0:2'", 1)
    done = subprocess.run([sys.executable, "-m", "attncli", "explain", "spec.yaml"],
                          cwd=tmp_path, capture_output=True, text=True, timeout=60,
                          env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"})
    line = ("spec.yaml:2:20: embeddings.file: W.npy: the file ends before its data does: its "
            "header promises 16 bytes of numbers, the file holds 8 bytes")
    assert (done.returncode, done.stderr, done.stdout) == (2, line + "\n", "")
    assert line in (ROOT / "docs" / "spec-layer.md").read_text(encoding="utf-8")


def test_one_row_of_a_2_gb_file_reads_that_row(tmp_path: Path) -> None:
    # [1000, 262144] float64 is 2 GB of holes; a row is 2 MB
    sparse_npy(tmp_path / "W.npy", 1000, 262_144)
    with opened(tmp_path / "W.npy", "W.npy", None, 10_000_000) as array:
        tracemalloc.start()
        try:
            row = array.read([700], None)
            peak = tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()
    assert row.shape == (1, 262_144)
    assert row[0, :3].tolist() == [701, -701, 0]
    assert peak < 4 * 262_144 * 8  # the row, its column indices and a 1 MB read: not 2 GB


def test_reads_stay_within_the_chosen_numbers(tmp_path: Path,
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    sparse_npy(tmp_path / "W.npy", 1000, 262_144)
    sizes: list[int] = []
    with opened(tmp_path / "W.npy", "W.npy", None, 10_000_000) as array:
        from attncli.spec import file_slices
        from attncli.spec.opened import open_regular

        class Counting:
            def __init__(self, file: object) -> None:
                self.file = file

            def __getattr__(self, name: str) -> object:
                return getattr(self.file, name)

            def __enter__(self) -> Counting:
                return self

            def __exit__(self, *exc: object) -> None:
                self.file.close()  # type: ignore[attr-defined]

            def read(self, size: int = -1) -> bytes:
                data: bytes = self.file.read(size)  # type: ignore[attr-defined]
                sizes.append(len(data))
                return data

        monkeypatch.setattr(file_slices, "open_regular", lambda path: Counting(open_regular(path)))
        values = array.read([5, 999], [0, 1, 200_000])
    assert values.tolist() == [[6, -6, 0], [1000, -1000, 0]]
    # the 128-byte header, then of two rows each: columns 0 and 1, and column 200,000
    assert sum(sizes) == 128 + 2 * (16 + 8)


@pytest.mark.parametrize("suffix", [".npy", ".npz"])
def test_a_whole_file_shorter_than_its_header_gives_both_sizes(suffix: str,
                                                               tmp_path: Path) -> None:
    """Read whole (no rows: or columns:), a file cut short says what the slice path says."""
    header = {"descr": "<f8", "fortran_order": False, "shape": (4, 1000)}
    if suffix == ".npy":
        with open(tmp_path / "E.npy", "wb") as out:
            np.lib.format.write_array_header_1_0(out, header)
            out.write(b"\0" * 8 * 2500)  # 2,500 numbers of 4,000
    else:
        with zipfile.ZipFile(tmp_path / "E.npz", "w") as archive, \
                archive.open("E.npy", "w") as member:
            np.lib.format.write_array_header_1_0(member, header)
            member.write(b"\0" * 8 * 2500)
    (tmp_path / "spec.yaml").write_text(f"tokens: [a, b, c, d]\nembeddings: {{file: E{suffix}}}\n",
                                        encoding="utf-8")
    with pytest.raises(SpecError) as caught:
        load_spec(str(tmp_path / "spec.yaml"))
    name = "E.npy" if suffix == ".npy" else "E.npz (E)"
    assert str(caught.value) == (
        f"{tmp_path / 'spec.yaml'}:2:20: embeddings.file: {name}: the file ends before its data "
        "does: its header promises 32,000 bytes of numbers, the file holds 20,000 bytes")
    assert translate(caught.value.message, "ru").endswith(
        "по заголовку числовые данные занимают 32\u00a0000 байт, а\u00a0после заголовка "
        "в\u00a0файле только 20\u00a0000 байт")


@pytest.mark.parametrize(("name", "written"), [
    ("spec.yaml", "tokens: [a, b, c]\nembeddings: {{file: E.npy, rows: [{rows}]}}\n"),
    ("spec.json", '{{"tokens": ["a", "b", "c"], "embeddings": {{"file": "E.npy", '
                  '"rows": [{rows}]}}}}'),
])
def test_a_long_list_of_whole_rows_is_read_without_a_node_each(
        name: str, written: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """`rows:` of 99,000 indices (200,000 took 2.0 s when each index was a Node of its own; the
    spec may now write 150,000 values): read from the list's numbers; the Nodes of its items are
    made only for an error's line and column."""
    np.save(tmp_path / "E.npy", np.arange(20.0).reshape(10, 2))
    made = []
    items = Node.value.fget
    monkeypatch.setattr(Node, "value", property(lambda node: made.append(node._items) or
                                                items(node)))
    rows = [7, 0, 7] * 3 + [9] * 98_991  # 99,000 indices, repeated
    (tmp_path / name).write_text(written.format(rows=", ".join(map(str, rows))),
                                 encoding="utf-8")
    with pytest.raises(SpecError) as caught:
        load_spec(str(tmp_path / name))
    assert "has 99,000 rows, expected one per token (3)" in str(caught.value)
    assert not [built for built in made if built is not None]  # no list's items were made
    (tmp_path / name).write_text(written.format(rows="9, 0, 9"), encoding="utf-8")
    assert load_spec(str(tmp_path / name)).queries.embeddings.tolist() == [
        [18, 19], [0, 1], [18, 19]]


@pytest.mark.parametrize(("rows", "said"), [
    ("1.0, 2", "2:34: embeddings.rows[0]: expected a whole number, found the number 1.0"),
    ("1, -1", "2:37: embeddings.rows[1]: expected a whole number of at least 0, found -1"),
    ("1, 1e3", "2:37: embeddings.rows[1]: expected a whole number, found the number 1e3"),
])
def test_a_row_not_written_whole_is_still_refused_at_its_place(rows: str, said: str,
                                                               tmp_path: Path) -> None:
    np.save(tmp_path / "E.npy", np.arange(20.0).reshape(10, 2))
    (tmp_path / "spec.yaml").write_text(
        f"tokens: [a, b]\nembeddings: {{file: E.npy, rows: [{rows}]}}\n", encoding="utf-8")
    with pytest.raises(SpecError) as caught:
        load_spec(str(tmp_path / "spec.yaml"))
    assert str(caught.value) == f"{tmp_path / 'spec.yaml'}:{said}"
