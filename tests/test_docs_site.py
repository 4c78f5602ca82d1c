"""The documentation site (mkdocs.yml, docs/) as readers meet it.

The site is one more real renderer of attn's Markdown: `mkdocs build --strict` (Material,
pymdownx.arithmatex, the KaTeX of tests/render's lockfile) builds it, and every gallery page,
every example in en, pl and ru as `attn snippets` wrote it, is opened in headless Chromium
(tests/render/render.js): no error node, the TeX KaTeX read is the TeX attn wrote, and every
matrix is a grid of its numbers inside its brackets with its labels outside
(tests/test_markdown_render.py's checks). Its sources cannot drift: the gallery is checked with
`attn snippets --check`, the key reference against the JSON Schema it is written from.

.ci/run installs MkDocs (the test extra), Chromium and the npm packages; elsewhere the build and
render tests skip with the reason (and fail under CI=true).
"""

from __future__ import annotations

import html
import importlib.util
import re
import shutil
import subprocess
import sys
from functools import cache
from pathlib import Path
from typing import Any

import pytest
import yaml

from attncli.i18n import LANGUAGES
from attncli.spec import schema_doc
from attncli.spec.schema import schema
from tests.conftest import ROOT, attn_executable
from tests.test_export_renderers import need
from tests.test_markdown_render import check_grids, expected_matrices, run_pages, source_math

EXAMPLES = sorted((ROOT / "configs").glob("*.yaml"))
GALLERY = ROOT / "docs" / "gallery"
README = ROOT / "README.md"
LINK = re.compile(r"\]\(([^)#\s]+)(?:#[^)]*)?\)")


def gallery_page(spec: Path, lang: str) -> Path:
    return GALLERY / lang / f"{spec.stem}.md"


# --- sources that cannot drift ----------------------------------------------------------------


