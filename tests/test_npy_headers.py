"""A .npy file (or .npz member) whose first bytes NumPy would refuse in English: a format version
it does not read, a header length past attn's bound. Each is refused in the user's language from
the header, before NumPy reads the file."""

from __future__ import annotations

import io
import struct
import zipfile
from pathlib import Path

import numpy as np
import pytest

from attncli.i18n import Msg, translate
from attncli.spec import file_slices, files
from attncli.spec.values import shape_text
from tests.conftest import run

SPEC = "tokens: [a, b, c]\nembeddings: {file: %s}\nweights: {W_Q: identity, W_K: identity, " \
    "W_V: identity}\n"


def npy_of_version(major: int) -> bytes:
    """A valid 3 x 2 .npy file with its version bytes set to `major`.0."""
    buffer = io.BytesIO()
    np.save(buffer, np.arange(6.0).reshape(3, 2))
    data = bytearray(buffer.getvalue())
    data[6:8] = bytes([major, 0])
    return bytes(data)


@pytest.mark.parametrize(("lang", "said"), [
    ("en", "expected a .npy file of format version 1.0, 2.0 or 3.0, found version 9.0"),
    ("pl", "oczekiwano pliku .npy w\u00a0wersji formatu 1.0, 2.0 lub 3.0, otrzymano wersję 9.0"),
    ("ru", "ожидается файл .npy версии формата 1.0, 2.0 или 3.0, получена версия 9.0"),
])
def test_a_format_version_numpy_does_not_read_is_refused_in_the_users_words(
        lang: str, said: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "e.npy").write_bytes(npy_of_version(9))
    (tmp_path / "s.yaml").write_text(SPEC % "e.npy")
    monkeypatch.chdir(tmp_path)
    result = run("explain", "s.yaml", "--format", "text", "--lang", lang)
    assert (result.exit_code, result.stdout, result.stderr) == (
        2, "", f"s.yaml:2:20: embeddings.file: e.npy: {said}\n")


def test_an_npz_members_format_version_is_refused_with_the_member(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    with zipfile.ZipFile(tmp_path / "e.npz", "w") as archive:
        archive.writestr("E.npy", npy_of_version(4))
    (tmp_path / "s.yaml").write_text(SPEC % "e.npz, key: E")
    monkeypatch.chdir(tmp_path)
    result = run("explain", "s.yaml", "--format", "text", "--lang", "pl")
    assert (result.exit_code, result.stdout, result.stderr) == (
        2, "", "s.yaml:2:20: embeddings.file: e.npz (E): oczekiwano pliku .npy w\u00a0wersji "
        "formatu 1.0, 2.0 lub 3.0, otrzymano wersję 4.0\n")


@pytest.mark.parametrize(("lang", "said"), [
    ("en", "its header says it is 4,294,967,295 bytes long; attn reads .npy headers of up to "
     "10,000 bytes"),
    ("ru", "длина заголовка указана как 4\u00a0294\u00a0967\u00a0295 байт; attn читает "
     "заголовки .npy длиной не более 10\u00a0000 байт"),
])
def test_a_header_length_past_the_bound_is_refused_with_the_length(
        lang: str, said: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # version 2.0 gives the header's length in 4 bytes: 2³² − 1, of which the file holds none
    (tmp_path / "e.npy").write_bytes(b"\x93NUMPY\x02\x00" + struct.pack("<I", 2**32 - 1))
    (tmp_path / "s.yaml").write_text(SPEC % "e.npy")
    monkeypatch.chdir(tmp_path)
    result = run("explain", "s.yaml", "--format", "text", "--lang", lang)
    assert (result.exit_code, result.stdout, result.stderr) == (
        2, "", f"s.yaml:2:20: embeddings.file: e.npy: {said}\n")


@pytest.mark.parametrize(("lang", "written", "said"), [
    # the length field cut after one of its two bytes
    ("en", b"\x93NUMPY\x01\x00\x76", "the file ends inside its .npy header"),
    # a header of 118 bytes promised, 10 written
    ("pl", b"\x93NUMPY\x01\x00\x76\x00{'descr':", "plik kończy się w\u00a0środku nagłówka .npy"),
    ("ru", b"\x93NUMPY\x03\x00\x76\x00\x00\x00{'descr':", "файл обрывается посреди заголовка "
     ".npy"),
])
def test_a_file_that_ends_inside_its_header_is_said_so(
        lang: str, written: bytes, said: str, tmp_path: Path,
        monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "e.npy").write_bytes(written)
    (tmp_path / "s.yaml").write_text(SPEC % "e.npy")
    monkeypatch.chdir(tmp_path)
    result = run("explain", "s.yaml", "--format", "text", "--lang", lang)
    assert (result.exit_code, result.stdout, result.stderr) == (
        2, "", f"s.yaml:2:20: embeddings.file: e.npy: {said}\n")


def deep_npy(sizes: tuple[int, ...]) -> bytes:
    """A .npy file whose header gives `sizes` (any number of them: NumPy holds 64 at most),
    its data zeros (none for a negative size)."""
    header = b"{'descr': '<f8', 'fortran_order': False, 'shape': (%s), }" % b"".join(
        b"%d," % size for size in sizes)
    header += b" " * (63 - (len(header) + 10) % 64) + b"\n"
    count = int(np.prod(sizes))
    return b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)) + header + bytes(8 * max(count, 0))


