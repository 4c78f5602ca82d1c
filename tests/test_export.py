"""attn export: LaTeX, Markdown, JSON, SVG and the heatmap; escaping; safe writes; determinism.

The renderers' output is checked by real renderers in test_export_renderers.py; here, what can be
checked by reading the text."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
import yaml
from typer.testing import CliRunner

from attncli.cli.app import app
from attncli.errors import UsageError
from attncli.files import writing
from attncli.render import FORMATS, render
from attncli.render.markdown import escape as md_escape
from attncli.render.tex import escape_text, labelled_matrix
from attncli.spec import load_spec
from attncli.steps.build import build
from tests.conftest import CONFIGS
from tests.conftest import run as cli_run
from tests.test_export_renderers import need

ROOT = Path(__file__).resolve().parent.parent
CAT = ROOT / "configs" / "cat_chases_mouse.yaml"  # the bundled example: 3 tokens, d_model = 2
TRICKY = ROOT / "tests" / "data" / "tricky_tokens.yaml"
TOKENS = ["\\input{x}", "50%", "a_b", "|", "<b>", "[bold]"]
runner = CliRunner()


def export(*args: str) -> str:
    result = runner.invoke(app, ["export", *args])
    assert result.exit_code == 0, result.output
    return result.stdout


# --- escaping -------------------------------------------------------------------------------


@pytest.mark.parametrize(("token", "latex"), [
    ("\\input{x}", r"\textbackslash{}input\{x\}"),
    ("50%", r"50\%"),
    ("a_b", r"a\_b"),
    ("|", r"\textbar{}"),
    ("<b>", r"\textless{}b\textgreater{}"),
    ("[bold]", "[bold]"),
    ("#~^&$", r"\#\textasciitilde{}\textasciicircum{}\&\$"),
    ("a--b", "a-{}-{}b"),
    ("qᵢ·kⱼ", r"q\ensuremath{{}_{i}}\ensuremath{\cdot}k\ensuremath{{}_{j}}"),
    ("−∞", r"\ensuremath{-}\ensuremath{\infty}"),
    ("α", r"\ensuremath{\alpha}"),
    ("😀", r"\texttt{U+1F600}"),
])
def test_latex_escapes_make_user_text_literal(token: str, latex: str) -> None:
    assert escape_text(token) == latex


def test_cyrillic_switches_encoding_only_where_the_base_is_latin() -> None:
    assert escape_text("кот cat") == r"{\fontencoding{T2A}\selectfont кот} cat"
    assert escape_text("кот cat", cyrillic_base=True) == "кот cat"
    assert escape_text("łódź", cyrillic_base=True) == (
        r"{\fontencoding{T1}\selectfont łó}d{\fontencoding{T1}\selectfont ź}")


def test_katex_escapes_avoid_what_github_reads_in_math() -> None:
    text = escape_text("a_b {x} $5", "katex")
    assert text == r"a\textunderscore{}b \textbraceleft{}x\textbraceright{} \textdollar{}5"
    assert escape_text("−∞", "katex") == "$-$$\\infty$"


@pytest.mark.parametrize(("text", "markdown"), [
    ("<b>x</b>", r"\<b\>x\</b\>"),
    ("a|b", r"a\|b"),
    ("[bold]", r"\[bold\]"),
    ("a_b*c*", r"a\_b\*c\*"),
    ("R&D", "R&amp;D"),
    ("- not a list", r"\- not a list"),
    ("1. not a list", r"\1. not a list"),
    ("line\nbreak", "line break"),
])
def test_markdown_escapes(text: str, markdown: str) -> None:
    assert md_escape(text) == markdown


def test_labelled_matrix_has_every_row_on_its_own_line() -> None:
    lines = labelled_matrix("A", [["1.00", "0.00"], ["0.36", "0.64"]], ["cat", "dog"],
                          ["cat", "dog"], "katex")
    assert r"\attncell{1.00} & \attncell{0.00} \\" in lines
    assert r"\attncell{0.36} & \attncell{0.64}" in lines
    for line in lines:  # GitHub drops a \\ in the middle of a line
        assert "\\\\" not in line.rstrip()[:-2]


# --- LaTeX ----------------------------------------------------------------------------------


def test_latex_fragment_and_standalone() -> None:
    fragment = export(str(CAT), "--latex")
    assert fragment.startswith("% attn export --latex: a fragment for \\input; engine: pdflatex")
    tex = "\n".join(line for line in fragment.splitlines() if not line.startswith("%"))
    assert r"\documentclass" not in tex and r"\begin{bmatrix}" in tex  # the comment may name one
    assert r"\documentclass[xcolor=table]{beamer}" in fragment  # how to load it into a deck
    whole = export(str(CAT), "--latex", "--standalone")
    assert whole.splitlines()[0].startswith("% engine: pdflatex")
    assert whole.rstrip().endswith(r"\end{document}")
    assert r"\usepackage[T1]{fontenc}" in whole and r"\usepackage[english]{babel}" in whole


def test_latex_masked_cells_are_minus_infinity_and_formulas_come_from_latex() -> None:
    text = export(str(ROOT / "configs" / "cat_chases_mouse.yaml"), "--latex")
    assert r"\attncell{2}{-\infty}" in text
    # the causal mask hides 3 scores of 9: the masked matrix has exactly three -inf cells
    masked = text.split(r"S' + M = {}")[1].split(r"\end{equation*}")[0]
    assert masked.count(r"-\infty") == 3
    assert r"A = \operatorname{softmax}\left(S' + M\right)" in text
    for formula in ("S = Q·Kᵀ", "√", "ᵀ"):
        assert formula not in text  # Formula.text never reaches LaTeX


def test_latex_weights_match_the_classic_example() -> None:
    """cat chases mouse: weights [1, 0, 0], [0.36, 0.64, 0], [0.40, 0.25, 0.35]."""
    text = export(str(ROOT / "configs" / "cat_chases_mouse.yaml"), "--latex")
    weights = text.split("A = {}")[1].split(r"\end{bmatrix}")[0]
    rows = [re.findall(r"\\attncell\{\d+\}\{([-0-9.]+|\\text\{—\})\}", line)
            for line in weights.splitlines()]
    hidden = r"\text{—}"  # a key the causal mask hides: no weight to print
    assert [r for r in rows if len(r) == 3] == [["1.00", hidden, hidden], ["0.36", "0.64", hidden],
                                                ["0.40", "0.25", "0.35"]]


def test_latex_tricky_tokens_are_escaped() -> None:
    text = export(str(TRICKY), "--latex")
    assert r"\text{\textbackslash{}input\{x\}}" in text
    assert r"\text{50\%}" in text and r"\text{a\_b}" in text
    assert "\\input{x}" not in text.replace(r"\textbackslash{}input", "")


def test_latex_wide_matrix_is_split_into_column_blocks() -> None:
    text = export(str(ROOT / "tests" / "data" / "wide.yaml"), "--latex")
    assert r"columns d1–\allowbreak{}d" in text or r"columns t1–\allowbreak{}t" in text


def test_latex_more_than_ten_columns_sets_the_column_limit() -> None:
    from attncli.render.latex_matrix import Page, blocks, matrix_latex

    walkthrough = build(load_spec(str(ROOT / "tests" / "data" / "wide.yaml")))
    matrix = walkthrough.heads[0].weights
    assert len(matrix.columns) == 12
    cells = [[f"{x:.2f}" for x in row] for row in matrix.whole()]
    # split to fit the page, in blocks of even size, each within amsmath's default of 10 columns
    article = blocks("A", cells, matrix.rows, matrix.columns, Page())
    sizes = [len(b.columns) for b in article]
    assert len(article) > 1 and max(sizes) - min(sizes) <= 1 and max(sizes) <= 10
    assert [j for b in article for j in b.columns] == list(range(12))
    wide = blocks("A", cells, matrix.rows, matrix.columns, Page(width=1000))
    assert [b.columns for b in wide] == [range(12)]
    lines = matrix_latex("A", cells, matrix.rows, matrix.columns)
    assert r"\setcounter{MaxMatrixCols}{12}" in lines


# --- Markdown -------------------------------------------------------------------------------


def math_blocks(markdown: str) -> list[str]:
    """Display math: ```math fences (github flavour) or `$$` lines (katex flavour)."""
    return [a or b for a, b in re.findall(r"^```math\n(.*?)\n```$|^\$\$\n(.*?)\n\$\$$",
                                          markdown, flags=re.S | re.M)]


def test_markdown_math_blocks_and_front_matter() -> None:
    text = export(str(ROOT / "configs" / "cat_chases_mouse.yaml"), "--markdown", "--front-matter")
    assert text.startswith('---\ntitle: "cat chases mouse: attention step by step"\nlang: en\n'
                           'math: true\ntitle_en: "cat chases mouse: attention step by step"\n'
                           '---\n')
    blocks = math_blocks(text)
    assert r"S' = \frac{S}{\sqrt{d_k}} = \frac{S}{\sqrt{2}}" in blocks
    for block in blocks:
        assert "\n\n" not in block  # a blank line would end the block in Markdown
        assert "\\\\" not in block  # rows end in \cr: a Markdown pass makes \\ a \


def test_front_matter_is_what_pandoc_reads_for_a_page(tmp_path: Path) -> None:
    """pandoc makes the first language's title the page's <title>, its `lang` the page's
    language and the description its meta description; the plain flavour says no math."""
    if shutil.which("pandoc") is None:
        need("pandoc", "apt-get install pandoc")
    spec = tmp_path / "spec.yaml"
    spec.write_text((ROOT / "configs" / "two_heads.yaml").read_text(encoding="utf-8")
                    + 'description: {pl: "Dwie głowice: jedna maska", en: "Two"}\n',
                    encoding="utf-8")
    text = export(str(spec), "--markdown", "--front-matter", "--lang", "pl,en")
    front = yaml.safe_load(text.split("---\n")[1])
    assert front == {"title": "Dwie głowice, do policzenia ręcznie", "lang": "pl",
                     "description": "Dwie głowice: jedna maska", "math": True,
                     "title_pl": "Dwie głowice, do policzenia ręcznie",
                     "title_en": "Two heads, by hand",
                     "description_pl": "Dwie głowice: jedna maska", "description_en": "Two"}
    page = subprocess.run(["pandoc", "-f", "markdown", "-t", "html5", "-s"], input=text,
                          capture_output=True, text=True, check=True).stdout
    assert "<title>Dwie głowice, do policzenia ręcznie</title>" in page
    assert '<html xmlns="http://www.w3.org/1999/xhtml" lang="pl" xml:lang="pl">' in page
    assert '<meta name="description" content="Dwie głowice: jedna maska" />' in page
    plain = export(str(spec), "--markdown", "--md-flavor", "plain", "--front-matter")
    assert "math:" not in plain.split("---\n")[1]


def test_markdown_flavors_differ_in_inline_math_only_plain_has_no_math() -> None:
    github = export(str(CAT), "--markdown")
    katex = export(str(CAT), "--markdown", "--md-flavor", "katex")
    plain = export(str(CAT), "--markdown", "--md-flavor", "plain")
    assert "$`X`$ (3 × 2)" in github and "$X$ (3 × 2)" in katex
    assert math_blocks(github) == math_blocks(katex)
    assert "$" not in plain and "```text" in plain and "|---|" in plain


