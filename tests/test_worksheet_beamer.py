"""Beamer worksheets: the deck with chosen cells left as boxes, and its key, compiled at 16:9 and
4:3; every frame fits (pdflatex's log, pdftotext's word boxes), and the numbers the sheet's PDF
lacks are exactly those its blanks stand for, all present in the key's PDF."""

from __future__ import annotations

import re
import subprocess
from collections import Counter
from pathlib import Path

import pytest

from attncli.arithmetic.handcalc import written
from attncli.check.worksheet import blank
from attncli.spec import load_spec
from attncli.steps.build import build
from tests.conftest import CONFIGS, run
from tests.test_latex_pages import overfull, pdflatex, words_outside
from tests.test_worksheet import blank_operands

NUMBER = re.compile(r"−?-?\d+\.\d+")  # a printed number (2 decimals), its minus sign kept


# a step's further frame: "13. Output — head 2 (cont.)", „… (cd.)”, «… (продолжение)»
CONTINUED = re.compile(r" \((cont\.|cd\.|продолжение)\)$")


def pages(pdf: Path) -> dict[str, str]:
    """Each step's text by its title (its frames' first line), its further frames joined to it:
    a sheet, whose blanks are shorter, may carry on one frame what its key carries on two."""
    text = subprocess.run(["pdftotext", "-enc", "UTF-8", pdf.name, "-"], cwd=pdf.parent,
                          capture_output=True, text=True, check=True).stdout
    steps: dict[str, str] = {}
    for page in (page for page in text.split("\f") if page.strip()):
        title = CONTINUED.sub("", page.strip().split("\n")[0])
        steps[title] = steps.get(title, "") + page
    return steps


def numbers(texts: list[str]) -> Counter[str]:
    return Counter(n.replace("−", "-") for text in texts for n in NUMBER.findall(text))


@pytest.mark.parametrize(("spec", "aspect", "lang"), [
    ("cat_chases_mouse", "169", "en"), ("two_heads", "43", "pl"), ("two_heads", "169", "ru")])
def test_beamer_sheet_and_key_fit_their_frames_and_agree(spec: str, aspect: str, lang: str,
                                                          tmp_path: Path) -> None:
    path = CONFIGS / f"{spec}.yaml"
    sheet, key = tmp_path / "sheet" / "sheet.tex", tmp_path / "key" / "key.tex"
    sheet.parent.mkdir()
    key.parent.mkdir()
    result = run("export", str(path), "--beamer", "--aspect", aspect, "--lang", lang,
                 "--worksheet", "--blank-cells", "10", "--seed", "3", "-o", str(sheet),
                 "--answers", str(key))
    assert result.exit_code == 0, result.stderr
    for tex in (sheet, key):
        log = pdflatex(tex.read_text(encoding="utf-8"), tex.parent, tex.stem)
        assert overfull(log) == [], overfull(log)[:3]
        assert words_outside(tex.with_suffix(".pdf")) == []
    drawn = blank(build(load_spec(str(path))), None, 10, 3)
    cells = Counter(f"{written(float(m.whole()[i, j]), 2):.2f}" for s in drawn.steps
                    for m in s.matrices for i, j in m.blank)
    lines = sum(e.blank for s in drawn.steps for e in s.expansions)
    operands = sum(blank_operands(e.expression) for s in drawn.steps for e in s.expansions)
    sheet_pages, key_pages = pages(sheet.with_suffix(".pdf")), pages(key.with_suffix(".pdf"))
    # the key is the whole walkthrough; the sheet leaves out the reading, which says numbers
    assert set(sheet_pages) < set(key_pages)
    in_sheet = numbers(list(sheet_pages.values()))
    in_key = numbers([key_pages[title] for title in sheet_pages])
    assert in_sheet - in_key == Counter()  # the sheet prints no number its key does not
    missing = in_key - in_sheet
    assert sum(cells.values()) == 10
    # each blank cell's number is missing from the sheet; a blank written-out result may
    # hide one more number (a row's result, Z[mouse] = (…), hides a number per column), and a
    # line worked from a blank cell hides that number where it reads it
    assert cells - missing == Counter(), (cells, missing)
    assert sum(cells.values()) <= sum(missing.values()) <= (sum(cells.values()) + 4 * lines
                                                            + operands)


@pytest.mark.parametrize("fmt", ["beamer", "latex"])
def test_blank_weights_are_blank_in_the_heatmap_too(fmt: str, tmp_path: Path) -> None:
    """The heatmap beside A would give the blanked weights away, by number and by colour."""
    path = str(CONFIGS / "cat_chases_mouse.yaml")
    extra = ["--standalone"] if fmt == "latex" else []
    sheet = run("export", path, f"--{fmt}", *extra, "--worksheet", "--blank", "weights")
    assert sheet.exit_code == 0, sheet.stderr
    # the 9 cells of A (the 3 the causal mask hides are 0, to be written too), the 3 written-out
    # quotients A[mouse, ·], and the 6 visible cells of the heatmap
    assert sheet.stdout.count(r"\underline{\hphantom{00.00}}") == 9 + 3 + 6
    assert sheet.stdout == run("export", path, f"--{fmt}", *extra, "--worksheet", "--blank",
                               "weights").stdout
    key = run("export", path, f"--{fmt}", *extra).stdout
    texts = []
    for name, source in (("sheet", sheet.stdout), ("key", key)):
        pdflatex(source, tmp_path / name, name)
        texts.append(" ".join(page for title, page in pages(tmp_path / name / f"{name}.pdf")
                              .items() if "Attention weights" in title) if fmt == "beamer"
                     else subprocess.run(["pdftotext", f"{name}.pdf", "-"], cwd=tmp_path / name,
                                         capture_output=True, text=True, check=True).stdout)
    weights = ["0.36", "0.64", "0.40", "0.25", "0.35"]  # A's visible cells but the 1.00
    assert all(w in texts[1] for w in weights)
    if fmt == "beamer":  # the frames of A: the matrix, the heatmap, the written-out lines
        assert not any(w in texts[0] for w in weights), texts[0]
