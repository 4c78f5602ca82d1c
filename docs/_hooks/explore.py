"""The gallery's explorable pages: every example in configs/, in every language, as
`attn export SPEC --html --lang LANG` writes it, made when the site is built (site/explore/
<lang>/<example>.html), so the repository holds none of them and none can be stale."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from mkdocs.structure.files import File, Files

ROOT = Path(__file__).resolve().parents[2]


def on_files(files: Files, config: Any) -> Files:
    from attncli.arithmetic.expand import Selection
    from attncli.i18n import LANGUAGES
    from attncli.render import render
    from attncli.spec import load_spec
    from attncli.steps.build import build

    for spec in sorted((ROOT / "configs").glob("*.yaml")):
        walkthrough = build(load_spec(str(spec)), Selection("shown"), summary=True)
        for lang in LANGUAGES:
            files.append(File.generated(config, f"explore/{lang}/{spec.stem}.html",
                                        content=render(walkthrough, "html", lang)))
    return files
