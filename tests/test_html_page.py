"""The HTML export as a reader meets it: every example, in en, pl and ru, opened from file:// in
headless Chromium (tests/render/explore.js), clicked and typed at, and read back from the DOM.

A page may make no request but for its own file and log no console error; every number is a
focusable cell named as the text format names it; a score clicked and a weight reached with Tab
and Enter show the lines `attn explain --format text -x all` writes for that cell (read here
from the text export, not from the HTML renderer) and highlight the cells they were made from,
worked out here from the formulas: the rows q_i and k_j of a score, the row of scores of a
weight, the row of A and the column of V of an output.
"""

from __future__ import annotations

import json
import re
from functools import cache
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from attncli.arithmetic.expand import Selection
from attncli.cli.app import app
from attncli.i18n import LANGUAGES
from attncli.model import Step, Walkthrough
from attncli.render import MAX_WIDTH, render
from attncli.spec import load_spec
from attncli.steps.build import build
from tests.test_markdown_render import HOSTILE, hostile_spec, run_pages, shown

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = sorted((ROOT / "configs").glob("*.yaml"))
runner = CliRunner()


def walkthrough(spec: Path | str) -> Walkthrough:
    """As `attn export SPEC --html` builds it: every shown cell written out."""
    return build(load_spec(str(spec)), Selection("shown"), summary=True)


def explore(jobs: list[dict[str, Any]], folder: Path) -> dict[str, Any]:
    return run_pages(jobs, folder, script="explore.js")


def first(w: Walkthrough, step_id: str) -> Step | None:
    return next((s for s in w.steps if s.id == step_id and s.expansions), None)


def actions(w: Walkthrough) -> list[dict[str, Any]]:
    """A score clicked, a weight and an output reached with the keyboard."""
    found = []
    for step_id, how, row_at, column_at in (("scores", "click", -1, 0),
                                            ("weights", "enter", -1, 0),
                                            ("output", "enter", 0, -1),
                                            ("projections", "click", 0, -1)):
        step = first(w, step_id)
        if step is None:
            continue
        m = step.matrices[0]
        found.append({"how": how, "step": str(step.number), "id": step_id,
                      "cell": f"{m.symbol.text}[{m.rows[row_at]}, {m.columns[column_at]}]",
                      "row": row_at % m.shape[0], "column": column_at % m.shape[1]})
    return found


def text_lines(w: Walkthrough, lang: str, number: int) -> list[str]:
    """The written-out lines of step `number` as the text format writes them, unwrapped."""
    text = render(w, "text", lang, width=MAX_WIDTH)
    section = re.split(r"^(?=\d+\. )", text, flags=re.M)
    lines = next(s for s in section if s.startswith(f"{number}. ")).splitlines()
    return [line.strip() for line in lines
            if line.startswith("   ") and (" = " in line or " ≈ " in line)]


def expected_lines(w: Walkthrough, lang: str, action: dict[str, Any]) -> list[str]:
    step = next(s for s in w.steps if s.number == int(action["step"]))
    lines = text_lines(w, lang, step.number)
    m = step.matrices[0]
    row, column = m.rows[action["row"]], m.columns[action["column"]]
    own = [k for k, line in enumerate(lines) if line.startswith(action["cell"] + " = ")]
    if action["id"] == "weights":
        (k,) = own  # its quotient; before it the row's sum, and before that the row's e^x lines
        total = max(j for j in range(k) if lines[j].startswith("Σ = "))  # (and a sink's e^s)
        keys = [j for j in range(total) if lines[j].startswith("e^")
                and not lines[j].startswith("e^s = ")][-m.shape[1]:]
        return [lines[keys[action["column"]]], lines[total], lines[k]]
    if action["id"] == "output":
        return [line for line in lines if line.startswith(f"{m.symbol.text}[{row}] = ")]
    (k,) = own
    angle = [lines[k + 1]] if k + 1 < len(lines) and lines[k + 1].startswith(
        f"cos θ[{row}, {column}] = ") else []
    return [lines[k], *angle]


def expected_sources(w: Walkthrough, action: dict[str, Any]) -> set[str] | None:
    """The names of the cells highlighted, from the formulas: S = Q·Kᵀ, A = softmax(row of
    the scores), Z = A·V."""
    step = next(s for s in w.steps if s.number == int(action["step"]))
    head = [s for s in w.steps if s.head in (None, step.head) and s.number < step.number]
    m = step.matrices[0]
    i, j = action["row"], action["column"]

    def latest(*symbols: str) -> Any:
        return next((x for s in reversed(head) for x in s.matrices if x.symbol.text in symbols),
                    None)

    def row(x: Any, label: str) -> set[str]:  # a matrix left out by --steps: nothing
        return {f"{x.symbol.text}[{label}, {c}]" for c in x.columns} if x else set()

    if action["id"] == "scores":  # q_i and k_j
        return row(latest("Q̂", "Q"), m.rows[i]) | row(latest("K̂", "K"), m.columns[j])
    if action["id"] == "weights":
        # the softmax's input: the last n × m matrix before A (S′ + B + M after a bias B)
        before = next((x for s in reversed(head) for x in reversed(s.matrices)
                       if x.shape == m.shape), None)
        return row(before, m.rows[i])
    if action["id"] == "output":  # the row of A and the column of V
        v = latest("V")
        return row(latest("A"), m.rows[i]) | (
            {f"V[{r}, {m.columns[j]}]" for r in v.rows} if v else set())
    return None


