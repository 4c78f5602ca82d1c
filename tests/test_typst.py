"""The Typst export compiled by the Typst compiler (the `typst` package on PyPI carries it) and
read back from the PDF: every example in en, pl and ru, as a document, as slides at 16:9 and
4:3, and as a fragment included twice in a page of 345pt of text (in CI all of it; elsewhere
each example once, the kinds and languages turning: tests/matrix.py). No error, no warning, and no
word outside the page's text area (Typst warns of no overflow; pdftotext's boxes show it), and
the words a reader checks are there: each step's written-out lines as the text format writes
them, and hostile token names as written.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from collections.abc import Iterator
from functools import cache
from pathlib import Path

import pytest

from attncli.arithmetic.expand import Selection
from attncli.i18n import LANGUAGES
from attncli.model import Walkthrough
from attncli.render import MAX_WIDTH, render
from attncli.spec import load_spec
from attncli.steps.build import build
from tests.matrix import turn
from tests.test_export_renderers import need
from tests.test_markdown_render import HOSTILE, hostile_spec

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = sorted((ROOT / "configs").glob("*.yaml"))
CM = 72 / 2.54  # points in a centimetre
# The text area of each kind of page (x0, y0, x1, y1 in points), as render/typst.py sets it.
A4 = (2 * CM, 2 * CM, 595.28 - 2 * CM, 841.89 - 2 * CM)
SLIDE_169 = (1.2 * CM, 1 * CM, 25.4 * CM - 1.2 * CM, 14.29 * CM - 1 * CM)
SLIDE_43 = (1.2 * CM, 1 * CM, 25.4 * CM - 1.2 * CM, 19.05 * CM - 1 * CM)
MARGIN = 40.0
HOST = (MARGIN, MARGIN, MARGIN + 345.0, MARGIN + 600.0)  # the page a fragment is included in
SLACK = 0.5  # points: a glyph's box may round past its line
# Typst sets a page's first line by its cap height and its last by its baseline: a letter's box
# (the font's ascent and descent, as pdftotext gives it) reaches past the margin by less than
# a third of an em of the largest text (a 14pt slide's title at 1.4em: under 8pt); a row that
# did not fit would reach a whole line past it.
EDGE_SLACK = 8.0


def compiler():  # type: ignore[no-untyped-def]
    try:
        import typst
    except ImportError:
        need("typst", "pip install typst (attn's test extra)")
    if shutil.which("pdftotext") is None:
        need("pdftotext", "apt-get install poppler-utils")
    return typst


@cache
def compiler_at(root: str):  # type: ignore[no-untyped-def]
    """One Typst compiler for each folder: it finds the system's fonts once, not at every
    compile, and reads every file afresh at each compile."""
    return compiler().Compiler(root=root)


def compile_pdf(source: Path) -> Path:
    pdf, warnings = compiler_at(str(source.parent)).compile_with_warnings(input=str(source))
    assert not warnings, (source.name, [str(w) for w in warnings][:3])
    out = source.with_suffix(".pdf")
    out.write_bytes(pdf)
    return out


def words(pdf: Path) -> Iterator[tuple[int, float, float, float, float, str]]:
    """(page, x0, y0, x1, y1, word) of every word pdftotext finds."""
    html = subprocess.run(["pdftotext", "-bbox", str(pdf), "-"], capture_output=True,
                          text=True, check=True).stdout
    for page, body in enumerate(html.split("<page ")[1:], start=1):
        for x0, y0, x1, y1, word in re.findall(
                r'<word xMin="([\d.]+)" yMin="([\d.]+)" xMax="([\d.]+)" yMax="([\d.]+)">'
                r"(.*?)</word>", body):
            yield page, float(x0), float(y0), float(x1), float(y1), word


def outside(pdf: Path, area: tuple[float, float, float, float]) -> list[str]:
    x0, y0, x1, y1 = area
    return [f"p{p} {w!r} ({a:.1f}, {b:.1f}, {c:.1f}, {d:.1f})"
            for p, a, b, c, d, w in words(pdf)
            if a < x0 - SLACK or c > x1 + SLACK or b < y0 - EDGE_SLACK or d > y1 + EDGE_SLACK]


def text_of(pdf: Path) -> str:
    """The PDF's words joined by single spaces. pdftotext reads a letter with a combining accent
    (Q̂, one cluster in the PDF) twice, `Q̂Q̂`: once is kept."""
    text = subprocess.run(["pdftotext", str(pdf), "-"], capture_output=True, text=True,
                          check=True).stdout
    return " ".join(re.sub(r"(\w[\u0300-\u036f])\1", r"\1", text).split())


def walkthrough(spec: Path) -> Walkthrough:
    return build(load_spec(str(spec)), Selection("shown"), summary=True)


def written_out(w: Walkthrough, lang: str) -> list[str]:
    """The text format's written-out lines (unwrapped), whitespace as pdftotext joins it."""
    text = render(w, "text", lang, width=MAX_WIDTH)
    # a step's own formula (the sinks' `A[i, j] = e^… / (e^s + …)`) is Typst math, not a line
    formulas = {" ".join(s.formula.text.split()) for s in w.steps if s.formula is not None}
    return [" ".join(line.split()) for line in text.splitlines()
            if line.startswith("   ") and (" = " in line or " ≈ " in line)
            and re.match(r"\s+(\S+\[|Σ =|e\^)", line)
            and " ".join(line.split()) not in formulas]