def table_rows(markdown: str) -> list[list[str]]:
    rows = [line for line in markdown.splitlines() if line.startswith("|")]
    return [re.split(r"(?<!\\)\|", row)[1:-1] for row in rows]


def test_markdown_tricky_tokens_keep_tables_intact_and_inject_no_html() -> None:
    plain = export(str(TRICKY), "--markdown", "--md-flavor", "plain")
    for row in table_rows(plain):
        assert len(row) in (3, 7), row  # label + 2 features, or label + 6 keys
    labels = [row[0].strip() for row in table_rows(plain) if len(row) == 7][2:8]
    assert labels == [r"\\input\{x}", "50%", r"a\_b", r"\|", r"\<b\>", r"\[bold\]"]
    for text in (plain, export(str(TRICKY), "--markdown")):
        assert re.search(r"(?<!\\)<", text) is None


def test_markdown_sections_per_language() -> None:
    from attncli.render import RenderOptions
    from attncli.render.markdown import document

    walkthrough = build(load_spec(str(CAT)))
    text = document(walkthrough, RenderOptions(front_matter=True), ["en", "en"])
    assert text.count("## EN\n") == 2 and "### " in text and "\n# " not in text


# --- terminal, SVG, heatmap, JSON -----------------------------------------------------------


def test_terminal_shows_rich_markup_literally() -> None:
    walkthrough = build(load_spec(str(TRICKY)))
    colored = render(walkthrough, "rich", color=True, width=100)
    assert "[bold]" in colored and "<b>" in colored and "\\input{x}" in colored
    svg = render(walkthrough, "svg")
    assert "[bold]" in svg and "&lt;b&gt;" in svg and "<b>" not in svg