@pytest.mark.parametrize(("lang", "said"), [
    ("en", "e.npy holds an array of 65 dimensions, expected a vector (1 dimension)"),
    ("pl", "e.npy zawiera tablicę 65-wymiarową, a\u00a0oczekiwano wektora (1 wymiar)"),
    ("ru", "e.npy: ожидается вектор (1 измерение), получено: 65-мерный массив"),
])
def test_more_dimensions_than_numpy_holds_are_refused_in_the_users_words(
        lang: str, said: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """65 sizes (63 ones, 3, 2) for a bias, a vector: NumPy's own words were English."""
    (tmp_path / "e.npy").write_bytes(deep_npy((1,) * 63 + (3, 2)))
    (tmp_path / "s.yaml").write_text(
        "tokens: [a, b, c]\nembeddings: [[1, 0], [0, 1], [1, 1]]\n"
        "weights: {W_Q: identity, W_K: identity, W_V: identity, b_Q: {file: e.npy}}\n")
    monkeypatch.chdir(tmp_path)
    result = run("explain", "s.yaml", "--format", "text", "--lang", lang)
    assert (result.exit_code, result.stderr) == (2, f"s.yaml:3:68: weights.b_Q.file: {said}\n")


@pytest.mark.parametrize("rows", ["", ", rows: '0:2'"])
def test_an_array_of_three_dimensions_is_refused_before_its_numbers_are_read(
        rows: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A 2 × 1,000 × 3 array for the embeddings, whole or sliced: its header's shape refuses it,
    and its numbers are never read (np.load read all 6,000, then it was refused)."""
    (tmp_path / "e.npy").write_bytes(deep_npy((2, 1000, 3)))
    (tmp_path / "s.yaml").write_text(SPEC % ("e.npy" + rows))
    monkeypatch.chdir(tmp_path)
    reads = []
    for module, name in ((files.np, "load"), (file_slices, "read_slice")):
        real = getattr(module, name)
        monkeypatch.setattr(module, name, lambda *args, real=real, name=name, **kwargs: (
            reads.append(name), real(*args, **kwargs))[1])
    result = run("explain", "s.yaml", "--format", "text")
    assert (result.exit_code, result.stderr) == (
        2, "s.yaml:2:20: embeddings.file: e.npy holds an array of shape 2 × 1,000 × 3, expected a "
        "matrix (2 dimensions)\n")
    assert reads == []


def test_a_shape_of_eight_sizes_is_written_whole_and_one_of_nine_by_its_ends() -> None:
    assert translate(Msg.of("{s}", s=shape_text((2,) * 8)), "en") == " × ".join("2" * 8)
    assert translate(Msg.of("{s}", s=shape_text((3,) + (1,) * 7 + (10_000,))), "en") == (
        "3 × 1 × 1 × 1 × … × 1 × 1 × 1 × 10,000 (9 dimensions)")


@pytest.mark.parametrize(("lang", "said"), [
    ("en", "e.npy: its header gives the shape 1 × 1 × 1 × 1 × … × 1 × 1 × 1 × −5 "
           "(3,000 dimensions); expected sizes of 0 or more"),
    ("pl", "e.npy: nagłówek opisuje tablicę o\u00a0wymiarach 1 × 1 × 1 × 1 × … × 1 × 1 × 1 × −5 "
           "(3000 wymiarów); oczekiwano nieujemnych wymiarów"),
    ("ru", "e.npy: в\u00a0заголовке указана форма 1 × 1 × 1 × 1 × … × 1 × 1 × 1 × −5 "
           "(3000 измерений); ожидаются размеры не меньше 0"),
])
def test_a_header_of_thousands_of_sizes_is_written_by_its_ends_and_their_count(
        lang: str, said: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """3,000 sizes, the last negative: every size was listed, a line of 12 KB."""
    (tmp_path / "e.npy").write_bytes(deep_npy((1,) * 2999 + (-5,)))
    (tmp_path / "s.yaml").write_text(SPEC % "e.npy")
    monkeypatch.chdir(tmp_path)
    result = run("explain", "s.yaml", "--format", "text", "--lang", lang)
    assert (result.exit_code, result.stderr) == (2, f"s.yaml:2:20: embeddings.file: {said}\n")


@pytest.mark.parametrize(("lang", "said"), [
    ("en", "e.npz holds 2 arrays named “x”; which one is meant cannot be told (save each under a "
           "name of its own)"),
    ("pl", "e.npz zawiera 2 tablice o\u00a0nazwie „x”; nie wiadomo, o\u00a0którą chodzi "
           "(zapisz każdą pod własną nazwą)"),
    ("ru", "e.npz содержит 2 массива с\u00a0именем «x»; непонятно, какой из них нужен "
           "(сохраните их под разными именами)"),
])
def test_an_array_two_members_are_named_for_is_refused(
        lang: str, said: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Two members named x.npy: zipfile gave the last, without a word."""
    with pytest.warns(UserWarning), zipfile.ZipFile(tmp_path / "e.npz", "w") as archive:
        for values in (np.eye(3, 2), np.ones((3, 2))):
            archive.writestr("x.npy", npy_bytes(values))
    (tmp_path / "s.yaml").write_text(SPEC % "e.npz, key: x")
    monkeypatch.chdir(tmp_path)
    result = run("explain", "s.yaml", "--format", "text", "--lang", lang)
    assert (result.exit_code, result.stderr) == (2, f"s.yaml:2:20: embeddings.file: {said}\n")


def npy_bytes(values: np.ndarray) -> bytes:
    buffer = io.BytesIO()
    np.save(buffer, values)
    return buffer.getvalue()
