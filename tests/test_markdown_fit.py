"""Markdown matrices split only when they do not fit: measured in headless Chromium, in KaTeX and
in pandoc + MathJax 3's default bundle, on matrices that are not among the examples.

Random matrices (3 to 16 columns; short, long and Cyrillic labels; negative numbers; symbols as
wide as `S' + B + M` and `softmax(S)`) are written as the export writes them (md_measure.blocks,
md_math.labelled_matrix) and rendered: no glyph runs past the text column in any engine. Each is
also drawn whole, and split in one block fewer than attn chose, on a page of its own, and the
drawn widths say whether that would have fitted: a matrix that fits every engine with SLACK to
spare is never split, nor split into more blocks than fit.
"""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import pytest

from attncli.render import md_math, md_measure
from attncli.render.latex_matrix import balanced
from attncli.render.markdown import display
from tests.test_markdown_render import PIPELINES, run_pages

SYMBOLS = ["A", "S' + M", "S' + B + M", r"\mathop{\mathrm{softmax}}(S)", r"dW_{K}\ (g1)",
           r"\tilde P_{11}", r"\mathop{\mathrm{RMS}}(Q)", r"m,\ \ell"]
WORDS = ["the", "cat", "i", "chases", "mouse", "WWWWMMMM", "кошка", "ЖЖЖЖЖЖ", "ёж", "źdźbło",
         "tokenization", "мышь", "d1", "d12", "Ω"]
# The em of math a matrix may fit by and still be split: what attn reserves for glyphs it can
# only estimate (a label's 0.3 em, Cyrillic letters guessed wide, 0.1 em beside the frame).
SLACK = 1.0
RULER = [r"\text{x}\hspace{10em}\text{x}", r"\text{x}\hspace{30em}\text{x}"]

Matrix = tuple[str, list[list[str]], list[str], list[str]]


def random_matrix(rng: random.Random) -> Matrix:
    m = rng.randint(3, 5) if rng.random() < 0.5 else rng.randint(6, 16)
    rows = [rng.choice(WORDS) for _ in range(rng.randint(2, 4))]
    columns = [rng.choice(WORDS) if rng.random() < 0.5 else f"d{j + 1}" for j in range(m)]
    scale = rng.choice([1, 1, 1, 10, 100])
    cells = [[f"{rng.uniform(-scale, scale):.2f}".replace("-", "−") for _ in columns]
             for _ in rows]
    return rng.choice(SYMBOLS), cells, rows, columns


def shown(matrix: Matrix, parts: list[range]) -> list[str]:
    """The matrix's displays in `parts`, each as `$$` lines, as math_lines writes them."""
    symbol, cells, rows, columns = matrix
    numbers = [[md_math.number(c) for c in row] for row in cells]
    wrap = md_measure.wraps(symbol, columns, numbers, rows)
    return [line for part in parts for line in display(md_math.labelled_matrix(
        symbol, [[row[j] for j in part] for row in cells], rows, [columns[j] for j in part],
        wrap), "katex")]


def attn_blocks(matrix: Matrix) -> list[range]:
    symbol, cells, rows, columns = matrix
    return md_measure.blocks(symbol, columns, [[md_math.number(c) for c in row] for row in cells],
                             rows)


def spare(page: dict[str, Any], first: int, count: int) -> float:
    """The em of math to spare beside the tightest of displays first … first + count − 1 (less
    than 0: past the column), from the rulers at the top of the page."""
    def width(d: dict[str, Any]) -> float:
        items = d["words"] + d["delims"]
        return float(max(w["r"] for w in items) - min(w["l"] for w in items))

    shown = page["displays"]
    em = (width(shown[1]) - width(shown[0])) / 20  # px of one em of math
    return min((d["box"]["r"] - d["box"]["l"] - width(d)) / em
               for d in shown[first:first + count])


def test_matrices_split_only_when_they_do_not_fit_any_engine(tmp_path: Path) -> None:
    rng = random.Random(29)
    matrices = [random_matrix(rng) for _ in range(36)]
    chosen = [attn_blocks(m) for m in matrices]
    # the export's own displays, in both flavours' pipelines: nothing past the column
    text = "\n".join(line for m, parts in zip(matrices, chosen, strict=True)
                     for line in shown(m, parts))
    jobs = [{"name": f"attn/katex/{pipeline}", "pipeline": pipeline, "flavor": "katex",
             "markdown": text} for pipeline in PIPELINES["katex"]]
    # each matrix whole, then in one block fewer than attn chose (balanced, as attn splits)
    reference, spans, at = ["$$\n" + r + "\n$$\n" for r in RULER], [], len(RULER)
    for m, parts in zip(matrices, chosen, strict=True):
        fewer = balanced(len(m[3]), -(-len(m[3]) // max(len(parts) - 1, 1)))
        reference += ["\n".join(shown(m, [range(len(m[3]))])), "\n".join(shown(m, fewer))]
        spans.append((at, len(fewer)))
        at += 1 + len(fewer)
    jobs += [{"name": f"ref/katex/{pipeline}", "pipeline": pipeline, "flavor": "katex",
              "markdown": "\n".join(reference)} for pipeline in ("texmath-dollars",
                                                                  "pandoc-mathjax")]
    pages = run_pages(jobs, tmp_path / "pages")
    for name, page in pages.items():
        assert not page["errors"], (name, page["errors"][:2])
    for pipeline in PIPELINES["katex"]:
        assert not pages[f"attn/katex/{pipeline}"]["wide"], (
            pipeline, pages[f"attn/katex/{pipeline}"]["wide"][:3])
    split = 0
    for m, parts, (first, count) in zip(matrices, chosen, spans, strict=True):
        # the whole matrix is display `first`, its split into one block fewer the `fewer` after
        at = first
        fits_whole = min(spare(pages[f"ref/katex/{p}"], at, 1)
                         for p in ("texmath-dollars", "pandoc-mathjax"))
        if len(parts) == 1:
            assert fits_whole >= 0, (m, fits_whole)
            continue
        split += 1
        fits_fewer = min(spare(pages[f"ref/katex/{p}"], at + 1, count)
                         for p in ("texmath-dollars", "pandoc-mathjax"))
        assert fits_whole < SLACK, (m[0], m[2], m[3], "fits whole by", fits_whole)
        assert fits_fewer < SLACK, (m[0], m[2], m[3], len(parts), "fit in fewer by", fits_fewer)
    assert split >= 5 and len(matrices) - split >= 5  # both kinds among the random matrices


def test_a_label_character_written_as_its_code_point_is_measured_as_one() -> None:
    """`$`, a private-use or a CJK character is written `\\mathtt{U{+}E000}` (md_math.token):
    six characters of Computer Modern Typewriter, 0.525 em each, not the 1 em of one letter
    (twelve hostile names, two with private-use characters, ran 37 to 46 px past the column)."""
    assert md_math.token("\ue000") == r"\mathtt{U{+}E000}"
    assert md_measure.text_width("\ue000") == pytest.approx(6 * 0.525 + 0.3)
    assert md_measure.text_width("b\ue0007") == pytest.approx(
        md_measure.text_width("b7") + 6 * 0.525)
    assert md_measure.text_width("$5") == pytest.approx(md_measure.text_width("5") + 6 * 0.525)
    assert md_measure.text_width("кот") == pytest.approx(3 * 0.8 + 0.3)  # text, as before
