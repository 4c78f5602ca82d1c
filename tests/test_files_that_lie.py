"""Files a spec names that are not what they seem: a named pipe where a matrix should be, a .npy
header with a negative size, a CSV line of more cells than one piece converts at once. Each is
one located line and exit 2 (nothing written), or the numbers the file holds."""

from __future__ import annotations

import errno
import os
import struct
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from attncli.i18n import translate
from attncli.spec.csv_cells import CSV_PIECE
from tests.conftest import run

WEIGHTS = "weights: {W_Q: identity, W_K: identity, W_V: identity}\n"


def npy(header: str, data: bytes) -> bytes:
    """A version 1.0 .npy file with this header dictionary, padded as NumPy pads it."""
    text = header.encode("latin1")
    text += b" " * (64 - (10 + len(text) + 1) % 64) + b"\n"
    return b"\x93NUMPY\x01\x00" + struct.pack("<H", len(text)) + text + data


@pytest.mark.parametrize("suffix", [".npy", ".csv"])
def test_a_named_pipe_is_said_to_be_one(suffix: str, tmp_path: Path,
                                        monkeypatch: pytest.MonkeyPatch) -> None:
    os.mkfifo(tmp_path / f"e{suffix}")  # opened, it would wait for a writer for ever
    (tmp_path / "s.yaml").write_text(f"tokens: [a]\nembeddings: {{file: e{suffix}}}\n" + WEIGHTS)
    monkeypatch.chdir(tmp_path)
    result = run("explain", "s.yaml", "--format", "text")
    assert (result.exit_code, result.stdout) == (2, "")
    assert result.stderr == (f"s.yaml:2:20: embeddings.file: e{suffix}: this is a named pipe "
                             "(FIFO), expected a regular file\n")


def test_a_tokenizer_that_is_a_folder_is_said_to_be_one(tmp_path: Path,
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "t.json").mkdir()
    (tmp_path / "s.yaml").write_text('tokens: {tokenizer: t.json, text: "a"}\n'
                                     "embeddings: [[1]]\n" + WEIGHTS)
    monkeypatch.chdir(tmp_path)
    result = run("explain", "s.yaml", "--format", "text")
    assert result.exit_code == 2
    assert result.stderr == ("s.yaml:1:21: tokens.tokenizer: t.json: this is a folder, expected "
                             "a regular file\n")


