"""The conformance matrix: every case of tests/conformance_cases.py (every bundled example and the
hostile variants) in every format, in en, pl and ru, rendered for real and read back.

- text, rich: no line past the column; every token name printed;
- svg: the same lines as the terminal (tests/svg_text.py); heatmap: well-formed XML;
- json: strict JSON whose tokens are the spec's;
- LaTeX fragment and standalone, Beamer 16:9 and 4:3, the worksheet and its key: compiled by
  pdflatex, several cases in one document per language (a fragment is made for \\input; frames
  go into one deck), then read from the .log (no error, no overfull box) and from the PDF (every
  token name, no `U+` code point the input did not have, no page or frame ending in a heading);
- Markdown, every flavour: rendered in one headless Chromium by KaTeX and by MathJax's default
  bundle (tests/render/render.js): no error, no injected markup, no math past the column;
- the spreadsheet: opened by openpyxl, every token name in it.

A run takes a deterministic sample: every case in every format in one language (which one turns
with the seed), the hostile variants in all three in CI and in one, turning, elsewhere
(tests/matrix.py), Beamer at one aspect per language and case (16:9 or 4:3, turning too),
a worksheet and its key for every other example and Beamer frames for every other variant in a
run outside CI;
ATTN_CONFORMANCE=all
runs the whole matrix, ATTN_CONFORMANCE_SEED=n another sample. A format joins by an entry in
CHECKED; a step family by being turned on by some case (test_every_family_is_in_the_matrix).
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import subprocess
import xml.etree.ElementTree as ET
from functools import cache
from pathlib import Path
from typing import Any

import pytest
from rich.cells import cell_len

from attncli.i18n import Msg, translate
from attncli.model import Walkthrough
from attncli.render import FORMATS, render
from attncli.render.heat import LEGEND
from attncli.spec import load_spec, loads_spec
from attncli.spec.model import Spec
from attncli.steps.build import HEAD, LAYER, build
from tests.conformance_cases import CASES, VARIANTS, Case
from tests.conftest import run
from tests.matrix import every_other, turn
from tests.svg_text import svg_lines, terminal_lines
from tests.test_latex_pages import need_tools, overfull

LANGS = ("en", "pl", "ru")
WIDTH = 80
EVERYTHING = os.environ.get("ATTN_CONFORMANCE") == "all"
SEED = int(os.environ.get("ATTN_CONFORMANCE_SEED", "0") or 0)

# Every format of attncli.render.FORMATS, and the outputs beside them, with what checks it.
CHECKED = {
    "text": "terminal", "rich": "terminal", "svg": "terminal", "heatmap": "terminal",
    "json": "terminal", "latex": "pdflatex", "beamer": "pdflatex", "markdown": "browser",
    "xlsx": "spreadsheet", "worksheet": "pdflatex", "html": "browser", "typst": "typst",
}
MD_PIPELINES = {"katex": ("texmath-dollars", "pandoc-mathjax"),
                "github": ("texmath-gitlab", "pandoc-mathjax"),
                "plain": ("texmath-dollars",)}


# A variant runs to hundreds of pages and frames (long_names_four_heads: 500 frames at 4:3): in
# CI each is checked in all three languages, elsewhere in one, turning (tests/matrix.py).
VARIANT_LANGUAGES = {case.name: tuple(turn("tests/test_conformance.py: languages of the variants",
                                           LANGS, k)) for k, case in enumerate(VARIANTS)}


def languages(case: Case) -> tuple[str, ...]:
    """The languages a case is checked in on this run."""
    if EVERYTHING:
        return LANGS
    if case in VARIANTS:
        return VARIANT_LANGUAGES[case.name]
    turn = int(hashlib.sha256(case.name.encode()).hexdigest(), 16) + SEED
    return (LANGS[turn % 3],)


def aspects(case: Case, lang: str) -> tuple[str, ...]:
    """The Beamer aspects a case is checked at in `lang` on this run: both in the whole matrix,
    else one, turning with the language (a variant's deck runs to hundreds of frames)."""
    if EVERYTHING:
        return ("169", "43")
    return (("169", "43")[(len(case.name) + LANGS.index(lang) + SEED) % 2],)


@cache
def spec_of(case: Case) -> Spec:
    if case.path is not None:  # read where it is: a tokenizer it names is beside it
        return load_spec(str(case.path))
    return loads_spec(case.source(), name=case.name + ".json")


@cache
def walkthrough(case: Case) -> Walkthrough:
    return build(spec_of(case))


def spec_file(case: Case, folder: Path) -> str:
    """A file of the spec for the CLI: a bundled example where it is, a variant written out."""
    if case.path is not None:
        return str(case.path)
    path = folder / f"{case.name}.json"
    path.write_text(case.source(), encoding="utf-8")
    return str(path)


def tokens(case: Case) -> set[str]:
    """The token names a reader must find, as the spec writes them."""
    spec = spec_of(case)
    sequences = [spec.queries] + ([spec.context] if spec.context is not None else [])
    return {t for seq in sequences for t in seq.tokens if t.strip()}


def in_code_points(name: str) -> str:
    """`name` as LaTeX prints it and pdftotext reads it back: a private-use character, which no
    font has, as its code point (`U+E000`, attncli/model/latex_text.py code_point)."""
    shown = []
    for ch, after in zip(name, [*name[1:], ""], strict=True):
        if "\ue000" <= ch <= "\uf8ff":  # a thin space ends it before a hex digit (U+E000 7)
            ch = f"U+{ord(ch):04X}" + (" " if after and after in "0123456789ABCDEF" else "")
        shown.append(ch)
    return "".join(shown)


def code_points(text: str, case: Case) -> list[str]:
    """`U+XXXX` in an output that stands for no character of the input."""
    source = case.source()
    return [m.group() for m in re.finditer(r"U\+([0-9A-F]{4,6})", text)
            if chr(int(m.group(1), 16)) not in source]


def test_every_format_is_in_the_matrix() -> None:
    assert set(FORMATS) <= set(CHECKED), set(FORMATS) - set(CHECKED)


def test_every_family_is_in_the_matrix() -> None:
    """A step family a new variant registers in steps/build.py is turned on by some case."""
    specs = [spec_of(case) for case in CASES]
    off = [family.name for family in (*HEAD, *LAYER)
           if not any(family.applies(spec) for spec in specs)]
    assert off == []


# --- terminal formats, JSON, SVG --------------------------------------------------------------

@pytest.mark.parametrize("case", CASES, ids=lambda c: c.name)
def test_terminal_formats(case: Case) -> None:
    w = walkthrough(case)
    names = tokens(case)
    for lang in languages(case):
        text = render(w, "text", lang, width=WIDTH)
        rich = render(w, "rich", lang, width=WIDTH, color=False)
        for fmt, out in (("text", text), ("rich", rich)):
            wide = [line for line in out.splitlines() if cell_len(line) > WIDTH]
            assert wide == [], (fmt, lang, wide[:3])
            assert {n for n in names if n not in out} == set(), (fmt, lang)
        coloured = re.sub(r"\x1b\[[0-9;]*m", "", render(w, "rich", lang, width=WIDTH, color=True))
        assert svg_lines(render(w, "svg", lang, width=WIDTH)) == terminal_lines(coloured), lang
        ET.fromstring(render(w, "heatmap", lang))
        document = json.loads(render(w, "json", lang))
        assert {n for n in names if n not in json.dumps(document, ensure_ascii=False)} == set()


def test_every_token_is_in_the_spreadsheet(tmp_path: Path) -> None:
    from openpyxl import load_workbook

    for case in [c for c in CASES if c in VARIANTS or EVERYTHING or languages(c)[0] == "pl"]:
        book_path = tmp_path / "out.xlsx"
        result = run("export", spec_file(case, tmp_path), "--xlsx", "-o", str(book_path))
        if "dtype" in case.source() and result.exit_code == 2:  # refused with its reason
            continue
        if case.path is not None and "\nimage:" in case.source():
            assert (result.exit_code, result.stderr) == (2, (
                "attn: --xlsx does not write an image's patches and class scores as formulas "
                "yet; leave out image for the spreadsheet\n")), case.name
        if "latent:" in case.source():  # no sheet writes the latent yet: refused in one line
            assert (result.exit_code, result.stderr) == (2, (
                "attn: --xlsx does not write multi-head latent attention yet; use another format "
                "for a spec with latent\n")), case.name
            continue
        if '"rope"' in case.source() and '"backward"' in case.source():
            # the spreadsheet's backward formulas do not turn dQ and dK back through RoPE
            assert (result.exit_code, result.stderr) == (2, (
                "attn: --xlsx writes no backward pass through rotary positions (RoPE); leave out "
                "backward for the spreadsheet\n")), case.name
            continue
        assert result.exit_code == 0, (case.name, result.stderr)
        book = load_workbook(book_path)
        cells = {str(c.value) for sheet in book for row in sheet.iter_rows() for c in row
                 if c.value is not None}
        lost = {n for n in tokens(case) if not any(n in cell for cell in cells)}
        assert lost == set(), case.name


# --- pdflatex: one document per language and kind, several cases in it ------------------------

MARK = "ATTNCASE"


def latex_documents(tmp_path: Path) -> dict[str, tuple[str, list[Case]]]:
    """name -> (LaTeX source, the cases in it, in order)."""
    docs: dict[str, tuple[list[str], list[Case]]] = {}

    def add(kind: str, lang: str, case: Case, body: str) -> None:
        parts, cases = docs.setdefault(f"{kind}-{lang}", ([], []))
        cases.append(case)
        k = len(cases) - 1
        if kind.startswith("beamer"):
            parts.append(f"\\typeout{{{MARK} {k}}}\n\\begin{{frame}}{MARK}-{k}\\end{{frame}}\n"
                         + body)
        else:
            parts.append(f"\\typeout{{{MARK} {k}}}\n\\clearpage\n\\noindent {MARK}-{k}\\par\n"
                         + body)

    for case in CASES:
        w = walkthrough(case)
        for lang in languages(case):
            add("latex", lang, case, fragment_body(render(w, "latex", lang)))
            for aspect in aspects(case, lang) if with_frames(case) else ():
                add("beamer" + aspect, lang, case,
                    fragment_body(render(w, "beamer", lang, frames_only=True, aspect=aspect)))
            if with_worksheet(case):
                sheet, key = worksheet(case, lang, tmp_path)
                add("latex", lang, case, fragment_body(sheet))
                add("latex", lang, case, fragment_body(key))
    out = {}
    for name, (parts, cases) in docs.items():
        kind, lang = name.split("-")
        out[name] = (preamble(kind, lang) + "\n".join(parts) + "\n\\end{document}\n", cases)
    return out


# A worksheet and its key for every case in CI, else for every variant and every other example
# (tests/test_worksheet.py and tests/test_worksheet_beamer.py compile worksheets of their own).
WORKSHEETS = {case.name: case in VARIANTS or every_other(
    "tests/test_conformance.py: worksheets of the examples", k) for k, case in enumerate(CASES)}


def with_worksheet(case: Case) -> bool:
    return EVERYTHING or WORKSHEETS[case.name]


# Beamer frames of every case in CI, else of every example and every other variant: the
# four-head variant of 40-character names runs to 350 frames at 16:9 and 500 at 4:3.
FRAMES = {case.name: every_other("tests/test_conformance.py: variants with Beamer frames", k)
          for k, case in enumerate(VARIANTS)}


def with_frames(case: Case) -> bool:
    return EVERYTHING or FRAMES.get(case.name, True)


def worksheet(case: Case, lang: str, tmp_path: Path) -> tuple[str, str]:
    key = tmp_path / f"{case.name}-{lang}-key.tex"
    result = run("export", spec_file(case, tmp_path), "--latex", "--worksheet",
                 "--blank-cells", "6",
                 "--lang", lang, "--answers", str(key))
    assert result.exit_code == 0, (case.name, result.stderr)
    return result.stdout, key.read_text(encoding="utf-8")


def fragment_body(text: str) -> str:
    """A fragment without its comment lines (the macros stay: \\providecommand)."""
    return "\n".join(line for line in text.splitlines() if not line.startswith("%"))


def preamble(kind: str, lang: str) -> str:
    """A preamble with every line a fragment's comment may ask for, the language `lang`."""
    babel = {"en": "polish,russian,english", "pl": "english,russian,polish",
             "ru": "english,polish,russian"}[lang]
    encodings = "T1,T2A" if lang == "ru" else "T2A,T1"
    if kind == "latex":
        head = [r"\documentclass{article}", r"\IfFileExists{cmap.sty}{\usepackage{cmap}}{}",
                rf"\usepackage[{encodings}]{{fontenc}}", rf"\usepackage[{babel}]{{babel}}",
                r"\usepackage{amsmath}", r"\usepackage[table]{xcolor}"]
    else:  # the class line the frames' comment names: xcolor's option given to beamer
        head = [rf"\documentclass[aspectratio={kind[6:]},xcolor=table]{{beamer}}",
                r"\IfFileExists{cmap.sty}{\usepackage{cmap}}{}",
                rf"\usepackage[{encodings}]{{fontenc}}", rf"\usepackage[{babel}]{{babel}}",
                r"\setbeamertemplate{navigation symbols}{}"]
    return "\n".join([*head, r"\begin{document}", ""])


def compile_all(docs: dict[str, tuple[str, list[Case]]], folder: Path) -> dict[str, Any]:
    """Every document compiled, two at a time (CI has two cores); name -> (log, pages)."""
    need_tools()
    folder.mkdir(parents=True, exist_ok=True)
    running = []
    for name, (source, _) in docs.items():
        (folder / f"{name}.tex").write_text(source, encoding="utf-8")
        running.append((name, subprocess.Popen(
            ["pdflatex", "-interaction=nonstopmode", "-no-shell-escape", f"{name}.tex"],
            cwd=folder, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)))
        if len([p for _, p in running if p.poll() is None]) >= 2:
            running[-2][1].wait()
    for _, process in running:
        process.wait(timeout=1800)
    out = {}
    for name in docs:
        log = (folder / f"{name}.log").read_text(encoding="utf-8", errors="replace")
        text = subprocess.run(["pdftotext", f"{name}.pdf", "-"], cwd=folder, capture_output=True,
                              text=True, check=False).stdout
        out[name] = (log, text.split("\f"))
    return out


@pytest.fixture(scope="module")
def compiled(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    folder = tmp_path_factory.mktemp("conformance")
    docs = latex_documents(folder)
    return {"docs": docs, "built": compile_all(docs, folder / "pdf")}


def by_case(log: str) -> dict[int, list[str]]:
    """The log's overfull boxes and errors, by the case being typeset."""
    found: dict[int, list[str]] = {}
    case = -1
    for line in log.splitlines():
        marker = re.match(MARK + r" (\d+)$", line)
        if marker:
            case = int(marker.group(1))
        elif line.startswith("!") or "Missing character" in line or overfull(line):
            found.setdefault(case, []).append(line)
    return found


def pages_by_case(pages: list[str]) -> dict[int, list[str]]:
    out: dict[int, list[str]] = {}
    case = -1
    for page in pages:
        marker = re.search(MARK + r"-(\d+)", page)
        if marker:  # a case begins on this page (a frame of its own in a deck)
            case = int(marker.group(1))
            page = page.replace(marker.group(), "")
        out.setdefault(case, []).append(page)
    return out


def headings() -> set[str]:
    return {translate(Msg.of("Written out:"), lang) for lang in LANGS}


def legends() -> list[str]:
    return [" ".join(translate(LEGEND, lang).split()) for lang in LANGS]


def last_line(page: str) -> str:
    lines = [line.strip() for line in page.splitlines() if line.strip()]
    lines = [line for line in lines if not line.isdigit()]  # the page number
    return lines[-1] if lines else ""


def test_every_latex_document_compiles_and_fits(compiled: dict[str, Any]) -> None:
    failures = {}
    for name, (_, cases) in compiled["docs"].items():
        log, pages = compiled["built"][name]
        problems = by_case(log)
        if -1 in problems:
            failures[name + "/preamble"] = problems[-1][:3]
        for k, case in enumerate(cases):
            if problems.get(k):
                failures[f"{name}/{case.name}"] = problems[k][:3]
        assert pages and len(pages) > len(cases), (name, log[-1500:])
    assert failures == {}, json.dumps(failures, ensure_ascii=False, indent=1)[:4000]


def test_no_character_is_lost_and_no_code_point_made_up(compiled: dict[str, Any]) -> None:
    failures = {}
    for name, (_, cases) in compiled["docs"].items():
        _, pages = compiled["built"][name]
        shown = pages_by_case(pages)
        for k, case in enumerate(cases):
            text = " ".join(shown.get(k, [])).replace("\n", " ")
            lost = {n for n in tokens(case) if n not in text and in_code_points(n) not in text}
            for name in tokens(case):  # a token's own code points are no made-up ones
                text = text.replace(in_code_points(name), " ")
            made_up = code_points(text, case)
            if lost or made_up:
                failures[f"{name}/{case.name}/{k}"] = (sorted(lost), made_up[:3])
    assert failures == {}, json.dumps(failures, ensure_ascii=False, indent=1)[:4000]


def test_no_page_or_frame_ends_with_a_heading(compiled: dict[str, Any]) -> None:
    ends = headings()
    failures = []
    for name, _ in compiled["docs"].items():
        _, pages = compiled["built"][name]
        for number, page in enumerate(pages, start=1):
            last = last_line(page)
            if last in ends or (len(last) > 12 and any(
                    legend.endswith(last) for legend in legends())):
                failures.append(f"{name} page {number}: {last}")
    assert failures == [], failures[:10]


# --- Markdown in a browser --------------------------------------------------------------------

@pytest.fixture(scope="module")
def pages(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    from tests.test_markdown_render import run_pages

    jobs = []
    for case in CASES:
        w = walkthrough(case)
        for lang in languages(case):
            for flavor, pipelines in MD_PIPELINES.items():
                if not (EVERYTHING or case in VARIANTS) and flavor != ("katex", "github",
                                                                       "plain")[SEED % 3]:
                    continue
                text = render(w, "markdown", lang, md_flavor=flavor)
                jobs += [{"name": f"{case.name}/{lang}/{flavor}/{pipeline}", "markdown": text,
                          "pipeline": pipeline, "flavor": flavor} for pipeline in pipelines]
    return run_pages(jobs, tmp_path_factory.mktemp("markdown"))


def test_markdown_renders_in_every_engine(pages: dict[str, Any]) -> None:
    failures = {name: page["errors"][:2] + page["injected"][:2] for name, page in pages.items()
                if page["errors"] or page["injected"]}
    assert failures == {}, json.dumps(failures, ensure_ascii=False, indent=1)[:4000]


LONG_NAMED = "long_names_four_heads/"


def test_no_markdown_math_runs_past_the_column(pages: dict[str, Any]) -> None:
    failures = {name: page["wide"][:2] for name, page in pages.items()
                if page["wide"] and not name.startswith(LONG_NAMED)}
    assert failures == {}, (len(failures), json.dumps(failures, ensure_ascii=False,
                                                      indent=1)[:3000])


def test_long_named_markdown_matrices_stay_in_the_column(pages: dict[str, Any]) -> None:
    """40-character names: a matrix's labels set in lines (as LaTeX's), a written-out line cut
    where such names make a piece too long for MathJax's unbroken inline math."""
    assert any(name.startswith(LONG_NAMED) for name in pages)  # the variant is in every sample
    failures = {name: page["wide"][:2] for name, page in pages.items()
                if page["wide"] and name.startswith(LONG_NAMED)}
    assert failures == {}, (len(failures), json.dumps(failures, ensure_ascii=False,
                                                      indent=1)[:3000])


def test_markdown_makes_up_no_code_point() -> None:
    for case in CASES:
        for lang in languages(case):
            for flavor in MD_PIPELINES:
                text = render(walkthrough(case), "markdown", lang, md_flavor=flavor)
                assert code_points(text, case) == [], (case.name, lang, flavor)


# --- the explorable page and Typst: the variants through the checks of their own test files ---
# (every bundled example in every language is run by tests/test_html_page.py and
# tests/test_typst.py; here the hostile, long-named and tiled variants join them)

@pytest.mark.parametrize("case", VARIANTS, ids=lambda c: c.name)
def test_the_explorable_page_of_a_variant(case: Case, tmp_path: Path) -> None:
    from tests.test_html_page import actions, expected_lines, explore
    from tests.test_html_page import walkthrough as shown

    w = shown(spec_file(case, tmp_path))
    jobs = []
    for lang in languages(case):
        page = tmp_path / f"{case.name}-{lang}.html"
        page.write_text(render(w, "html", lang), encoding="utf-8")
        jobs.append({"name": lang, "path": str(page), "actions": actions(w)})
        text = page.read_text(encoding="utf-8")
        assert not code_points(text, case), (lang, code_points(text, case)[:3])
    pages = explore(jobs, tmp_path / "run")
    for lang in languages(case):
        result = pages[lang]
        assert not result["errors"] and not result["requests"], (lang, result["errors"][:2])
        for action, done in zip(actions(w), result["actions"], strict=True):
            assert done["on"] == action["cell"]
            assert done["lines"] == expected_lines(w, lang, action)


@pytest.mark.parametrize("case", VARIANTS, ids=lambda c: c.name)
def test_the_typst_document_of_a_variant(case: Case, tmp_path: Path) -> None:
    from tests.test_typst import A4, check, compiler
    from tests.test_typst import walkthrough as shown

    compiler()
    w = shown(Path(spec_file(case, tmp_path)))
    for lang in languages(case):
        source = tmp_path / f"{case.name}-{lang}.typ"
        source.write_text(render(w, "typst", lang, standalone=True), encoding="utf-8")
        assert not code_points(source.read_text(encoding="utf-8"), case)
        check(source, A4, w, lang)
