"""A written-out sum of more than 16 terms, worked by hand: x_a = [1, …, 1] and
x_b = [0.05, 0.10, …, 1.00] (20 features, identity projections), so
S[a, b] = 1.00·0.05 + 1.00·0.10 + … + 1.00·1.00 = 0.05·(1 + … + 20) = 0.05·210 = 10.50.

Every format shows terms 1, 2, 3 and 19, 20, says what it leaves out ("(20 terms, 15 not
shown)" in the reader's language) and writes `≈`, not `=`: its five printed terms give 1.95,
not 10.50. The JSON keeps all 20 terms. LaTeX and Beamer compile with no overfull box; the
Markdown renders in KaTeX and MathJax with no error and nothing past the column.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from attncli import build, load_spec, render
from attncli.arithmetic.expand import Selection
from tests.test_export_renderers import compile_latex
from tests.test_markdown_render import PIPELINES, run_pages, source_math

D = 20
SHOWN = "1.00·0.05 + 1.00·0.10 + 1.00·0.15 + … + 1.00·0.95 + 1.00·1.00"
SHOWN_TEX = (r"{1.00 \cdot 0.05} + {1.00 \cdot 0.10} + {1.00 \cdot 0.15} + \dots + "
             r"{1.00 \cdot 0.95} + {1.00 \cdot 1.00}")
LEFT_OUT = {"en": "(20 terms, 15 not shown)", "pl": "(20 składników, 15 pominiętych)",
            "ru": "(20 слагаемых, 15 не показано)"}


@pytest.fixture(scope="module")
def spec(tmp_path_factory: pytest.TempPathFactory) -> str:
    path = tmp_path_factory.mktemp("twenty") / "twenty.yaml"
    ones = ", ".join(["1"] * D)
    twentieths = ", ".join(f"{0.05 * k:.2f}" for k in range(1, D + 1))
    path.write_text(f"tokens: [a, b]\nembeddings:\n  - [{ones}]\n  - [{twentieths}]\n"
                    "weights: {W_Q: identity, W_K: identity, W_V: identity}\n",
                    encoding="utf-8")
    return str(path)


def export(spec: str, fmt: str, lang: str, **options: Any) -> str:
    walkthrough = build(load_spec(spec), Selection.parse(["scores:a,b"]))
    return render(walkthrough, fmt, lang, **options)


@pytest.mark.parametrize("fmt", ["text", "rich", "svg", "html", "typst"])
@pytest.mark.parametrize("lang", sorted(LEFT_OUT))
def test_every_plain_format_shows_five_terms_and_says_what_is_missing(
        spec: str, fmt: str, lang: str) -> None:
    out = export(spec, fmt, lang)
    if fmt == "svg":  # the terminal's lines, one <text> each, spaces as &#160;
        out = out.replace("&#160;", " ")
    flat = " ".join(out.split())
    assert f"{SHOWN} {LEFT_OUT[lang]} ≈ 10.50" in flat or (
        fmt in ("rich", "svg") and SHOWN.split(" + … + ")[0] in flat
        and f"1.00·1.00 {LEFT_OUT[lang]} ≈" in flat), flat[:3000]
    assert f"{LEFT_OUT[lang]} =" not in flat


@pytest.mark.parametrize("lang", sorted(LEFT_OUT))
def test_latex_and_beamer_compile_with_no_overfull_box(spec: str, lang: str,
                                                       tmp_path: Path) -> None:
    tex = export(spec, "latex", lang, standalone=True)
    bound = LEFT_OUT[lang] if lang == "en" else LEFT_OUT[lang].replace(", ", ",~")  # pl, ru
    assert SHOWN_TEX + r"\ \text{" + bound + r"} \approx 10.50" in tex
    text = compile_latex(tex, tmp_path)
    assert "Overfull" not in (tmp_path / "doc.log").read_text(encoding="utf-8", errors="replace")
    assert LEFT_OUT[lang] in text
    beamer = tmp_path / "beamer"
    beamer.mkdir()
    compile_latex(export(spec, "beamer", lang, aspect="43"), beamer)
    assert "Overfull" not in (beamer / "doc.log").read_text(encoding="utf-8", errors="replace")


def test_json_keeps_every_term(spec: str) -> None:
    doc = json.loads(export(spec, "json", "en"))
    lines = [e for step in doc["steps"] for e in step.get("expansions", [])
             if e["target"] == "S[a, b]"]
    assert len(lines) == 1
    terms = lines[0]["expression"]["args"]
    assert len(terms) == D and lines[0]["exact"] is True  # all 20, which give 10.50 exactly
    assert [t["args"][1]["num"] for t in terms] == [round(0.05 * k, 2) for k in range(1, 21)]


def test_markdown_renders_in_katex_and_mathjax(spec: str, tmp_path: Path) -> None:
    sources = {flavor: export(spec, "markdown", "en,pl,ru", md_flavor=flavor)
               for flavor in PIPELINES}
    for lang, words in LEFT_OUT.items():
        # the line is cut after a top-level ≈ as after =, so the result wraps alone
        assert rf"\text{{{words}}} \approx{{}}$ $10.50$" in sources["katex"], lang
    jobs = [{"name": f"{flavor}/{pipeline}", "markdown": sources[flavor], "pipeline": pipeline,
             "flavor": flavor} for flavor, pipelines in PIPELINES.items()
            for pipeline in pipelines]
    pages = run_pages(jobs, tmp_path)
    for name, page in pages.items():
        flavor = name.split("/")[0]
        assert not page["errors"], (name, page["errors"][:2])
        assert not page["wide"], (name, page["wide"][:2])
        read = sorted(" ".join(m["tex"].split()) for m in page["tex"])
        want = sorted(" ".join(tex.split()) for tex, _ in source_math(sources[flavor], flavor))
        assert read == want, name
        assert sum(r"\text{(20" in tex for tex in read) == 3, name