def test_heatmap_has_a_cell_per_weight_labels_and_numbers() -> None:
    walkthrough = build(load_spec(str(ROOT / "configs" / "cat_chases_mouse.yaml")))
    svg = render(walkthrough, "heatmap")
    assert svg.count("<rect ") == 9 + 2  # the cells, the background, the hatching's tile
    numbers = re.findall(r'text-anchor="middle" fill="#[0-9a-f]{6}">([^<]+)<', svg)
    # the causal mask hides 3 keys: marked —, not a white 0.00
    assert numbers == ["1.00", "—", "—", "0.36", "0.64", "—", "0.40", "0.25", "0.35"]
    assert 'fill="#08306b"' in svg  # weight 1.00 is the darkest shade
    assert svg.count('fill="url(#attn-hidden)"') == 3
    tricky = render(build(load_spec(str(TRICKY))), "heatmap")
    assert "&lt;b&gt;" in tricky and "<b>" not in tricky
    import xml.etree.ElementTree as ET

    root = ET.fromstring(tricky)  # well-formed XML whatever the token names
    texts = [el.text for el in root.iter("{http://www.w3.org/2000/svg}text")]
    for token in TOKENS:
        assert texts.count(token) == 2  # once as a query, once as a key


def test_json_export_is_explains_json() -> None:
    spec = str(CAT)
    exported = json.loads(export(spec, "--json"))
    explained = runner.invoke(app, ["explain", spec, "--format", "json"]).stdout
    assert exported == json.loads(explained)


