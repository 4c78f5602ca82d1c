"""attn export checked by the real renderers: pdflatex compiles the standalone LaTeX (and
pdftotext reads the token names back), KaTeX (strict, throwOnError) parses every math block.

.ci/run installs both. On a developer's machine without them these tests are skipped with the
reason; under CI (CI=true) a missing tool fails the test instead.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from attncli.arithmetic.numbers import NumberFormat
from attncli.i18n import LANGUAGES
from attncli.render import RenderOptions, render
from attncli.render.latex import document
from attncli.spec import load_spec
from attncli.steps.build import build
from tests.matrix import turn

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = sorted((ROOT / "configs").glob("*.yaml"))
DATA = ROOT / "tests" / "data"
TRICKY = DATA / "tricky_tokens.yaml"
TOKENS = ["\\input{x}", "50%", "a_b", "|", "<b>", "[bold]"]
KATEX_DIR = ROOT / "tests" / "render"


def need(tool: str, how: str) -> None:
    """Skip (with the reason) when `tool` is missing, unless under CI, where it is a failure."""
    if os.environ.get("CI") == "true":
        pytest.fail(f"{tool} is missing under CI; {how}")
    pytest.skip(f"{tool} is not installed ({how})")


def languages() -> list[str]:
    """en, pl and ru: every language has its catalog (attncli/i18n/locale/<lang>/.../attn.po)."""
    return list(LANGUAGES)


# --- LaTeX ----------------------------------------------------------------------------------


def compile_latex(source: str, folder: Path) -> str:
    """Compile with pdflatex, fail on any error, and return the PDF's text."""
    if shutil.which("pdflatex") is None or shutil.which("pdftotext") is None:
        need("pdflatex/pdftotext", "apt-get install texlive-latex-base texlive-lang-polish "
             "texlive-lang-cyrillic cm-super poppler-utils")
    tex = folder / "doc.tex"
    tex.write_text(source, encoding="utf-8")
    done = subprocess.run(
        ["pdflatex", "-interaction=nonstopmode", "-halt-on-error", "-no-shell-escape", tex.name],
        cwd=folder, capture_output=True, text=True, errors="replace", timeout=120, check=False)
    log = (folder / "doc.log").read_text(encoding="utf-8", errors="replace")
    errors = [line for line in log.splitlines() if line.startswith("!")]
    assert done.returncode == 0 and not errors, "\n".join(errors) or done.stdout[-3000:]
    assert "Missing character" not in log, "a character has no glyph in the font"
    text = subprocess.run(["pdftotext", "-enc", "UTF-8", "doc.pdf", "-"], cwd=folder,
                          capture_output=True, text=True, check=True).stdout
    return " ".join(text.split())


def standalone(spec: Path, lang: str) -> str:
    return render(build(load_spec(str(spec))), "latex", lang, standalone=True)


# every example in every language in CI, else each in one, turning (tests/matrix.py)
STANDALONE = [(spec, lang) for i, spec in enumerate(EXAMPLES)
              for lang in turn("tests/test_export_renderers.py: LaTeX documents", languages(), i)]


@pytest.mark.parametrize(("spec", "lang"), STANDALONE, ids=lambda x: getattr(x, "stem", str(x)))
def test_every_example_compiles_in_every_language(spec: Path, lang: str, tmp_path: Path) -> None:
    walkthrough = build(load_spec(str(spec)))
    text = compile_latex(standalone(spec, lang), tmp_path)
    log = (tmp_path / "doc.log").read_text(encoding="utf-8", errors="replace")
    assert "Overfull" not in log, "a line or a matrix runs past the margin"
    for token in walkthrough.steps[0].matrices[0].rows:
        assert token in text
    # the numbers of the last row of weights are in the PDF too
    words = set(text.replace("\uf8fb", " ").replace("\uf8f0", " ").split())
    number = NumberFormat.with_mark(walkthrough.precision, walkthrough.decimal)  # 0,333 too
    last = [number(x) for x in walkthrough.heads[0].weights.values[-1]]
    assert set(last) <= words, last


def test_tricky_tokens_compile_and_print_literally(tmp_path: Path) -> None:
    text = compile_latex(standalone(TRICKY, "en"), tmp_path)
    for token in TOKENS:
        assert f" {token} " in f" {text} ", token
    assert "Tricky tokens: \\input{x} & 50% of <b>a_b</b>" in text


