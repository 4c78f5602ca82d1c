"""Renderers: one module per format, registered in one table. They read a Walkthrough and never
compute; every word they print comes from the message catalog."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from importlib import import_module
from typing import TYPE_CHECKING

from attncli.errors import UsageError
from attncli.i18n import DEFAULT_LANG, Msg

if TYPE_CHECKING:  # the renderers import NumPy-backed models; this module must stay light
    from attncli.model import Walkthrough


@dataclass(frozen=True)
class RenderOptions:
    lang: str = DEFAULT_LANG
    precision: int | None = None  # None: the spec's display.precision
    width: int = 80
    color: bool = False
    full: bool = False  # no elision: every row and column of a large matrix, every term of a sum
    heatmap: bool = True  # the weights also as a shaded heatmap
    standalone: bool = False  # latex: a whole document instead of a fragment for \input
    md_flavor: str = "github"  # markdown: github, katex or plain (no math)
    front_matter: bool = False  # markdown: YAML front matter with title_<lang>/description_<lang>


Renderer = Callable[["Walkthrough", RenderOptions], str]

# format name -> module whose `render(walkthrough, options) -> str` writes it
FORMATS: dict[str, str] = {
    "text": "attncli.render.text",
    "rich": "attncli.render.rich_view",
    "json": "attncli.render.json_doc",
    "latex": "attncli.render.latex",
    "markdown": "attncli.render.markdown",
    "svg": "attncli.render.svg",
    "heatmap": "attncli.render.heatmap",
}

# format name -> file extension of a snippet written in it (`attn snippets`, `{ext}`). A format
# without an entry (rich: it draws for a terminal of a given width) cannot be written to a file.
EXTENSIONS: dict[str, str] = {
    "text": "txt",
    "json": "json",
    "markdown": "md",
    "latex": "tex",
    "svg": "svg",
}


def file_formats() -> tuple[str, ...]:
    """The formats a snippet can be written in: registered, and with a file extension."""
    return tuple(fmt for fmt in FORMATS if fmt in EXTENSIONS)


def renderer(fmt: str) -> Renderer:
    if fmt not in FORMATS:
        raise UsageError(Msg.of("unknown format {fmt}; expected one of {known}",
                                fmt=fmt, known=", ".join(FORMATS)))
    module = import_module(FORMATS[fmt])
    render: Renderer = module.render
    return render


def render(walkthrough: Walkthrough, format: str = "text", lang: str = DEFAULT_LANG,
           **options: object) -> str:
    """The walkthrough written in `format` and `lang`, exactly as the CLI prints it."""
    return renderer(format)(walkthrough, RenderOptions(lang=lang, **options))  # type: ignore[arg-type]
