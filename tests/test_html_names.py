"""`attn export --html` writes out every cell its page shows, a softmax row by its shown cells
alone and a long sum shortened: the token names its lines repeat are charged the terms the page
writes (arithmetic/page_terms.py), times the longest name, before any line is made, against the
limit of `-x all` and `-x shown` (steps/name_charge.py)."""

from __future__ import annotations

import html
import json
import re
from collections.abc import Iterable
from pathlib import Path

import pytest
from typer.testing import CliRunner, Result

from attncli.arithmetic import expand
from attncli.arithmetic.elision import written_terms
from attncli.arithmetic.expand import Chosen
from attncli.arithmetic.page_terms import page_terms
from attncli.arithmetic.selection import Selection
from attncli.model import Difference, Expr, Sum
from attncli.spec import load_spec
from attncli.spec.model import Spec
from attncli.steps import build as building

ROOT = Path(__file__).resolve().parent.parent
NBSP = "\u00a0"


def spec(tokens: int, length: int, dim: int, heads: int = 1) -> str:
    """`tokens` names of `length` characters (`000nnn…`), identity projections, every feature
    of every token above 0 (0.1 to 0.5), so no query or key has a length that prints as 0 and
    every score has its angle."""
    rows = [[round(0.1 * (1 + (i + j) % 5), 1) for j in range(dim)] for i in range(tokens)]
    return json.dumps({"tokens": [f"{i:03d}" + "n" * (length - 3) for i in range(tokens)],
                       "embeddings": rows, "heads": heads,
                       "weights": {"W_Q": "identity", "W_K": "identity", "W_V": "identity"}})


def export(*args: str) -> Result:
    from attncli.cli.app import app

    return CliRunner().invoke(app, ["export", *args])


# 12 tokens of 999 characters, d_model 16, 16 heads of d_k 1; each head, nothing elided:
# Q, K, V  3 · 12 cells, each a sum of 16 terms             576
# S        144 cells, q·k of 1 term and its angle           288
# S′       144 quotients                                     144
# A        12 rows of 12 e^x, a Σ of 12 and 12 quotients    432
# Z        12 rows, a sum of 12 terms                        144
# 1,584 terms a head, 25,344 for 16, each with a name of 999 characters: 25,318,656
REFUSED = {
    "en": "attn: --html: the cells written out would repeat the token names in up to 25,318,656 "
          "characters; the limit is 3,200,000, which --max-cells sets; show fewer steps with "
          "--steps or one head with --head, or give the tokens shorter names",
    "pl": f"attn: --html: w{NBSP}rozpisanych komórkach powtarzane nazwy tokenów zajęłyby "
          f"łącznie do 25{NBSP}318{NBSP}656 znaków; limit to 3{NBSP}200{NBSP}000 (ustawia go "
          "--max-cells); pokaż mniej kroków opcją --steps lub jedną głowicę opcją --head albo "
          "nadaj tokenom krótsze nazwy",
    "ru": f"attn: --html: в{NBSP}расписанных ячейках имена токенов заняли бы до "
          f"25{NBSP}318{NBSP}656 символов; предел{NBSP}— 3{NBSP}200{NBSP}000 (его задаёт "
          "--max-cells); выберите меньше шагов параметром --steps или одну голову параметром "
          "--head либо дайте токенам имена покороче",
}


