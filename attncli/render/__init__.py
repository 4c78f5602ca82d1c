"""Renderers: one module per format, registered in one table. They read a Walkthrough and never
compute; every word they print comes from the message catalog."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence
from importlib import import_module
from types import ModuleType
from typing import TYPE_CHECKING, Literal

from attncli.errors import UsageError
from attncli.i18n import DEFAULT_LANG, Msg, suggesting
from attncli.records import record
from attncli.render import arguments
from attncli.render.paper import PAPER_FORMATS
from attncli.spec.limits import MAX_PRECISION

if TYPE_CHECKING:  # the renderers import NumPy-backed models; this module must stay light
    from attncli.model import Walkthrough


# Columns a text or terminal document fits: below 40 a matrix is mostly its labels; above 1,000
# no screen shows it, and laying out a line costs its width (a width of 10⁹ asked of $COLUMNS
# once took minutes and gigabytes), so a width is held to these before anything is laid out.
MIN_WIDTH, MAX_WIDTH = 40, 1000
ASPECTS, DECIMALS = ("169", "43"), ("dot", "comma")  # as RenderOptions's aspect and decimal


@record
class RenderOptions:
    lang: str = DEFAULT_LANG
    precision: int | None = None  # None: the spec's display.precision
    decimal: Literal["dot", "comma"] | None = None  # None: the spec's display.decimal
    width: int = 80
    color: bool = False
    full: bool = False  # no elision: every row and column of a large matrix, every term of a sum
    full_switch: str = "--full"  # how the reader asks for `full`, named where something is elided
    heatmap: bool = True  # the weights also as a shaded heatmap
    header: bool = True  # the title, the description and the facts about the example
    standalone: bool = False  # latex: a whole document instead of a fragment for \input
    md_flavor: str = "github"  # markdown: github, katex or plain (no math)
    front_matter: bool = False  # markdown: YAML front matter: title, lang, ..., title_<lang>
    frames_only: bool = False  # beamer: the frames alone, for \input into a deck
    aspect: str = "169"  # beamer: the frame's aspect ratio, "169" or "43"
    fragment: bool = False  # html: one block to paste into a page, not a page of its own
    slides: bool = False  # typst: one page per step at `aspect`
    # text: processes that write a large walkthrough's written-out cells ahead, at most the
    # processors attn may use; None: as many as those (counted only when they start)
    jobs: int | None = 1


# (walkthrough, options) -> the document in pieces
Streamer = Callable[["Walkthrough", RenderOptions], Iterable[str]]
# (walkthrough, options, languages in the order asked) -> one document holding every language
Documents = Callable[["Walkthrough", RenderOptions, Sequence[str]], Iterable[str]]

# format name -> module whose `render(walkthrough, options) -> str` writes it; a module that can
# hold several languages in one document also has `document(walkthrough, options, langs) -> str`.
# A module that writes large documents also has `stream` (and `stream_document`): the same text
# in pieces, made as they are written.
FORMATS: dict[str, str] = {
    "text": "attncli.render.text",
    "rich": "attncli.render.rich_view",
    "json": "attncli.render.json_doc",
    "latex": "attncli.render.latex",
    "markdown": "attncli.render.markdown",
    "svg": "attncli.render.svg",
    "heatmap": "attncli.render.heatmap",
    "beamer": "attncli.render.beamer",
    "html": "attncli.render.html",
    "typst": "attncli.render.typst",
}

# format name -> file extension of a snippet written in it (`attn snippets`, `{ext}`). A format
# without an entry (rich: it draws for a terminal of a given width) cannot be written to a file.
EXTENSIONS: dict[str, str] = {
    "text": "txt",
    "json": "json",
    "markdown": "md",
    "latex": "tex",
    "svg": "svg",
    "html": "html",
    "typst": "typ",
}


# Formats that show a large matrix elided in the middle (unless `full`), so a walkthrough built
# with summary=True, which keeps only the rows they show, is enough for them.
ELIDING: frozenset[str] = frozenset({"text", "rich", "svg", "latex", "beamer", "markdown",
                                     "html", "typst"})


def file_formats() -> tuple[str, ...]:
    """The formats a snippet can be written in: registered, and with a file extension."""
    return tuple(fmt for fmt in FORMATS if fmt in EXTENSIONS)


def _module(fmt: str) -> ModuleType:
    if fmt not in FORMATS:
        raise UsageError(suggesting(Msg.of("unknown format {fmt}; expected one of {known}",
                                           fmt=fmt, known=", ".join(FORMATS)), fmt, FORMATS))
    return import_module(FORMATS[fmt])


def width_problem(option: str, width: int, low: int = MIN_WIDTH, high: int = MAX_WIDTH) -> Msg:
    return Msg.of("{option}: expected a whole number from {low} to {high}, found {value}",
                  option=option, low=low, high=high, value=width)


def render(walkthrough: Walkthrough, format: str = "text",
           lang: str | Sequence[str] | None = None, **options: object) -> str:
    """The walkthrough written in `format`, exactly as the CLI prints it.

    `lang` is one language (`"pl"`) or several (`"pl,en"` or `["pl", "en"]`): then the same
    walkthrough is written once per language, in that order, each under its own heading.
    None: the walkthrough's own `lang` (English, unless walkthrough_of was given another).
    """
    return "".join(stream(walkthrough, format, lang, **options))


def stream(walkthrough: Walkthrough, format: str = "text",
           lang: str | Sequence[str] | None = None, **options: object) -> Iterator[str]:
    """`render`'s text in pieces of about CHUNK characters, each made as it is written: a
    format module with `stream` (and `stream_document`) never holds the whole document."""
    walkthrough = arguments.walkthrough(walkthrough)
    langs = arguments.languages(walkthrough.lang if lang is None else lang)
    module = _module(arguments.format_name(format, FORMATS))
    arguments.options(options, RenderOptions.__annotations__)
    options = {"header": walkthrough.header_shown, "md_flavor": walkthrough.md_flavor,
               "full_switch": "" if format in PAPER_FORMATS else "--full", **options}
    base = RenderOptions(lang=langs[0], **options)  # type: ignore[arg-type]
    if not MIN_WIDTH <= base.width <= MAX_WIDTH:
        raise UsageError(width_problem("width", base.width))
    precision = base.precision
    if precision is not None and (type(precision) is not int
                                  or not 0 <= precision <= MAX_PRECISION):
        # render(w, precision=-1) was Python's 'invalid format string', precision=3000 an
        # OverflowError, precision=99 ninety-nine decimals: held to what `-p` allows
        raise UsageError(width_problem("precision", precision, 0, MAX_PRECISION))
    for option, value, choices in (("aspect", base.aspect, ASPECTS),
                                   ("decimal", base.decimal or "dot", DECIMALS)):
        if value not in choices:  # a KeyError deep in a renderer, before
            raise UsageError(Msg.of("{option}: expected one of {choices}, found {found}",
                                    option=option, choices=", ".join(choices), found=value))
    from attncli.render.decimal_marks import marked

    walkthrough = marked(walkthrough, base.decimal or walkthrough.decimal)
    if len(langs) == 1:
        one: Streamer = getattr(module, "stream", None) or _whole(module.render)
        pieces = one(walkthrough, base)
    else:
        many: Documents | None = getattr(module, "stream_document", None) or (
            _whole(module.document) if hasattr(module, "document") else None)
        if many is None:
            raise UsageError(Msg.plural_of(
                "the {format} format holds one language, but {count} was given",
                "the {format} format holds one language, but {count} were given",
                len(langs), format=format))
        pieces = many(walkthrough, base, langs)
    return (_inert(piece, format, base) for piece in _chunks(pieces))


def _whole(write: Callable[..., str]) -> Callable[..., Iterator[str]]:
    return lambda *args: iter((write(*args),))


CHUNK = 1 << 16


def _chunks(pieces: Iterable[str]) -> Iterator[str]:
    """Small pieces (a line, an encoder's token) gathered into writes of about CHUNK."""
    held: list[str] = []
    size = 0
    for piece in pieces:
        held.append(piece)
        size += len(piece)
        if size >= CHUNK:
            yield "".join(held)
            held, size = [], 0
    if held:
        yield "".join(held)


def _inert(text: str, format: str, options: RenderOptions) -> str:
    """No control or invisible character raw in any output (attncli/i18n/visible.py), but the
    escapes of Rich's own colours."""
    from attncli.i18n.visible import inert_json, visible_document

    if format == "json":
        return inert_json(text)
    if format == "rich" and options.color:
        return text
    return visible_document(text)
