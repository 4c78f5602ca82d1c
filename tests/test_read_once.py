"""A file a spec names is read once however often it is named, and the work of reading part of
it is bounded by what is read: a .csv or .npz named whole by many heads, a checkpoint's header
(and its shard index) for every tensor of every layer of a model folder, a .csv's rows in any
order, a few cells of a row of millions, an .npz member compressed in a way whose reads Python
does not bound. Each test counts what is read (calls, bytes, memory held), never time."""

from __future__ import annotations

import io
import json
import sys
import tracemalloc
import zipfile
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from attncli.errors import SpecError
from attncli.i18n import translate
from attncli.spec import arrays, checkpoint, csv_file, csv_lines, csv_wide
from attncli.spec.csv_file import CsvFile
from attncli.spec.loading import load_spec  # as the command line loads a spec
from tests.conftest import run
from tests.safetensors_file import safetensors

ID = "[[1, 0], [0, 1]]"


def heads_naming(folder: Path, reference: str, count: int) -> Path:
    """A spec of `count` heads whose W_Q, W_K and W_V are each `reference`."""
    spec = folder / "s.yaml"
    spec.write_text(f"tokens: [a, b]\nembeddings: {ID}\nheads: [&h {{W_Q: {reference}, "
                    f"W_K: {reference}, W_V: {reference}}}" + ", *h" * (count - 1) + "]\n")
    return spec


def counted(monkeypatch: pytest.MonkeyPatch, module: Any, name: str) -> list[object]:
    """The calls of `module.name` from now on, one entry each."""
    calls: list[object] = []
    real = getattr(module, name)

    def counting(*args: Any, **kwargs: Any) -> Any:
        calls.append(args[0] if args else None)
        return real(*args, **kwargs)

    monkeypatch.setattr(module, name, counting)
    return calls


def weights_file(path: Path) -> np.ndarray:
    """A 2 x 2 matrix written to `path`, a .csv (with a comment) or an .npz (as w), and its
    numbers."""
    weights = np.array([[2.0, 0.5], [-1.0, 3.0]])
    if path.suffix == ".csv":
        path.write_text("2,0.5\n-1,3\n# a note\n")
    else:
        np.savez(path, w=weights)
    return weights