@cache
def _explored(folder: str) -> tuple[dict[str, Any], dict[str, Walkthrough]]:
    jobs, built = [], {}
    for spec in EXAMPLES:
        w = walkthrough(spec)
        built[spec.stem] = w
        for lang in LANGUAGES:
            page = Path(folder) / f"{spec.stem}-{lang}.html"
            page.write_text(render(w, "html", lang), encoding="utf-8")
            steps = [a for a in actions(w)]
            jobs.append({"name": f"{spec.stem}/{lang}", "path": str(page), "actions": steps,
                         "hash": f"attn-{lang}-s{steps[0]['step']}/{steps[0]['cell']}"
                         if steps else None})
    return explore(jobs, Path(folder)), built


@pytest.fixture(scope="module")
def explored(tmp_path_factory: pytest.TempPathFactory) -> tuple[dict[str, Any],
                                                                  dict[str, Walkthrough]]:
    return _explored(str(tmp_path_factory.mktemp("html")))


def test_no_page_logs_an_error_or_asks_the_network(explored: Any) -> None:
    pages, _ = explored
    assert len(pages) == len(EXAMPLES) * len(LANGUAGES)
    bad = {name: (page["errors"][:2], page["requests"][:2]) for name, page in pages.items()
           if page["errors"] or page["requests"]}
    assert not bad, json.dumps(bad, ensure_ascii=False)[:3000]


def count(along: int, cells: int) -> int:
    """How many rows (or columns) of a matrix of `cells` numbers the page shows."""
    return sum(1 for i in shown(along, cells) if i is not None)


def test_every_number_is_a_named_focusable_cell_and_every_formula_is_drawn(explored: Any) -> None:
    pages, built = explored
    for name, page in pages.items():
        w = built[name.split("/")[0]]
        matrices = [m for s in w.steps for m in s.matrices if not m.identity]  # I: in words
        numbers = sum(count(rows, rows * columns) * count(columns, rows * columns)
                      for rows, columns in (m.shape for m in matrices))
        assert page["cells"] == numbers, name
        assert page["focusable"] == page["labelled"] == numbers, name
        # a MathML formula for each step's formula and each matrix's name, and the notation of
        # the prose
        assert (page["math"] - len(page["prose"])
                == sum(1 for s in w.steps if s.formula) + len(matrices)), name
        assert page["mathml"] > 0, name  # MathML laid out, not left as unknown elements
        assert page["width"] <= 1100, name  # nothing wider than the window


def test_a_cell_clicked_or_entered_shows_its_written_out_lines(explored: Any) -> None:
    pages, built = explored
    checked = 0
    for name, page in pages.items():
        stem, lang = name.split("/")
        w = built[stem]
        for action, result in zip(actions(w), page["actions"], strict=True):
            assert result.get("on") == action["cell"], (name, action, result)
            if action["how"] == "enter":
                assert result["focused"] == action["cell"], (name, result)
            assert result["lines"] == expected_lines(w, lang, action), (name, action)
            assert result["hash"] == f"attn-{lang}-s{action['step']}/{action['cell']}", name
            sources = expected_sources(w, action)
            if sources is not None:
                shown = {s.split(":", 1)[1] for s in result["sources"]}
                assert shown == sources, (name, action["cell"], shown ^ sources)
                assert all(int(s.split(":")[0]) < int(action["step"]) for s in result["sources"])
            checked += 1
    assert checked >= len(EXAMPLES) * len(LANGUAGES) * 2


def test_the_fragment_names_a_cell_and_n_walks_to_the_next_step(explored: Any) -> None:
    pages, built = explored
    for name, page in pages.items():
        stem, lang = name.split("/")
        steps = actions(built[stem])
        if not steps:
            continue
        assert page["at_hash"]["on"] == steps[0]["cell"], name  # opened at #attn-en-s4/S[…]
        assert page["at_hash"]["lines"], name
        numbers = [s.number for s in built[stem].steps]
        after = min(numbers.index(int(steps[-1]["step"])) + 1, len(numbers) - 1)
        assert page["next_hash"] == f"attn-{lang}-s{numbers[after]}", name


def test_the_bundled_example_page_is_light() -> None:
    result = runner.invoke(app, ["export", "--html"])
    assert result.exit_code == 0, result.output
    assert len(result.stdout.encode()) < 200_000
    assert "<math" in result.stdout and "http" not in result.stdout.replace(
        "http-equiv", "")  # no address to fetch anything from


