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
must be inside it; a bad block stops the build with the block's line:column.
"""

from __future__ import annotations

from typing import Any

FENCE = "<attn fence>"


def fence(source: str, language: str, css_class: str, options: dict[str, Any], md: Any,
          **kwargs: Any) -> str:
    """The HTML of the fence's walkthrough, in a `<div class="attn">`."""
    del language, options, md, kwargs
    from markdown import Markdown

    from attncli.fill.block import read_block, walkthrough_text

    request = read_block("\n" + source, FENCE, None, "katex")
    html = Markdown(extensions=["tables", "pymdownx.arithmatex"],
                    extension_configs={"pymdownx.arithmatex": {"generic": True}}).convert(
        walkthrough_text(request, "markdown"))
    return f'<div class="{css_class or "attn"}">\n{html}\n</div>'