def test_a_negative_size_in_a_npy_header_is_named(tmp_path: Path,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    header = "{'descr': '<f8', 'fortran_order': False, 'shape': (-2, 2), }"
    (tmp_path / "e.npy").write_bytes(npy(header, bytes(32)))
    (tmp_path / "s.yaml").write_text("tokens: [a, b]\nembeddings: {file: e.npy}\n" + WEIGHTS)
    monkeypatch.chdir(tmp_path)
    result = run("explain", "s.yaml", "--format", "text")
    assert (result.exit_code, result.stdout) == (2, "")
    assert result.stderr == ("s.yaml:2:20: embeddings.file: e.npy: its header gives the shape "
                             "\u22122 × 2; expected sizes of 0 or more\n")


@pytest.mark.parametrize(("lang", "said"), [
    ("pl", "nagłówek opisuje tablicę o\u00a0wymiarach \u22122 × 2; oczekiwano nieujemnych "
           "wymiarów"),
    ("ru", "в\u00a0заголовке указана форма \u22122 × 2; ожидаются размеры не меньше 0"),
])
def test_a_negative_size_is_named_in_every_language(lang: str, said: str, tmp_path: Path,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    header = "{'descr': '<f8', 'fortran_order': False, 'shape': (-2, 2), }"
    (tmp_path / "e.npy").write_bytes(npy(header, bytes(32)))
    (tmp_path / "s.yaml").write_text("tokens: [a, b]\nembeddings: {file: e.npy}\n" + WEIGHTS)
    monkeypatch.chdir(tmp_path)
    result = run("explain", "s.yaml", "--format", "text", "--lang", lang)
    assert (result.exit_code, result.stdout) == (2, "")
    assert result.stderr.endswith(f"e.npy: {said}\n"), result.stderr


def test_a_bad_cell_past_the_first_piece_of_a_long_line_keeps_its_column(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    cells = ["0.5"] * (3 * CSV_PIECE // 4 + 7)  # more characters than one piece: three pieces
    column = len(cells) - 3
    cells[column - 1] = "x1"
    (tmp_path / "e.csv").write_text(",".join(cells) + "\n")
    (tmp_path / "s.yaml").write_text("tokens: [a]\nembeddings: {file: e.csv}\n" + WEIGHTS)
    monkeypatch.chdir(tmp_path)
    result = run("validate", "s.yaml")
    assert result.exit_code == 2
    assert result.stderr.splitlines()[0] == (f"s.yaml:2:20: embeddings.file: e.csv: line 1, "
                                             f"column {column}: expected a number, found x1")


def test_a_long_csv_line_is_read_whole(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from attncli.spec.files import load_array

    row = np.arange(2 * CSV_PIECE + 5) / 4  # quarters: exact in float64 and in decimals
    (tmp_path / "e.csv").write_text(",".join(map(str, row)) + "\n" + ",".join(map(str, -row)))
    found = load_array(tmp_path / "e.csv", "e.csv", None)
    assert found.shape == (2, row.size)
    assert (found[0] == row).all() and (found[1] == -row).all()


@pytest.mark.parametrize("option", ["--markdown", "--xlsx"])
def test_export_never_writes_over_a_matrix_the_spec_reads(option: str, tmp_path: Path,
                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    np.save(tmp_path / "e.npy", np.eye(2))
    before = (tmp_path / "e.npy").read_bytes()
    (tmp_path / "s.yaml").write_text("tokens: [a, b]\nembeddings: {file: e.npy}\n" + WEIGHTS)
    monkeypatch.chdir(tmp_path)
    result = run("export", "s.yaml", option, "-o", "e.npy")
    assert (result.exit_code, result.stdout) == (2, "")
    assert result.stderr == ("attn: refusing to write over the input e.npy; choose another "
                             "output file\n")
    assert (tmp_path / "e.npy").read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["e.npy", "s.yaml"]


@pytest.mark.parametrize(("config", "said"), [
    ("[1, 2]", "the file is not a JSON object"),
    ('{"model_type": "llama", ' + "[" * 100_000, "the file is not valid JSON"),
])
def test_a_config_json_that_is_no_object_is_named_once(config: str, said: str, tmp_path: Path,
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "m").mkdir()
    (tmp_path / "m" / "config.json").write_text(config)
    (tmp_path / "s.yaml").write_text("model: {path: m, layer: 0}\ntokens: {ids: [1]}\n")
    monkeypatch.chdir(tmp_path)
    result = run("explain", "s.yaml", "--format", "text")
    assert (result.exit_code, result.stdout) == (2, "")
    assert result.stderr == f"attn: m/config.json: {said}\n"


def test_a_config_json_that_is_a_named_pipe_is_said_to_be_one(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "m").mkdir()
    os.mkfifo(tmp_path / "m" / "config.json")  # opened, it would wait for a writer for ever
    (tmp_path / "s.yaml").write_text("model: {path: m, layer: 0}\ntokens: {ids: [1]}\n")
    monkeypatch.chdir(tmp_path)
    result = run("explain", "s.yaml", "--format", "text")
    assert (result.exit_code, result.stdout) == (2, "")
    assert result.stderr.endswith("m/config.json: this is a named pipe (FIFO), expected a "
                                  "regular file\n"), result.stderr
    assert result.stderr.count("\n") == 1


def test_a_tensor_row_past_its_rows_is_refused_not_read_from_the_next_tensor(
        tmp_path: Path) -> None:
    # BERT's position embeddings have max_position_embeddings rows: a 40-token text read rows
    # 16-39 of a [16, 8] tensor from the bytes of the tensors after it, silently
    import json

    from attncli.spec.checkpoint import open_tensor
    from attncli.spec.files import FileProblem

    header = json.dumps({"a": {"dtype": "F64", "shape": [2, 2], "data_offsets": [0, 32]},
                         "b": {"dtype": "F64", "shape": [2, 2], "data_offsets": [32, 64]}})
    data = np.arange(8.0).tobytes()
    path = tmp_path / "m.safetensors"
    path.write_bytes(struct.pack("<Q", len(header)) + header.encode() + data)
    tensor = open_tensor(path, "m.safetensors", "a", 100, False)
    assert tensor.read([1], 100).tolist() == [[2.0, 3.0]]
    with pytest.raises(FileProblem) as caught:
        tensor.read([2], 100)  # the bytes of b's first row
    assert str(translate(caught.value.message, "en")) == (
        "index 2 is out of range: m.safetensors (a) has 2 rows (indices 0–1)")


def test_a_csv_of_ten_million_short_lines_is_cut_without_an_object_a_line(tmp_path: Path) -> None:
    """A 20 MB .csv of one number a line (under the 40 MB byte limit), of which a spec takes two
    rows: its lines are found a piece at a time and one place is held in every STRIDE rows, not
    an object or an index of each line (3.5 s and 600 MB before); the rows read are the file's
    own, and a row of another width is found at its line."""
    from attncli.spec.csv_file import STRIDE, CsvFile
    from attncli.spec.file_problem import FileProblem

    path = tmp_path / "e.csv"
    path.write_bytes(b"1\n2\r\n" + b"0\n" * 9_999_997 + b"3")
    table = CsvFile(path, "e.csv", 10_000_000)
    assert table.shape == (10_000_000, 1)
    assert len(table.places) == -(-10_000_000 // STRIDE)
    assert table.read([0, 1, 9_999_999], None).tolist() == [[1.0], [2.0], [3.0]]
    assert table.line(9_999_999) == (b"3", 10_000_000)
    path.write_bytes(b"1\n" * 5_000_000 + b"1,2\n")
    with pytest.raises(FileProblem) as problem:
        CsvFile(path, "e.csv", 10_000_000)
    assert dict(problem.value.message.params)["line"] == 5_000_001


@pytest.mark.parametrize("header", [
    # (True, True): NumPy's header reader lets a bool by as a size; reshaping to it was
    # TypeError, exit 3
    "{'descr': '<f8', 'fortran_order': False, 'shape': (True, True), }",
    # a key written as bytes beside the str ones: NumPy sorts the keys (TypeError, exit 3)
    "{b'descr': '<f8', 'fortran_order': False, 'shape': (2, 2), }",
])
def test_a_npy_header_with_bools_or_bytes_is_said_not_a_header(header: str, tmp_path: Path,
                                                               monkeypatch: pytest.MonkeyPatch
                                                               ) -> None:
    (tmp_path / "e.npy").write_bytes(npy(header, bytes(32)))
    (tmp_path / "s.yaml").write_text("tokens: [a, b]\nembeddings: {file: e.npy}\n" + WEIGHTS)
    monkeypatch.chdir(tmp_path)
    result = run("explain", "s.yaml", "--format", "text")
    assert (result.exit_code, result.stdout, result.stderr) == (
        2, "", "s.yaml:2:20: embeddings.file: e.npy: cannot read the numbers: its header is not "
        "the dictionary of a .npy file\n")


def run_linked(folder: Path, name: str, target: str,
               args: list[str]) -> subprocess.CompletedProcess[str]:
    """attn run as a user runs it (its own process, standard input closed, a 30 s bound) in
    `folder`, holding a plain spec s.yaml and `name` as a link to the special file `target`."""
    (folder / "s.yaml").write_text("tokens: [a]\nembeddings: [[1]]\n" + WEIGHTS)
    (folder / name).unlink(missing_ok=True)
    (folder / name).symlink_to(target)
    return subprocess.run([sys.executable, "-m", "attncli", *args], cwd=folder, timeout=30,
                          capture_output=True, text=True, stdin=subprocess.DEVNULL)


@pytest.mark.skipif(not os.access("/proc/kmsg", os.R_OK), reason="/proc/kmsg is read by root")
@pytest.mark.parametrize(("name", "args", "said"), [
    ("s.yaml", ["validate", "s.yaml"], "s.yaml:"),
    ("a.json", ["check", "s.yaml", "--answer", "a.json"], "a.json:"),
])
def test_a_spec_or_answer_linked_to_a_proc_file_that_waits_is_no_hang(
        name: str, args: list[str], said: str, tmp_path: Path) -> None:
    # /proc/kmsg is a regular file of 0 bytes whose read waits for the kernel's next message:
    # behind a link named like a spec or an answer file, attn waited for ever; the messages the
    # kernel holds when it runs (none, or some: then read, and refused at their line) are not
    # the test's to choose, so the line names the file, with or without a place in it
    result = run_linked(tmp_path, name, "/proc/kmsg", args)
    assert result.returncode == 2
    assert result.stderr.startswith(said), result.stderr


@pytest.mark.skipif(not os.access("/proc/kmsg", os.R_OK), reason="/proc/kmsg is read by root")
@pytest.mark.parametrize(("link", "spec", "said"), [
    ("p.png", "image: {file: p.png}\npatch: 2\nconvention: column\n"
     "patch_embedding: {W: [[1, 0, 0, 0]], cls: [0]}\n",
     "s.yaml:1:15: image.file: p.png: expected a PNG image, found other bytes\n"),
    ("m/model.safetensors", "model: {path: m, layer: 0}\ntokens: {ids: [1]}\n",
     "s.yaml:1:15: model.path: m/model.safetensors: the file ends before the tensor's data\n"),
])
def test_an_image_or_checkpoint_linked_to_a_proc_file_that_waits_is_no_hang(
        link: str, spec: str, said: str, tmp_path: Path) -> None:
    import json

    # with --allow-outside, a PNG image and a model folder's safetensors behind a link to
    # /proc/kmsg were read with a plain open, which waited for the kernel's next message
    import subprocess
    import sys

    (tmp_path / "m").mkdir()
    (tmp_path / "m" / "config.json").write_text(json.dumps({
        "model_type": "llama", "hidden_size": 4, "num_attention_heads": 2,
        "num_key_value_heads": 2, "num_hidden_layers": 1, "vocab_size": 4,
        "rms_norm_eps": 1e-6}))
    (tmp_path / link).symlink_to("/proc/kmsg")
    (tmp_path / "s.yaml").write_text(spec)
    result = subprocess.run([sys.executable, "-m", "attncli", "validate", "s.yaml",
                             "--allow-outside"], cwd=tmp_path, timeout=30, capture_output=True,
                            text=True, stdin=subprocess.DEVNULL)
    assert (result.returncode, result.stderr) == (2, said + "attn: 1 spec of 1 has errors\n")


def test_every_data_file_a_spec_names_is_opened_without_waiting() -> None:
    # a plain open of a file a spec names waits when a read waits (/proc/kmsg above): the
    # spec's readers open what a user names through spec/opened.py, and only it
    import re

    spec = Path(__file__).resolve().parent.parent / "attncli" / "spec"
    plain = re.compile(r"\bopen\([^)]*\"rb\"\)|\.read_bytes\(\)|np\.load\((?:path|self)")
    found = {module.name: len(plain.findall(module.read_text(encoding="utf-8")))
             for module in spec.glob("*.py")}
    # examples.py reads attn's own example files, not a user's
    assert {name: count for name, count in found.items() if count} == {"examples.py": 1}


def test_an_image_linked_to_a_proc_file_that_refuses_the_read_is_one_line(
        tmp_path: Path) -> None:
    # /proc/self/pagemap, a regular file of 0 bytes, refuses a read of other than 8 bytes
    # (EINVAL): behind a link named p.png, with --allow-outside, that was exit 3, internal error.
    # Read no further than the limit and a byte, as a file that grew, it is larger than that
    (tmp_path / "p.png").symlink_to("/proc/self/pagemap")
    (tmp_path / "s.yaml").write_text("image: {file: p.png}\npatch: 2\nconvention: column\n"
                                     "patch_embedding: {W: [[1, 0, 0, 0]], cls: [0]}\n",
                                     encoding="utf-8")
    for lang, said in [("en", "s.yaml:1:15: image.file: p.png: the file is larger than "
                              "40,000,000 bytes, the limit that --max-cells sets\n"),
                       ("pl", "s.yaml:1:15: image.file: p.png: plik ma więcej niż "
                              "40\u00a0000\u00a0000 bajtów, a\u00a0taki limit ustawia "
                              "--max-cells\n")]:
        result = run("validate", str(tmp_path / "s.yaml"), "--allow-outside", "--lang", lang)
        assert result.exit_code == 2
        assert result.stderr.replace(str(tmp_path) + "/", "").startswith(said), result.stderr


@pytest.mark.parametrize("code", [errno.ESRCH, errno.EIO, errno.EINVAL])
def test_a_checkpoint_or_tokenizer_whose_read_the_system_refuses_is_one_line(
        code: int, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # a file mounted from /proc/self/pagemap of a process that is gone refuses each read
    # (ESRCH): a safetensors file's header, a model's config.json and its weights were exit 3,
    # internal error, and a tokenizer's line quoted Python's words and the file's whole path
    import attncli.spec.checkpoint as checkpoint
    import attncli.spec.tokenizer as tokenizer
    from attncli import SpecError, load_spec

    class Refusing:
        def __init__(self, path: object) -> None:
            pass

        def __enter__(self) -> Refusing:
            return self

        def __exit__(self, *args: object) -> None:
            pass

        def read(self, *args: object) -> bytes:
            raise OSError(code, os.strerror(code))

        readinto = read

    monkeypatch.setattr(checkpoint, "open_regular", Refusing)
    monkeypatch.setattr(tokenizer, "open_regular", Refusing)
    (tmp_path / "m.safetensors").write_bytes(b"\x08" + b"\x00" * 15)
    (tmp_path / "tokenizer.json").write_text("{}", encoding="utf-8")
    for spec, where in [("tokens: [a, b]\nembeddings: {file: m.safetensors, key: w}\n",
                         "s.yaml:2:20: embeddings.file: m.safetensors: cannot read the numbers: "),
                        ("tokens: {tokenizer: tokenizer.json, text: a b}\n"
                         "embeddings: [[1, 0], [0, 1]]\n",
                         "s.yaml:1:21: tokens.tokenizer: tokenizer.json: cannot read the "
                         "tokenizer: ")]:
        (tmp_path / "s.yaml").write_text(spec, encoding="utf-8")
        with pytest.raises(SpecError) as error:
            load_spec(str(tmp_path / "s.yaml"))
        said = str(error.value).replace(str(tmp_path) + "/", "")
        assert said.startswith(where), said
        assert "Errno" not in said and str(tmp_path) not in said


@pytest.mark.skipif(not os.access("/dev/ptmx", os.R_OK), reason="no pseudo-terminals here")
@pytest.mark.parametrize(("name", "args", "said"), [
    ("s.yaml", ["validate", "s.yaml"], "s.yaml: the spec is empty"),
    ("s.json", ["explain", "s.json"], "s.json: the spec is empty"),
    ("a.yaml", ["check", "s.yaml", "--answer", "a.yaml"], "a.yaml: "),
])
def test_a_spec_or_answer_linked_to_a_device_with_nothing_to_read_is_no_hang(
        name: str, args: list[str], said: str, tmp_path: Path) -> None:
    # each open of /dev/ptmx makes a new terminal whose master has nothing to read until its
    # other side writes, which nothing does: behind a link a pull request plants beside the
    # specs a CI job names, attn waited for ever
    result = run_linked(tmp_path, name, "/dev/ptmx", args)
    assert (result.returncode, result.stdout) == (2, "")
    assert result.stderr.startswith(said), result.stderr


def test_a_spec_typed_through_dev_stdin_is_still_read_to_its_end(tmp_path: Path) -> None:
    # a pipe behind /dev/stdin is waited on, as before: its writer may be slow
    import subprocess
    import sys

    spec = "tokens: [a]\nembeddings: [[1]]\n" + WEIGHTS
    writer = subprocess.Popen(["sh", "-c", f"sleep 1; printf '%s' '{spec}'"],
                              stdout=subprocess.PIPE)
    result = subprocess.run([sys.executable, "-m", "attncli", "validate", "/dev/stdin"],
                            cwd=tmp_path, timeout=20, capture_output=True, text=True,
                            stdin=writer.stdout)
    writer.wait()
    assert (result.returncode, result.stderr) == (0, "attn: 1 spec is valid\n"), result.stderr


def width_zero(path: Path) -> None:
    """`path` holding a matrix of 3 rows of no numbers each, as its kind writes it."""
    from tests.safetensors_file import safetensors

    array = np.zeros((3, 0)) if path.stem != "tall" else np.zeros((0, 3))
    if path.suffix == ".safetensors":
        path.write_bytes(safetensors({"W": array}))
    elif path.name.startswith("deflated"):
        np.savez_compressed(path, W=array)
    elif path.suffix == ".npz":
        np.savez(path, W=array)
    else:
        np.save(path, array)


@pytest.mark.parametrize(("name", "reference", "said"), [
    ("w.safetensors", "{file: w.safetensors, key: W, rows: [0, 1, 2]}", "w.safetensors (W)"),
    ("w.safetensors", "{file: w.safetensors, key: W}", "w.safetensors (W)"),
    ("w.npy", "{file: w.npy, rows: [0, 2]}", "w.npy"),
    ("w.npz", "{file: w.npz, key: W, rows: [0, 1, 2]}", "w.npz (W)"),
    ("deflated.npz", "{file: deflated.npz, key: W, rows: [0, 1]}", "deflated.npz (W)"),
    ("tall.npy", "{file: tall.npy, columns: \"0:2\"}", "tall.npy"),
])
def test_rows_of_no_numbers_are_said_to_hold_none(name: str, reference: str, said: str,
                                                  tmp_path: Path,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    # rows chosen from a [3, 0] matrix (or columns from a [0, 3] one) were cut into rows of
    # no bytes: exit 3 (ValueError, IndexError), or NumPy's own English words
    width_zero(tmp_path / name)
    (tmp_path / "s.yaml").write_text(f"tokens: [a, b, c]\nembeddings: {reference}\n" + WEIGHTS)
    monkeypatch.chdir(tmp_path)
    result = run("explain", "s.yaml", "--format", "text")
    assert (result.exit_code, result.stdout, result.stderr) == (
        2, "", f"s.yaml:2:20: embeddings.file: {said} holds no numbers\n")