def check(source: Path, area: tuple[float, float, float, float], w: Walkthrough,
          lang: str) -> str:
    """Checks the compiled source; returns its text (text_of) for further checks."""
    pdf = compile_pdf(source)
    assert not outside(pdf, area), (source.name, outside(pdf, area)[:5])
    found = text_of(pdf)
    missing = [line for line in written_out(w, lang) if line not in found]
    assert not missing, (source.name, missing[:3])
    return found


KINDS = ("documents", "slides", "fragments included twice")


def compiled_as() -> dict[str, dict[str, list[tuple[int, Path]]]]:
    """kind -> language -> the examples (with their place) compiled so on this run: in CI every
    example as every kind in every language; elsewhere each example once, the kinds and the
    languages turning together, so that each pair meets a ninth of the examples
    (tests/matrix.py)."""
    pairs = [(kind, lang) for lang in LANGUAGES for kind in KINDS]  # 9, the kinds turning first
    out: dict[str, dict[str, list[tuple[int, Path]]]] = {
        kind: {lang: [] for lang in LANGUAGES} for kind in KINDS}
    for k, spec in enumerate(EXAMPLES):
        for kind, lang in turn("tests/test_typst.py: examples × kinds × languages", pairs, k):
            out[kind][lang].append((k, spec))
    return out


COMPILED = compiled_as()
DOCUMENTS, SLIDES, FRAGMENTS = (COMPILED[kind] for kind in KINDS)


@pytest.mark.parametrize("lang", LANGUAGES)
def test_every_example_compiles_as_a_document_within_its_page(tmp_path: Path, lang: str) -> None:
    compiler()
    for _, spec in DOCUMENTS[lang]:
        w = walkthrough(spec)
        source = tmp_path / f"{spec.stem}.typ"
        source.write_text(render(w, "typst", lang, standalone=True), encoding="utf-8")
        check(source, A4, w, lang)


@pytest.mark.parametrize("lang", LANGUAGES)
def test_every_example_compiles_as_slides_within_the_frame(tmp_path: Path, lang: str) -> None:
    compiler()
    for k, spec in SLIDES[lang]:
        w = walkthrough(spec)
        aspect, area = ("169", SLIDE_169) if k % 2 == 0 else ("43", SLIDE_43)
        source = tmp_path / f"{spec.stem}.typ"
        source.write_text(render(w, "typst", lang, slides=True, aspect=aspect),
                          encoding="utf-8")
        check(source, area, w, lang)


