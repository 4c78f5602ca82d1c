"""LaTeX and Beamer exports that fit their pages, proven by pdflatex's log and the PDF itself.

- every standalone document: no overfull box (read from the .log) with the options that make
  lines long (--expand all, --round-intermediates, --decimal-comma, --full); every example in
  every language with the default options is compiled and checked the same way in
  tests/test_export_renderers.py;
- the fragment inside a document with exactly the preamble lines its comment names;
- Beamer decks at 16:9 and 4:3 (in CI every example at both, else every other example at one,
  turning: tests/matrix.py): no overfull box, and every word pdftotext finds inside its frame;
- the frames-only fragment inside a deck with exactly the lines its comment names.

.ci/run installs pdflatex (with beamer) and poppler; without them these tests are skipped, under
CI=true they fail.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from attncli.render import render
from attncli.spec import load_spec
from attncli.steps.build import build
from tests.matrix import in_turn, sample, turn

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = sorted((ROOT / "configs").glob("*.yaml"))
LANGS = ("en", "pl", "ru")
CAT = ROOT / "configs" / "cat_chases_mouse.yaml"
SMALL = [p for p in EXAMPLES if p.stem in ("cat_chases_mouse", "two_heads", "padding_comma")]


def need_tools() -> None:
    if all(shutil.which(tool) for tool in ("pdflatex", "pdftotext")) and \
            subprocess.run(["kpsewhich", "beamer.cls"], capture_output=True,
                           check=False).stdout.strip():
        return
    if os.environ.get("CI") == "true":
        pytest.fail("pdflatex with beamer or pdftotext is missing under CI; .ci/run installs them")
    pytest.skip("pdflatex with beamer, or pdftotext, is not installed")


def pdflatex(source: str, folder: Path, name: str = "doc") -> str:
    """Compile `source`; fail on an error or a missing glyph; return the log."""
    need_tools()
    folder.mkdir(parents=True, exist_ok=True)
    (folder / f"{name}.tex").write_text(source, encoding="utf-8")
    done = subprocess.run(["pdflatex", "-interaction=nonstopmode", "-halt-on-error",
                           "-no-shell-escape", f"{name}.tex"], cwd=folder, capture_output=True,
                          text=True, errors="replace", timeout=300, check=False)
    log = (folder / f"{name}.log").read_text(encoding="utf-8", errors="replace")
    errors = [line for line in log.splitlines() if line.startswith("!")]
    assert done.returncode == 0 and not errors, "\n".join(errors) or done.stdout[-2000:]
    assert "Missing character" not in log
    return log


def overfull(log: str) -> list[str]:
    """Every overfull box (too wide or too high) pdflatex reported."""
    return re.findall(r"Overfull \\[hv]box \([\d.]+pt too \w+\)[^\n]*", log)


def export(spec: Path, fmt: str, lang: str, **options: object) -> str:
    return render(build(load_spec(str(spec))), fmt, lang, **options)


# --- LaTeX documents ------------------------------------------------------------------------

# each example with each option in CI, else with one, turning (tests/matrix.py)
LONG_LINES = [(index, spec, k) for index, spec in enumerate(EXAMPLES)
              for k in turn("tests/test_latex_pages.py: long lines", (0, 1, 2), index)]


@pytest.mark.parametrize(("index", "spec", "k"), LONG_LINES, ids=lambda x: getattr(
    x, "stem", str(x)))
def test_long_lines_of_every_option_still_fit(index: int, spec: Path, k: int,
                                              tmp_path: Path) -> None:
    """--expand all, --round-intermediates and --decimal-comma (option k) on every example, each
    in a language of its own (they turn in order), through the CLI as a user runs it. A spec in
    a low precision refuses hand calculation (tests/test_low_precision_layer.py): --full
    instead."""
    from typer.testing import CliRunner

    from attncli.cli.app import app

    hand = ["--full"] if "\ndtype: " in spec.read_text(encoding="utf-8") else [
        "--round-intermediates"]
    extra = [["--expand", "all"], hand, ["--decimal-comma"]][k]
    lang = LANGS[(index + k) % 3]
    result = CliRunner().invoke(app, ["export", str(spec), "--latex", "--standalone",
                                      "--lang", lang, *extra])
    assert result.exit_code == 0, result.stderr
    log = pdflatex(result.stdout, tmp_path)
    assert overfull(log) == [], (extra, lang, overfull(log)[:3])


def test_full_and_several_languages_fit(tmp_path: Path) -> None:
    for spec in SMALL:
        log = pdflatex(export(spec, "latex", "ru", standalone=True, full=True),
                       tmp_path / spec.stem)
        assert overfull(log) == []
    log = pdflatex(export(SMALL[0], "latex", "pl,ru,en", standalone=True), tmp_path / "all")
    assert overfull(log) == []


def test_a_wide_matrix_is_split_evenly_and_b1_sits_by_its_bracket() -> None:
    """decoder_layer's W_1 is 4 x 8: two blocks of 4 columns, not 7 + 1; b_1 = is in the row of
    the bracket, not in the row of the column labels."""
    text = export(EXAMPLES[[p.stem for p in EXAMPLES].index("decoder_layer")], "latex", "en")
    assert r"columns d1–\allowbreak{}d4 of 8" in text and r"columns d5–\allowbreak{}d8 of 8" in text
    w1 = text.split(r"columns d1–\allowbreak{}d4 of 8")[1].split(r"\end{equation*}")[0]
    assert re.search(r"^W_\{1\} = \{\}\\quad & ", w1, flags=re.M)
    b1 = text.split("b_{1} = {}")
    assert len(b1) == 2 and b1[0].rstrip().endswith(r"\end{matrix} \\")


def test_prose_notation_is_math_and_minus_is_a_minus() -> None:
    text = export(CAT, "latex", "en")
    assert r"$d_{\text{model}} = 2$" in text and r"$\div \sqrt{d_{k}} = 1.41$" in text
    assert r"$q_{\text{mouse}}$ and $k_{\text{cat}}$" in text
    assert "d\\_model" not in text and "q\\_mouse" not in text
    from attncli.render.notation import latex
    from attncli.render.tex import escape_text

    # a negative number in prose (hand calculation's drift) gets the minus sign, not a hyphen;
    # the cell's name is one unit (no line ends inside its brackets)
    assert latex("Z[short, d11]: -0.9396 by hand", escape_text) == (
        r"Z[short,~d11]: $-$0.9396 by hand")
    assert latex("a well-known 3-4 split", escape_text) == "a well-{}known 3-{}4 split"


# --- the fragment -----------------------------------------------------------------------------


def named_lines(fragment: str) -> list[str]:
    """The preamble lines the fragment's first comment asks for."""
    head = fragment.split("\n\\")[0]
    return [line[4:] for line in head.splitlines() if line.startswith("%   \\")]