def test_the_gallery_is_what_attn_snippets_writes() -> None:
    """attn.toml at the top writes the gallery; CI fails here when a page is stale or missing."""
    done = subprocess.run([attn_executable(), "snippets", "--check"], cwd=ROOT,
                          capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr[-2000:]
    n = len(EXAMPLES) * len(LANGUAGES)
    assert done.stderr.splitlines()[-1] == f"attn: 0 stale, {n} up to date, 0 failed"


def test_the_gallery_has_every_example_in_every_language_and_lists_them() -> None:
    assert len(EXAMPLES) >= 24
    index = (GALLERY / "index.md").read_text("utf-8")
    for spec in EXAMPLES:
        for lang in LANGUAGES:
            assert gallery_page(spec, lang).is_file(), gallery_page(spec, lang)
            assert f"]({lang}/{spec.stem}.md)" in index, f"gallery/index.md: no {lang}/{spec.stem}"
    pages = {p.relative_to(GALLERY).as_posix() for p in GALLERY.glob("*/*.md")}
    assert len(pages) == len(EXAMPLES) * len(LANGUAGES)  # none left from a removed example


def test_every_spec_key_is_in_the_reference_page() -> None:
    page = (ROOT / "docs" / "reference.md").read_text("utf-8")
    assert page == schema_doc.reference(), "stale; run: python -m attncli.spec.schema_doc"
    names: set[str] = set()

    def walk(node: Any) -> None:
        if isinstance(node, dict):
            names.update(node.get("properties", {}))
            for child in node.values():
                walk(child)
        elif isinstance(node, list):
            for child in node:
                walk(child)

    walk(schema())
    rows = set(re.findall(r"^\| `(?:[\w.\[\]]+\.)?(\w+)` \|", page, re.M))
    assert names - rows == set()
    # keys worked out by hand from the spec format, nested at every depth
    for key in ("tokens.tokenizer", "display.md_flavor", "block.ffn.activation", "decode.prefill",
                "rope.layout", "context.positional"):
        assert f"| `{key}` |" in page, key


def test_schema_doc_check_says_when_the_page_is_stale(tmp_path: Path,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "docs").mkdir()
    assert schema_doc.main(["--check"]) == 1
    assert schema_doc.main([]) == 0
    assert schema_doc.main(["--check"]) == 0


COMMANDS = ("explain", "export", "snippets", "fill", "check", "validate", "schema", "examples")
# an option as `attn CMD --help` lists it: "  -o, --output <str>", "  --reading / --no-reading"
OPTION = re.compile(r"^ {2}(?:-\w, )?(--[a-z][a-z-]*)(?:(?:, -\w)? / (--[a-z][a-z-]*))?", re.M)


@pytest.mark.parametrize("command", COMMANDS)
def test_every_option_in_help_is_documented(command: str) -> None:
    env = {"PATH": "/usr/bin:/bin", "COLUMNS": "200", "TERM": "dumb", "NO_COLOR": "1"}
    done = subprocess.run([attn_executable(), command, "--help"], capture_output=True, text=True,
                          check=True, env=env)
    options = {o for pair in OPTION.findall(done.stdout) for o in pair if o}
    assert {"--help", "--debug"} <= options
    docs = "".join(page.read_text("utf-8") for page in (ROOT / "docs").glob("*.md"))
    missing = sorted(o for o in options if not re.search(re.escape(o) + r"(?![a-z-])", docs))
    assert not missing, f"attn {command}: options no page of docs/ explains: {missing}"


def html_text(page: str) -> str:
    return html.unescape(re.sub(r"<[^>]+>", "", page))


def nav_pages(node: Any) -> list[str]:
    if isinstance(node, str):
        return [node]
    if isinstance(node, dict):
        return [page for child in node.values() for page in nav_pages(child)]
    return [page for child in node for page in nav_pages(child)]


def test_the_readme_is_a_landing_page_whose_links_all_lead_somewhere() -> None:
    text = README.read_text("utf-8")
    assert len(text.splitlines()) < 250
    targets = [t for t in LINK.findall(text) if not t.startswith(("http://", "https://"))]
    assert len(targets) >= 15
    for target in targets:
        assert (ROOT / target).exists(), f"README.md links to {target}, which is missing"
    for page in sorted((ROOT / "docs").glob("*.md")):
        if page.name == "index.md":  # the site's home: this README's own parts, included
            continue
        assert f"(docs/{page.name})" in text, f"README.md has no link to docs/{page.name}"


def test_every_page_is_in_the_sites_navigation() -> None:
    config = yaml.safe_load((ROOT / "mkdocs.yml").read_text("utf-8"))
    nav = nav_pages(config["nav"])
    assert len(nav) == len(set(nav))
    for page in sorted((ROOT / "docs").glob("*.md")):
        assert page.name in nav, f"docs/{page.name} is not in mkdocs.yml's nav (Features?)"
    assert "gallery/index.md" in nav


# --- the built site, read in a browser ------------------------------------------------------


@cache
def _site(folder: str) -> Path:
    if importlib.util.find_spec("mkdocs") is None or importlib.util.find_spec("material") is None:
        need("mkdocs", 'pip install ".[docs]"')
    if not (ROOT / "tests" / "render" / "node_modules" / "katex").is_dir():
        need("tests/render/node_modules", "cd tests/render && npm ci")
    site = Path(folder) / "site"
    done = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "--quiet",
                           "--site-dir", str(site)], cwd=ROOT, capture_output=True, text=True,
                          timeout=600, check=False, env={"PATH": "/usr/bin:/bin",
                                                         "NO_MKDOCS_2_WARNING": "1"})
    assert done.returncode == 0, done.stderr[-4000:]
    return site


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return _site(str(tmp_path_factory.mktemp("docs")))


def test_the_site_builds_strictly_and_serves_its_own_katex(site: Path) -> None:
    for spec in EXAMPLES:
        for lang in LANGUAGES:
            assert (site / "gallery" / lang / f"{spec.stem}.html").is_file()
            # the explorable page, linked from the gallery's index (tests/test_html_page.py)
            explore = (site / "explore" / lang / f"{spec.stem}.html").read_text("utf-8")
            assert explore.startswith("<!DOCTYPE html>") and f'lang="{lang}"' in explore
            assert f"../explore/{lang}/{spec.stem}.html" in (
                site / "gallery" / "index.html").read_text("utf-8")
    home = (site / "index.html").read_text("utf-8")
    assert "assets/katex/katex.min.js" in home
    assert (site / "assets" / "katex" / "fonts" / "KaTeX_Main-Regular.woff2").is_file()
    # nothing from another server: no CDN script, stylesheet or font, no Google Fonts
    for page in [site / "index.html", *site.glob("gallery/*/*.html")]:
        source = page.read_text("utf-8")
        fetched = re.findall(r"""<(?:script|link|img)\b[^>]*\b(?:src|href)=["']?(?:https?:)?//""",
                             source)
        assert not fetched, (page, fetched)
        assert "fonts.googleapis" not in source and "fonts.gstatic" not in source, page
    # the landing page carries the README's Quickstart, included, not copied
    shown = html_text(home)
    for command in re.findall(r"```sh\n(.+?)\n```", README.read_text("utf-8"))[:2]:
        assert command in shown


