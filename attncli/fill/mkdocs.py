"""A custom fence for MkDocs and Python-Markdown (pymdownx.superfences): a ```attn fence is
rendered at build time as the walkthrough `attn export --markdown --md-flavor katex` writes,
made HTML with its math left for KaTeX or MathJax (pymdownx.arithmatex, generic). In
mkdocs.yml:

    markdown_extensions:
      - pymdownx.arithmatex:
          generic: true
      - pymdownx.superfences:
          custom_fences:
            - name: attn
              class: attn
              format: !!python/name:attncli.fill.mkdocs.fence

A `spec: PATH` in the fence is read from the folder mkdocs runs in (the project's root) and
must be inside it. A bad block stops the build (superfences would otherwise show the fence as
code) with one line: `<attn fence>:LINE:COLUMN: ...`, line 1 being the ```attn line, in the
language $ATTN_LANG names, as the magic's; an escape sequence, a BEL or a CR it quotes is shown
as `\x1b`, `\x07`, `\r`, as on the command line.
"""

from __future__ import annotations

import os
from typing import Any

FENCE = "<attn fence>"


def fence(source: str, language: str, css_class: str, options: dict[str, Any], md: Any,
          **kwargs: Any) -> str:
    """The HTML of the fence's walkthrough, in a `<div class="attn">`."""
    del language, options, md, kwargs
    from markdown import Markdown
    from pymdownx.superfences import SuperFencesException

    from attncli.errors import AttnError
    from attncli.fill.block import read_block, walkthrough_text
    from attncli.i18n import first_known
    from attncli.i18n.visible import visible

    try:
        text = walkthrough_text(read_block("\n" + source, FENCE, None, "katex"), "markdown")
    except AttnError as error:  # in $ATTN_LANG's language, what it quotes shown as `\x1b`
        lang = first_known(os.environ.get("ATTN_LANG"))
        raise SuperFencesException(visible(str(error.in_language(lang)))) from None
    html = Markdown(extensions=["tables", "pymdownx.arithmatex"],
                    extension_configs={"pymdownx.arithmatex": {"generic": True}}).convert(text)
    return f'<div class="{css_class or "attn"}">\n{html}\n</div>'