@pytest.mark.parametrize("lang", LANGS)
def test_fragment_compiles_with_exactly_the_lines_it_names(lang: str, tmp_path: Path) -> None:
    fragment = export(ROOT / "tests" / "data" / "tricky_tokens.yaml", "latex", lang)
    lines = named_lines(fragment)
    expected = {
        "en": [r"\usepackage[T1]{fontenc}", r"\usepackage{amsmath}",
               r"\usepackage[table]{xcolor}"],
        "pl": [r"\usepackage[T1]{fontenc}", r"\usepackage[polish]{babel}",
               r"\usepackage{amsmath}", r"\usepackage[table]{xcolor}"],
        "ru": [r"\usepackage[T1,T2A]{fontenc}", r"\usepackage[russian]{babel}",
               r"\usepackage{amsmath}", r"\usepackage[table]{xcolor}"],
    }[lang]
    if lang == "en" and "T2A" in fragment:  # the tricky spec has Cyrillic tokens
        expected[0] = r"\usepackage[T2A,T1]{fontenc}"
    assert lines == expected
    (tmp_path / "fragment.tex").write_text(fragment, encoding="utf-8")
    wrapper = "\n".join([r"\documentclass{article}", *lines, r"\begin{document}",
                         r"\input{fragment}", r"\input{fragment}", r"\end{document}", ""])
    log = pdflatex(wrapper, tmp_path)
    assert overfull(log) == []
    # amsmath and xcolor are each needed: without one of them the fragment does not compile
    for missing in (r"\usepackage{amsmath}", r"\usepackage[table]{xcolor}"):
        less = wrapper.replace(missing + "\n", "")
        (tmp_path / "less.tex").write_text(less, encoding="utf-8")
        done = subprocess.run(["pdflatex", "-interaction=nonstopmode", "-halt-on-error",
                               "less.tex"], cwd=tmp_path, capture_output=True, timeout=300,
                              check=False)
        assert done.returncode != 0, missing


