"""How a Walkthrough shows itself in Jupyter (JupyterLab, Notebook 7 and classic, VS Code) and
in IPython.

A notebook front end shows the richest type a value offers, by its own order: JupyterLab and VS
Code both put text/html (and application/json, text/latex in VS Code) before text/markdown. So a
walkthrough offers only text/markdown, the one type whose math every one of them typesets:
- JupyterLab and Notebook take the math out of Markdown before parsing it (`$...$`, `$$...$$`)
  and typeset it with MathJax; VS Code renders Markdown output with markdown-it and KaTeX's
  `$`/`$$` rule. Both read the katex flavour of the Markdown export (attncli/render/markdown.py),
  whose math survives even a CommonMark pass before the math engine and draws alike in KaTeX
  and MathJax 3 (tests/test_notebook_render.py renders it as JupyterLab does).
- HTML output is typeset in JupyterLab but not in VS Code, and JSON or LaTeX would be chosen
  over the Markdown by VS Code: none is offered (`render(w, "json")` gives the JSON).
IPython in a terminal, and text/plain beside the Markdown, get the text format.

Importing this module installs the view in the model (`Walkthrough.view`): the library API
(attncli/__init__.py) imports it on first use, so the model itself knows no renderer.
"""

from __future__ import annotations

from attncli.model import Walkthrough
from attncli.render import render

FLAVOR = "katex"  # `$$` displays and `$...$` inline: what Jupyter's and VS Code's Markdown read
# what a notebook reader types for every number of a large matrix (not the command's --full)
FULL = "attncli.render(w, \"markdown\", full=True)"
FULL_TEXT = "attncli.render(w, full=True)"


def markdown(walkthrough: Walkthrough) -> str:
    """text/markdown: the Markdown export in the katex flavour, in the walkthrough's language."""
    flavor = "plain" if walkthrough.md_flavor == "plain" else FLAVOR
    return render(walkthrough, "markdown", md_flavor=flavor, full_switch=FULL)


def text(walkthrough: Walkthrough) -> str:
    """text/plain: the text format, as `attn explain --format text` prints it."""
    return render(walkthrough, "text", full_switch=FULL_TEXT)


class _View:
    markdown = staticmethod(markdown)
    text = staticmethod(text)


Walkthrough.view = _View()  # the model shows itself through these from now on
