"""The lines of a .csv file as attncli/spec/csv_lines.py finds them, a piece at a time, against
Python's own reading of the same bytes: bytes.splitlines() for the lines, str.lstrip() for what
is blank, `#` first for a comment. Pieces and strides are made tiny so that every break, every
whitespace character and every comment falls across a piece's edge somewhere."""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from attncli.spec import csv_file, csv_lines
from attncli.spec.csv_file import CsvFile
from attncli.spec.file_problem import FileProblem

# Every character str.isspace() calls whitespace (but the breaks), some that look like it and
# are not (U+200B, U+2060, U+180E, U+FEFF), bytes that share a lead byte with a wide space
# (U+00A1, U+2030, U+205E, U+1681, U+3001), and what a CSV line holds.
SPACES = [chr(c) for c in range(0x110000) if chr(c).isspace() and chr(c) not in "\n\r"]
LOOKALIKES = ["\u200b", "\u2060", "\u180e", "\ufeff", "\u00a1", "\u2030", "\u205e", "\u1681",
              "\u3001", "\u00e9"]
ALPHABET = SPACES + LOOKALIKES + ["1", "2", "0.5", "-3", ",", "#", "\n", "\r", "\r\n", "\n\n"]


def python_lines(data: bytes) -> list[tuple[int, bytes]]:
    """(line number, line) of every kept line, as Python reads them."""
    kept = []
    for number, line in enumerate(data.splitlines(), start=1):
        stripped = line.decode("utf-8").lstrip()
        if stripped and not stripped.startswith("#"):
            kept.append((number, line))
    return kept


def random_text(rng: random.Random) -> bytes:
    return "".join(rng.choice(ALPHABET) for _ in range(rng.randrange(0, 60))).encode("utf-8")