@pytest.mark.parametrize("file", ["w.csv", "w.npz"])
def test_a_file_named_whole_by_many_heads_is_read_once(
        file: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # 16 heads name it 48 times: one reading, 48 matrices of 4 numbers charged
    weights = weights_file(tmp_path / file)
    reference = f"{{file: {file}}}" if file.endswith(".csv") else f"{{file: {file}, key: w}}"
    spec = heads_naming(tmp_path, reference, 16)
    readings = counted(monkeypatch, arrays, "load_array")
    loaded = load_spec(str(spec), max_cells=4 + 48 * 4 + 10_000)
    assert len(readings) == 1
    assert len(loaded.heads) == 16
    for head in loaded.heads:
        for matrix in (head.W_Q, head.W_K, head.W_V):
            assert matrix.tolist() == weights.tolist()
    matrices = [m for head in loaded.heads for m in (head.W_Q, head.W_K, head.W_V)]
    assert len({id(m) for m in matrices}) == 48  # each reference a matrix of its own


def test_a_file_named_whole_is_charged_for_every_reference(tmp_path: Path) -> None:
    # 4 numbers of embeddings + 4 heads × 3 references × 4 numbers = 52; a limit of 50 is
    # passed at the twelfth reference, read from the file kept
    (tmp_path / "w.csv").write_text("1,0\n0,1\n")
    spec = heads_naming(tmp_path, "{file: w.csv}", 4)
    with pytest.raises(SpecError) as raised:
        load_spec(str(spec), max_cells=50)
    assert translate(raised.value.message) == (
        "heads[3].W_V.file: a matrix of 2 × 2 brings the spec to 52 numbers; the limit is 50, "
        "which --max-cells sets")


@pytest.mark.parametrize("index", [False, True])
def test_a_checkpoint_header_is_parsed_once_for_every_tensor_a_spec_names(
        index: bool, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    weights = np.array([[1.0, 2.0], [3.0, 4.0]])
    (tmp_path / "m.safetensors").write_bytes(
        safetensors({"w": weights, "v": weights.T}, "<f4", {"note": "x" * 10_000}))
    name = "m.safetensors"
    if index:
        name = "model.safetensors.index.json"
        (tmp_path / name).write_text(json.dumps({"weight_map": {"w": "m.safetensors",
                                                                "v": "m.safetensors"}}))
    spec = heads_naming(tmp_path, f"{{file: {name}, key: w}}", 8)
    headers = counted(monkeypatch, checkpoint, "_read_header")
    indices = counted(monkeypatch, checkpoint, "read_json_object")
    loaded = load_spec(str(spec))
    assert (len(headers), len(indices)) == (1, 1 if index else 0)
    assert all(head.W_V.tolist() == weights.tolist() for head in loaded.heads)


def test_a_checkpoint_changed_between_two_readings_is_parsed_again(tmp_path: Path) -> None:
    path = tmp_path / "m.safetensors"
    path.write_bytes(safetensors({"w": np.eye(2)}, "<f4"))
    headers: checkpoint.Headers = {}
    first = checkpoint.open_tensor(path, "m.safetensors", "w", 100, False, headers=headers)
    path.write_bytes(safetensors({"a": np.zeros(3), "w": 2 * np.eye(2)}, "<f4"))
    second = checkpoint.open_tensor(path, "m.safetensors", "w", 100, False, headers=headers)
    assert first.start != second.start  # where the data starts, by the new header
    assert second.read(None, 100).tolist() == [[2.0, 0.0], [0.0, 2.0]]


def llama_folder(folder: Path, layers: int) -> None:
    """A Llama of d_model 4, 2 heads and `layers` layers, its weights drawn from seed 0."""
    rng = np.random.default_rng(0)
    tensors = {"model.embed_tokens.weight": rng.normal(size=(8, 4)),
               "model.norm.weight": np.ones(4)}
    for layer in range(layers):
        at = f"model.layers.{layer}."
        tensors |= {at + "input_layernorm.weight": np.ones(4),
                    at + "post_attention_layernorm.weight": np.ones(4)}
        for part in ("q", "k", "v", "o"):
            tensors[at + f"self_attn.{part}_proj.weight"] = rng.normal(size=(4, 4))
        tensors |= {at + "mlp.gate_proj.weight": rng.normal(size=(2, 4)),
                    at + "mlp.up_proj.weight": rng.normal(size=(2, 4)),
                    at + "mlp.down_proj.weight": rng.normal(size=(4, 2))}
    (folder / "m").mkdir()
    (folder / "m" / "config.json").write_text(json.dumps({
        "model_type": "llama", "hidden_size": 4, "num_attention_heads": 2,
        "num_key_value_heads": 2, "num_hidden_layers": layers, "intermediate_size": 2,
        "rms_norm_eps": 1e-5, "rope_theta": 10000.0, "vocab_size": 8, "hidden_act": "silu",
        "max_position_embeddings": 16}))
    (folder / "m" / "model.safetensors").write_bytes(safetensors(tensors, "<f4"))


def test_a_model_folders_last_layer_parses_the_header_once(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # layer 5 of 6 lays out the 9 tensors of each layer before it: 54 tensors, one header
    llama_folder(tmp_path, 6)
    spec = tmp_path / "s.yaml"
    spec.write_text("model: {path: m, layer: 5, block: true}\ntokens: {ids: [1, 2, 3]}\n")
    headers = counted(monkeypatch, checkpoint, "_read_header")
    load_spec(str(spec))
    assert len(headers) == 1


def blank_windows(windows: int, blank: int) -> bytes:
    """`windows` windows of STRIDE rows: rows `1,0` and `0,1`, `blank` blank lines, then the
    window's other rows `1,1`."""
    stride = csv_file.STRIDE
    return (b"1,0\n0,1\n" + b"\n" * blank + b"1,1\n" * (stride - 2)) * windows


def looked_at(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The bytes of every stretch of the file whose lines are found from now on."""
    looked: list[int] = []
    real = csv_lines.pieces

    def counting(data: bytes, at: int, stop: int, first: int = 0) -> Any:
        looked.append(stop - at)
        return real(data, at, stop, first)

    monkeypatch.setattr(csv_file, "pieces", counting)
    return looked


def test_rows_cycling_over_windows_of_many_blank_lines_find_each_window_once(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # 20 windows of 100,000 blank lines (more than LONG_WINDOW bytes each), 1,000 rows cycling
    # over them: past the 16 windows found as the file is measured, the other 4 are found once
    # each (two at a look: RUN bytes), whether the rows are read at once or a row at a time
    data = blank_windows(20, 100_000)
    path = tmp_path / "e.csv"
    path.write_bytes(data)
    table = CsvFile(path, "e.csv", 10_000_000)
    looked = looked_at(monkeypatch)
    stride = csv_file.STRIDE
    rows = [(i % 20) * stride + i % 2 for i in range(1000)]
    expected = [[1.0, 0.0] if i % 2 == 0 else [0.0, 1.0] for i in range(1000)]
    assert table.read(rows, [0, 1]).tolist() == expected
    assert [table.read([row], None).tolist()[0] for row in rows] == expected
    assert len(looked) == 2
    assert sum(looked) == 4 * len(data) // 20 - 1  # windows 16 to 19, the last line's break out


def test_a_row_set_finds_each_window_once_whatever_its_order(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # one window kept: rows alternating between two windows found both windows at one look
    monkeypatch.setattr(csv_file, "WINDOWS_KEPT", 1)
    path = tmp_path / "e.csv"
    path.write_bytes(blank_windows(4, 10))
    table = CsvFile(path, "e.csv", 10_000)
    looked = looked_at(monkeypatch)
    stride = csv_file.STRIDE
    rows = [2 * stride, 3 * stride + 1] * 50
    assert table.read(rows, None).tolist() == [[1.0, 0.0], [0.0, 1.0]] * 50
    assert len(looked) == 1


def test_the_window_used_last_is_the_one_kept(tmp_path: Path,
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    # two windows kept, 0 and 1 as the file is measured: 0 read again is kept over 1 when
    # window 2 is found, so 0 read a third time is not found again (first in, first out
    # would have let 0 go)
    monkeypatch.setattr(csv_file, "WINDOWS_KEPT", 2)
    path = tmp_path / "e.csv"
    path.write_bytes(blank_windows(4, 10))
    table = CsvFile(path, "e.csv", 10_000)
    looked = looked_at(monkeypatch)
    stride = csv_file.STRIDE
    for row in (0, 2 * stride, 0, 1):
        table.read([row], None)
    assert len(looked) == 1


@pytest.mark.parametrize("columns", [[0, 1], [1, 0, 1], [0, 3_999_999]])
def test_cells_of_a_row_of_millions_hold_its_commas_counted_per_block(
        columns: list[int], tmp_path: Path) -> None:
    # a row of 4,000,000 cells, 4 MB: its commas' places would be 32 MB as int64; what is held
    # while a few cells are picked is a CHUNK's (64 KiB: 512 KiB of places at most)
    width = 4_000_000
    path = tmp_path / "e.csv"
    path.write_bytes(b"1,0" + b"," * (width - 2) + b"5\n" + b"0,1" + b"," * (width - 2) + b"6\n")
    table = CsvFile(path, "e.csv", 10_000_000)
    tracemalloc.start()
    try:
        found = table.read([0, 1, 0], columns)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    cell = {0: [1.0, 0.0], 1: [0.0, 1.0]}
    last = {0: 5.0, 1: 6.0}
    expected = [[cell[row][c] if c < 2 else last[row] for c in columns] for row in (0, 1, 0)]
    assert found.tolist() == expected
    assert peak < 1_000_000
    # what stays is the commas counted before each BLOCK, as far as the COUNTED bytes that
    # hold the last column asked for: 8 bytes a BLOCK, 1/64 of the row at most
    blocks = -(-(4_000_000 + 2) // csv_wide.BLOCK)  # 7,813 blocks of 512 bytes in each row
    reached = blocks if columns[-1] > 1 else csv_wide.COUNTED // csv_wide.BLOCK
    assert [len(table._wide[row].marks) for row in (0, 1)] == [reached + 1, reached + 1]
    assert table._wide[0].marks.tolist()[:3] == [0, 510, 1022]  # "1" and "0" in the first


def test_cells_of_short_rows_keep_nothing_after_them(tmp_path: Path) -> None:
    path = tmp_path / "e.csv"
    path.write_bytes(b"".join(b"%d,%d,%d\n" % (i, -i, 2 * i) for i in range(10_000)))
    table = CsvFile(path, "e.csv", 1_000_000)
    rows = list(range(9_999, -1, -7))
    assert table.read(rows, [2, 0]).tolist() == [[2.0 * i, float(i)] for i in rows]
    assert table._wide == {}


def test_an_empty_cell_picked_is_named_at_its_column(tmp_path: Path) -> None:
    path = tmp_path / "e.csv"
    path.write_bytes(b"1,,3\n4,5,6\n")
    table = CsvFile(path, "e.csv", 100)
    assert table.read([1], [2, 0]).tolist() == [[6.0, 4.0]]
    with pytest.raises(csv_file.FileProblem) as raised:
        table.read([0], [1])
    assert translate(raised.value.message) == ("e.csv: line 1, column 2: expected a number, "
                                               "found an empty cell")


def compressed_npz(path: Path, method: int) -> None:
    saved = io.BytesIO()
    np.save(saved, np.eye(2))
    with zipfile.ZipFile(path, "w", compression=method) as archive:
        archive.writestr("w.npy", saved.getvalue())


SAID = {
    "en": "s.yaml:2:20: embeddings.file: e.npz (w) is compressed with {method}; attn reads an "
          ".npz array stored (np.savez) or deflated (np.savez_compressed)",
    "pl": "s.yaml:2:20: embeddings.file: e.npz (w): tablica jest skompresowana metodą {method}; "
          "attn odczytuje tylko tablice .npz zapisane bez kompresji (np.savez) albo skompresowane "
          "metodą deflate (np.savez_compressed)",
    "ru": "s.yaml:2:20: embeddings.file: e.npz (w): массив сжат методом {method}; attn читает "
          "только массивы .npz, сохранённые без сжатия (np.savez) или сжатые методом deflate "
          "(np.savez_compressed)",
}


@pytest.mark.parametrize("method", [zipfile.ZIP_BZIP2, zipfile.ZIP_LZMA])
@pytest.mark.parametrize("rows", ["", ", rows: [0, 1]"])
@pytest.mark.parametrize("lang", sorted(SAID))
def test_an_npz_member_neither_stored_nor_deflated_is_refused_unopened(
        method: int, rows: str, lang: str, tmp_path: Path,
        monkeypatch: pytest.MonkeyPatch) -> None:
    # Python decompresses bzip2 and LZMA with no bound on what one read gives (a kilobyte
    # gives gigabytes): the member is refused by its directory entry, before it is opened
    compressed_npz(tmp_path / "e.npz", method)
    (tmp_path / "s.yaml").write_text(f"tokens: [a, b]\nembeddings: {{file: e.npz, key: w{rows}}}"
                                     "\nweights: {W_Q: identity, W_K: identity, W_V: identity}\n")
    opened = counted(monkeypatch, zipfile.ZipFile, "open")
    monkeypatch.chdir(tmp_path)
    result = run("explain", "s.yaml", "--lang", lang)
    name = {zipfile.ZIP_BZIP2: "bzip2", zipfile.ZIP_LZMA: "LZMA"}[method]
    assert (result.exit_code, result.stdout) == (2, "")
    assert result.stderr == SAID[lang].format(method=name) + "\n"
    assert opened == []


@pytest.mark.parametrize("bound", ["0:" + "9" * 700, "0" * 700 + "1:" + "9" * 19])
def test_a_slice_bound_of_too_many_digits_is_refused_where_it_is_written(
        bound: str, tmp_path: Path) -> None:
    # under PYTHONINTMAXSTRDIGITS=640, int() of 700 digits raises; past 18 digits no file has
    # that many rows: the bound is out of range, said as any other (leading zeros count not)
    limit = sys.get_int_max_str_digits()
    np.save(tmp_path / "e.npy", np.eye(2))
    spec = tmp_path / "s.yaml"
    spec.write_text(f'tokens: [a, b]\nembeddings: {{file: e.npy, rows: "{bound}"}}\n')
    sys.set_int_max_str_digits(640)
    try:
        with pytest.raises(SpecError) as raised:
            load_spec(str(spec))
    finally:
        sys.set_int_max_str_digits(limit)
    said = translate(raised.value.message)
    assert said.startswith("embeddings.rows: expected start:stop with start < stop <= 2, found ")
    assert "Exceeds" not in said and len(said) < 200


def test_a_checkpoints_other_names_share_its_header(tmp_path: Path,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    # 256 hard links to one .safetensors with 30 MB of metadata, one a head: each name parsed
    # and kept the header again, 18 s and 7.4 GB; a file is now known by its device and inode
    import os

    weights = np.array([[1.0, 2.0], [3.0, 4.0]])
    (tmp_path / "m.safetensors").write_bytes(safetensors({"w": weights}, "<f4",
                                                         {"note": "x" * 10_000}))
    for k in range(8):
        os.link(tmp_path / "m.safetensors", tmp_path / f"l{k}.safetensors")
    spec = tmp_path / "s.yaml"
    spec.write_text(f"tokens: [a, b]\nembeddings: {ID}\nheads: [" + ", ".join(
        f"{{W_Q: {{file: l{k}.safetensors, key: w}}, W_K: {ID}, W_V: {ID}}}" for k in range(8))
        + "]\n", encoding="utf-8")
    headers = counted(monkeypatch, checkpoint, "_read_header")
    loaded = load_spec(str(spec))
    assert len(headers) == 1
    assert all(head.W_Q.tolist() == weights.tolist() for head in loaded.heads)


@pytest.mark.parametrize("index", [False, True])
def test_a_header_is_kept_without_its_metadata(index: bool, tmp_path: Path) -> None:
    # the headers of a spec's checkpoints are kept while it is read: 16 files with 30 MB of
    # metadata each took 550 MB, though no tensor is read from it
    path = tmp_path / "m.safetensors"
    path.write_bytes(safetensors({"w": np.eye(2)}, "<f4", {"note": "x" * 100_000}))
    name = "m.safetensors"
    if index:
        name = "model.safetensors.index.json"
        (tmp_path / name).write_text(json.dumps({"metadata": {"total_size": 16, "note": "x" *
                                                              100_000},
                                                 "weight_map": {"w": "m.safetensors"}}))
    headers: checkpoint.Headers = {}
    tensor = checkpoint.open_tensor(tmp_path / name, name, "w", 100, False, headers=headers)
    assert tensor.read(None, 100).tolist() == [[1.0, 0.0], [0.0, 1.0]]
    assert [sorted(parsed) for _, parsed, _ in headers.values()] == (
        [["weight_map"], ["w"]] if index else [["w"]])
    with pytest.raises(checkpoint.FileProblem) as missing:
        checkpoint.open_tensor(path, "m.safetensors", "__metadata__", 100, False, headers=headers)
    assert translate(missing.value.message, "en") == ("m.safetensors has no tensor "
                                                       "“__metadata__”; it has “w”")


@pytest.mark.parametrize("file", ["w.csv", "w.npz"])
def test_a_file_named_whole_under_other_names_is_read_once(
        file: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # 256 hard links to one 30 MB .csv, one a head: each name was read again (16.7 s)
    import os

    weights = weights_file(tmp_path / file)
    suffix = file.split(".")[1]
    for k in range(8):
        os.link(tmp_path / file, tmp_path / f"l{k}.{suffix}")
    key = "" if suffix == "csv" else ", key: w"
    spec = tmp_path / "s.yaml"
    spec.write_text(f"tokens: [a, b]\nembeddings: {ID}\nheads: [" + ", ".join(
        f"{{W_Q: {{file: l{k}.{suffix}{key}}}, W_K: {ID}, W_V: {ID}}}" for k in range(8))
        + "]\n", encoding="utf-8")
    readings = counted(monkeypatch, arrays, "load_array")
    loaded = load_spec(str(spec))
    assert len(readings) == 1
    assert all(head.W_Q.tolist() == weights.tolist() for head in loaded.heads)


def test_a_csv_slice_named_by_many_heads_is_converted_once(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """64 heads each naming the same 300 rows and 2 columns of a .csv convert them once (256
    heads naming 4,096 rows of a 4,096 x 2 file converted 3 million rows: killed at 20 s); each
    reference is still a matrix of its own, charged."""
    table = np.arange(600.0).reshape(300, 2) / 8
    (tmp_path / "w.csv").write_text("\n".join(f"{a},{b}" for a, b in table) + "\n")
    reference = '{file: w.csv, rows: "0:300", columns: [1, 0]}'
    spec = tmp_path / "s.yaml"
    spec.write_text("tokens: [a, b]\nembeddings: {random: {seed: 1}, shape: [2, 300]}\n"
                    f"heads: [&h {{W_Q: {reference}, W_K: {reference}, W_V: {reference}}}"
                    + ", *h" * 63 + "]\n", encoding="utf-8")
    rows = counted(monkeypatch, CsvFile, "_row")
    runs = counted(monkeypatch, csv_file, "chosen_rows")
    loaded = load_spec(str(spec))
    assert len(rows) == 0 and len(runs) == 1  # 300 rows of 3 KB: one run, none alone
    matrices = [m for head in loaded.heads for m in (head.W_Q, head.W_K, head.W_V)]
    assert len(matrices) == 192 and len({id(m) for m in matrices}) == 192
    for matrix in matrices:
        assert matrix.tolist() == table[:, [1, 0]].tolist()
    with pytest.raises(SpecError, match="brings the spec to 115,800 numbers"):  # each charged
        load_spec(str(spec), max_cells=600 + 191 * 600)


def test_rows_named_in_another_order_by_each_head_find_each_window_once(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """20 windows of 5,000 blank lines (under 64 KiB, over LONG_WINDOW), a row of each named by
    20 heads, each head's rows rotated: every window past the 16 found as the file is counted
    is found once (rotated rows over 600 such windows, 240 heads: killed at 20 s), and the rows
    are converted once, each head's matrix laid out in its order."""
    stride = csv_file.STRIDE
    data = blank_windows(20, 5_000)
    path = tmp_path / "e.csv"
    path.write_bytes(data)
    table = CsvFile(path, "e.csv", 10_000_000)
    looked = looked_at(monkeypatch)
    converted = counted(monkeypatch, csv_file, "chosen_rows")
    rows = [window * stride + window % 2 for window in range(20)]
    for head in range(20):
        order = rows[head:] + rows[:head]
        expected = [[1.0, 0.0] if row % 2 == 0 else [0.0, 1.0] for row in order]
        assert table.read(order, [0, 1]).tolist() == expected
    assert len(looked) == 1 and sum(looked) == 4 * len(data) // 20 - 1  # windows 16 to 19
    assert len(converted) == 1  # 20 rows within RUN bytes: one run


def test_columns_spread_over_a_wide_row_read_the_blocks_that_hold_them(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Two rows of 2,000,000 cells, 40 heads each naming 20 columns one every 99,991 cells (a
    set of its own each): the commas are counted once, then each head reads the BLOCKs of 512
    bytes that hold its cells (each chunk of 64 KiB holding one was placed again for every
    head: 256 heads over rows of 9.5 million cells, killed at 20 s)."""
    width = 2_000_000
    cells = np.arange(width) % 7  # (width,) one digit each, every cell 2 bytes
    row = ",".join(map(str, cells.tolist())).encode()
    path = tmp_path / "e.csv"
    path.write_bytes(row + b"\n" + row + b"\n")
    table = CsvFile(path, "e.csv", 10_000_000)
    read: list[int] = []
    real = CsvFile._bytes

    def counting(self: CsvFile, start: int, end: int) -> bytes:
        read.append(end - start)
        return real(self, start, end)

    monkeypatch.setattr(CsvFile, "_bytes", counting)
    for head in range(40):
        columns = [head * 1_000 + 99_991 * i for i in range(20)]
        assert table.read([1, 0], columns).tolist() == [cells[columns].tolist()] * 2
    counting_pass = 2 * 2 * width  # each row's bytes, once, as its commas are counted
    assert sum(read) < counting_pass + 2 * 40 * 2 * 20 * csv_wide.BLOCK
    assert sum(read) < 1.2 * len(row) * 2


def test_the_csv_files_a_spec_slices_are_not_held(tmp_path: Path) -> None:
    """Three .csv files of 2 MB, 4 rows of each read by heads: the spec holds their rows'
    places and what it read, not their bytes (9 files of 38 MB held 362 MB)."""
    table = b"0.5,0.25\n" * 222_222  # 2 MB
    heads = []
    for index in range(3):
        (tmp_path / f"w{index}.csv").write_bytes(table)
        reference = f'{{file: w{index}.csv, rows: "0:4", columns: [1, 0]}}'
        heads.append(f"{{W_Q: {reference}, W_K: {reference}, W_V: {reference}}}")
    spec = tmp_path / "s.yaml"
    spec.write_text("tokens: [a, b]\nembeddings: {random: {seed: 1}, shape: [2, 4]}\n"
                    f"heads: [{', '.join(heads)}]\n", encoding="utf-8")
    load_spec(str(spec))  # the modules it needs imported first
    tracemalloc.start()
    try:
        loaded = load_spec(str(spec))
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert all(head.W_K.tolist() == [[0.25, 0.5]] * 4 for head in loaded.heads)
    assert peak < 1.5 * len(table)  # one file's bytes while its lines are counted


def test_a_csv_file_rewritten_after_it_was_counted_is_said_to_have_changed(
        tmp_path: Path) -> None:
    """Its rows are read from the file again: a file another since it was counted is not read
    at the places found in the old one."""
    path = tmp_path / "e.csv"
    path.write_bytes(b"1,2\n3,4\n")
    table = CsvFile(path, "e.csv", 100)
    assert table.read([1], [1]).tolist() == [[4.0]]
    path.write_bytes(b"10,20\n30,40\n")
    with pytest.raises(csv_file.FileProblem) as raised:
        table.read([0], [0])
    assert translate(raised.value.message) == "e.csv: the file changed while attn read it"


@pytest.mark.parametrize("rows", [False, True])
def test_an_npz_directory_is_read_once_for_all_the_members_a_spec_names(
        rows: bool, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """48 arrays of one .npz of 64 members, each named once, whole or by rows: the archive's
    directory is read once (768 members of 1,024 read it 768 times: 3.4 s)."""
    np.savez(tmp_path / "w.npz", **{f"m{i}": np.full((2, 2), float(i)) for i in range(64)})
    tail = ", rows: [1, 0]}" if rows else "}"
    heads = ", ".join("{" + ", ".join(f"{matrix}: {{file: w.npz, key: m{3 * head + index}"
                                      + tail for index, matrix in enumerate(("W_Q", "W_K",
                                                                             "W_V"))) + "}"
                      for head in range(16))
    spec = tmp_path / "s.yaml"
    spec.write_text(f"tokens: [a, b]\nembeddings: {ID}\nheads: [{heads}]\n", encoding="utf-8")
    directories = counted(monkeypatch, zipfile.ZipFile, "_RealGetContents")
    loaded = load_spec(str(spec))
    assert len(directories) == 1
    assert [head.W_V.tolist() for head in loaded.heads] == [
        [[3.0 * head + 2] * 2] * 2 for head in range(16)]


def test_an_npz_rewritten_between_two_readings_has_its_directory_read_again(
        tmp_path: Path) -> None:
    from attncli.spec.files import Archives, load_array

    path = tmp_path / "w.npz"
    np.savez(path, a=np.eye(2))
    archives: Archives = {}
    assert load_array(path, "w.npz", "a", archives=archives).tolist() == [[1, 0], [0, 1]]
    np.savez(path, a=np.ones((2, 2)), b=np.zeros(3))
    assert load_array(path, "w.npz", "b", archives=archives).tolist() == [0, 0, 0]
    assert [len(listing.members) for listing in archives.values()] == [2]


def test_the_blocks_of_one_document_read_a_file_they_share_once(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """20 blocks of one document, each a spec of its own naming one .csv by rows, one .npz
    whole and one checkpoint: each file is read once for the document (200 blocks naming a
    30 MB .csv: killed at 20 s), and each block's walkthrough is its own."""
    from attncli.fill.document import fill

    (tmp_path / "w.csv").write_text("".join(f"{i},{-i}\n" for i in range(40)))
    np.savez(tmp_path / "w.npz", w=np.array([[2.0, 0.5], [-1.0, 3.0]]))
    (tmp_path / "m.safetensors").write_bytes(safetensors({"w": np.eye(2)}, "<f4"))
    blocks = "".join(
        f"\n```attn\ntokens: [a, b]\nembeddings: {{file: w.csv, rows: [{b}, {b + 1}]}}\n"
        "heads: [{W_Q: {file: w.npz, key: w}, W_K: {file: m.safetensors, key: w}, "
        f"W_V: {ID}}}]\n```\n" for b in range(20))
    document = tmp_path / "post.md"
    document.write_text("# post\n" + blocks, encoding="utf-8")
    tables = counted(monkeypatch, CsvFile, "__init__")
    archives = counted(monkeypatch, zipfile.ZipFile, "_RealGetContents")
    wholes = counted(monkeypatch, arrays, "load_array")
    headers = counted(monkeypatch, checkpoint, "_read_header")
    filled = fill(document, 1_000)
    assert (len(tables), len(archives), len(wholes), len(headers)) == (1, 1, 1, 1)
    outputs = filled.new.split("```attn")[1:]
    assert len(outputs) == 20
    for b in (3, 7, 18):  # each block's own embeddings: rows b and b + 1 of the file
        assert f"{b}.00 & {{-}}{b}.00 \\cr" in outputs[b]
        assert f"{b + 1}.00 & {{-}}{b + 1}.00 \\cr" in outputs[b]
        assert f"{b + 2}.00 & {{-}}{b + 2}.00" not in outputs[b]


def test_the_blocks_of_one_document_each_charge_what_they_read(tmp_path: Path) -> None:
    """The files read once still count against each block's own limit: the second block, whose
    matrices all come from files the first read, is refused at its second head's W_Q (8 + 4 x
    16 numbers), as it would be alone; the first (8 + 3 x 16) is within it."""
    from attncli.fill.document import fill

    np.save(tmp_path / "e.npy", np.ones((2, 4)))
    np.save(tmp_path / "w.npy", np.eye(4))
    head = "{W_Q: {file: w.npy}, W_K: {file: w.npy}, W_V: {file: w.npy}}"
    document = tmp_path / "post.md"
    document.write_text("".join(f"\n```attn\ntokens: [a, b]\nembeddings: {{file: e.npy}}\n"
                                f"heads: [{heads}]\n```\n" for heads in (head, f"{head}, {head}")),
                        encoding="utf-8")
    with pytest.raises(SpecError, match="brings the spec to 72 numbers; the limit is 60") as raised:
        fill(document, 60)
    assert raised.value.where is not None and raised.value.where.line == 11


def test_specs_sharing_reads_read_a_file_changed_between_them_again(tmp_path: Path) -> None:
    """Within one `attn fill`, a .csv sliced by a block and rewritten before the next is read
    anew by the next (the file kept by its size and time of change), not said to have changed."""
    from attncli.spec.arrays import shared_reads

    (tmp_path / "w.csv").write_text("1,0\n0,1\n")
    spec = heads_naming(tmp_path, "{file: w.csv, rows: [0, 1]}", 1)
    with shared_reads():
        assert load_spec(str(spec)).heads[0].W_Q.tolist() == [[1, 0], [0, 1]]
        (tmp_path / "w.csv").write_text("2,0\n0,2\n# now\n")
        assert load_spec(str(spec)).heads[0].W_Q.tolist() == [[2, 0], [0, 2]]


def test_a_model_folders_last_layer_resolves_its_checkpoints_name_once(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Layer 5 of 6 names its checkpoint 61 times (10 tensors a layer, and the folder's own
    look): the name is resolved (a system call for each part of the path) once, and each naming
    is still recorded."""
    from attncli.spec import files

    llama_folder(tmp_path, 6)
    spec = tmp_path / "s.yaml"
    spec.write_text("model: {path: m, layer: 5, block: true}\ntokens: {ids: [1, 2, 3]}\n")
    resolved: list[str] = []
    real = files._resolved

    def counting(folder: Path, name: str, allow_outside: bool) -> Path:
        resolved.append(name)
        return real(folder, name, allow_outside)

    monkeypatch.setattr(files, "_resolved", counting)
    with files.recording() as named:
        load_spec(str(spec))
    assert resolved == ["m", "m/config.json", "m/model.safetensors"]
    checkpoint_file = (tmp_path / "m" / "model.safetensors").resolve()
    assert named.count(checkpoint_file) == 61  # every naming, as when each was resolved


def test_rows_read_in_a_run_are_read_a_window_at_a_time(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """4,096 rows of a .csv, shuffled, read from the file again (its bytes are not held): one
    read for the windows past those kept as counted, one for the rows (45 KB, under RUN bytes),
    not one a row (one a window before rows were converted a run at a time: 112)."""
    import os
    import random

    path = tmp_path / "e.csv"
    path.write_bytes(b"".join(b"%d,%d\n" % (i, -i) for i in range(4096)))
    table = CsvFile(path, "e.csv", 100_000)
    reads = counted(monkeypatch, os, "pread")
    rows = list(range(4096))
    random.Random(0).shuffle(rows)
    assert table.read(rows, [1, 0]).tolist() == [[-row, row] for row in rows]
    assert len(reads) == 2


def test_a_csv_sliced_under_other_names_is_counted_once(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Three hard links to one .csv, each sliced by a head: the file is one file, its lines
    counted once (768 such names counted a 30 MB file 768 times)."""
    (tmp_path / "w0.csv").write_text("1,0\n0,1\n")
    for index in (1, 2):
        (tmp_path / f"w{index}.csv").hardlink_to(tmp_path / "w0.csv")
    heads = ", ".join(f"{{W_Q: {{file: w{index}.csv, rows: [1, 0]}}, W_K: {ID}, W_V: {ID}}}"
                      for index in range(3))
    spec = tmp_path / "s.yaml"
    spec.write_text(f"tokens: [a, b]\nembeddings: {ID}\nheads: [{heads}]\n", encoding="utf-8")
    tables = counted(monkeypatch, CsvFile, "__init__")
    loaded = load_spec(str(spec))
    assert len(tables) == 1
    assert [head.W_Q.tolist() for head in loaded.heads] == [[[0, 1], [1, 0]]] * 3
