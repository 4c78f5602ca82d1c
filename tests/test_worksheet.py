"""Worksheets: chosen cells left blank, the same for a seed, and a key that agrees with the sheet
everywhere but the blanks; both compile with pdflatex and parse in KaTeX."""

from __future__ import annotations

import re
from dataclasses import replace
from pathlib import Path

import pytest

from attncli.arithmetic.handcalc import written
from attncli.check.worksheet import blank, told
from attncli.i18n import Msg
from attncli.model import Difference, Exp, Expr, Num, Product, Quotient, Sum, Terms, Vec
from attncli.render import render
from attncli.spec import load_spec
from attncli.steps.build import build
from tests.conftest import CONFIGS, run
from tests.test_export_renderers import compile_latex, katex_errors, math_of

CAT = CONFIGS / "cat_chases_mouse.yaml"
BOX = r"\underline{\hphantom{00.00}}"  # a blank in LaTeX math
# Markdown's math has no \hphantom on GitHub: a blank there is a line of a number's width
MD_BOX = re.compile(r"\\underline\{\\hspace\{[0-9.]+em\}\}")
TEXT_BOX = r"\_\_\_\_"  # a blank result of a written-out line in Markdown prose
# a blank cell of the LaTeX heatmap, and the key's coloured cell with its number there
HEAT_BOX = "$" + BOX + "$"
HEAT_CELL = r"\\cellcolor\[RGB\]\{[0-9,]+\}\\textcolor\[RGB\]\{[0-9,]+\}\{\$(-?[0-9.]+)\$\}"


def test_blank_steps_blank_every_computed_cell_and_their_written_out_results() -> None:
    sheet = blank(build(load_spec(str(CAT))), ("weights", "output"))
    weights = next(s for s in sheet.steps if s.id == "weights")
    output = next(s for s in sheet.steps if s.id == "output")
    # the keys the causal mask hides keep their —: a blank there would ask for a number
    assert weights.matrices[0].blank == {(i, j) for i in range(3) for j in range(3) if j <= i}
    assert output.matrices[0].blank == {(i, j) for i in range(3) for j in range(2)}
    # the quotients A[mouse, ·] and the row Z[mouse] are blank; e^x and Σ are given
    assert [e.blank for e in weights.expansions] == [False] * 4 + [True] * 3
    assert [e.blank for e in output.expansions] == [True]
    assert sheet.reading == () and all(not m.blank for s in sheet.steps if s.id == "scores"
                                       for m in s.matrices)


def test_blank_cells_are_drawn_the_same_for_a_seed() -> None:
    walkthrough = build(load_spec(str(CAT)))

    def drawn(seed: int) -> list[tuple[str, int, int]]:
        return [(s.id, i, j) for s in blank(walkthrough, None, 6, seed).steps
                for m in s.matrices for i, j in sorted(m.blank)]

    assert len(drawn(1)) == 6 and drawn(1) == drawn(1) and drawn(1) != drawn(2)
    # never a given input, never a hidden score (−∞)
    sheet = blank(walkthrough, None, 40, 3)
    for step in sheet.steps:
        assert step.id not in ("embeddings", "parameters") or not any(m.blank
                                                                      for m in step.matrices)
        for m in step.matrices:
            assert all(m.whole()[i, j] > float("-inf") for i, j in m.blank)


SIZING = re.compile(r"\\attncolumn\{(\d+)\}\{(.*)\}")  # LaTeX: measures column j's width


def without_sizing(text: str) -> str:
    """The text without the blank's entry in each matrix's column-sizing phantom (which lists
    every shape of cell once, so a sheet has one entry more than its key)."""
    def drop(found: re.Match[str]) -> str:
        entries = [e.strip("\n") for e in found.group(1).split("\\\\")]
        kept = [e for e in entries if e != BOX]
        return found.group(0).replace(found.group(1), "\\\\\n".join(kept))

    return re.sub(r"\\hphantom\{\\begin\{matrix\}(.*?)\\end\{matrix\}", drop, text,
                  flags=re.S)


