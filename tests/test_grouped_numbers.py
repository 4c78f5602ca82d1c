"""A count or a size in an error line has its digits grouped as the language writes them (as the
help pages do): 10,000,000 in English, 10 000 000 in Polish and Russian with no-break spaces,
their four-digit numbers whole, and so is each size of a matrix's shape. A position the user
types back (an index, a line) stays as written (docs/limits.md, "Numbers in messages")."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from attncli.i18n import Count, Msg, translate
from attncli.spec.values import shape_text
from tests.conftest import run

NBSP = "\u00a0"


@pytest.mark.parametrize(("lang", "line"), [
    ("en", "spec.yaml:2:13: embeddings: a matrix of 1 × 100,000,000 is too large; the limit is "
           "10,000,000 numbers, which --max-cells sets"),
    ("pl", f"spec.yaml:2:13: embeddings: macierz 1 × 100{NBSP}000{NBSP}000 jest za duża; limit to "
           f"10{NBSP}000{NBSP}000 liczb (ustawia go --max-cells)"),
    ("ru", f"spec.yaml:2:13: embeddings: матрица 1 × 100{NBSP}000{NBSP}000 слишком велика; "
           f"предел{NBSP}— 10{NBSP}000{NBSP}000 чисел (его задаёт --max-cells)"),
])
def test_the_max_cells_refusal_groups_the_limit_and_the_shape(lang: str, line: str, tmp_path: Path,
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "spec.yaml").write_text("tokens: [a]\nembeddings: {random: {}, "
                                        "shape: [1, 100000000]}\n", encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    result = run("explain", "spec.yaml", "--lang", lang)
    assert (result.exit_code, result.stdout, result.stderr) == (2, "", line + "\n")


# --max-cells 10 gives the least byte limit, 1 MiB = 1,048,576 bytes; the spec has one more
@pytest.mark.parametrize(("lang", "line"), [
    ("en", "big.yaml: the spec has 1,048,577 bytes; the limit is 1,048,576 bytes, which "
           "--max-cells sets"),
    ("pl", f"big.yaml: specyfikacja ma 1{NBSP}048{NBSP}577 bajtów; limit to "
           f"1{NBSP}048{NBSP}576 bajtów (ustawia go --max-cells)"),
    ("ru", f"big.yaml: размер спецификации{NBSP}— 1{NBSP}048{NBSP}577 байт; "
           f"предел{NBSP}— 1{NBSP}048{NBSP}576 байт (его задаёт --max-cells)"),
])
def test_a_file_over_the_byte_limit_groups_both_sizes(lang: str, line: str, tmp_path: Path,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "big.yaml").write_text("#" * (2**20 + 1), encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    result = run("explain", "big.yaml", "--max-cells", "10", "--lang", lang)
    assert (result.exit_code, result.stdout, result.stderr) == (2, "", line + "\n")


@pytest.mark.parametrize(("lang", "rows", "said"), [
    ("en", 200_000, "index 200000 is out of range: E.npy has 200,000 rows (indices 0–199,999)"),
    ("pl", 200_000, f"indeks{NBSP}200000 jest poza zakresem: E.npy ma 200{NBSP}000 wierszy "
                    f"(indeksy 0–199{NBSP}999)"),
    ("ru", 200_000, f"индекс{NBSP}200000 вне диапазона: в{NBSP}E.npy 200{NBSP}000 строк "
                    f"(последний индекс{NBSP}— 199{NBSP}999)"),
    ("en", 1, "index 1 is out of range: E.npy has 1 row (the only index is 0)"),
    ("pl", 1, f"indeks{NBSP}1 jest poza zakresem: E.npy ma 1 wiersz (jedyny indeks to 0)"),
    ("ru", 1, f"индекс{NBSP}1 вне диапазона: в{NBSP}E.npy 1 строка (единственный индекс{NBSP}— 0)"),
])
def test_an_index_stays_as_typed_beside_a_grouped_count_and_the_valid_ones(
        lang: str, rows: int, said: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The index is what the user wrote in `rows:` and would search for; the rows are a count,
    and so is the last valid index."""
    np.save(tmp_path / "E.npy", np.zeros((rows, 1)))
    (tmp_path / "spec.yaml").write_text(
        f"tokens: [a]\nembeddings: {{file: E.npy, rows: [{rows}]}}\n", encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    result = run("explain", "spec.yaml", "--lang", lang)
    assert (result.exit_code, result.stderr) == (2, f"spec.yaml:2:33: embeddings.rows: {said}\n")


@pytest.mark.parametrize(("lang", "count", "written"), [
    ("en", 999, "999"), ("en", 1000, "1,000"), ("en", 1234567, "1,234,567"),
    ("pl", 9999, "9999"), ("pl", 10000, f"10{NBSP}000"), ("ru", 1234567, f"1{NBSP}234{NBSP}567"),
])
def test_a_count_is_grouped_and_a_plain_int_is_not(lang: str, count: int, written: str) -> None:
    message = Msg.of("{first}, {second}", first=Count(count), second=count)
    assert translate(message, lang) == f"{written}, {count}"


@pytest.mark.parametrize(("lang", "shape", "written"), [
    ("en", (3, 2), "3 × 2"), ("en", (1, 60000), "1 × 60,000"), ("pl", (1, 9999), "1 × 9999"),
    ("pl", (12345, 2), f"12{NBSP}345 × 2"), ("ru", (1, 100_000_000), f"1 × 100{NBSP}000{NBSP}000"),
    ("ru", (2, "?"), "2 × ?"),
])
def test_a_shape_in_an_error_line_groups_each_size(lang: str, shape: tuple[int | str, ...],
                                                   written: str) -> None:
    assert translate(Msg.of("{shape}", shape=shape_text(shape)), lang) == written


def test_an_answer_of_a_wide_shape_is_grouped_in_russian() -> None:
    result = run("check", "--step", "weights", "--answer", " ".join(["1"] * 12345), "--lang", "ru")
    assert result.exit_code == 2
    assert result.stderr.endswith(f"получено: 1{NBSP}×{NBSP}12{NBSP}345\n")