def test_polish_and_russian_letters_typeset(tmp_path: Path) -> None:
    """The Russian and Polish preambles with Polish and Russian words from the spec and from
    the catalogs."""
    walkthrough = build(load_spec(str(TRICKY)))
    for lang, words in (("ru", "Съешь же ещё этих мягких французских булок"),
                        ("pl", "Zażółć gęślą jaźń")):
        folder = tmp_path / lang
        folder.mkdir()
        source = document(walkthrough, RenderOptions(lang=lang, standalone=True), [lang])
        text = compile_latex(source, folder)
        if words not in text:
            name_the_missing_font_package(folder)
        assert words in text
        assert "a_b" in text and "\\input{x}" in text
    # several languages in one document: a section each, Cyrillic and Polish side by side
    folder = tmp_path / "all"
    folder.mkdir()
    source = document(walkthrough, RenderOptions(standalone=True), ["pl", "ru", "en"])
    text = compile_latex(source, folder)
    assert "PL" in text and "RU" in text and "Zażółć gęślą jaźń" in text and "булок" in text


def name_the_missing_font_package(folder: Path) -> None:
    """A PDF whose letters come out as garbage: when its fonts are bitmaps (Type 3: the T2A or
    T1 fonts of cm-super are missing, and cmap.sty too), say which package is missing."""
    fonts = subprocess.run(["pdffonts", "doc.pdf"], cwd=folder, capture_output=True, text=True,
                           check=False).stdout
    if "Type 3" in fonts:
        need("cm-super (Type 1 fonts for T1 and T2A) or cmap.sty",
             "apt-get install cm-super texlive-latex-recommended")


def test_standalone_preamble_gives_every_font_a_unicode_map() -> None:
    """cmap.sty, loaded where it exists, makes even bitmap T2A fonts copy out as letters."""
    walkthrough = build(load_spec(str(TRICKY)))
    for lang in ("pl", "ru"):
        source = document(walkthrough, RenderOptions(lang=lang, standalone=True), [lang])
        lines = source.splitlines()
        cmap = lines.index(r"\IfFileExists{cmap.sty}{\usepackage{cmap}}{}")
        assert cmap < next(i for i, line in enumerate(lines) if "{fontenc}" in line)


def test_russian_copies_out_of_a_pdf_set_in_bitmap_fonts(tmp_path: Path) -> None:
    """A TeX without cm-super's Type 1 T2A fonts sets Cyrillic in bitmap (Type 3) fonts, whose
    letters pdftotext cannot read by themselves; `\\pdfmapfile{}` makes this TeX do the same."""
    walkthrough = build(load_spec(str(TRICKY)))
    source = document(walkthrough, RenderOptions(lang="ru", standalone=True), ["ru"])
    text = compile_latex("\\pdfmapfile{}\n" + source, tmp_path)
    fonts = subprocess.run(["pdffonts", "doc.pdf"], cwd=tmp_path, capture_output=True,
                           text=True, check=True).stdout
    assert "Type 3" in fonts and "Type 1" not in fonts  # the bitmap fonts really were used
    assert "Съешь же ещё этих мягких французских булок" in text


def test_unicode_in_prose_and_tokens_compiles(tmp_path: Path) -> None:
    """Every character class the escaper handles: Latin-1, Latin Extended-A, Cyrillic, Greek,
    the prose's math symbols, and a character pdflatex has no glyph for."""
    from attncli.render.tex import MATH_SYMBOLS, PUNCTUATION, escape_text

    samples = [
        "".join(chr(c) for c in range(0xA1, 0x100) if chr(c) not in "\xad"),
        "".join(chr(c) for c in range(0x100, 0x180)),
        "".join(chr(c) for c in range(0x410, 0x450)) + "ёЁ",
        "".join(MATH_SYMBOLS),
        "".join(sorted(PUNCTUATION)),
        "emoji 😀 and 中",
    ]
    body = "\n\n".join(escape_text(" ".join(s)) for s in samples)  # spaces: lines can break
    source = ("\\documentclass{article}\n\\usepackage[T2A,T1]{fontenc}\n"
              "\\usepackage[utf8]{inputenc}\n\\usepackage[english]{babel}\n"
              "\\usepackage{amsmath}\n\\begin{document}\n" + body + "\n\\end{document}\n")
    text = compile_latex(source, tmp_path)
    for letter in "ąćęłńóśźżĄĆĘŁŃÓŚŹŻАБВЖЯабвжяёЁßéüÆ":
        assert letter in text, letter
    for code in ("U+1F600", "U+4E2D", "U+0126"):  # Ħ: no T1 glyph
        assert code in text