@pytest.mark.parametrize("lang", LANGUAGES)
def test_every_fragment_included_twice_stays_in_its_text_width(tmp_path: Path,
                                                               lang: str) -> None:
    compiler()
    for _, spec in FRAGMENTS[lang]:
        w = walkthrough(spec)
        (tmp_path / "part.typ").write_text(render(w, "typst", lang), encoding="utf-8")
        host = tmp_path / f"{spec.stem}.typ"
        host.write_text(f"#set page(width: {345 + 2 * MARGIN}pt, height: {600 + 2 * MARGIN}pt, "
                        f"margin: {MARGIN}pt)\n= A post\n#include \"part.typ\"\n"
                        "#include \"part.typ\"\n", encoding="utf-8")
        check(host, HOST, w, lang)


def test_hostile_token_names_print_as_written(tmp_path: Path) -> None:
    spec = hostile_spec(tmp_path)
    w = walkthrough(spec)
    source = tmp_path / "hostile.typ"
    source.write_text(render(w, "typst", "en", standalone=True), encoding="utf-8")
    found = check(source, A4, w, "en")
    for token in HOSTILE:
        assert token in found, token


def test_the_cli_writes_each_kind(tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from attncli.cli.app import app

    runner = CliRunner()
    for flags in ([], ["--standalone"], ["--slides", "--aspect", "43"]):
        out = tmp_path / "x.typ"
        result = runner.invoke(app, ["export", str(ROOT / "configs" / "two_heads.yaml"),
                                     "--typst", "--lang", "en,ru", "-o", str(out), *flags])
        assert result.exit_code == 0, result.output
        assert out.read_text(encoding="utf-8").startswith("// attn export --typst")
        if flags:
            compile_pdf(out)


def test_typst_is_a_snippet_format() -> None:
    from attncli.render import EXTENSIONS, file_formats

    assert EXTENSIONS["typst"] == "typ" and "typst" in file_formats()
    assert EXTENSIONS["html"] == "html" and "html" in file_formats()
    assert os.sep not in EXTENSIONS["typst"]


@pytest.mark.parametrize(("lang", "said"), [
    ("en", ["The same heads with their keys and values cached (𝑑𝑘 = 2 + 2):",
            "where 𝑑𝑘 = 𝑑nope + 𝑑𝑅 = 4: both"]),
    ("pl", ["przechowywała ich klucze i wartości (𝑑𝑘 = 2 + 2):", "gdzie 𝑑𝑘 = 𝑑nope + 𝑑𝑅 = 4:"]),
    ("ru", ["кэшировать их ключи и значения (𝑑𝑘 = 2 + 2):", "где 𝑑𝑘 = 𝑑nope + 𝑑𝑅 = 4:"]),
])
def test_a_size_and_its_sum_in_a_sentence_are_one_formula(tmp_path: Path, lang: str,
                                                          said: list[str]) -> None:
    # Typst printed the latent example's "(d_k = 2 + 2)" and "d_k = d_nope + d_R = 4" as
    # text, underscores and all, where LaTeX and Markdown set each as one formula: in the PDF
    # the formula's letters are math italic (𝑑𝑘), its word subscript upright (nope)
    from attncli.steps.narrow import select

    w = select(walkthrough(ROOT / "configs" / "mla_deepseek.yaml"),
               ["latent_cache", "latent_kv"], 1)
    source = tmp_path / "mla.typ"
    source.write_text(render(w, "typst", lang, standalone=True), encoding="utf-8")
    found = check(source, A4, w, lang)
    assert all(sentence in found for sentence in said), found[:2000]
    assert "d_k" not in found and "d_nope" not in found


def test_a_decimal_comma_in_a_formula_prints_with_no_space(tmp_path: Path) -> None:
    # Typst math reads `1,41` and `1\,41` alike as 1, then a comma with a space after it: 41
    from attncli.render.typst_math import math

    source = tmp_path / "comma.typ"
    source.write_text(math("√d_k = 1,41", display=True) + "\n" + math("x = 0,5"), encoding="utf-8")
    found = text_of(compile_pdf(source))
    assert "1,41" in found and "0,5" in found, found
    assert "1, 41" not in found and "0, 5" not in found, found
