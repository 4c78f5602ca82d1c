"""Where pdflatex may end a line in attn's prose and written-out cells: after a relation (as TeX
does in math), never before it, nor between an operator's name and its operand (`ln 65504`),
nor inside the brackets of a vector or a cell's name that fit a line (`[0.20, 1.00]`,
`S[sat, sat]`). Each sentence is set in 38 widths, so every place a line could end is tried,
and the PDF's lines are read back."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from attncli.arithmetic.numbers import NumberFormat
from attncli.render import render
from attncli.render.latex_lines import vector_math
from attncli.render.notation import latex, unbroken
from attncli.render.tex import escape_text
from attncli.spec import load_spec
from attncli.steps.build import build
from tests.test_latex_pages import pdflatex

CONFIGS = Path(__file__).resolve().parent.parent / "configs"
NBSP = "\u00a0"
WIDTHS = range(120, 346, 6)  # points: narrower than a 4:3 frame's line up to an article's


def lines_of(spec: str, lang: str, found: str) -> list[str]:
    """The lines of the spec's standalone LaTeX that contain `found`."""
    text = render(build(load_spec(str(CONFIGS / spec))), "latex", lang, standalone=True)
    preamble = text.split(r"\begin{document}")[0]
    return [preamble] + [line for line in text.splitlines() if found in line]


def set_in_every_width(preamble: str, lines: list[str], folder: Path) -> list[str]:
    """The PDF's lines of each of `lines` set in a column of each of WIDTHS."""
    body = [rf"\begin{{minipage}}{{{w}pt}}\raggedright {line}\end{{minipage}}\par\bigskip"
            for line in lines for w in WIDTHS]
    pdflatex(preamble + r"\begin{document}" + "\n".join(body) + "\n\\end{document}\n", folder)
    text = subprocess.run(["pdftotext", "doc.pdf", "-"], cwd=folder, capture_output=True,
                          text=True, check=True).stdout
    return [line.strip() for line in text.splitlines() if line.strip()]


def badly_broken(lines: list[str]) -> list[str]:
    """Lines that start with a relation, end with `ln`, or leave a bracket open."""
    return [line for line in lines if line[0] in "=<>≈≤≥" or line.endswith(" ln")
            or line.count("[") != line.count("]")]


@pytest.mark.parametrize("lang", ["en", "pl", "ru"])
def test_the_overflow_note_keeps_its_relations_and_cells_whole(lang: str,
                                                                tmp_path: Path) -> None:
    preamble, *notes = lines_of("low_precision_float16.yaml", lang, r"\textgreater{} ln")
    assert len(notes) == 1 and "13.6641" in notes[0]
    lines = set_in_every_width(preamble, notes, tmp_path)
    assert any(line.endswith(">") for line in lines)  # a width that ends a line after `>`
    assert badly_broken(lines) == []


def test_a_written_out_row_of_vectors_breaks_between_them(tmp_path: Path) -> None:
    """kv_cache_decoding's Z[down], in Polish, where a line ended inside `[0.20, 1.00]`."""
    preamble, *cells = lines_of("kv_cache_decoding.yaml", "pl", r"Z[\text{down}] = \sum")
    assert cells
    lines = set_in_every_width(preamble, cells[:1], tmp_path)
    assert any(line.endswith("+") for line in lines)  # it does break: after a `+`
    assert badly_broken(lines) == []


def test_a_long_row_still_breaks_after_its_commas() -> None:
    """64 numbers (--full) are wider than any line: a line may end after a comma; 2 may not.
    With a decimal comma the numbers are parted by semicolons."""
    number = NumberFormat().math()
    assert vector_math([number(0.2), number(1.0)], number) == r"{[0.20,\ 1.00]}"
    assert vector_math([number(0.2)] * 64, number).count(r",\allowbreak\ ") == 63
    comma = NumberFormat(decimal=",").math()
    assert vector_math([comma(0.2), comma(1.0)], comma) == r"{[0{,}20;\ 1{,}00]}"


def test_prose_binds_what_a_formula_holds_together() -> None:
    assert unbroken("x > ln 65504 ≈ 11.09 at S[sat, sat]") == (
        f"x{NBSP}> ln{NBSP}65504{NBSP}≈ 11.09 at S[sat,{NBSP}sat]")
    # a name too long for a line may still break inside its brackets
    long = "S[internationalization_and_localization_A, переобученная_нейронная_сеть]"
    assert unbroken(long) == long
    assert latex("inf / inf = NaN", escape_text) == "inf / inf~= NaN"
    assert unbroken("(S' + M)[a, b]") == f"(S'{NBSP}+{NBSP}M)[a,{NBSP}b]"


def test_a_fraction_written_inline_skips_a_tokens_escaped_braces(tmp_path: Path) -> None:
    """MLA's cos θ of two tokens too long for the line is written q·k / (|q| |k|); a token
    holding `{` is `\\{` in LaTeX, which closed no group: counted as one, it cut the fraction
    in the wrong place and the page failed ("Extra }, or forgotten $"). The spec is
    mla_deepseek with the tokens `{` + 300 w and `}` (the query `down` keeps its name)."""
    source = (CONFIGS / "mla_deepseek.yaml").read_text(encoding="utf-8")
    assert "tokens: [the, cat, sat, down]" in source
    path = tmp_path / "mla.yaml"
    path.write_text(source.replace("tokens: [the, cat, sat, down]",
                                   'tokens: ["{' + "w" * 300 + '", "}", sat, down]'),
                    encoding="utf-8")
    text = render(build(load_spec(str(path))), "latex", "en", standalone=True)
    wide = [line for line in text.splitlines() if r"\cos\theta[" in line and "www" in line]
    assert wide and all(r"\frac" not in line and r" /\allowbreak (" in line for line in wide)
    (tmp_path / "doc.tex").write_text(text, encoding="utf-8")
    result = subprocess.run(["pdflatex", "-interaction=nonstopmode", "-halt-on-error", "doc.tex"],
                            cwd=tmp_path, capture_output=True, text=True)
    assert result.returncode == 0, result.stdout[-800:]


def test_a_cell_named_by_a_thousand_letter_token_is_matched_only_where_its_word_begins() -> None:
    # `\w*\[` tried from every letter of a 1,000-letter name ran to its end each time: 11 ms a
    # line, and a Beamer deck of a spec with such a token took 1.2 s instead of 0.4 s
    from attncli.render.latex_lines import _CELLS, _UNBROKEN

    long, other = "x" * 1000, "y" * 1000
    text = f"A[{long}, {other}]·dA[{long}, {other}] + S[{long}, j] = 0.5"
    assert [m.group() for m in _UNBROKEN.finditer(text)] == [
        f"A[{long}, {other}]", f"dA[{long}, {other}]", f"S[{long}, j]"]
    assert [m.group() for m in _CELLS.finditer(text)] == [
        f"A[{long}, {other}]·dA[{long}, {other}]"]
    # a match begins only where a word begins: from each of a word's 1,000 letters, one that
    # began inside it read to the word's end again (quadratic in the name's length)
    pair = f"{long}[a, j]·dA[a, j]"
    assert [pos for pos in range(len(long)) if _CELLS.match(pair, pos)] == [0]
    assert [pos for pos in range(len(long)) if _UNBROKEN.match(pair, pos)] == [0]