@pytest.mark.parametrize("lang", ["en", "pl", "ru"])
def test_the_page_of_16_heads_of_long_names_is_refused_before_it_is_written(
        lang: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    Path("s.json").write_text(spec(12, 999, 16, heads=16), "utf-8")
    writers: list[str] = []
    writer = expand.writer
    monkeypatch.setattr(expand, "writer", lambda ctx, step, cells: writers.append(step.id)
                        or writer(ctx, step, cells))
    result = export("s.json", "--html", "-o", "s.html", "--lang", lang)
    assert result.exit_code == 2
    assert result.output == REFUSED[lang] + "\n"
    assert not Path("s.html").exists()
    assert writers == []  # refused before any step was given its lines


def test_one_head_of_them_is_written(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """What the refusal says to do: the head kept is the one charged, 1,584 terms of 999
    characters, 1,582,416, within the limit."""
    monkeypatch.chdir(tmp_path)
    Path("s.json").write_text(spec(12, 999, 16, heads=16), "utf-8")
    result = export("s.json", "--html", "--head", "1", "-o", "s.html", "--lang", "en")
    assert result.exit_code == 0, result.output
    assert terms_on(Path("s.html").read_text("utf-8")) == 1584
    refused = export("s.json", "--html", "--head", "1", "-o", "t.html", "--max-cells",
                     "1000000")
    assert "in up to 1,582,416 characters; the limit is 320,000" in refused.output


def test_the_page_of_200_tokens_of_long_names_is_written(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """200 tokens of 100 characters, one head: the page shows 8 rows and 8 keys of each n × m
    matrix. Q, K, V 3 · 32 cells of 4 terms (384), S 64 of 4 terms and the angle (320), S′ 64,
    A 8 rows of 8 e^x, a Σ of 200 written as 5 and 8 quotients (168), Z 8 rows of 200 terms
    written as 5 (40): 976 terms, 97,600 characters of names, a thirtieth of the limit. The
    charge of `-x shown`, every cell's sum counted at m + d_model terms and a softmax row whole,
    was 4,732,800 and refused it."""
    monkeypatch.chdir(tmp_path)
    Path("s.json").write_text(spec(200, 100, 4), "utf-8")
    result = export("s.json", "--html", "-o", "s.html", "--lang", "en")
    assert result.exit_code == 0, result.output
    page = Path("s.html").read_text("utf-8")
    assert page.count("(200 terms, 195 not shown)") == 8 + 8  # each row's Σ and each Z
    assert terms_on(page) == 976


def terms_on(page: str) -> int:
    """The terms of the written-out lines of the page's first language, read from the page:
    each line's numbers (`target = symbolic = numbers = result`, or `numbers = result`) cut at
    each + and − outside brackets, the `…` of a shortened sum not counted."""
    first = page.split('class="attn-lang"')[1]
    terms = 0
    for line in re.findall(r"<li><code>(.*?)</code></li>", first):
        numbers = re.split(" [=≈] ", html.unescape(line))[-2]
        depth, parts = 0, [""]
        for k, ch in enumerate(numbers):
            depth += (ch in "([") - (ch in ")]")
            if depth == 0 and numbers[k - 1:k + 2] in (" + ", " − "):
                parts.append("")
            parts[-1] += ch
        terms += sum(1 for part in parts if part.strip(" +−") != "…")
    return terms


@pytest.mark.parametrize(("tokens", "length", "dim", "heads", "terms"), [
    (4, 1000, 4, 1, 352),  # 3 · 16 · 4 + 16 · 5 + 16 + 4 · 12 + 4 · 4
    (4, 1000, 4, 2, 2 * 224),  # d_k 2: 3 · 8 · 4 + 16 · 3 + 16 + 48 + 16 a head
    (200, 400, 4, 1, 976),  # the page of 200 tokens above
])
def test_the_charge_is_the_terms_the_page_writes(
        tokens: int, length: int, dim: int, heads: int, terms: int, tmp_path: Path,
        monkeypatch: pytest.MonkeyPatch) -> None:
    """The characters the refusal names at the smallest limit (320,000, for a --max-cells up to
    1,000,000) are the terms the page writes when it is allowed, read from the page, times the
    names' length."""
    monkeypatch.chdir(tmp_path)
    Path("s.json").write_text(spec(tokens, length, dim, heads), "utf-8")
    written = export("s.json", "--html", "-o", "s.html", "--lang", "en")
    assert written.exit_code == 0, written.output
    assert terms_on(Path("s.html").read_text("utf-8")) == terms
    refused = export("s.json", "--html", "-o", "t.html", "--lang", "en",
                     "--max-cells", "1000000")
    assert refused.exit_code == 2 and not Path("t.html").exists()
    assert f"in up to {terms * length:,} characters; the limit is 320,000" in refused.output


def line_terms(expr: Expr) -> int:
    """The terms a line writes, from the expression its writer made: a sum's as shortened, 1 − Σ
    both sides', any other 1."""
    if isinstance(expr, Sum):
        return written_terms(len(expr.terms))
    if isinstance(expr, Difference):
        return line_terms(expr.left) + line_terms(expr.right)
    return 1


@pytest.mark.parametrize("example", sorted((ROOT / "configs").glob("*.yaml")), ids=str)
def test_each_step_is_charged_the_terms_its_lines_write(
        example: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Counted from the shapes, step by step, against the lines each writer makes (masks that
    hide keys, sinks, tiles, Vision Transformer patches, a bilinear score, QK-norm)."""
    counted: dict[int, int] = {}

    def charge(spec: Spec, chosen: Iterable[Chosen], max_cells: int, terms_shown: bool) -> None:
        assert terms_shown
        for ctx, step, cells in chosen:
            counted[step.number] = page_terms(ctx, step, cells)

    monkeypatch.setattr(building, "check_chosen", charge)
    walkthrough = building.build(load_spec(str(example)), Selection("shown", terms_shown=True),
                                 summary=True)
    written = {step.number: sum(line_terms(e.expression) for e in step.expansions)
               for step in walkthrough.steps if step.number in counted}
    assert counted and written == counted


@pytest.mark.parametrize("page", ["limits.md", "html-typst.md"])
def test_the_docs_quote_the_refusal(page: str) -> None:
    text = (ROOT / "docs" / page).read_text("utf-8")
    assert REFUSED["en"] in " ".join(text.split())
