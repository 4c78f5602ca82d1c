"""Writes the Markdown screenshots docs/formats.md shows (docs/img/markdown-*.png): the export of a
bundled example rendered as readers see it, by the same harness as the tests.

    .venv/bin/python -m tests.render.screenshots
"""

from __future__ import annotations

import tempfile
from pathlib import Path

from tests.test_markdown_render import ROOT, markdown, run_pages

IMG = ROOT / "docs" / "img"
CAT = ROOT / "configs" / "cat_chases_mouse.yaml"
SHOTS = [  # file, spec, language, flavour, pipeline, first heading shown, height in px
    ("markdown-katex.png", CAT, "en", "katex", "texmath-dollars", "5", 620),
    ("markdown-mathjax.png", CAT, "en", "katex", "pandoc-mathjax", "7", 760),
    ("markdown-github-pl.png", ROOT / "configs" / "two_heads.yaml", "pl", "github",
     "texmath-gitlab", "3", 700),
]


def main() -> None:
    IMG.mkdir(parents=True, exist_ok=True)
    jobs = [{"name": name, "markdown": markdown(spec, lang, flavor), "pipeline": pipeline,
             "flavor": flavor} for name, spec, lang, flavor, pipeline, _, _ in SHOTS]
    shots = {name: {"path": str(IMG / name), "top": top, "height": height}
             for name, _, _, _, _, top, height in SHOTS}
    with tempfile.TemporaryDirectory() as folder:
        pages = run_pages(jobs, Path(folder), shots)
    for name, page in pages.items():
        assert not page["errors"], (name, page["errors"])
        print(IMG / name)


if __name__ == "__main__":
    main()