def test_every_format_is_registered() -> None:
    assert {"latex", "markdown", "svg", "heatmap"} <= set(FORMATS)


# --- the command: options, files, errors ----------------------------------------------------


@pytest.mark.parametrize("flags", [["--latex", "--standalone"], ["--markdown", "--front-matter"],
                                   ["--json"], ["--svg"]])
def test_two_exports_are_byte_identical(flags: list[str], tmp_path: Path) -> None:
    first, second = tmp_path / "a", tmp_path / "b"
    for target in (first, second):
        result = runner.invoke(app, ["export", str(TRICKY), *flags, "-o", str(target)])
        assert result.exit_code == 0 and result.stdout == ""
    assert first.read_bytes() == second.read_bytes()
    assert first.read_bytes().endswith(b"\n") and b"\r" not in first.read_bytes()


def test_heatmap_file_is_written_and_stable(tmp_path: Path) -> None:
    target = tmp_path / "weights.svg"
    assert runner.invoke(app, ["export", str(CAT), "--heatmap", str(target)]).exit_code == 0
    before = target.read_bytes()
    assert runner.invoke(app, ["export", str(CAT), "--heatmap", str(target)]).exit_code == 0
    assert target.read_bytes() == before and before.startswith(b"<svg ")


def test_output_never_overwrites_the_input_spec(tmp_path: Path,
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    spec = tmp_path / "spec.yaml"
    spec.write_text(TRICKY.read_text(encoding="utf-8"), encoding="utf-8")
    original = spec.read_bytes()
    monkeypatch.chdir(tmp_path)
    for target in (str(spec), "spec.yaml", "./spec.yaml"):
        result = runner.invoke(app, ["export", str(spec), "--latex", "-o", target])
        assert result.exit_code == 2
        assert "refusing to write over the input" in result.stderr
        assert len(result.stderr.strip().splitlines()) == 1
    result = runner.invoke(app, ["export", str(spec), "--heatmap", "spec.yaml"])
    assert result.exit_code == 2
    # refused before any output is written: the heatmap named first was written, then -o refused
    result = runner.invoke(app, ["export", str(spec), "--heatmap", "w.svg", "--latex", "-o",
                                 "spec.yaml"])
    assert result.exit_code == 2 and sorted(os.listdir(tmp_path)) == ["spec.yaml"]
    assert spec.read_bytes() == original


def test_a_failed_write_leaves_the_old_file(tmp_path: Path,
                                            monkeypatch: pytest.MonkeyPatch) -> None:
    target = tmp_path / "out.tex"
    target.write_text("old\n", encoding="utf-8")

    def broken_replace(src: str, dst: str) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(writing.os, "replace", broken_replace)
    with pytest.raises(UsageError):
        writing.write_atomic(target, "new\n")
    assert target.read_text(encoding="utf-8") == "old\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out.tex"]  # no temporary left


