"""The Markdown export as readers see it: rendered in headless Chromium by the engines blogs and
GitHub use, and read back from the page.

Every example in configs/, in both math flavours, goes through
- markdown-it + markdown-it-texmath + KaTeX (github flavour with GitLab/GitHub delimiters),
- CommonMark first, then KaTeX auto-render on the HTML (katex flavour: a `\\\\` that collapsed to
  `\\` would show here),
- pandoc --mathjax with MathJax 3's default bundle, tex-mml-chtml.js (both flavours),
all pages in one browser launch (tests/render/render.js). An example is rendered in one language a
run (turning with ATTN_CONFORMANCE_SEED, and never the one tests/test_conformance.py renders it
in), cat_chases_mouse in all three in one document as `--lang en,pl,ru` writes it;
ATTN_CONFORMANCE=all renders every example in every language. The tests then ask the page: no error
node, the TeX each engine read is the TeX attn wrote, and every matrix is a grid of its numbers
inside its brackets with its labels outside, by the glyphs' boxes.

.ci/run installs Chromium, pandoc and the npm packages; elsewhere the tests skip with the reason
(and fail under CI=true).
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import unicodedata
from functools import cache
from pathlib import Path
from typing import Any

import pytest

from attncli.i18n import LANGUAGES
from attncli.render import RenderOptions, md_math, md_measure, render
from attncli.render.common import number_format
from attncli.spec import load_spec
from attncli.steps.build import build
from tests.test_export_renderers import need

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = sorted((ROOT / "configs").glob("*.yaml"))
RENDER_DIR = ROOT / "tests" / "render"
CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
PIPELINES = {"katex": ("texmath-dollars", "autorender", "pandoc-mathjax"),
             "github": ("texmath-gitlab", "pandoc-mathjax")}
# Token names that mean something to TeX, Markdown or HTML: each must print as written.
HOSTILE = ["\\input{x}", "50%", "a_b", "|", "<b>", "$", "*x*", "[x](javascript:alert(1))",
           "![i](http://e/x.png)", "R&D #1 ^2 ~"]

# Macros GitHub's math renderer refuses, with where that is said:
# - "The following macros are not allowed: operatorname" (GitHub's message, quoted in
#   tensor4all/tenferro-rs#75); GitHub Support: "we just removed support for some potentially
#   harmful LaTeX macros that allow for either overriding other macros or operators, or would
#   potentially allow for invisible text. Among these is \\operatorname" (LASY-org/lasy#134);
# - \\phantom and \\mbox fail on GitHub (Programmiermethoden-CampusMinden/Prog2-Lecture#1039);
# - GitHub loads MathJax 3.2 without the newcommand, require, html, bbox, action and
#   setoptions extensions, and refuses \\DeclareMathOperator, \\operatorname, \\colorbox,
#   \\fcolorbox, \\definecolor, \\DeclarePairedDelimiter(X)(XPP) (the measured list in
#   qiita.com/Yarakashi_Kikohshi/items/8aad73b8f78184bf9b90).
# The overlapping boxes (\\llap, \\rlap, \\mathllap, \\mathrlap, \\mathclap, \\smash) are refused
# here too: they draw differently across engines and hide text just as \\phantom does.
GITHUB_REFUSED = (
    "def", "gdef", "edef", "xdef", "let", "newcommand", "renewcommand", "newenvironment",
    "renewenvironment", "DeclareMathOperator", "operatorname", "colorbox", "fcolorbox",
    "definecolor", "DeclarePairedDelimiter", "DeclarePairedDelimiterX",
    "DeclarePairedDelimiterXPP", "require", "href", "class", "cssId", "style", "data", "bbox",
    "mathtip", "texttip", "toggle", "phantom", "hphantom", "vphantom", "mbox", "llap", "rlap",
    "mathllap", "mathrlap", "mathclap", "smash", "setOptions",
)


def tools() -> None:
    node_modules = RENDER_DIR / "node_modules"
    for tool, ok in (("chromium", Path(CHROMIUM).exists()), ("pandoc", shutil.which("pandoc")),
                     ("node", shutil.which("node")),
                     ("tests/render/node_modules", (node_modules / "puppeteer-core").is_dir())):
        if not ok:
            need(tool, "apt-get install chromium pandoc nodejs npm; cd tests/render && npm ci")


def markdown(spec: Path | str, lang: str, flavor: str) -> str:
    return render(build(load_spec(str(spec))), "markdown", lang, md_flavor=flavor)


def run_pages(jobs: list[dict[str, Any]], folder: Path,
              screenshots: dict[str, dict[str, Any]] | None = None,
              script: str = "render.js") -> dict[str, Any]:
    """Render every job in one browser (tests/render/`script`); the measurements of each page
    by its name."""
    tools()
    folder.mkdir(parents=True, exist_ok=True)
    # ATTN_RENDER_TIMES=1: render.js writes how long each page took
    times = {k: v for k, v in os.environ.items() if k == "ATTN_RENDER_TIMES"}
    request = folder / "jobs.json"
    request.write_text(json.dumps({"outdir": str(folder), "jobs": jobs,
                                   "screenshots": screenshots or {}}), encoding="utf-8")
    done = subprocess.run(["node", str(RENDER_DIR / script), str(request)],
                          capture_output=True, text=True, timeout=2400, check=False,
                          env={"PATH": "/usr/bin:/bin:/usr/local/bin", "CHROMIUM": CHROMIUM,
                               "HOME": str(folder), **times})
    assert done.returncode == 0, done.stderr[-3000:]
    if times:  # each page's milliseconds (load, typeset, measure), for `pytest -s`
        print(done.stderr, file=sys.stderr)
    results: dict[str, Any] = json.loads(done.stdout)
    return results


ALL = ",".join(LANGUAGES)  # one document with every language, as `attn export --lang en,pl,ru`
EVERY_LANGUAGE = os.environ.get("ATTN_CONFORMANCE") == "all"
SEED = int(os.environ.get("ATTN_CONFORMANCE_SEED", "0") or 0)


def languages_of(spec: Path) -> list[str]:
    """The languages an example's pages are in on this run: every one for cat_chases_mouse (and
    under ATTN_CONFORMANCE=all), else the one after tests/test_conformance.py's turn."""
    if EVERY_LANGUAGE or spec.stem == "cat_chases_mouse":
        return list(LANGUAGES)
    turn = int(hashlib.sha256(spec.stem.encode()).hexdigest(), 16) + SEED + 1
    return [LANGUAGES[turn % len(LANGUAGES)]]


