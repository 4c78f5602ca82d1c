"""`attn fill`: a Markdown post, a Quarto document, a LaTeX chapter and a notebook filled in
place, refilled without change, found stale after a number changes, and kept byte for byte
outside their generated parts; errors placed in the document; hostile trees refused."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from attncli.fill.blocks import LATEX, MARKDOWN, Style
from tests.conftest import CONFIGS, attn_executable, run
from tests.test_export_renderers import need

# Two tokens, Q = K = I, V = diag(10, 20), unscaled: S = X Xᵀ, so with x₁ = (1, 0) the first row
# of A is softmax(1, 0) = (e/(e+1), 1/(e+1)) = (0.73, 0.27).
SPEC = """\
tokens: [first, second]
embeddings: [[1, 0], [0, 1]]
weights: {W_Q: identity, W_K: identity, W_V: [[10, 0], [0, 20]]}
scale: none
"""
OPTIONS = ("--steps", "weights", "--expand", "none", "--no-reading")
INLINE = SPEC + "steps: weights\nexpand: none\nreading: false\n"


def attn(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    """The installed `attn`, as a user (and pre-commit) runs it."""
    return subprocess.run([attn_executable(), *args], cwd=cwd, capture_output=True, text=True,
                          check=False, env={**os.environ, "ATTN_LANG": ""})


def exported(spec: Path, *options: str) -> str:
    """What `attn export` prints for the spec, an implementation of its own path."""
    done = attn("export", str(spec), *options, cwd=spec.parent)
    assert done.returncode == 0, done.stderr
    return done.stdout


def without_generated(data: bytes, style: Style) -> bytes:
    """The document less its generated parts (each from the line ending before its begin
    marker to the end of its end marker)."""
    pattern = (rb"(\r\n|\n|\r)" + re.escape(style.begin.encode()) + rb".*?"
               + re.escape(style.end.encode()))
    return re.sub(pattern, b"", data, flags=re.S)


def generated_part(text: str, style: Style) -> str:
    found = re.search(re.escape(style.begin) + r"\r?\n(.*?)" + re.escape(style.end), text, re.S)
    assert found is not None, text[-500:]
    return found[1]


def post(folder: Path) -> Path:
    """A Markdown post with CRLF line endings, no final newline, a Latin-1 byte and an attn
    block shown as an example inside a ````markdown fence (to be left alone)."""
    path = folder / "post.md"
    path.write_bytes(
        b"# Attention\r\n\r\nCaf\xe9 (Latin-1, not UTF-8).\r\n\r\n```attn\r\n"
        + INLINE.replace("\n", "\r\n").encode()
        + b"```\r\n\r\n````markdown\r\n```attn\r\nspec: nowhere.yaml\r\n```\r\n````\r\n\r\nEnd.")
    return path


def test_a_markdown_post_is_filled_refilled_unchanged_and_stale_after_a_number_changes(
        tmp_path: Path) -> None:
    path = post(tmp_path)
    before = path.read_bytes()
    done = attn("fill", "post.md", cwd=tmp_path)
    assert (done.returncode, done.stderr) == (0, "attn: 1 document filled, 0 up to date, "
                                              "0 failed\n")
    filled = path.read_bytes()
    assert without_generated(filled, MARKDOWN) == before  # CRLF, Latin-1, no final newline
    assert filled.endswith(b"\r\n\r\nEnd.")
    assert b"```attn\r\nspec: nowhere.yaml\r\n```\r\n````" in filled  # an example, left alone
    text = filled.decode("utf-8", "surrogateescape")
    assert "\n" not in text.replace("\r\n", "")  # every generated line ends as the post's do
    (tmp_path / "spec.yaml").write_text(SPEC, "utf-8")
    expected = exported(tmp_path / "spec.yaml", "--markdown", *OPTIONS).rstrip("\n")
    assert generated_part(text, MARKDOWN).replace("\r\n", "\n") == "\n" + expected + "\n\n"
    assert "0.73" in expected and "0.27" in expected

    again = attn("fill", "post.md", cwd=tmp_path)
    assert again.returncode == 0 and path.read_bytes() == filled
    assert attn("fill", "--check", "post.md", cwd=tmp_path).returncode == 0

    # x₁ = (2, 0): the first row of S is (4, 0), of A (e⁴/(e⁴+1), …) = (0.98, 0.02)
    path.write_bytes(filled.replace(b"[[1, 0], [0, 1]]", b"[[2, 0], [0, 1]]"))
    edited = path.read_bytes()
    stale = attn("fill", "--check", "--diff", "post.md", cwd=tmp_path)
    assert stale.returncode == 1
    assert stale.stderr.splitlines() == [
        "post.md:5:1: the output of this attn block is stale; run: attn fill post.md",
        "attn: 1 stale, 0 up to date, 0 failed"]
    assert stale.stdout.startswith("--- a/post.md\n+++ b/post.md\n")
    changed = [line for line in stale.stdout.splitlines() if line[:1] in "+-"]
    assert any("0.98" in line for line in changed if line.startswith("+"))
    assert any("0.73" in line for line in changed if line.startswith("-"))
    assert path.read_bytes() == edited  # --check writes nothing
    raw = subprocess.run([attn_executable(), "fill", "--diff", "post.md"], cwd=tmp_path,
                         capture_output=True, check=False).stdout  # bytes: CRLF kept
    assert b"\r\n" in raw and b"\\r\n" not in raw  # the CR raw, not written out
    subprocess.run(["git", "init", "-q"], cwd=tmp_path, check=True)
    applied = subprocess.run(["git", "apply", "--check", "-"], cwd=tmp_path, input=raw,
                             capture_output=True, check=False)
    assert applied.returncode == 0, applied.stderr  # the diff of a CRLF post applies
    assert attn("fill", "post.md", cwd=tmp_path).returncode == 0
    assert "0.98" in generated_part(path.read_text("utf-8", "surrogateescape"), MARKDOWN)
    assert without_generated(path.read_bytes(), MARKDOWN) == before.replace(
        b"[[1, 0], [0, 1]]", b"[[2, 0], [0, 1]]")


def test_a_quarto_document_gets_katex_math_from_a_spec_file_beside_it(tmp_path: Path) -> None:
    shutil.copy(CONFIGS / "cat_chases_mouse.yaml", tmp_path / "cat.attn.yaml")
    path = tmp_path / "notes.qmd"
    source = ("---\ntitle: Notes\n---\n\n  ```attn\n  spec: cat.attn.yaml\n  lang: pl\n"
              "  steps: [weights]\n  ```\nText after.\n")
    path.write_text(source, "utf-8")
    assert attn("fill", "notes.qmd", cwd=tmp_path).returncode == 0
    text = path.read_text("utf-8")
    assert without_generated(text.encode(), MARKDOWN) == source.encode()
    part = generated_part(text, MARKDOWN)
    expected = exported(tmp_path / "cat.attn.yaml", "--markdown", "--md-flavor", "katex",
                        "--lang", "pl", "--steps", "weights")
    assert part == "\n" + expected + "\n"
    assert "```math" not in part and "$$" in part and "Wagi atencji" in part
    # the weights of mouse, worked in configs/cat_chases_mouse.yaml: 0.40, 0.25, 0.35
    assert re.search(r"0\.40 .*0\.25.*0\.35", part)
    assert attn("fill", "--check", "notes.qmd", cwd=tmp_path).returncode == 0
    assert path.read_text("utf-8") == text


CHAPTER = r"""\documentclass{article}
\usepackage[T1]{fontenc}
\usepackage{amsmath}
\usepackage[table]{xcolor}
\begin{document}
\section{Attention by hand}
The weights of two tokens:
% ```attn
% tokens: [first, second]
% embeddings: [[1, 0], [0, 1]]
% weights: {W_Q: identity, W_K: identity, W_V: [[10, 0], [0, 20]]}
% scale: none
% steps: [scores, weights, output]
% ```
And the text goes on. 100\% of it stays.
\end{document}
"""


def test_a_latex_chapter_is_filled_and_compiles_with_no_overfull_box(tmp_path: Path) -> None:
    path = tmp_path / "chapter.tex"
    path.write_text(CHAPTER, "utf-8")
    assert attn("fill", "chapter.tex", cwd=tmp_path).returncode == 0
    text = path.read_text("utf-8")
    assert without_generated(text.encode(), LATEX) == CHAPTER.encode()
    spec = tmp_path / "two.yaml"
    spec.write_text("\n".join(line[2:] for line in CHAPTER.splitlines()[8:12]) + "\n", "utf-8")
    assert generated_part(text, LATEX) == exported(spec, "--latex", "--steps",
                                                   "scores,weights,output")
    assert attn("fill", "chapter.tex", cwd=tmp_path).returncode == 0
    assert path.read_text("utf-8") == text
    if shutil.which("pdflatex") is None:
        need("pdflatex", "apt-get install texlive-latex-recommended")
    done = subprocess.run(["pdflatex", "-interaction=nonstopmode", "-halt-on-error",
                           "chapter.tex"], cwd=tmp_path, capture_output=True, text=True,
                          timeout=300, check=False)
    log = (tmp_path / "chapter.log").read_text("latin-1")
    assert done.returncode == 0, log[-2000:]
    assert "Overfull" not in log and "Undefined control sequence" not in log
    words = subprocess.run(["pdftotext", "-layout", "chapter.pdf", "-"], cwd=tmp_path,
                           capture_output=True, text=True, check=True).stdout
    # the output row of `first`: 0.73·10 = 7.31 and 0.27·20 = 5.38
    assert "7.31" in words and "5.38" in words and "100% of it stays" in words


def notebook(folder: Path) -> Path:
    import nbformat

    book = nbformat.v4.new_notebook()
    book.cells = [nbformat.v4.new_markdown_cell("# Attention\n\n```attn\n" + INLINE + "```"),
                  nbformat.v4.new_code_cell("print('Zażółć')")]
    path = folder / "lesson.ipynb"
    nbformat.write(book, path)
    return path


def test_a_notebook_gets_a_generated_cell_and_keeps_every_other_byte(tmp_path: Path) -> None:
    import nbformat

    path = notebook(tmp_path)
    before = path.read_text("utf-8")
    assert attn("fill", "lesson.ipynb", cwd=tmp_path).returncode == 0
    after = path.read_text("utf-8")
    book = nbformat.read(path, as_version=4)
    nbformat.validate(book)
    assert [c.cell_type for c in book.cells] == ["markdown", "markdown", "code"]
    generated = book.cells[1]
    assert generated.metadata == {"attn": {"generated": True}}
    (tmp_path / "spec.yaml").write_text(SPEC, "utf-8")
    expected = exported(tmp_path / "spec.yaml", "--markdown", "--md-flavor", "katex", *OPTIONS)
    assert generated.source == MARKDOWN.begin.replace("block", "cell") + "\n\n" + expected.rstrip(
        "\n")
    # inserted, nothing else touched; and written as Jupyter writes it
    inserted = ",\n  " + json.dumps(json.loads(after)["cells"][1], indent=1, sort_keys=True,
                                    ensure_ascii=False).replace("\n", "\n  ")
    assert inserted in after and after.replace(inserted, "", 1) == before
    buffer = tmp_path / "saved.ipynb"
    nbformat.write(book, buffer)
    assert buffer.read_text("utf-8") == after
    assert attn("fill", "lesson.ipynb", cwd=tmp_path).returncode == 0
    assert path.read_text("utf-8") == after
    path.write_text(after.replace("[[1, 0], [0, 1]]", "[[2, 0], [0, 1]]"), "utf-8")
    stale = attn("fill", "--check", "lesson.ipynb", cwd=tmp_path)
    assert stale.returncode == 1
    line = after.splitlines().index('    "```attn\\n",') + 1
    assert stale.stderr.splitlines()[0] == (
        f"lesson.ipynb:{line}:6: the output of this attn block is stale; run: attn fill "
        "lesson.ipynb")


def test_a_bad_spec_in_a_block_is_reported_at_the_documents_line_and_column(
        tmp_path: Path) -> None:
    path = tmp_path / "post.md"
    source = ("Intro.\n\n- a list item:\n\n  ```attn\n  tokens: [a, b]\n"
              "  embeddings: [[1, 2], [3]]\n  ```\n")
    path.write_text(source, "utf-8")
    done = attn("fill", "post.md", cwd=tmp_path)
    assert done.returncode == 2
    assert done.stderr.splitlines()[0] == (
        "post.md:7:24: embeddings[1]: expected a row of 2 numbers like the first row, found 1")
    polish = attn("fill", "--lang", "pl", "post.md", cwd=tmp_path)
    assert polish.stderr.splitlines()[0] == (
        "post.md:7:24: embeddings[1]: oczekiwano wiersza z\u00a02 liczbami, jak pierwszy; ten "
        "ma ich 1")
    assert polish.stderr.splitlines()[1] == "attn: wypełnione: 0, aktualne: 0, nieudane: 1"
    assert path.read_text("utf-8") == source  # nothing written
    tex = tmp_path / "chapter.tex"
    tex.write_text("Text.\n% ```attn\n% spec: cat.yaml\n% stepz: weights\n% ```\n", "utf-8")
    russian = attn("fill", "--lang", "ru", "chapter.tex", cwd=tmp_path)
    assert russian.returncode == 2
    assert russian.stderr.startswith("chapter.tex:4:3: ")
    assert russian.stderr.splitlines()[0] == (
        "chapter.tex:4:3: stepz: неизвестный ключ; может быть, имелся в\u00a0виду steps?")


def test_a_bad_block_in_a_notebook_is_reported_at_the_notebooks_own_line(tmp_path: Path) -> None:
    import nbformat

    book = nbformat.v4.new_notebook()
    book.cells = [nbformat.v4.new_code_cell("x = 1"), nbformat.v4.new_markdown_cell(
        "«Zażółć» \"quoted\".\n\n```attn\ntokens: [a, b]\nembeddings: [[1, 2], [3]]\n```\n")]
    path = tmp_path / "bad.ipynb"
    nbformat.write(book, path)
    before = path.read_bytes()
    done = attn("fill", "bad.ipynb", cwd=tmp_path)
    lines = before.decode().splitlines()
    line = next(k for k, text in enumerate(lines, 1) if "embeddings" in text)
    column = lines[line - 1].index("[3]") + 1
    assert (done.returncode, done.stderr.splitlines()[0]) == (
        2, f"bad.ipynb:{line}:{column}: embeddings[1]: expected a row of 2 numbers like the "
           "first row, found 1")
    assert path.read_bytes() == before


def test_a_missing_end_marker_and_an_unclosed_block_are_refused_in_place(tmp_path: Path) -> None:
    path = tmp_path / "post.md"
    path.write_text("```attn\nspec: x.yaml\n```\n" + MARKDOWN.begin + "\nhand edit\n", "utf-8")
    done = attn("fill", "post.md", cwd=tmp_path)
    assert (done.returncode, done.stderr.splitlines()[0]) == (
        2, "post.md:4:1: this generated part has no end marker <!-- attn fill: end -->; remove "
           "the part or end it")
    path.write_text("Text.\n\n ~~~~attn\nspec: x.yaml\n~~~\n", "utf-8")
    done = attn("fill", "post.md", cwd=tmp_path)
    assert done.stderr.splitlines()[0] == (
        "post.md:3:2: this attn block has no closing fence ~~~~")


@pytest.mark.parametrize(("name", "text", "place"), [
    ("post.md", "# Post\n\n```attn\nspec: s.yaml\n```\n\ntext\n\n```attn\n```\n", "9:1"),
    ("post.md", "```attn\nspec: s.yaml\n```\n\n  ~~~ attn\n# steps: weights\n\n~~~\n", "5:3"),
    ("doc.tex", "% x\n% ```attn\n% ```\n", "2:3"),
])
def test_an_empty_block_is_refused_at_its_fence(tmp_path: Path, name: str, text: str,
                                                place: str) -> None:
    # said of the document alone (`post.md: the spec is empty, ...`): in a post of 200 blocks
    # the reader could not tell which
    (tmp_path / "s.yaml").write_text(SPEC, "utf-8")
    path = tmp_path / name
    path.write_text(text, "utf-8")
    for command in (["fill", "--check", name], ["fill", name]):
        done = attn(*command, cwd=tmp_path)
        assert (done.returncode, done.stdout, done.stderr.splitlines()[0]) == (
            2, "", f"{name}:{place}: this attn block is empty; expected spec: or a spec's keys")
        assert len(done.stderr.splitlines()) == 2  # and the summary
    done = attn("fill", "--check", "--lang", "ru", name, cwd=tmp_path)
    assert done.stderr.splitlines()[0] == (
        f"{name}:{place}: этот блок attn пуст; ожидается ключ spec: или ключи спецификации")
    assert path.read_text("utf-8") == text


def test_an_empty_block_in_a_notebook_is_refused_at_its_fence_in_the_notebook(
        tmp_path: Path) -> None:
    (tmp_path / "s.yaml").write_text(SPEC, "utf-8")
    source = ["```attn\n", "spec: s.yaml\n", "```\n", "\n", "   ```attn\n", "```\n"]
    book = {"cells": [{"cell_type": "markdown", "metadata": {}, "source": source}],
            "metadata": {}, "nbformat": 4, "nbformat_minor": 5}
    text = json.dumps(book, indent=1)
    (tmp_path / "n.ipynb").write_text(text, "utf-8")
    at = text.index('"   ```attn') + len('"   ')  # the fence's first backtick
    line, column = text.count("\n", 0, at) + 1, at - text.rfind("\n", 0, at)
    done = attn("fill", "--check", "n.ipynb", cwd=tmp_path)
    assert (done.returncode, done.stderr.splitlines()[0]) == (
        2, f"n.ipynb:{line}:{column}: this attn block is empty; expected spec: or a spec's keys")


@pytest.mark.parametrize(("spec", "message"), [
    ("../outside.yaml", "post.md:2:7: spec: expected a path inside the document's folder, "
                        "found ../outside.yaml"),
    ("link.yaml", "post.md:2:7: link.yaml: this is a symbolic link, expected a regular file"),
    ("inner/cat.yaml", "post.md:2:7: spec: inner/cat.yaml leads outside the document's folder; "
                       "attn fill reads only files inside it"),
    ("post.md", "post.md:2:7: spec: post.md is the document itself; expected a spec file"),
    ("/etc/passwd", "post.md:2:7: spec: expected a path relative to the document's folder, "
                    "found /etc/passwd"),
])
def test_hostile_blocks_are_refused_with_exit_2_and_nothing_written(
        tmp_path: Path, spec: str, message: str) -> None:
    outside = tmp_path / "outside"
    (outside / "secret").mkdir(parents=True)
    shutil.copy(CONFIGS / "cat_chases_mouse.yaml", outside / "secret" / "cat.yaml")
    shutil.copy(CONFIGS / "cat_chases_mouse.yaml", outside / "outside.yaml")
    tree = tmp_path / "tree"
    tree.mkdir()
    (tree / "link.yaml").symlink_to(outside / "secret" / "cat.yaml")
    (tree / "inner").symlink_to(outside / "secret")  # a linked folder that leads out
    path = tree / "post.md"
    source = f"```attn\nspec: {spec}\n```\n"
    path.write_text(source, "utf-8")
    done = attn("fill", "post.md", cwd=tree)
    assert (done.returncode, done.stderr.splitlines()[0]) == (2, message)
    assert path.read_text("utf-8") == source
    assert sorted(p.name for p in tree.iterdir()) == ["inner", "link.yaml", "post.md"]


def test_a_spec_in_a_block_reads_files_only_beside_the_document(tmp_path: Path) -> None:
    (tmp_path / "secret.csv").write_text("1,0\n0,1\n", "utf-8")
    tree = tmp_path / "tree"
    tree.mkdir()
    path = tree / "post.md"
    path.write_text("```attn\ntokens: [a, b]\nembeddings: {file: ../secret.csv}\n```\n", "utf-8")
    done = attn("fill", "post.md", cwd=tree)
    assert done.returncode == 2
    assert done.stderr.startswith("post.md:3:20: embeddings.file: ../secret.csv is outside")


def test_a_document_that_is_a_link_is_neither_read_nor_replaced(tmp_path: Path) -> None:
    real = tmp_path / "real.md"
    real.write_text("```attn\n" + INLINE + "```\n", "utf-8")
    (tmp_path / "post.md").symlink_to(real)
    done = attn("fill", "post.md", cwd=tmp_path)
    assert (done.returncode, done.stderr.splitlines()[0]) == (
        2, "post.md: this is a symbolic link, expected a regular file")
    assert real.read_text("utf-8") == "```attn\n" + INLINE + "```\n"


def test_an_unknown_kind_of_document_is_refused(tmp_path: Path) -> None:
    (tmp_path / "notes.txt").write_text("```attn\n```\n", "utf-8")
    result = run("fill", str(tmp_path / "notes.txt"))
    assert result.exit_code == 2
    assert result.stderr.splitlines()[0].endswith(
        "notes.txt: unknown kind of document .txt; expected one of .md, .markdown, .qmd, .tex, "
        ".ipynb")


def test_the_mkdocs_fence_renders_what_attn_export_writes(tmp_path: Path,
                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    import yaml
    from markdown import Markdown

    from tests.conftest import ROOT

    shutil.copy(CONFIGS / "cat_chases_mouse.yaml", tmp_path / "cat.attn.yaml")
    monkeypatch.chdir(tmp_path)  # mkdocs runs in the project's root
    page = "# A post\n\n```attn\nspec: cat.attn.yaml\nsteps: [weights]\nlang: ru\n```\n\nAfter.\n"
    # the lines docs/fill.md gives for mkdocs.yml, read as mkdocs reads them
    docs = (ROOT / "docs" / "fill.md").read_text("utf-8")
    lines = docs.split("```yaml\n# mkdocs.yml\n", 1)[1].split("```", 1)[0]
    config = yaml.unsafe_load(lines)["markdown_extensions"]
    extensions = [next(iter(e)) if isinstance(e, dict) else e for e in config]
    settings = {k: v for e in config if isinstance(e, dict) for k, v in e.items()}
    html = Markdown(extensions=extensions, extension_configs=settings).convert(page)

    expected = exported(tmp_path / "cat.attn.yaml", "--markdown", "--md-flavor", "katex",
                        "--steps", "weights", "--lang", "ru")
    alone = Markdown(extensions=["tables", "pymdownx.arithmatex"],
                     extension_configs={"pymdownx.arithmatex": {"generic": True}})
    assert f'<div class="attn">\n{alone.convert(expected)}\n</div>' in html
    assert html.startswith("<h1>A post</h1>") and html.endswith("<p>After.</p>")
    assert "Веса внимания" in html and "0.40" in html  # mouse's weight on cat, worked by hand
    from pymdownx.superfences import SuperFencesException

    bad = "```attn\ntokens: [a, b]\nembeddings: [[1, 2], [3]]\n```\n"
    with pytest.raises(SuperFencesException) as stopped:
        Markdown(extensions=extensions, extension_configs=settings).convert(bad)
    assert str(stopped.value) == ("<attn fence>:3:22: embeddings[1]: expected a row of 2 "
                                  "numbers like the first row, found 1")


def test_the_cell_magic_displays_what_attn_export_writes(tmp_path: Path,
                                                         monkeypatch: pytest.MonkeyPatch,
                                                         capsys: pytest.CaptureFixture[str]
                                                         ) -> None:
    from IPython.core.interactiveshell import InteractiveShell

    shutil.copy(CONFIGS / "cat_chases_mouse.yaml", tmp_path / "cat.attn.yaml")
    monkeypatch.chdir(tmp_path)
    shell = InteractiveShell.instance()
    try:
        assert shell.run_cell("%load_ext attncli").success
        cell = shell.run_cell("%%attn\nspec: cat.attn.yaml\nlang: pl\nsteps: [scores]\n")
        expected = exported(tmp_path / "cat.attn.yaml", "--markdown", "--md-flavor", "katex",
                            "--steps", "scores", "--lang", "pl")
        assert cell.success and cell.result.data == expected
        assert "Wyniki" in expected or "wynik" in expected.lower()
        capsys.readouterr()
        bad = shell.run_cell("%%attn\ntokens: [a, b]\nembeddings: [[1, 2], [3]]\n")
        assert bad.result is None
        assert capsys.readouterr().err == (
            "<cell>:3:22: embeddings[1]: expected a row of 2 numbers like the first row, "
            "found 1\n")
    finally:
        InteractiveShell.clear_instance()


def test_loading_the_extension_imports_nothing_heavy() -> None:
    code = ("import sys\nfrom IPython.core.interactiveshell import InteractiveShell\n"
            "InteractiveShell.instance().run_cell('%load_ext attncli')\n"
            "print(sorted(m for m in ('numpy', 'yaml', 'rich', 'attncli.fill.block') "
            "if m in sys.modules))\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True,
                          text=True, check=True, env={**os.environ, "PYTHONPATH": str(
                              Path(__file__).resolve().parent.parent)})
    assert done.stdout.strip() == "[]", done.stderr


def test_the_bundled_example_posts_are_filled_in_their_languages() -> None:
    from tests.conftest import ROOT

    folder = ROOT / "examples" / "fill"
    done = attn("fill", "--check", "post.en.md", "post.pl.md", "post.ru.md", cwd=folder)
    assert (done.returncode, done.stderr) == (0, "attn: 0 stale, 3 up to date, 0 failed\n")
    titles = {"en": "## 7. Attention weights", "pl": "## 7. Wagi atencji",
              "ru": "## 7. Веса внимания"}
    for lang, title in titles.items():
        text = (folder / f"post.{lang}.md").read_text("utf-8")
        assert title in generated_part(text, MARKDOWN)
        # mouse's row of A, worked in configs/cat_chases_mouse.yaml: 0.40, 0.25, 0.35
        assert re.search(r"0\.40 .*0\.25.*0\.35", generated_part(text, MARKDOWN))


@pytest.mark.parametrize(("name", "document"), [
    ("post.md", "\ufeff```attn\nspec: cat.yaml\n```\n\ntext\n"),
    ("doc.tex", "\ufeff% ```attn\n% spec: cat.yaml\n% ```\n"),
])
def test_a_block_on_the_line_of_a_byte_order_mark_is_filled(
        name: str, document: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # an editor's "UTF-8 with BOM": the first block was passed over and the document said to
    # be up to date
    monkeypatch.chdir(tmp_path)
    Path("cat.yaml").write_text((CONFIGS / "cat_chases_mouse.yaml").read_text("utf-8"), "utf-8")
    Path(name).write_bytes(document.encode("utf-8"))
    result = run("fill", name)
    assert (result.exit_code, result.stderr) == (0, "attn: 1 document filled, 0 up to date, "
                                                    "0 failed\n")
    filled = Path(name).read_bytes()
    assert filled.startswith(document.encode("utf-8").split(b"\n")[0])  # the mark kept
    assert b"0.36" in filled and run("fill", "--check", name).exit_code == 0