def test_two_fragments_on_one_page_keep_to_themselves(tmp_path: Path) -> None:
    blocks = []
    for spec in ("cat_chases_mouse.yaml", "two_heads.yaml"):
        result = runner.invoke(app, ["export", str(ROOT / "configs" / spec), "--html",
                                     "--fragment", "--lang", "en,pl"])
        assert result.exit_code == 0, result.output
        assert not result.stdout.lstrip().startswith("<!DOCTYPE")
        blocks.append(result.stdout)
    page = tmp_path / "post.html"
    page.write_text("<!DOCTYPE html><html><head><meta charset='utf-8'><title>post</title>"
                    "</head><body><h1>A post</h1><p>Before.</p>" + blocks[0] + "<p>Between.</p>"
                    + blocks[1] + "</body></html>", encoding="utf-8")
    w = walkthrough(ROOT / "configs" / "two_heads.yaml")
    action = {**actions(w)[0], "block": 1}
    (result,) = explore([{"name": "post", "path": str(page), "actions": [action]}],
                        tmp_path / "run").values()
    assert not result["errors"] and not result["requests"]
    (clicked,) = result["actions"]
    assert clicked["on"] == action["cell"] and clicked["outside"] == 0
    assert clicked["lines"] == expected_lines(w, "en", action)
    ids = re.findall(r'<div class="attn" id="([^"]+)"', blocks[0] + blocks[1])
    assert len(set(ids)) == 2 and all(re.fullmatch(r"attn-[0-9a-f]{8}", i) for i in ids)


def test_hostile_token_names_stay_text(tmp_path: Path) -> None:
    spec = hostile_spec(tmp_path)
    w = walkthrough(spec)
    page = tmp_path / "hostile.html"
    page.write_text(render(w, "html", "en"), encoding="utf-8")
    steps = actions(w)
    (result,) = explore([{"name": "hostile", "path": str(page), "actions": steps}],
                        tmp_path / "run").values()
    assert not result["errors"] and not result["requests"]
    for action, done in zip(steps, result["actions"], strict=True):
        assert done["on"] == action["cell"]
        assert done["lines"] == expected_lines(w, "en", action)
    assert result["cells"] > len(HOSTILE) ** 2  # every token a label, none became markup


@pytest.mark.parametrize(("lang", "said"), [("en", "Step {} of {}"),
                                            ("pl", "Krok\u00a0{} z\u00a0{}"),
                                            ("ru", "Шаг\u00a0{} из {}")])
def test_a_page_of_chosen_steps_counts_a_step_as_every_format_heads_it(lang: str,
                                                                       said: str) -> None:
    # --steps latent_cache keeps one step, which Markdown (and LaTeX, Typst, text) heads "4."
    # by its place in the whole walkthrough: the page's counter read "Шаг 4 из 1"
    spec = str(ROOT / "configs" / "mla_deepseek.yaml")
    chosen = ["--steps", "latent_cache", "--lang", lang]
    page = runner.invoke(app, ["export", spec, "--html", *chosen]).stdout
    heading = re.search(r"^## (\d+)\. ", runner.invoke(app, ["export", spec, "--markdown",
                                                             *chosen]).stdout, re.M)
    assert heading is not None
    (of,) = re.findall(r'data-of="([^"]+)"', page)
    (step,) = re.findall(r'class="attn-step"[^>]* data-step="(\d+)"', page)
    whole = len(build(load_spec(spec)).steps)
    # the page's script writes the shown step's data-step for the # (render/html_assets.py)
    assert of.replace("#", step) == said.format(heading.group(1), whole) == said.format(4, 21)


@pytest.mark.parametrize(("lang", "said"), [
    ("en", ["with their keys and values cached (dk=2+2):", "where dk=dnope+dR=4: both"]),
    ("pl", ["przechowywała ich klucze i wartości (dk=2+2):", "gdzie dk=dnope+dR=4:"]),
    ("ru", ["кэшировать их ключи и значения (dk=2+2):", "где dk=dnope+dR=4:"]),
])
def test_a_size_and_its_sum_in_a_sentence_are_one_formula(explored: Any, lang: str,
                                                          said: list[str]) -> None:
    # the page printed the latent example's "(d_k = 2 + 2)" and "d_k = d_nope + d_R = 4" as
    # text, underscores and all, where LaTeX, Markdown and Typst set each as one formula; in
    # MathML the text of dₖ is "dk", its subscript drawn below the d
    pages, _ = explored
    prose = pages[f"mla_deepseek/{lang}"]["prose"]
    paragraphs = {p["paragraph"].replace("\u00a0", " ") for p in prose}  # pl, ru: "i wartości"
    for sentence in said:
        assert any(sentence in p for p in paragraphs), (sentence, sorted(paragraphs)[:6])
    assert "dk=2+2" in {p["text"] for p in prose}
    drawn = [p["low"] for p in prose if p["low"] is not None]
    assert drawn and all(drawn), prose[:4]  # the header's √d_k at least is on screen
    for page in pages.values():  # no example's prose leaves a subscript as text
        assert not [p for p in page["prose"] if "_" in p["text"]]