def jobs_for(spec: Path | str, name: str, langs: str = ALL) -> list[dict[str, str]]:
    return [{"name": f"{name}/{flavor}/{pipeline}", "markdown": markdown(spec, langs, flavor),
             "pipeline": pipeline, "flavor": flavor}
            for flavor, pipelines in PIPELINES.items() for pipeline in pipelines]


@cache
def _examples_rendered(folder: str) -> dict[str, Any]:
    jobs = [job for spec in EXAMPLES for job in jobs_for(spec, spec.stem,
                                                         ",".join(languages_of(spec)))]
    return run_pages(jobs, Path(folder))


@pytest.fixture(scope="module")
def pages(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    return _examples_rendered(str(tmp_path_factory.mktemp("pages")))


# --- what the page says ---------------------------------------------------------------------


def test_every_page_renders_without_an_error(pages: dict[str, Any]) -> None:
    assert len(pages) == len(EXAMPLES) * 5
    failures = {name: page["errors"][:2] for name, page in pages.items() if page["errors"]}
    assert not failures, json.dumps(failures, ensure_ascii=False, indent=1)[:4000]


def source_math(text: str, flavor: str) -> list[tuple[str, bool]]:
    """(tex, display) of every formula in an export, in the order of the page."""
    fence = r"^```math\n(.*?)\n```$" if flavor == "github" else r"^\$\$\n(.*?)\n\$\$$"
    inline = r"\$`(.+?)`\$" if flavor == "github" else r"(?<![\\$])\$([^$\n]+)\$"
    found = []
    for match in re.finditer(f"(?ms){fence}|{inline}", text):
        display = match.group(1) is not None
        found.append(((match.group(1) if display else match.group(2)).strip(), display))
    return found


def test_every_engine_reads_the_math_attn_wrote(pages: dict[str, Any]) -> None:
    """KaTeX's annotation (or MathJax's source) of every formula is the TeX in the file: nothing
    lost to Markdown on the way (`\\\\` collapsing to `\\`, `_` read as emphasis ...)."""
    for spec in EXAMPLES:
        for flavor, pipelines in PIPELINES.items():
            langs = languages_of(spec)
            expected = source_math(markdown(spec, ",".join(langs), flavor), flavor)
            assert sum(display for _, display in expected) >= 3 * len(langs)
            for pipeline in pipelines:
                page = pages[f"{spec.stem}/{flavor}/{pipeline}"]
                read = [(" ".join(m["tex"].split()), m["display"]) for m in page["tex"]]
                want = [(" ".join(tex.split()), display) for tex, display in expected]
                if pipeline == "pandoc-mathjax":  # MathJax reads displays, then inlines
                    read, want = sorted(read), sorted(want)
                assert read == want, f"{spec.stem}/{flavor}/{pipeline}"


def shown(count: int, cells: int) -> list[int | None]:
    """The rows (or columns) a matrix of `cells` numbers shows along an axis of `count`: all, or,
    past 150 numbers and 9 along the axis, the first and last 4 around a mark (None)."""
    if cells <= 150 or count <= 9:
        return list(range(count))
    return [0, 1, 2, 3, None, count - 4, count - 3, count - 2, count - 1]


def expected_matrices(spec: Path | str, lang: str) -> list[tuple[list[list[str]], list[str],
                                                                 list[str]]]:
    """(cells, row labels, column labels) of every matrix display, in order, from the
    walkthrough's own numbers; a large matrix elided in the middle (⋮ ⋯ ⋱), and cut at its
    mark when it needs two blocks."""
    walkthrough = build(load_spec(str(spec)))
    number = number_format(walkthrough, RenderOptions(lang=lang))
    out = []
    for step in walkthrough.steps:
        for matrix in step.matrices:
            if matrix.identity:  # said in a sentence, W_Q = I, not drawn
                continue
            whole = number.cells(matrix)  # a key the mask hides: —, as attn prints it
            n, m = matrix.shape
            rows, columns = shown(n, n * m), shown(m, n * m)
            cells = [["⋱" if i is None and j is None else "⋮" if i is None else
                      "⋯" if j is None else whole[i][j] for j in columns] for i in rows]
            labels = ["⋮" if i is None else matrix.rows[i] for i in rows]
            names = ["⋯" if j is None else matrix.columns[j] for j in columns]
            numbers = [[md_math.number(c) for c in row] for row in cells]
            symbol = md_math.formula(matrix.symbol.latex)
            if None in columns:  # elided: each side of the mark (d1 … d4 ⋯, d61 … d64) apart
                left = md_measure.blocks(symbol, names[:5], [row[:5] for row in numbers], labels)
                right = md_measure.blocks(symbol, names[5:], [row[5:] for row in numbers], labels)
                blocks = [*left, *(range(b.start + 5, b.stop + 5) for b in right)]
            else:
                blocks = md_measure.blocks(symbol, names, numbers, labels)
            for block in blocks:
                out.append(([[row[j] for j in block] for row in cells], labels,
                            [names[j] for j in block]))
    return out


def _same(text: str) -> str:
    return text.replace("-", "−")


def check_grid(display: dict[str, Any], cells: list[list[str]], rows: list[str],
               columns: list[str], em: float) -> list[str]:
    """The numbers in rows (one y) and columns (one right edge), between the brackets, the
    column labels above the brackets over their columns, the row labels left of them.
    Returns the text of each row label as drawn."""
    page = display["box"]
    assert max(w["r"] for w in display["words"]) <= page["r"] + 1, "wider than the page"
    tall = sorted(display["delims"], key=lambda d: d["b"] - d["t"], reverse=True)[:2]
    assert len(tall) == 2, "no brackets"
    left, right = sorted(tall, key=lambda d: d["l"])
    inside = [w for w in display["words"]
              if w["l"] >= left["r"] - 1 and w["r"] <= right["l"] + 1
              and min(left["t"], right["t"]) < w["mid"] < max(left["b"], right["b"])]
    lines: list[list[dict[str, Any]]] = []
    for word in sorted(inside, key=lambda w: w["mid"]):
        if lines and abs(word["mid"] - lines[-1][0]["mid"]) < 0.3 * em:
            lines[-1].append(word)
        else:
            lines.append([word])
    got = [[w["text"] for w in sorted(line, key=lambda w: w["l"])] for line in lines]
    assert got == [[_same(c) for c in row] for row in cells], (got, cells)
    for line in lines:
        # numbers share a baseline, so their boxes share a middle; a mark (—, −∞) sits higher or
        # lower by its glyph's shape, and its row is already proven by the grouping above
        numbers = [w for w in line if re.fullmatch(r"[−-]?[0-9]+([.,][0-9]+)?", w["text"])]
        if len(numbers) > 1:
            assert max(w["mid"] for w in numbers) - min(w["mid"] for w in numbers) < 0.15 * em
    by_column = [[sorted(line, key=lambda w: w["l"])[j] for line in lines]
                 for j in range(len(columns))]
    for column in by_column:
        assert max(w["r"] for w in column) - min(w["r"] for w in column) < 1.5, column
    top = min(left["t"], right["t"])
    above = [w for w in display["words"] if w["b"] <= top + 1]
    for label, column in zip(columns, by_column, strict=True):
        if not label.strip():
            continue
        middle = (min(w["l"] for w in column) + max(w["r"] for w in column)) / 2
        mine = [w for w in above if abs((w["l"] + w["r"]) / 2 - middle) < 1.2 * em
                or w["l"] - 1 <= middle <= w["r"] + 1]
        assert mine, f"no label above column {label!r}"
        span = (min(w["l"] for w in mine) + max(w["r"] for w in mine)) / 2
        assert abs(span - middle) < 0.35 * em, (label, span, middle)
    equals = max((w["r"] for w in display["words"] if w["text"].endswith("=")
                  and w["r"] <= left["l"]), default=0.0)
    drawn = []
    for label, line in zip(rows, lines, strict=True):
        mid = sum(w["mid"] for w in line) / len(line)
        beside = sorted((w for w in display["words"] if equals <= w["l"]
                         and w["r"] <= left["l"] + 1 and abs(w["mid"] - mid) < 0.3 * em),
                        key=lambda w: w["l"])
        assert beside or not label.strip(), f"no label left of row {label!r}"
        drawn.append("".join(w["text"] for w in beside))
    return drawn


def matrix_displays(page: dict[str, Any], text: str, flavor: str) -> list[dict[str, Any]]:
    displays = [tex for tex, display in source_math(text, flavor) if display]
    assert len(displays) == len(page["displays"])
    return [d for d, tex in zip(page["displays"], displays, strict=True)
            if tex.startswith(r"\begin{array}{rrc}")]


def test_every_matrix_is_a_grid_in_its_brackets_with_its_labels_outside(
        pages: dict[str, Any]) -> None:
    checked = 0
    for spec in EXAMPLES:
        langs = languages_of(spec)
        expected = [m for lang in langs for m in expected_matrices(spec, lang)]
        for flavor, pipelines in PIPELINES.items():
            text = markdown(spec, ",".join(langs), flavor)
            for pipeline in pipelines:
                name = f"{spec.stem}/{flavor}/{pipeline}"
                checked += check_grids(pages[name], text, flavor, expected, name)
    assert checked > 1000


def check_grids(page: dict[str, Any], text: str, flavor: str,
                expected: list[tuple[list[list[str]], list[str], list[str]]], name: str) -> int:
    """check_grid on every matrix display of the page of `text`; how many were checked."""
    found = matrix_displays(page, text, flavor)
    assert len(found) == len(expected), name
    for display, (cells, rows, columns) in zip(found, expected, strict=True):
        try:
            check_grid(display, cells, rows, columns, page["em"])
        except AssertionError as error:
            raise AssertionError(f"{name}: {error}") from None
    return len(found)


def test_the_checker_sees_a_broken_grid(tmp_path: Path) -> None:
    """The grid check itself: the rows run together (what a `\\\\` collapsed by Markdown does)
    fails it, and labels inside the brackets fail it."""
    cells = [["1.00", "0.00"], ["0.36", "0.64"]]
    good = md_math.labelled_matrix("A", cells, ["cat", "dog"], ["cat", "dog"])
    merged = "\n".join(md_math.labelled_matrix(  # the two rows of numbers on one line
        "A", [["1.00", "0.00", "0.36", "0.64"]], ["cat"], ["cat", "dog", "", ""]))
    inside = ("A = \\left[\\begin{array}{rr} \\text{cat} & \\text{dog} \\cr 1.00 & 0.00 \\cr "
              "0.36 & 0.64 \\end{array}\\right]")
    jobs = [{"name": name, "markdown": "$$\n" + tex + "\n$$\n", "pipeline": "texmath-dollars",
             "flavor": "katex"} for name, tex in (("good", "\n".join(good)), ("merged", merged),
                                                   ("inside", inside))]
    pages = run_pages(jobs, tmp_path)
    em = pages["good"]["em"]
    check_grid(pages["good"]["displays"][0], cells, ["cat", "dog"], ["cat", "dog"], em)
    for bad in ("merged", "inside"):
        with pytest.raises(AssertionError):
            check_grid(pages[bad]["displays"][0], cells, ["cat", "dog"], ["cat", "dog"], em)


def signs_spec(folder: Path) -> Path:
    """X's three columns each have −0.50 as their widest number, so the three are as wide."""
    spec = folder / "signs.yaml"
    spec.write_text("tokens: [a, b, c]\nembeddings: [[-0.5, 0.25, -0.5], [0.25, -0.5, 0.25], "
                    "[1, 1, 1]]\nweights: {W_Q: identity, W_K: identity, W_V: identity}\n",
                    encoding="utf-8")
    return spec


def check_bracket_room(display: dict[str, Any], name: str) -> None:
    """In X of signs_spec, the gap from the left bracket to the first column is the gap from the
    last column to the right bracket, half the gap between two columns (each column's own room
    on either side)."""
    tall = sorted(display["delims"], key=lambda d: d["b"] - d["t"], reverse=True)[:2]
    left, right = sorted(tall, key=lambda d: d["l"])
    inside = [w for w in display["words"] if w["l"] >= left["r"] - 1
              and w["r"] <= right["l"] + 1 and left["t"] < w["mid"] < left["b"]]
    assert sorted(w["text"] for w in inside) == sorted(
        ["−0.50", "0.25", "−0.50", "0.25", "−0.50", "0.25", "1.00", "1.00", "1.00"]), name
    # the columns' boxes, from their widest numbers: three apart, each as wide as −0.50
    starts = sorted({round(w["l"]) for w in inside if w["text"] == "−0.50"})
    ends = sorted({round(w["r"]) for w in inside})
    assert len(starts) == 3 and len(ends) == 3, (name, starts, ends)
    gap = min(b - a for a, b in zip(ends[:-1], starts[1:], strict=True))
    before, after = starts[0] - left["r"], right["l"] - ends[-1]
    assert abs(before - after) <= 1.5, (name, before, after)
    assert abs(before - gap / 2) <= 1.5, (name, before, gap)


def test_the_first_column_stands_as_far_from_its_bracket_as_the_last_in_every_engine(
        tmp_path: Path) -> None:
    """In KaTeX and in MathJax alike (JupyterLab's MathJax: tests/test_notebook_render.py), the
    columns keep their labels over them. Before, MathJax set the first column 0.24 em from its
    bracket, a fifth of the 1.24 em between columns (KaTeX: 0.86 em, more than half its 1.19)."""
    spec = signs_spec(tmp_path)
    sources = {flavor: markdown(spec, "en", flavor) for flavor in PIPELINES}
    jobs = [{"name": f"{flavor}/{pipeline}", "markdown": sources[flavor], "pipeline": pipeline,
             "flavor": flavor} for flavor, pipelines in PIPELINES.items()
            for pipeline in pipelines]
    for name, page in run_pages(jobs, tmp_path).items():
        flavor = name.split("/")[0]
        display = matrix_displays(page, sources[flavor], flavor)[0]  # X (3 × 3)
        check_grid(display, *expected_matrices(spec, "en")[0], page["em"])
        check_bracket_room(display, name)


# --- hostile token names --------------------------------------------------------------------


def hostile_spec(folder: Path) -> Path:
    tokens = json.dumps(HOSTILE)
    spec = folder / "hostile.yaml"
    rows = ",\n  ".join(f"[{(i % 3) / 2}, {(i % 2) / 2}]" for i in range(len(HOSTILE)))
    spec.write_text(f"title: hostile tokens\ntokens: {tokens}\nembeddings: [\n  {rows}\n]\n"
                    "weights: {W_Q: identity, W_K: identity, W_V: identity}\n",
                    encoding="utf-8")
    return spec


def test_hostile_token_names_stay_text_in_every_engine(tmp_path: Path) -> None:
    spec = hostile_spec(tmp_path)
    for flavor in PIPELINES:
        text = markdown(spec, "en", flavor)
        for tex, _ in source_math(text, flavor):
            assert "$" not in tex and "`" not in tex
            assert re.search(r"\\[!-/:-@\[-`{-~]", tex) is None, tex  # no \\ \_ \{ ...
    jobs = jobs_for(spec, "hostile", "en")
    pages = run_pages(jobs, tmp_path / "pages")
    for name, page in pages.items():
        assert not page["errors"], (name, page["errors"][:2])
        assert not page["injected"], (name, page["injected"])
        flavor = name.split("/")[1]
        embeddings = matrix_displays(page, markdown(spec, "en", flavor), flavor)[0]
        drawn = check_grid(embeddings, *expected_matrices(spec, "en")[0], page["em"])
        assert [as_drawn(d) for d in drawn] == [as_drawn(t) for t in HOSTILE], (name, drawn)


# How the engines draw what the token's characters became: `*` as ∗, `~` as ∼, `\` as ∖ (in
# MathJax), `$` as its code point; `_` and `^` are lines and accents, not glyphs, in KaTeX.
DRAWN = str.maketrans({"∗": "*", "∣": "|", "∼": "~", "∖": "\\", "$": "U+0024", "_": None, "^": None,
                       "ˆ": None, "―": None, "‾": None, " ": None})


def as_drawn(text: str) -> str:
    return unicodedata.normalize("NFKC", text).translate(DRAWN)  # MathJax's \mathtt: 𝚄 is U


def test_wide_matrices_and_long_or_cyrillic_labels_stay_in_their_grid(tmp_path: Path) -> None:
    """Specs not in configs/: 12 tokens (matrices split into column blocks) and labels whose
    widths attn can only guess (Cyrillic in the browser's fallback font, very wide and very
    narrow words) still sit over and beside their own columns and rows."""
    spec = tmp_path / "labels.yaml"
    tokens = ["кошка", "ЖЖЖЖЖЖ", "źdźbło", "WWWWMMMM", "i", "ёж"]
    rows = ",\n  ".join(f"[{(i % 3) / 2}, {(i % 2) / 2}, {-i / 4}]" for i in range(len(tokens)))
    spec.write_text(f"tokens: {json.dumps(tokens)}\nembeddings: [\n  {rows}\n]\n"
                    "weights: {W_Q: identity, W_K: identity, W_V: identity}\n",
                    encoding="utf-8")
    jobs = [*jobs_for(spec, "labels"), *jobs_for(ROOT / "tests" / "data" / "wide.yaml", "wide")]
    pages = run_pages(jobs, tmp_path / "pages")
    checked = 0
    for name, page in pages.items():
        assert not page["errors"], (name, page["errors"][:2])
        source, flavor = (spec if name.startswith("labels") else
                          ROOT / "tests" / "data" / "wide.yaml"), name.split("/")[1]
        expected = [m for lang in LANGUAGES for m in expected_matrices(source, lang)]
        text = markdown(source, ALL, flavor)
        assert not re.search("[\ue000-\uf8ff]", text)  # no private-use mark left in prose
        found = matrix_displays(page, text, flavor)
        for display, matrix in zip(found, expected, strict=True):
            check_grid(display, *matrix, page["em"])
            checked += 1
    assert checked > 100


# --- GitHub's rules, read from the text -----------------------------------------------------


@pytest.mark.parametrize("spec", EXAMPLES, ids=lambda p: p.stem)
def test_github_flavour_uses_no_macro_github_refuses(spec: Path) -> None:
    for lang in LANGUAGES:
        text = markdown(spec, lang, "github")
        used = set(re.findall(r"\\([A-Za-z]+)", "\n".join(t for t, _ in source_math(text,
                                                                                   "github"))))
        assert not used & set(GITHUB_REFUSED), used & set(GITHUB_REFUSED)
        assert "$$" not in text  # display math only in ```math fences
        assert not re.search("[\ue000-\uf8ff]", text)  # no private-use mark left in prose


def test_the_refused_list_catches_the_old_export() -> None:
    old = r"\def\attncell#1{\hphantom{0.00}\mathllap{#1}} A = \operatorname{softmax}(S)"
    used = set(re.findall(r"\\([A-Za-z]+)", old))
    assert used & set(GITHUB_REFUSED) == {"def", "hphantom", "mathllap", "operatorname"}


# --- the building blocks, without a browser ----------------------------------------------


@pytest.mark.parametrize("word", [*HOSTILE, "кот", "Zażółć", "a--b", "α→β", "😀", "x{,}y"])
def test_latex_text_reads_back_what_escape_text_wrote(word: str) -> None:
    """Written-out formulas carry token names escaped for pdflatex; the Markdown export reads
    them back before writing them for the browser engines."""
    from attncli.render.tex import escape_text

    assert md_math.latex_text(escape_text(word)) == word


def test_formulas_lose_what_github_and_commonmark_would_break() -> None:
    assert md_math.formula(r"A = \operatorname{softmax}\left(S' + M\right)") == (
        r"A = \mathop{\mathrm{softmax}}\left(S' + M\right)")
    assert md_math.formula(r"|q| \, |k| \\ x") == r"|q| \thinspace |k| \cr x"
    assert md_math.formula(r"q_{\text{a\_b}}") == r"q_{\text{a}\underline{\hspace{0.5em}}\text{b}}"


def test_numbers_have_the_widths_of_their_glyphs() -> None:
    """Computer Modern: digits 0.5 em, the point 0.278 em, the minus 0.778 em, ∞ 1 em."""
    assert md_math.number("0.35") == ("0.35", 1.778)
    assert md_math.number("−0,35") == ("{-}0{,}35", 2.556)
    assert md_math.number("−∞") == (r"{-}\infty", 1.778)


def test_wide_matrices_split_into_balanced_blocks_only_when_they_do_not_fit() -> None:
    """As LaTeX's: 8 columns that need two blocks are 4 + 4 (not 7 + 1), 16 that need four
    are 4 + 4 + 4 + 4 (not 5 + 5 + 5 + 1), and 5 columns that fit are one block."""
    def split(count: int) -> list[int]:
        columns = [f"d{j + 1}" for j in range(count)]
        cells = [[md_math.number("−0.35") for _ in columns] for _ in range(3)]
        return [len(b) for b in md_measure.blocks("S", columns, cells,
                                                      ["the", "cat", "chases"])]

    assert split(5) == [5]
    assert split(8) == [8] or split(8) == [4, 4]
    widths = {count: split(count) for count in range(2, 40)}
    for count, blocks in widths.items():
        assert sum(blocks) == count and max(blocks) - min(blocks) <= 1, (count, blocks)
    assert widths[16] == [4, 4, 4, 4], widths[16]


def test_a_written_out_line_is_pieces_that_a_page_may_wrap_between() -> None:
    """MathJax 3 never breaks inline math: a line is cut after each top-level `=`, `≈` and `+`,
    never inside a group or a bracket."""
    row = (r"Z[\text{a}] = \sum_j A[\text{a}, j] \thinspace v_j = 0.40 \cdot \left[1.00,\ "
           r"{-}1.04\right] + 0.60 \cdot \left[0.20,\ 1.00\right] = \left[0.52,\ 0.18\right]")
    assert md_math.pieces(row) == [
        r"Z[\text{a}] ={}", r"\sum_j A[\text{a}, j] \thinspace v_j ={}",
        r"0.40 \cdot \left[1.00,\ {-}1.04\right] +{}",
        r"0.60 \cdot \left[0.20,\ 1.00\right] ={}", r"\left[0.52,\ 0.18\right]"]
    # after a top-level ≈ too (a shortened row's result), never at a + inside a group
    assert md_math.pieces(r"e^{0.57 + 0.11} \approx 1.76") == [r"e^{0.57 + 0.11} \approx{}",
                                                               "1.76"]


def test_a_piece_with_long_names_is_cut_after_its_dot_comma_and_a_name_gap() -> None:
    """A piece of a written-out line that 40-character names make wider than a column (MathJax
    never breaks it) is cut again: after its `\\cdot` and its index's comma, and a piece still
    too long after a `_` of its name nearest the middle. Short pieces are left whole."""
    name = md_math.token("{braces}_$dollars$_%percent%_&amp;_#hash#")
    cut = md_math.pieces(r"S[\text{the}, " + name + r"] = q_{\text{the}} \cdot k_{" + name
                         + "} = 0.47")
    gap = r"\underline{\hspace{0.5em}}{}"
    assert cut == [
        r"S[\text{the},{}",
        r"{\lbrace}\text{braces}{\rbrace}" + gap + r"\mathtt{U{+}0024}\text{dollars}"
        r"\mathtt{U{+}0024}" + gap,
        r"\verb|%|\text{percent}\verb|%|" + gap + r"\verb|&|\text{amp;}" + gap
        + r"\verb|#|\text{hash}\verb|#|] ={}",
        r"q_{\text{the}} \cdot{}", "k_{" + name + "} ={}", "0.47"]
    assert "".join(cut).replace("{}", "").replace(" ", "") == (
        r"S[\text{the}," + name + r"]=q_{\text{the}}\cdotk_{" + name + "}=0.47").replace(
        "{}", "").replace(" ", "")
    assert md_math.pieces(r"S[\text{cat}, \text{sat}] = q_{\text{cat}} \cdot k_{\text{sat}}") == [
        r"S[\text{cat}, \text{sat}] ={}", r"q_{\text{cat}} \cdot k_{\text{sat}}"]


def test_a_long_label_is_set_in_lines_as_latex_sets_it() -> None:
    """A 39-character name is three lines of at most 16 characters, cut between words where a
    line has a gap (common.label_lines, as LaTeX's labels): a column label's last line over its
    numbers, a row's numbers beside
    its first line, and the numbers' array has a row for every line of the labels' array."""
    long = "internationalization and localization A"
    cells = [["0.10", "0.20"], ["0.30", "0.40"]]
    assert md_measure.wraps("S", [long, "cat"],
                            [[md_math.number(c) for c in row] for row in cells], [long, "cat"])
    lines = md_math.labelled_matrix("S", cells, [long, "cat"], [long, "cat"], wrap=True)
    text = "\n".join(lines)
    head = text[text.index(r"& & \begin{matrix}"):text.index(r"\end{matrix} \cr")]
    assert head.split(r" \cr")[1:] == [
        "\n" + md_math.token("internationaliza") + " & ",
        "\n" + md_math.token("tion and") + " & ",
        "\n" + md_math.token("localization A") + r" & \text{cat}" + "\n"]
    labels = text[text.index(r"S = & \begin{array}{r}"):text.index(r"\end{array} & \left[")]
    numbers = text[text.index(r"\left[\hspace{0.5em}\begin{matrix}"):]
    label_rows, number_rows = labels.split(r"\cr"), numbers.split(r"\cr")
    assert len(label_rows) == len(number_rows) == 4  # 3 lines of the long name, 1 of cat
    assert [md_math.STRUT in row for row in label_rows] == [True] * 4
    assert ["0.10" in number_rows[0], "0.30" in number_rows[3]] == [True, True]
    assert [re.search("[0-9]", re.sub(r"\\rule\[[^]]*\]\{[^}]*\}\{[^}]*\}", "", row)) is None
            for row in number_rows[1:3]] == [True, True]
    # a short label is one line, as before; and a 24-character one too where it fits whole
    short = md_math.labelled_matrix("A", [["1.00"]], ["cat"], ["dog"])
    assert sum(r"\cr" in line for line in short) == 2
    hostile = "[x](javascript:alert(1))"
    assert not md_measure.wraps("A", ["d1", "d2"], [[md_math.number("0.10")] * 2],
                                [hostile, "cat"])


@pytest.mark.parametrize("lang", LANGUAGES)
def test_a_bare_subscript_joins_its_letter_so_commonmark_sees_no_emphasis(lang: str) -> None:
    """`S${}_{11}$ … $\\max(m_{…}$`: CommonMark (before KaTeX's auto-render) reads the `_` after
    `}` as opening emphasis and the one after `m` as closing it, and the math between falls
    apart (in Polish, KaTeX then refused „zapytań” as math). Written $S_{11}$, no `_` follows
    anything but a letter there."""
    text = markdown(ROOT / "configs" / "online_softmax_tiling.yaml", lang, "katex")
    assert "$S_{11}$" in text and "${}_" not in text


def test_a_sum_in_a_sentence_is_one_formula_in_every_engine(tmp_path: Path) -> None:
    """mla_deepseek's `(d_k = 2 + 2)` and `d_k = d_nope + d_R = 4`, in every language (Polish and
    Russian bind `=` with no-break spaces): each engine typesets each as one formula, and no
    `+ 2` or `+ d_R` is left in the prose between two formulas."""
    spec = ROOT / "configs" / "mla_deepseek.yaml"
    whole = {"d_{k} = 2 + 2", r"d_{k} = d_{\text{nope}} + d_{R} = 4"}
    for name, page in run_pages(jobs_for(spec, "mla"), tmp_path / "pages").items():
        assert not page["errors"], (name, page["errors"][:2])
        read = {" ".join(m["tex"].split()) for m in page["tex"] if m["tex"]}
        assert whole <= read, (name, sorted(t for t in read if "d_{k}" in t))
        assert not read & {"d_{k} = 2", r"d_{k} = d_{\text{nope}}", "d_{R} = 4"}, name
        for flavor in PIPELINES:
            prose = [line for line in markdown(spec, ALL, flavor).splitlines()
                     if "d_{k} = " in line]
            assert not [line for line in prose if re.search(r"[$`] \+ ", line)], prose


def test_very_large_numbers_render_within_the_column(tmp_path: Path) -> None:
    """Numbers written m × 10^k (docs/formats.md, "Very large numbers"): each
    engine reads the TeX attn wrote, and no formula runs past the text column. Before, 1e150
    was written with its 151 digits, a matrix column wider than the page."""
    spec = tmp_path / "huge.yaml"
    spec.write_text("tokens: [a, b, c]\nembeddings: [[1e150, -2.5e-31, 0.5, 1], "
                    "[0, 1, -1.234567e20, 2], [1, 0, 999999.995, 3]]\n", encoding="utf-8")
    jobs = jobs_for(spec, "huge", "en")
    pages = run_pages(jobs, tmp_path / "pages")
    for name, page in pages.items():
        flavor = name.split("/")[1]
        text = markdown(spec, "en", flavor)
        assert r"1.00 \times 10^{150}" in text and r"10^{-31}" not in text
        assert not page["errors"], (name, page["errors"][:2])
        read = sorted(" ".join(m["tex"].split()) for m in page["tex"])
        assert read == sorted(" ".join(t.split()) for t, _ in source_math(text, flavor)), name
        assert not page["wide"], (name, page["wide"][:2])