def test_write_atomic_replaces_and_keeps_permissions(tmp_path: Path) -> None:
    target = tmp_path / "out.md"
    target.write_text("old\n", encoding="utf-8")
    target.chmod(0o640)
    writing.write_atomic(target, "new ü\n")
    assert target.read_bytes() == "new ü\n".encode()
    assert target.stat().st_mode & 0o777 == 0o640


def test_unwritable_folder_is_one_line_and_exit_2(tmp_path: Path) -> None:
    result = runner.invoke(app, ["export", str(CAT), "--json", "-o",
                                 str(tmp_path / "missing" / "x.json")])
    assert result.exit_code == 2
    assert result.stderr.startswith("attn: cannot write ") and "Traceback" not in result.stderr


def test_one_format_at_a_time() -> None:
    result = runner.invoke(app, ["export", str(CAT), "--latex", "--json"])
    assert result.exit_code == 2
    assert runner.invoke(app, ["export", str(CAT)]).exit_code == 2


def test_export_through_the_real_entry_point(tmp_path: Path) -> None:
    target = tmp_path / "cat.md"
    attn = Path(sys.executable).parent / "attn"
    done = subprocess.run([str(attn), "export", str(ROOT / "configs" / "cat_chases_mouse.yaml"),
                           "--markdown", "--md-flavor", "plain", "-o", str(target)],
                          capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr
    assert done.stdout == ""
    assert "| chases | 0.36 | 0.64 | — |" in target.read_text(encoding="utf-8")


def test_export_needs_exactly_one_format_and_says_so_in_the_chosen_language() -> None:
    from typer.testing import CliRunner

    from attncli.cli.app import app

    runner = CliRunner()
    both = runner.invoke(app, ["export", "--latex", "--markdown"])
    assert both.exit_code == 2 and both.stdout == ""
    assert both.stderr == ("attn: choose one of --latex, --beamer, --markdown, --json, --svg, "
                           "--html, --typst; "
                           "found --latex, --markdown\n")
    none = runner.invoke(app, ["export", "--lang", "pl"])
    assert none.exit_code == 2
    assert none.stderr == ("attn: wybierz jedno z\u00a0--latex, --beamer, --markdown, --json, "
                           "--svg, --html, --typst "
                           "(albo --heatmap PLIK)\n")


@pytest.mark.parametrize(("args", "line"), [
    (["--json", "--standalone"],
     "attn: --standalone works only with --latex or --typst; the format chosen is --json\n"),
    (["--markdown", "--slides"],
     "attn: --slides works only with --typst; the format chosen is --markdown\n"),
    (["--latex", "--fragment"],
     "attn: --fragment works only with --html; the format chosen is --latex\n"),
    (["--latex", "--frames-only"],
     "attn: --frames-only works only with --beamer; the format chosen is --latex\n"),
    (["--html", "--front-matter"],
     "attn: --front-matter works only with --markdown; the format chosen is --html\n"),
    (["--typst", "--md-flavor", "katex"],
     "attn: --md-flavor works only with --markdown; the format chosen is --typst\n"),
    (["--heatmap", "map.svg", "--standalone"],
     "attn: --standalone works only with --latex or --typst; the format chosen is --heatmap\n"),
    (["--xlsx", "-o", "sheet.xlsx", "--slides"],
     "attn: --slides works only with --typst; the format chosen is --xlsx\n"),
    # --aspect shapes a Beamer deck and Typst slides; any other page has no aspect
    (["--latex", "--aspect", "43"],
     "attn: --aspect works only with --beamer or --slides; the format chosen is --latex\n"),
    (["--typst", "--standalone", "--aspect", "43"],
     "attn: --aspect works only with --beamer or --slides; the format chosen is --typst\n"),
    (["--html", "--aspect", "169"],  # the default, given: still a word that does nothing
     "attn: --aspect works only with --beamer or --slides; the format chosen is --html\n"),
    (["--heatmap", "map.svg", "--aspect", "43"],
     "attn: --aspect works only with --beamer or --slides; the format chosen is --heatmap\n"),
    (["--xlsx", "-o", "sheet.xlsx", "--aspect", "43"],
     "attn: --aspect works only with --beamer or --slides; the format chosen is --xlsx\n"),
    (["--json", "--aspect", "43", "--lang", "ru"],
     "attn: --aspect работает только с\u00a0--beamer или --slides, а\u00a0выбран --json\n"),
    # --heatmap alone draws the weights: an option of the walkthrough's page shapes nothing
    (["--heatmap", "map.svg", "--steps", "weights"],
     "attn: --steps works only with a format that writes the walkthrough (--latex, --beamer, "
     "--markdown, --json, --svg, --html, --typst); --heatmap alone draws the weights\n"),
    (["--heatmap", "map.svg", "--matrix", "A"],  # the matrix was ignored, the picture written
     "attn: --matrix works only with a format that writes the walkthrough (--latex, --beamer, "
     "--markdown, --json, --svg, --html, --typst); --heatmap alone draws the weights\n"),
    # a workbook holds every number and no prose: these were dropped without a word
    (["--xlsx", "-o", "sheet.xlsx", "--full"],
     "attn: --full works only with a format that shortens a large matrix in the middle; the "
     "format chosen is --xlsx\n"),
    (["--xlsx", "-o", "sheet.xlsx", "--no-reading", "--lang", "pl"],
     "attn: --no-reading działa tylko z\u00a0formatem, który zapisuje obliczenia (--latex, "
     "--beamer, --markdown, --json, --svg, --html, --typst); wybrany format to --xlsx\n"),
    (["--heatmap", "map.svg", "-o", "page.md"],  # exit 0, and page.md never written
     "attn: -o works only with a format that writes the walkthrough (--latex, --beamer, "
     "--markdown, --json, --svg, --html, --typst); --heatmap alone draws the weights\n"),
    (["--heatmap", "map.svg", "--full"],
     "attn: --full works only with a format that writes the walkthrough (--latex, --beamer, "
     "--markdown, --json, --svg, --html, --typst); --heatmap alone draws the weights\n"),
    (["--heatmap", "map.svg", "--no-header", "--lang", "pl"],
     "attn: --no-header działa tylko z\u00a0formatem, który zapisuje obliczenia (--latex, "
     "--beamer, --markdown, --json, --svg, --html, --typst); sama opcja --heatmap rysuje "
     "jedynie wagi atencji\n"),
    (["--heatmap", "map.svg", "--backward", "--lang", "ru"],
     "attn: --backward работает только с\u00a0форматом, в\u00a0котором записывается разбор "
     "(--latex, --beamer, --markdown, --json, --svg, --html, --typst); --heatmap без формата "
     "рисует только веса внимания\n"),
    # a spreadsheet has no worksheet, so no key to write
    (["--xlsx", "-o", "sheet.xlsx", "--answers", "key.md"],
     "attn: --blank, --blank-cells and --answers make a worksheet; add --worksheet\n"),
    # --seed draws the cells of --blank-cells and nothing else
    (["--latex", "--seed", "3"], "attn: --seed works only with --blank-cells\n"),
    (["--markdown", "--worksheet", "--seed", "0"],
     "attn: --seed works only with --blank-cells\n"),
    (["--latex", "--worksheet", "--blank", "weights", "--seed", "1", "--lang", "pl"],
     "attn: --seed działa tylko z\u00a0--blank-cells\n"),
    (["--json", "--standalone", "--lang", "pl"],
     "attn: --standalone działa tylko z\u00a0--latex albo --typst; wybrany format to --json\n"),
    (["--markdown", "--slides", "--lang", "ru"],
     "attn: --slides работает только с\u00a0--typst, а\u00a0выбран --markdown\n"),
])
def test_an_option_of_another_format_is_refused_not_dropped(args: list[str], line: str,
                                                             tmp_path: Path,
                                                             monkeypatch: pytest.MonkeyPatch
                                                             ) -> None:
    """--standalone with --json (or --slides with Markdown) would be dropped without a word: the
    user learns which format the option shapes, and nothing is written."""
    from attncli.cli.app import app

    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(app, ["export", str(CONFIGS / "cat_chases_mouse.yaml"), *args])
    assert (result.exit_code, result.stdout, result.stderr) == (2, "", line)
    assert list(tmp_path.iterdir()) == []


def test_the_options_of_their_own_format_are_taken(tmp_path: Path) -> None:
    from attncli.cli.app import app

    for args in (["--latex", "--standalone"], ["--typst", "--slides"], ["--typst", "--standalone"],
                 ["--html", "--fragment"], ["--beamer", "--frames-only"],
                 ["--markdown", "--front-matter", "--md-flavor", "katex"],
                 ["--beamer", "--aspect", "43"], ["--beamer", "--frames-only", "--aspect", "43"],
                 ["--typst", "--slides", "--aspect", "43"],
                 ["--latex", "--worksheet", "--blank-cells", "2", "--seed", "5"],
                 ["--heatmap", str(tmp_path / "map.svg"), "--head", "1", "-p", "3"],
                 ["--markdown", "--heatmap", str(tmp_path / "map.svg"), "--steps", "weights",
                  "--no-header"]):
        result = CliRunner().invoke(app, ["export", str(CONFIGS / "cat_chases_mouse.yaml"),
                                          *args])
        assert result.exit_code == 0, (args, result.stderr)


def test_latex_and_markdown_show_the_work_and_the_reading() -> None:
    """The same walkthrough as the terminal: written-out cells as equations (LaTeX) or as the
    lines a learner recomputes (Markdown), the reading as prose, hand calculation's drift."""
    from typer.testing import CliRunner

    from attncli.cli.app import app

    runner = CliRunner()
    latex = runner.invoke(app, ["export", "--latex", "--round-intermediates"]).stdout
    # seed 000 by hand, row mouse: S′ = 0.80 / 1.41 = 0.57, 0.16 / 1.41 = 0.11, 0.64 / 1.41 =
    # 0.45; e^0.57 = 1.768 -> 1.77, e^0.11 = 1.116 -> 1.12, e^0.45 = 1.568 -> 1.57; sum 4.46
    assert r"$\Sigma = 1.77 + 1.12 + 1.57 = 4.46$" in latex
    # a row of numbers that fits a line is one group, and so is its product: no line ends
    # inside `[0.20, 1.00]` (a longer row may break after a comma: tests/test_latex_breaks.py)
    assert (r"$Z[\text{chases}] = \sum_j A[\text{chases}, j] \, v_j = ") not in latex
    assert (r"$Z[\text{mouse}] = \sum_j A[\text{mouse}, j] \, v_j = {0.40 \cdot "
            r"{[1.00,\ 0.00]}} + {0.25 \cdot {[0.20,\ 1.00]}} + {0.35 \cdot "
            r"{[0.80,\ 0.00]}} = {[0.73,\ 0.25]}$") in latex  # auto writes out one row: mouse
    reading = ("“mouse” attends most to “cat” (0.40), then to itself (0.35), least to “chases” "
               "(0.25).")
    assert reading in latex
    assert "A[chases,~cat]: 0.35 by hand" in latex  # the cell's name on one line
    markdown = runner.invoke(app, ["export", "--markdown"]).stdout
    # full precision: e^0.1131 = 1.1198 over the row sum 4.4528 is 0.2515, printed at 2 decimals
    assert (r"- $`A[\text{mouse}, \text{chases}] ={}`$ $`1.12 / 4.45 ={}`$ $`0.25`$" + "\n"
            in markdown)
    assert reading + "\n" in markdown


def test_output_dash_is_standard_output(tmp_path: Path,
                                        monkeypatch: pytest.MonkeyPatch) -> None:
    """`-o -` writes to standard output, as `attn explain -` reads standard input; it wrote a
    file named `-` that `attn explain -` could then never read."""
    monkeypatch.chdir(tmp_path)
    result = cli_run("export", str(CONFIGS / "cat_chases_mouse.yaml"), "--markdown", "-o", "-")
    assert (result.exit_code, result.stderr) == (0, "")
    assert result.stdout.startswith("# cat chases mouse: attention step by step\n")
    assert list(tmp_path.iterdir()) == []


def test_heatmap_and_answers_dash_are_standard_output(tmp_path: Path,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    """`--heatmap -` and `--answers -` write to standard output as `-o -` does (they wrote a
    file named `-`), when the document is written to a file or there is none."""
    monkeypatch.chdir(tmp_path)
    cat = str(CONFIGS / "cat_chases_mouse.yaml")
    alone = cli_run("export", cat, "--heatmap", "-")
    assert (alone.exit_code, alone.stderr) == (0, "")
    svg = ET.fromstring(alone.stdout)
    assert svg.tag == "{http://www.w3.org/2000/svg}svg"
    assert list(tmp_path.iterdir()) == []
    beside = cli_run("export", cat, "--markdown", "-o", "doc.md", "--heatmap", "-")
    assert (beside.exit_code, beside.stdout) == (0, alone.stdout)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["doc.md"]
    key = cli_run("export", cat, "--markdown", "--worksheet", "-o", "sheet.md", "--answers", "-")
    assert key.exit_code == 0, key.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["doc.md", "sheet.md"]
    written_key = cli_run("export", cat, "--markdown", "--worksheet", "-o", "sheet2.md",
                          "--answers", "key.md")
    assert key.stdout == (tmp_path / "key.md").read_text(encoding="utf-8")
    blank = r"\underline{\hspace"  # a box to fill in, in Markdown's math
    assert blank in (tmp_path / "sheet.md").read_text(encoding="utf-8")
    assert blank not in key.stdout and written_key.exit_code == 0


@pytest.mark.parametrize(("args", "first", "second"), [
    (("--markdown", "--heatmap", "-"), "--output", "--heatmap"),
    (("--markdown", "-o", "-", "--heatmap", "-"), "--output", "--heatmap"),
    (("--markdown", "--worksheet", "--answers", "-"), "--output", "--answers"),
    (("--markdown", "--worksheet", "-o", "-", "--answers", "-"), "--output", "--answers"),
    (("--markdown", "--worksheet", "-o", "s.md", "--answers", "-", "--heatmap", "-"),
     "--heatmap", "--answers"),
])
def test_two_outputs_on_standard_output_are_refused(tmp_path: Path,
                                                    monkeypatch: pytest.MonkeyPatch,
                                                    args: tuple[str, ...], first: str,
                                                    second: str) -> None:
    """One stream holds one document: two on it would run together, so attn refuses them
    with one line before writing anything."""
    monkeypatch.chdir(tmp_path)
    result = cli_run("export", str(CONFIGS / "cat_chases_mouse.yaml"), *args)
    assert (result.exit_code, result.stdout, result.stderr) == (
        2, "", f"attn: {first} and {second} would both write to standard output; name a file "
        "for one of them\n")
    assert list(tmp_path.iterdir()) == []
    polish = cli_run("export", str(CONFIGS / "cat_chases_mouse.yaml"), *args, "--lang", "pl")
    assert polish.stderr.replace("\xa0", " ") == (
        f"attn: {first} i {second} pisałyby obie na standardowe wyjście; jednej z nich podaj "
        "plik\n")


def test_output_to_dev_stdout_that_is_a_pipe_says_it_is_a_pipe() -> None:
    """/dev/stdout exists: it leads to the pipe of standard output, which attn does not replace
    by a file; the refusal says so (it said "no such file or folder")."""
    root = Path(__file__).resolve().parents[1]
    result = subprocess.run(
        [sys.executable, "-m", "attncli", "export", str(CONFIGS / "cat_chases_mouse.yaml"),
         "--json", "-o", "/dev/stdout"], capture_output=True, text=True,
        env={**os.environ, "PYTHONPATH": str(root)})
    assert (result.returncode, result.stdout, result.stderr) == (
        2, "", "attn: cannot write /dev/stdout: this is a named pipe (FIFO), expected a regular "
               "file\n")


def test_examples_to_a_file_says_the_file_is_no_folder(tmp_path: Path) -> None:
    """`--to f` where f is a file (or /dev/null): it said "the file already exists" of
    f/cat_chases_mouse.yaml, which does not exist."""
    taken = tmp_path / "f"
    taken.write_text("x", encoding="utf-8")
    result = cli_run("examples", "cat_chases_mouse", "--to", str(taken))
    assert (result.exit_code, result.stderr) == (
        2, f"attn: cannot write {taken}/cat_chases_mouse.yaml: {taken}: this is a regular file, "
           "expected a folder\n")
    assert taken.read_text(encoding="utf-8") == "x"
