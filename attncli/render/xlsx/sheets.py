"""The workbook being written: its sheets, each with a cursor that moves down step by step, and
the one place that writes a cell. Every text goes in as a string cell (a token `=1+1` or `@x` is
text, never a formula); every formula is one attn wrote."""

from __future__ import annotations

import io
from collections.abc import Sequence
from datetime import datetime

import xlsxwriter
from xlsxwriter.format import Format
from xlsxwriter.worksheet import Worksheet

from attncli.errors import UsageError
from attncli.i18n import Count, Msg
from attncli.i18n.visible import visible
from attncli.render.xlsx.grid import Block, Formula, Piece

# Excel's longest formula
MAX_FORMULA = 8192
LABEL_WIDTH = 14  # characters of column A, where the row labels stand
CELL_WIDTH = 10
# Blocks side by side up to about this many columns, so a step fits a screen and a printed page
WRAP_COLUMNS = 24


def large_as_powers(digits: str, precision: int) -> str:
    """The number format `digits`, but m.mmE+kk for a value that rounds to a million or more
    at `precision` (attncli/arithmetic/numbers.py LARGE), either sign."""
    from decimal import Decimal

    from attncli.arithmetic.numbers import LARGE

    edge = Decimal(repr(LARGE)) - Decimal(5).scaleb(-precision - 1)  # 999999.995 at 2
    return f"[>={edge}]{digits}E+00;[<=-{edge}]-{digits}E+00;{digits}"


class ExactNumbers(Worksheet):  # type: ignore[misc]
    """A worksheet that stores each number with every digit it has (repr: the shortest that
    reads back as the same double). XlsxWriter writes 16 significant digits (`%.16G`): a given
    0.30000000000000004 was stored as 0.3, one ulp from attn's, and 1.7976931348623157e308 as
    1.797693134862316E+308, past the largest double, which a spreadsheet reads as infinite."""

    def _xml_number_element(self, number: float,
                            attributes: Sequence[tuple[str, str]] = ()) -> None:
        attrs = "".join(f' {key}="{self._escape_attributes(value)}"' for key, value in attributes)
        self.fh.write(f"<c{attrs}><v>{float(number)!r}</v></c>")


class Sheets:
    def __init__(self, out: io.BytesIO, precision: int, created: datetime) -> None:
        # strings_to_formulas off: write_string is used for every text anyway, and nothing typed
        # by a user may ever reach a sheet as a formula
        self.book = xlsxwriter.Workbook(out, {"in_memory": True, "strings_to_formulas": False,
                                              "strings_to_numbers": False,
                                              "strings_to_urls": False})
        self.book.set_properties({"created": created})
        digits = "0." + "0" * precision if precision > 0 else "0"
        # numbers and −∞ alike right-aligned under their column labels; a number whose rounded
        # value is a million or more as m × 10^k, as attn writes it everywhere (1.23E+20)
        number = large_as_powers(digits, precision)
        self.number = self.book.add_format({"num_format": number, "align": "right"})
        # a hidden key's weight: its 0 shown as "—" (a key shown again by editing M shows its
        # number); the value stays 0 for the formulas that read it
        self.hidden = self.book.add_format({"num_format": f'{digits};-{digits};"—"',
                                            "align": "right"})
        self.given = self.book.add_format({"num_format": number, "align": "right",
                                           "bg_color": "#FFF2CC", "border": 1,
                                           "border_color": "#D6B656"})
        self.bold = self.book.add_format({"bold": True})
        self.label = self.book.add_format({"italic": True, "font_color": "#555555"})
        self.column_label = self.book.add_format({"italic": True, "font_color": "#555555",
                                                  "align": "right"})
        self.sheets: dict[str, Worksheet] = {}
        self.cursor: dict[str, int] = {}

    def add(self, name: str) -> None:
        sheet = self.book.add_worksheet(name, worksheet_class=ExactNumbers)
        sheet.set_column(0, 0, LABEL_WIDTH)
        sheet.set_column(1, 200, CELL_WIDTH)
        sheet.set_landscape()
        sheet.fit_to_pages(1, 0)  # printed: every block of a step on the page, as many pages down
        self.sheets[name] = sheet
        self.cursor[name] = 0

    def text(self, name: str, row: int, col: int, text: str, style: Format | None = None) -> None:
        self.sheets[name].write_string(row, col, visible(text), style)

    def heading(self, name: str, text: str) -> None:
        row = self.cursor[name]
        if row:
            row += 1  # a blank row before every step but the first
        self.text(name, row, 0, text, self.bold)
        self.cursor[name] = row + 1

    def note(self, name: str, text: str) -> None:
        self.text(name, self.cursor[name], 0, text)
        self.cursor[name] += 1

    def place(self, name: str, pieces: list[Piece], step: int) -> list[Block]:
        """The blocks of one step side by side under the cursor (a block that would end past
        WRAP_COLUMNS starts a new row of blocks), their names and labels written; the cursor
        then stands below the tallest."""
        top, col, tallest = self.cursor[name] + 1, 0, 0
        blocks = []
        for piece in pieces:
            if col and col + len(piece.columns) + 1 > WRAP_COLUMNS:
                top, col, tallest = top + 3 + tallest, 0, 0
            tallest = max(tallest, len(piece.rows))
            self.text(name, top, col, piece.title, self.bold)
            for j, label in enumerate(piece.columns):
                self.text(name, top + 1, col + 1 + j, label, self.column_label)
            for i, label in enumerate(piece.rows):
                self.text(name, top + 2 + i, col, label, self.label)
            shape = (len(piece.rows), len(piece.columns))
            blocks.append(Block(name, top + 2, col + 1, shape, piece.title, step, piece.matrix,
                                piece.computed))
            col += len(piece.columns) + 2
        self.cursor[name] = top + 2 + tallest
        return blocks

    def fill(self, block: Block, piece: Piece) -> None:
        sheet = self.sheets[block.sheet]
        style = self.number if piece.computed else self.given
        for i in range(block.shape[0]):
            for j in range(block.shape[1]):
                row, col = block.row + i, block.col + j
                content = piece.fill(i, j)
                style_ij = self.hidden if piece.hidden and piece.hidden(i, j) else style
                if isinstance(content, Formula):
                    check_length(content.text)
                    if content.array:
                        sheet.write_array_formula(row, col, row, col, content.text, style_ij)
                    else:
                        sheet.write_formula(row, col, content.text, style_ij, "")
                elif isinstance(content, str):
                    sheet.write_string(row, col, content, style_ij)
                else:
                    sheet.write_number(row, col, content, style_ij)

    def close(self) -> None:
        self.book.close()


def check_length(formula: str) -> None:
    """Refuse a formula Excel would not open (dX sums a term per head: 256 heads are too many)."""
    if len(formula) > MAX_FORMULA:
        raise UsageError(Msg.of("a formula of the spreadsheet would be too long for Excel "
                                "(length: {length}, at most {limit}); choose a smaller example",
                                length=Count(len(formula)), limit=Count(MAX_FORMULA)))