def test_heatmap_in_latex_has_the_weights_colours_and_hidden_keys() -> None:
    text = export(CAT, "latex", "en")
    table = text.split(r"\begin{tabular}")[1].split(r"\end{tabular}")[0]
    # cat chases mouse, causal: 3 hidden keys; weight 1.00 is deep blue with white digits
    assert table.count(r"\cellcolor[RGB]{200,200,200}") == 3
    assert r"\cellcolor[RGB]{8,48,107}\textcolor[RGB]{255,255,255}{$1.00$}" in table
    numbers = re.findall(r"\{\$([0-9.]+)\$\}", table)
    assert numbers == ["1.00", "0.36", "0.64", "0.40", "0.25", "0.35"]


# --- Beamer -----------------------------------------------------------------------------------


def words_outside(pdf: Path) -> list[str]:
    """Words whose box pdftotext finds beyond the edge of their page."""
    boxes = subprocess.run(["pdftotext", "-bbox", pdf.name, "-"], cwd=pdf.parent,
                           capture_output=True, text=True, check=True).stdout
    outside = []
    for page in re.findall(r"<page (.*?)</page>", boxes, flags=re.S):
        width, height = (float(v) for v in re.findall(r'(?:width|height)="([\d.]+)"', page)[:2])
        for x1, y1, word in re.findall(r'xMax="([\d.]+)" yMax="([\d.]+)">([^<]*)<', page):
            if float(x1) > width or float(y1) > height - 2:
                outside.append(word)
    return outside


def frame_titles(pdf: Path) -> list[str]:
    count = int(re.search(r"Pages:\s+(\d+)", subprocess.run(
        ["pdfinfo", pdf.name], cwd=pdf.parent, capture_output=True, text=True,
        check=True).stdout).group(1))  # type: ignore[union-attr]
    return [subprocess.run(["pdftotext", "-f", str(i), "-l", str(i), pdf.name, "-"],
                           cwd=pdf.parent, capture_output=True, text=True,
                           check=True).stdout.strip().split("\n")[0] for i in range(1, count + 1)]


def aspects(spec: Path) -> tuple[str, ...]:
    """The aspects CI compiles the example's deck at: the three-head "Life is short" (about 200
    frames, 30 s a deck) only at 4:3, the narrower; its matrices are life_is_short's, checked at
    both."""
    return ("43",) if spec.stem == "life_is_short_three_heads" else ("169", "43")


