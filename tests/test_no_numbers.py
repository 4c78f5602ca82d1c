"""An array of no numbers: the file is said to hold none, at its `file:` key, which is what the
user can act on; the refusal used to offer "indices 0–−1". A header whose other size is huge
([0, 2⁶²], [2⁴⁰, 0]) is refused by its shape, before a list of its rows is made: such files
crashed attn, ran it out of memory, or made it read 4 million rows of nothing (11 s, 1.1 GB)."""

from __future__ import annotations

import json
import struct
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import attncli.spec.checkpoint as checkpoint
from tests.conftest import run

WEIGHTS = "weights: {W_Q: identity, W_K: identity, W_V: identity}\n"
HUGE = 2**62


# the row asked for is past an array of no rows, so the file is what holds no numbers
@pytest.mark.parametrize(("pick", "where"), [("rows", "2:20: embeddings.file"),
                                             ("columns", "2:20: embeddings.file")])
def test_a_row_or_column_of_an_array_of_no_rows(tmp_path: Path, pick: str, where: str) -> None:
    np.save(tmp_path / "e0.npy", np.zeros((0, 3)))
    spec = tmp_path / "s.yaml"
    spec.write_text(f"tokens: [a]\nembeddings: {{file: e0.npy, {pick}: [0]}}\n",
                    encoding="utf-8")
    result = run("validate", str(spec))
    assert result.exit_code == 2
    assert f"s.yaml:{where}: e0.npy holds no numbers\n" in result.stderr
    assert "−1" not in result.stderr


def header_only(shape: list[int]) -> bytes:
    """A .safetensors file of one F32 tensor W of `shape` and its header alone: no data."""
    text = json.dumps({"W": {"dtype": "F32", "shape": shape, "data_offsets": [0, 0]}}).encode()
    return struct.pack("<Q", len(text)) + text


def npy_header_only(shape: tuple[int, ...]) -> bytes:
    """A .npy file (v1.0) whose header gives `shape` of float64, and no data."""
    header = repr({"descr": "<f8", "fortran_order": False, "shape": shape}).encode()
    header += b" " * (-(10 + len(header) + 1) % 64) + b"\n"
    return b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)) + header


@pytest.mark.parametrize("shape", [[0, HUGE], [HUGE, 0], [2**40, 0], [4096, 0]])
@pytest.mark.parametrize("selection", ["", ", rows: \"0:\"", ", columns: \"0:\""])
def test_a_checkpoint_tensor_of_no_numbers_is_refused_by_its_shape(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, shape: list[int],
        selection: str) -> None:
    # [0, 2⁶²] was exit 3 (NumPy's "array is too big"), [2⁶², 0] "not enough memory" with no
    # place; [4096, 0] opened the file and read each of its 4,096 rows of no bytes
    (tmp_path / "x.safetensors").write_bytes(header_only(shape))
    (tmp_path / "s.yaml").write_text(
        f"tokens: [a, b]\nembeddings: {{file: x.safetensors, key: W{selection}}}\n" + WEIGHTS)
    opened: list[Path] = []
    reading = checkpoint.reading

    def counted(path: Path, *args: Any) -> Any:
        opened.append(path)
        return reading(path, *args)

    monkeypatch.setattr(checkpoint, "reading", counted)
    monkeypatch.chdir(tmp_path)
    result = run("validate", "s.yaml")
    assert (result.exit_code, result.stderr) == (
        2, "s.yaml:2:20: embeddings.file: x.safetensors (W) holds no numbers\n"
           "attn: 1 spec of 1 has errors\n")
    assert opened == []  # not a byte of the data read, not a row listed


@pytest.mark.parametrize("shape", [(0, HUGE), (HUGE, 0), (2**40, 0)])
@pytest.mark.parametrize("selection", ["", ", rows: [0]", ", columns: \"0:\""])
@pytest.mark.parametrize("kind", ["npy", "npz"])
def test_a_npy_header_of_no_numbers_is_refused_in_the_users_words(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, shape: tuple[int, ...],
        selection: str, kind: str) -> None:
    # (0, 2⁶²) and (2⁶², 0) reached NumPy, whose English message attn passed on untranslated
    data = npy_header_only(shape)
    if kind == "npz":
        import zipfile

        with zipfile.ZipFile(tmp_path / "x.npz", "w") as archive:
            archive.writestr("W.npy", data)
        said = "x.npz (W)"
    else:
        (tmp_path / "x.npy").write_bytes(data)
        said = "x.npy"
    (tmp_path / "s.yaml").write_text(
        f"tokens: [a, b]\nembeddings: {{file: x.{kind}{selection}}}\n" + WEIGHTS)
    monkeypatch.chdir(tmp_path)
    result = run("--lang", "pl", "validate", "s.yaml")
    assert (result.exit_code, result.stderr.splitlines()[0]) == (
        2, f"s.yaml:2:20: embeddings.file: {said} nie zawiera żadnych liczb")