def blank_operands(expr: Expr) -> int:
    """The numbers of a written-out line that a worksheet leaves blank."""
    if isinstance(expr, Num):
        return int(expr.blank)
    if isinstance(expr, Vec):
        return len(expr.blank)
    parts: tuple[Expr, ...] = ()
    if isinstance(expr, Sum):
        parts = () if isinstance(expr.terms, Terms) else tuple(expr.terms)
    elif isinstance(expr, Product):
        parts = expr.factors
    elif isinstance(expr, Quotient):
        parts = (expr.numerator, expr.denominator)
    elif isinstance(expr, Exp):
        parts = (expr.argument,)
    elif isinstance(expr, Difference):
        parts = (expr.left, expr.right)
    return sum(blank_operands(p) for p in parts)


@pytest.mark.parametrize("fmt", ["latex", "markdown"])
def test_sheet_and_key_agree_but_for_the_blanks(fmt: str) -> None:
    key = replace(build(load_spec(str(CAT))), reading=())
    sheet = blank(key, None, 9, 7)
    # the sheet's first fact is its instruction line: the rest is compared with the key's
    assert sheet.header.facts[0] == Msg.of("Worksheet: fill in every empty box with the number "
                                           "it should hold, rounded as the numbers around it "
                                           "are.")
    sheet_text, key_text = render(sheet, fmt, "en"), render(told(key, sheet.header.facts[0]),
                                                            fmt, "en")
    if fmt == "markdown":
        assert BOX not in sheet_text
        sheet_text = MD_BOX.sub(lambda _: BOX, sheet_text)
    lines = without_sizing(sheet_text).splitlines()
    filled = []
    for mine, theirs in zip(lines, key_text.splitlines(), strict=True):
        sized = SIZING.fullmatch(mine), SIZING.fullmatch(theirs)
        if sized[0] and sized[1]:
            # a column's sizing lists each shape of cell once, a blank sized as a number: the
            # sheet's never has a box and lists nothing its key does not but a blank's stand-in
            assert sized[0].group(1) == sized[1].group(1), (mine, theirs)
            assert BOX not in mine, mine
            mine_entries, their_entries = (set(m.group(2).split("\\\\")) for m in sized)
            assert mine_entries <= their_entries | {"0.00"}, (mine, theirs)  # 0.00: a blank
            continue
        pattern = "".join(HEAT_CELL if part == HEAT_BOX else "(-?[0-9.]+)"
                          if part in (BOX, TEXT_BOX) else re.escape(part)
                          for part in re.split(f"({re.escape(HEAT_BOX)}|{re.escape(BOX)}|"
                                               f"{re.escape(TEXT_BOX)})", mine))
        found = re.fullmatch(pattern, theirs)
        assert found, (mine, theirs)
        filled += found.groups()
    blanks = [(m, i, j) for s in sheet.steps for m in s.matrices for i, j in sorted(m.blank)]
    assert len(blanks) == 9
    # every blank matrix cell's number is in the key, as printed (expansions add more boxes)
    numbers = {f"{written(float(m.whole()[i, j]), 2):.2f}" for m, i, j in blanks}
    assert numbers <= set(filled)
    boxes = sum(len(m.blank) for s in sheet.steps for m in s.matrices) + sum(
        e.blank + blank_operands(e.expression) for s in sheet.steps for e in s.expansions)
    if fmt == "latex":  # the heatmap of A blanks its blank cells a key does not hide
        boxes += sum(float(m.whole()[i, j]) > 0.0 for s in sheet.steps if s.id == "weights"
                     for m in s.matrices[:1] for i, j in m.blank)
    assert "\n".join(lines).count(BOX) + "\n".join(lines).count(TEXT_BOX) == boxes


def test_worksheet_compiles_and_parses_in_katex(tmp_path: Path) -> None:
    walkthrough = build(load_spec(str(CONFIGS / "two_heads.yaml")))
    sheet = blank(walkthrough, None, 12, 1)
    for lang in ("en", "pl", "ru"):
        text = compile_latex(render(sheet, "latex", lang, standalone=True), tmp_path)
        assert "Attention weights" in text or lang != "en"
    items = []
    for flavor in ("github", "katex"):
        items += math_of(render(sheet, "markdown", "en", md_flavor=flavor), flavor)
    assert any(MD_BOX.search(tex) for tex, _ in items)
    assert not any(BOX in tex for tex, _ in items)  # no \hphantom where GitHub refuses it
    assert not katex_errors(items)