@cache
def _rendered(site: str, folder: str) -> dict[str, Any]:
    jobs = [{"name": f"{spec.stem}/{lang}",
             "file": str(Path(site) / "gallery" / lang / f"{spec.stem}.html"),
             "pipeline": "site"} for spec in EXAMPLES for lang in LANGUAGES]
    shots = {f"{name}/{lang}": {"path": str(Path(folder) / f"{name}.{lang}.png"), "top": top,
                                "height": 900}
             for name, lang, top in (("cat_chases_mouse", "en", 7), ("two_heads", "ru", 0))}
    return run_pages(jobs, Path(folder), shots)


@pytest.fixture(scope="module")
def gallery(site: Path, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    return _rendered(str(site), str(tmp_path_factory.mktemp("gallery")))


def test_every_gallery_page_renders_without_an_error(gallery: dict[str, Any]) -> None:
    assert len(gallery) == len(EXAMPLES) * len(LANGUAGES)
    failures = {name: page["errors"][:2] for name, page in gallery.items() if page["errors"]}
    assert not failures, str(failures)[:4000]


def test_katex_on_the_site_reads_the_math_attn_wrote(gallery: dict[str, Any]) -> None:
    """Python-Markdown and arithmatex hand KaTeX every formula of the page as written."""
    for spec in EXAMPLES:
        for lang in LANGUAGES:
            expected = source_math(gallery_page(spec, lang).read_text("utf-8"), "katex")
            assert sum(display for _, display in expected) >= 3
            read = [(" ".join(m["tex"].split()), m["display"])
                    for m in gallery[f"{spec.stem}/{lang}"]["tex"]]
            assert read == [(" ".join(tex.split()), display) for tex, display in expected], (
                f"{spec.stem}/{lang}")


def test_every_gallery_matrix_is_a_grid_in_its_brackets(gallery: dict[str, Any]) -> None:
    checked = 0
    for spec in EXAMPLES:
        for lang in LANGUAGES:
            text = gallery_page(spec, lang).read_text("utf-8")
            checked += check_grids(gallery[f"{spec.stem}/{lang}"], text, "katex",
                                   expected_matrices(spec, lang), f"{spec.stem}/{lang}")
    assert checked > 1000


def test_the_site_check_sees_a_formula_katex_refuses(tmp_path: Path) -> None:
    """The same configuration on a page of two formulas: KaTeX typesets the good one, and the
    one it cannot read is an error node the page check reports."""
    site = _site(str(tmp_path / "real"))  # needs what the real build needs
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "index.md").write_text("# t\n\nGood: $a_1 + b$\n\n$$\n\\frac{1}{2}\n$$\n\n"
                                   "Bad: $\\frac{1}{$\n", "utf-8")
    config = yaml.safe_load((ROOT / "mkdocs.yml").read_text("utf-8"))
    config.update(docs_dir=str(docs), nav=["index.md"], exclude_docs="",
                  hooks=[str(ROOT / "docs" / "_hooks" / "katex.py")])
    (tmp_path / "mkdocs.yml").write_text(yaml.safe_dump(config), "utf-8")
    shutil.copytree(ROOT / "docs" / "javascripts", docs / "javascripts")
    done = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--quiet", "--site-dir",
                           str(tmp_path / "site")], cwd=tmp_path, capture_output=True, text=True,
                          check=False, env={"PATH": "/usr/bin:/bin", "NO_MKDOCS_2_WARNING": "1"})
    assert done.returncode == 0, done.stderr[-3000:]
    assert site.is_dir()
    page = run_pages([{"name": "t", "file": str(tmp_path / "site" / "index.html"),
                       "pipeline": "site"}], tmp_path / "pages")["t"]
    assert [m["tex"].strip() for m in page["tex"]] == ["a_1 + b", "\\frac{1}{2}"]
    assert len(page["errors"]) == 1 and page["errors"][0].startswith("katex-error: "), page
