"""Serves KaTeX from the site itself: its script, stylesheet and fonts are copied at build time
from tests/render/node_modules (pinned by tests/render/package-lock.json, the same KaTeX the
tests render with), so a reader's browser never fetches anything from a CDN."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from mkdocs.exceptions import PluginError
from mkdocs.structure.files import File, Files

KATEX = Path(__file__).resolve().parents[2] / "tests" / "render" / "node_modules" / "katex" / "dist"
SITE_FOLDER = "assets/katex"


def on_files(files: Files, config: Any) -> Files:
    if not (KATEX / "katex.min.js").is_file():
        raise PluginError(f"KaTeX is missing at {KATEX}: run `cd tests/render && npm ci` first")
    wanted = [KATEX / "katex.min.js", KATEX / "katex.min.css",
              *sorted((KATEX / "fonts").glob("*.woff2"))]
    for source in wanted:
        path = f"{SITE_FOLDER}/{source.relative_to(KATEX).as_posix()}"
        files.append(File.generated(config, path, abs_src_path=str(source)))
    return files