def test_cli_worksheet_and_answers(tmp_path: Path) -> None:
    sheet, key = tmp_path / "sheet.md", tmp_path / "key.md"
    result = run("export", str(CAT), "--markdown", "--worksheet", "--blank-cells", "6",
                 "--seed", "1", "-o", str(sheet), "--answers", str(key))
    assert result.exit_code == 0, result.stderr
    again = run("export", str(CAT), "--markdown", "--worksheet", "--blank-cells", "6",
                "--seed", "1")
    assert again.stdout == sheet.read_text(encoding="utf-8")
    plain = run("export", str(CAT), "--markdown").stdout
    heading = "  \nAnswer key: the worksheet with every box filled in.\n"
    assert key.read_text(encoding="utf-8") == plain.replace("= 1.41`$\n", "= 1.41`$" + heading, 1)
    assert heading in key.read_text(encoding="utf-8")
    assert "Worksheet: fill in every empty box" in sheet.read_text(encoding="utf-8")
    assert len(MD_BOX.findall(sheet.read_text(encoding="utf-8"))) >= 6


def test_cli_worksheet_refuses_what_it_cannot_do() -> None:
    no_sheet = run("export", str(CAT), "--markdown", "--blank", "weights")
    assert (no_sheet.exit_code, no_sheet.stderr) == (
        2, "attn: --blank, --blank-cells and --answers make a worksheet; add --worksheet\n")
    as_json = run("export", str(CAT), "--json", "--worksheet")
    assert (as_json.exit_code, as_json.stderr) == (
        2, "attn: --worksheet: choose --latex, --beamer or --markdown\n")
    unknown = run("export", str(CAT), "--latex", "--worksheet", "--blank", "wieghts")
    assert unknown.exit_code == 2 and "unknown step wieghts" in unknown.stderr
    too_many = run("export", str(CAT), "--latex", "--worksheet", "--blank-cells", "999")
    assert too_many.exit_code == 2 and "--blank-cells: expected a number from 1 to" \
        in too_many.stderr


def test_gradient_steps_blank_every_matrix_they_make_and_their_written_out_results() -> None:
    """grad_rope makes dQ and dK, grad_shared each group's dK, dV, dW_K, dW_V: all are the
    student's to compute, and so are the results of the lines that write their cells out."""
    walkthrough = build(load_spec(str(CONFIGS / "backward_llama_style.yaml")))
    sheet = blank(walkthrough, ("grad_rope", "grad_shared"))
    chosen = [s for s in sheet.steps if s.id in ("grad_rope", "grad_shared")]
    assert [s.id for s in chosen] == ["grad_rope"] * 4 + ["grad_shared"]
    for step in chosen:
        assert all(m.blank == {(i, j) for i in range(m.values.shape[0])
                               for j in range(m.values.shape[1])} for m in step.matrices)
        assert step.expansions and all(e.blank for e in step.expansions)
    assert [m.symbol.text for m in chosen[-1].matrices][:4] == ["dK (g1)", "dV (g1)",
                                                               "dW_K (g1)", "dW_V (g1)"]


def test_a_blanked_weight_is_blank_in_every_later_line_worked_from_it() -> None:
    """--blank weights: the output row and the backward steps are worked from the weights, so
    there each weight is a box too (the key has the number there); the e^x and Σ lines before
    them are given."""
    spec = CONFIGS / "backward_cat_chases_mouse.yaml"
    key = build(load_spec(str(spec)))
    sheet = blank(key, ("weights",))
    text, answers = render(sheet, "markdown", "en", md_flavor="plain"), render(key, "markdown",
                                                                               "en",
                                                                               md_flavor="plain")
    line = next(x for x in text.splitlines() if x.startswith("- Z\\[mouse\\]"))
    box = "\\_\\_\\_\\_"
    assert line == (f"- Z\\[mouse\\] = Σⱼ A\\[mouse, j\\]·v\\_j = {box}·\\[1.00, 0.00\\] + "
                    f"{box}·\\[0.20, 1.00\\] + {box}·\\[0.80, 0.00\\] = \\[0.73, 0.25\\]")
    assert "0.40·\\[1.00, 0.00\\] + 0.25·\\[0.20, 1.00\\] + 0.35·" in answers
    backward = text[text.index("Gradient of the output"):]
    for weight in ("0.36", "0.64", "0.40", "0.25", "0.35"):  # A's numbers, but 1.00 and the —
        assert not re.search(r"(?<![\d.])" + re.escape(weight) + r"·", backward), weight
    assert "\\_\\_\\_\\_·(1.20 − 0.98)" in backward  # dS′[mouse, chases] = A·(dA − Σ)