def test_prose_greek_is_the_letter_the_formulas_draw() -> None:
    """U+03B5 ε and U+03C6 φ are drawn round in Unicode fonts, as TeX's \\varepsilon and \\varphi;
    \\epsilon and \\phi are U+03F5 ϵ and U+03D5 ϕ. The note "here ε = 10⁻⁶" beside
    RMS(x) = √(mean(x²) + ε) must show one letter, not two."""
    from attncli.render.tex import escape_text

    assert escape_text("ε φ θ") == (r"\ensuremath{\varepsilon} \ensuremath{\varphi} "
                                     r"\ensuremath{\theta}")


def test_wide_matrix_compiles(tmp_path: Path) -> None:
    text = compile_latex(standalone(DATA / "wide.yaml", "en"), tmp_path)
    assert "t12" in text


def test_more_than_ten_columns_in_one_bmatrix_compile(tmp_path: Path) -> None:
    from attncli.render.tex import labelled_matrix

    columns = [f"k{j}" for j in range(1, 15)]
    cells = [[f"{(i * j) % 7}.00" for j in range(1, 15)] for i in range(1, 4)]
    lines = labelled_matrix("A", cells, ["a", "b", "c"], columns)
    source = ("\\documentclass{article}\n\\usepackage[T1]{fontenc}\n\\usepackage{amsmath}\n"
              "\\begin{document}\n\\setcounter{MaxMatrixCols}{14}\n\\begin{equation*}\n"
              + "\n".join(lines) + "\n\\end{equation*}\n\\end{document}\n")
    assert "k14" in compile_latex(source, tmp_path)


# --- KaTeX ----------------------------------------------------------------------------------


def katex_errors(items: list[tuple[str, bool]]) -> list[str]:
    """Parse each (tex, display) with KaTeX in strict mode; return one message per failure."""
    if shutil.which("node") is None or not (KATEX_DIR / "node_modules" / "katex").is_dir():
        need("node with KaTeX", "cd tests/render && npm ci")
    done = subprocess.run(["node", str(KATEX_DIR / "check.js")],
                          input=json.dumps([{"tex": t, "display": d} for t, d in items]),
                          capture_output=True, text=True, timeout=120, check=True)
    results = json.loads(done.stdout)
    assert len(results) == len(items)
    return [f"{error}\n--- in ---\n{tex}" for (tex, _), error in zip(items, results, strict=True)
            if error is not None]


def math_of(markdown: str, flavor: str) -> list[tuple[str, bool]]:
    fence = r"^```math\n(.*?)\n```$" if flavor == "github" else r"^\$\$\n(.*?)\n\$\$$"
    display = re.findall(fence, markdown, flags=re.S | re.M)
    inline = re.findall(r"\$`(.+?)`\$" if flavor == "github" else r"(?<![$`\\])\$([^$\n]+)\$",
                        re.sub(fence, "", markdown, flags=re.S | re.M))
    return [(tex, True) for tex in display] + [(tex, False) for tex in inline]


def test_every_markdown_math_block_parses_in_katex() -> None:
    items: list[tuple[str, bool]] = []
    langs = languages()
    for spec in [*EXAMPLES, TRICKY, DATA / "wide.yaml"]:
        walkthrough = build(load_spec(str(spec)))
        for lang in langs:
            for flavor in ("github", "katex"):
                markdown = render(walkthrough, "markdown", lang, md_flavor=flavor)
                found = math_of(markdown, flavor)
                assert sum(1 for _, display in found if display) >= len(walkthrough.steps)
                items += found
    errors = katex_errors(items)
    assert not errors, "\n\n".join(errors[:5])


def test_katex_rejects_what_it_should() -> None:
    """The checker itself: strict mode turns unknown input into an error."""
    errors = katex_errors([(r"\ensuremath{x}", True), ("\\text{ᵢ}", True), (r"x^{2}", True)])
    assert len(errors) == 2


def test_katex_escapes_of_every_character_class_parse() -> None:
    from attncli.render.tex import MATH_SYMBOLS, PUNCTUATION, text_math

    samples = [
        "".join(chr(c) for c in range(0xA1, 0x100) if chr(c) not in "\xad"),
        "".join(chr(c) for c in range(0x100, 0x180)),
        "".join(chr(c) for c in range(0x410, 0x450)) + "ёЁ",
        "".join(MATH_SYMBOLS), "".join(sorted(PUNCTUATION)), "emoji 😀",
        "".join(TOKENS), "#$%&~_^\\{}<>|\"'`-",
    ]
    errors = katex_errors([(text_math(s, "katex"), True) for s in samples])
    assert not errors, "\n\n".join(errors)