@pytest.mark.parametrize("piece", [1, 2, 3, 5, 8, 64])
def test_lines_found_a_piece_at_a_time_are_pythons(piece: int,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(csv_lines, "PIECE", piece)
    rng = random.Random(piece)
    for _ in range(400):
        data = random_text(rng)
        found = []
        for part in csv_lines.pieces(data, 0, len(data)):
            for index in np.flatnonzero(part.kept).tolist():
                start, end = part.at + int(part.starts[index]), part.at + int(part.ends[index])
                found.append((part.first + index + 1, data[start:end]))
        assert found == python_lines(data), data


def test_every_whitespace_character_and_no_other_is_blank() -> None:
    text = "".join(SPACES + LOOKALIKES + ["x"])
    mask = csv_lines.whitespace(np.frombuffer(text.encode("utf-8"), dtype=np.uint8))
    expected = [ch.isspace() for ch in text for _ in ch.encode("utf-8")]
    assert mask.tolist() == expected


@pytest.mark.parametrize("seed", range(6))
def test_a_row_read_again_from_its_place_is_the_files_line(seed: int, tmp_path: Path,
                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    """Rows are found again from one place in STRIDE: with a stride of 3 and pieces of 7 bytes,
    every row read is the kept line Python finds, and a bad cell names that line's number."""
    monkeypatch.setattr(csv_lines, "PIECE", 7)
    monkeypatch.setattr(csv_file, "STRIDE", 3)
    rng = random.Random(seed)
    lines = []
    for row in range(rng.randrange(1, 40)):
        lines.append(rng.choice(["", "# note", "\u00a0", " \t", "\u3000# x"]) + rng.choice(
            ["\n", "\r\n", "\r"]) if rng.random() < 0.4 else "")
        lines.append(f"{row},{row * 0.5}" + rng.choice(["\n", "\r\n", "\r"]))
    data = "".join(lines).encode("utf-8")
    path = tmp_path / "w.csv"
    path.write_bytes(data)
    table = CsvFile(path, "w.csv", 10_000)
    expected = python_lines(data)
    assert table.shape == (len(expected), 2)
    order = list(range(len(expected)))
    rng.shuffle(order)
    assert table.read(order, None).tolist() == [[row, row * 0.5] for row in order]
    assert [table.line(row) for row in order] == [expected[row][::-1] for row in order]
    data = data.replace(b"%d," % order[0], b"x,", 1)
    path.write_bytes(data)
    with pytest.raises(FileProblem) as problem:
        CsvFile(path, "w.csv", 10_000).read([order[0]], [0])
    assert dict(problem.value.message.params)["line"] == expected[order[0]][0]


@pytest.mark.parametrize("rows_first", [True, False])
def test_blank_lines_are_looked_at_once(rows_first: bool, tmp_path: Path,
                                        monkeypatch: pytest.MonkeyPatch) -> None:
    """Two rows and 200,000 blank lines of U+00A0: each line is found once, as the shape is
    counted; reading the rows looks at none again (they were looked at twice: 40 MB of such
    lines took 1.4 s to 2.3 s CPU for a walkthrough of two rows)."""
    blank = "\u00a0\n".encode("utf-8") * 200_000
    data = b"1,0\n0,1\n" + blank if rows_first else b"1,0\n" + blank + b"0,1\n" + blank
    path = tmp_path / "w.csv"
    path.write_bytes(data)
    looked = []
    real = csv_lines.pieces

    def counting(data: bytes, at: int, stop: int, first: int = 0) -> Any:
        looked.append(stop - at)
        return real(data, at, stop, first)

    monkeypatch.setattr(csv_file, "pieces", counting)
    table = CsvFile(path, "w.csv", 1_000_000)
    assert table.read([1, 0], None).tolist() == [[0, 1], [1, 0]]
    assert sum(looked) == len(data)


@pytest.mark.parametrize("seed", range(4))
def test_rows_past_the_windows_kept_are_found_again_from_their_place(
        seed: int, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Past the first windows, kept as found, a row is found again from the place before it:
    with one window kept of a stride of 3, every row read is the kept line Python finds."""
    monkeypatch.setattr(csv_lines, "PIECE", 7)
    monkeypatch.setattr(csv_file, "STRIDE", 3)
    monkeypatch.setattr(csv_file, "WINDOWS_KEPT", 1)
    rng = random.Random(seed)
    lines = []
    for row in range(rng.randrange(4, 40)):
        lines.append(rng.choice(["", "# note", "\u00a0", "\u3000# x\r\n"]) + "\n")
        lines.append(f"{row},{row * 0.5}" + rng.choice(["\n", "\r\n", "\r"]))
    data = "".join(lines).encode("utf-8") + b"\n# the end\n\n"
    path = tmp_path / "w.csv"
    path.write_bytes(data)
    table = CsvFile(path, "w.csv", 10_000)
    expected = python_lines(data)
    order = list(range(len(expected)))
    rng.shuffle(order)
    assert table.read(order, None).tolist() == [[row, row * 0.5] for row in order]
    assert [table.line(row) for row in order] == [expected[row][::-1] for row in order]


def test_a_line_of_many_spaces_is_stepped_over_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """Lines of five U+00A0 before a `#` (40 MB of them: 1.2 s CPU) are stepped over one
    character, then looked at byte by byte, not stepped four times first: each piece steps
    once, and every line is a comment."""
    data = ("\u00a0" * 5 + "#\n").encode("utf-8") * 20_000
    calls = []
    real = csv_lines.space_width

    def counting(padded: np.ndarray, at: np.ndarray) -> np.ndarray:
        calls.append(len(at))
        return real(padded, at)

    monkeypatch.setattr(csv_lines, "space_width", counting)
    parts = list(csv_lines.pieces(data, 0, len(data)))
    assert not any(part.kept.any() for part in parts)
    assert sum(len(part.starts) for part in parts) == 20_000
    assert len(calls) == len(parts)


def counting_whitespace(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The bytes of every stretch whose whitespace is looked at from now on."""
    looked: list[int] = []
    real = csv_lines.whitespace

    def counting(part: np.ndarray) -> np.ndarray:
        looked.append(len(part))
        return real(part)

    monkeypatch.setattr(csv_lines, "whitespace", counting)
    return looked


def test_a_file_read_whole_looks_at_its_whitespace_once(tmp_path: Path,
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    """4,228 lines of ten U+3000 (31 bytes with the break: 1,057 lines fill a piece of 32,767
    bytes) before three rows, read whole: each piece's whitespace is looked at once, as the
    lines are counted, from its first line's second character (3 bytes in) to its last line's
    break, 32,763 bytes; converting the rows looks at none again (40 MB of such lines took
    2.5 s to 3.2 s CPU, each piece looked at twice)."""
    data = ("\u3000" * 10 + "\n").encode("utf-8") * 4228 + b"1,0\n0,1\n1,1\n"
    path = tmp_path / "e.csv"
    path.write_bytes(data)
    looked = counting_whitespace(monkeypatch)
    table = CsvFile(path, "e.csv", 1_000_000, hold=True)
    assert table.shape == (3, 2)
    assert looked == [32_763] * 4
    assert table.read(None, None).tolist() == [[1, 0], [0, 1], [1, 1]]
    assert looked == [32_763] * 4


def test_only_the_lines_that_begin_with_much_whitespace_are_looked_at(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """One comment line of two U+3000 among 200 rows: its first U+3000 is stepped over, and
    only the 4 bytes after it (U+3000 and `#`) are looked at, not the piece's 808 bytes."""
    data = b"1,0\n" * 100 + "\u3000\u3000#\n".encode("utf-8") + b"0,1\n" * 100
    looked = counting_whitespace(monkeypatch)
    parts = list(csv_lines.pieces(data, 0, len(data)))
    assert len(data) == 808
    assert looked == [4]
    assert [part.kept.sum() for part in parts] == [200]
    assert parts[0].kept[100].item() is False


@pytest.mark.parametrize("piece", [7, 1 << 15])
def test_rows_among_lines_of_every_kind_of_whitespace(piece: int, tmp_path: Path,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    """Lines 2, 5, 6 and 8 hold numbers after whitespace of four kinds (float() takes the
    whitespace around a cell away); lines 1, 3, 4 and 7 are blank or comments after it."""
    monkeypatch.setattr(csv_lines, "PIECE", piece)
    lines = ["\u3000" * 50,
             "\u3000\u3000 1,\u00a02",
             "\u2003\u3000\u00a0#\u3000x",
             "\u00a0\u0085\u205f\u1680\u202f\t\u2028\u2029\u200a",
             "  \u3000 3 , 4 \u3000",
             "\u00a0\u00a0\u00a0\u00a05,6",
             " \u3000" * 40 + "# 7,8",
             "\u1680" * 3000 + "9,\u3000" + "\u2000" * 3000 + "10"]
    data = "\n".join(lines[:5]).encode("utf-8") + b"\r\n" + "\r".join(lines[5:]).encode("utf-8")
    path = tmp_path / "e.csv"
    path.write_bytes(data)
    table = CsvFile(path, "e.csv", 1_000_000, hold=True)
    assert table.read(None, None).tolist() == [[1, 2], [3, 4], [5, 6], [9, 10]]
    assert [table.line(row)[1] for row in range(4)] == [2, 5, 6, 8]