# every example at its aspects in CI (73 decks), else every other example at one, turning
# (tests/matrix.py; the conformance matrix compiles every example's frames at one aspect on
# every run); the summary counts the decks run out of CI's
DECKS = sample("tests/test_latex_pages.py: Beamer decks",
               [(i, spec, aspect) for i, spec in enumerate(EXAMPLES) for aspect in aspects(spec)],
               lambda case: case[0] % 2 == 0 and case[2] == in_turn(aspects(case[1]), case[0] // 2))


@pytest.mark.parametrize(("index", "spec", "aspect"), DECKS, ids=lambda x: getattr(
    x, "stem", str(x)))
def test_beamer_deck_fits_every_frame(index: int, spec: Path, aspect: str,
                                      tmp_path: Path) -> None:
    lang = LANGS[index % 3]
    source = export(spec, "beamer", lang, aspect=aspect)
    assert source.splitlines()[1].startswith(rf"\documentclass[aspectratio={aspect}")
    log = pdflatex(source, tmp_path)
    assert overfull(log) == [], overfull(log)[:3]
    assert words_outside(tmp_path / "doc.pdf") == []


def test_beamer_one_frame_per_step_continued_and_reading_alone(tmp_path: Path) -> None:
    walkthrough = build(load_spec(str(CAT)))
    source = render(walkthrough, "beamer", "en", aspect="43")
    pdflatex(source, tmp_path)
    titles = frame_titles(tmp_path / "doc.pdf")
    steps = [f"{i}. " for i in range(1, len(walkthrough.steps) + 1)]
    assert titles[0].startswith("cat chases mouse")
    for prefix in steps:  # every step has a frame, its continuations follow it
        assert any(t.startswith(prefix) for t in titles), prefix
    # the matrix and heatmap, then the written-out lines
    assert "7. Attention weights (cont.)" in titles
    assert titles[-1] == "What the weights say"
    last = subprocess.run(["pdftotext", "-f", str(len(titles)), "-l", str(len(titles)),
                           "doc.pdf", "-"], cwd=tmp_path, capture_output=True, text=True,
                          check=True).stdout
    assert "“mouse” attends most to “cat”" in " ".join(last.split())


@pytest.mark.parametrize("lang", LANGS)
def test_frames_only_go_into_a_deck_with_exactly_the_lines_they_name(lang: str,
                                                                     tmp_path: Path) -> None:
    frames = export(CAT, "beamer", lang, frames_only=True, aspect="43")
    assert r"\documentclass" not in frames.split("\n\\")[1] and r"\begin{frame}" in frames
    lines = named_lines(frames)
    assert lines[0] == r"\documentclass[aspectratio=43,xcolor=table]{beamer}"
    (tmp_path / "frames.tex").write_text(frames, encoding="utf-8")
    deck = "\n".join([*lines, r"\begin{document}", r"\begin{frame}{Mine}A slide of my own."
                      r"\end{frame}", r"\input{frames}", r"\end{document}", ""])
    log = pdflatex(deck, tmp_path)
    assert overfull(log) == []
    assert words_outside(tmp_path / "doc.pdf") == []


def test_beamer_options_from_the_command_line() -> None:
    from typer.testing import CliRunner

    from attncli.cli.app import app

    runner = CliRunner()
    spec = str(CAT)
    deck = runner.invoke(app, ["export", spec, "--beamer", "--aspect", "43", "--lang", "pl"])
    assert deck.exit_code == 0
    assert deck.stdout.splitlines()[1] == r"\documentclass[aspectratio=43,xcolor=table]{beamer}"
    assert r"\usepackage[polish]{babel}" in deck.stdout and deck.stdout.endswith(
        "\\end{document}\n")
    frames = runner.invoke(app, ["export", spec, "--beamer", "--frames-only", "--steps",
                                 "scores"])
    assert frames.exit_code == 0 and frames.stdout.startswith("% attn export --beamer")
    assert r"\end{document}" not in frames.stdout
    assert "xcolor=table" not in frames.stdout  # no heatmap without the weights step
    assert frames.stdout.count(r"\begin{frame}") >= 2  # the title frame and the step
    wrong = runner.invoke(app, ["export", spec, "--beamer", "--aspect", "32"])
    assert wrong.exit_code == 2 and wrong.stdout == ""
    both = runner.invoke(app, ["export", spec, "--beamer", "--latex"])
    assert both.exit_code == 2 and "found --latex, --beamer" in both.stderr


@pytest.mark.parametrize("title", ["x" * 1000, "W" * 990 + " + M",
                                   "x" * 200 + "\u0301\\verb|x|S' + M"])
@pytest.mark.parametrize("lang", ["en", "pl,en"])
def test_a_title_of_one_word_at_the_text_limit_fits_its_heading(title: str, lang: str,
                                                                 tmp_path: Path) -> None:
    # the word was shortened to the body's widest word, 225 pt in roman at 10 pt, then set in
    # \section*'s 14.4 pt bold: 3 to 10 pt past the margin, 32 pt with a combining mark shown
    # as its code point and " + M" after it
    import yaml

    spec = yaml.safe_load(CAT.read_text(encoding="utf-8"))
    spec["title"] = title
    (tmp_path / "s.yaml").write_text(yaml.safe_dump(spec), encoding="utf-8")
    text = render(build(load_spec(str(tmp_path / "s.yaml"))), "latex", lang.split(","),
                  standalone=True)
    assert overfull(pdflatex(text, tmp_path)) == []


# Short words TeX never breaks between: joined by no-break spaces (written `~`) or by dashes
# (after `–` or `—`, written as the characters, TeX breaks nowhere): 55 to 4,538 pt past the
# margin when each word was measured alone
TIED = {"em dashes": "ab—" * 150, "no-break spaces": "abcd\u00a0" * 120,
        "en dashes": "ab–" * 150, "Cyrillic": "слово\u00a0" * 80, "dollars": "$a$\u00a0" * 100,
        "a run of dashes": "a " + "—" * 40 + " b"}


@pytest.mark.parametrize("text", TIED.values(), ids=TIED.keys())
@pytest.mark.parametrize("fmt", ["latex", "beamer"])
def test_a_title_and_description_of_tied_short_words_fit_the_line(text: str, fmt: str,
                                                                   tmp_path: Path) -> None:
    import yaml

    spec = yaml.safe_load(CAT.read_text(encoding="utf-8"))
    spec["title"] = spec["description"] = text
    (tmp_path / "s.yaml").write_text(yaml.safe_dump(spec), encoding="utf-8")
    source = render(build(load_spec(str(tmp_path / "s.yaml"))), fmt, "en",
                    **({"standalone": True} if fmt == "latex" else {}))
    assert overfull(pdflatex(source, tmp_path)) == []
