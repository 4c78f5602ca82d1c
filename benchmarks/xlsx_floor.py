"""The floor of the `xlsx` benchmark case: XlsxWriter alone writing `count` one-cell formulas
(each reading two cells, as most of attn's do) into one workbook, nothing computed.

    python benchmarks/xlsx_floor.py OUT.xlsx COUNT
"""

from __future__ import annotations

import sys

import xlsxwriter

COLUMNS = 64


def main() -> None:
    out, count = sys.argv[1], int(sys.argv[2])
    book = xlsxwriter.Workbook(out, {"in_memory": True})
    sheet = book.add_worksheet()
    for k in range(count):
        row, col = divmod(k, COLUMNS)
        sheet.write_formula(row + 1, col, f"=SUMPRODUCT(A{row + 1}:B{row + 1},C1:D1)", None, "")
    book.close()


if __name__ == "__main__":
    main()
