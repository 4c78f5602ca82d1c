"""HTML: one self-contained page a reader explores offline (from `file://`, no network request:
styles and script inline, formulas as MathML, which browsers draw without an engine), or, with
`fragment`, one block to paste into a blog post whose styles and script touch nothing outside it.

Every number is a cell that explains itself (html_step.py): clicked, or reached with Tab and
Enter, it shows the written-out lines that made it and highlights the numbers it was made from.
Previous/next buttons and keys walk the steps; the URL fragment names the step and the cell
(`#attn-en-s7/A%5Bchases%2C%20cat%5D`). Several languages share one page, with a switch.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Callable, Iterator, Sequence
from dataclasses import replace
from functools import partial
from html import escape

from attncli.i18n import Msg
from attncli.model import Walkthrough
from attncli.model.latex_text import shown_prose
from attncli.render import RenderOptions
from attncli.render.common import (
    Translate,
    description,
    drift_lines,
    header_facts,
    number_format,
    reading_sections,
    title,
    translator,
)
from attncli.render.html_assets import SCRIPT, STYLE
from attncli.render.html_cells import sources
from attncli.render.html_prose import sentence
from attncli.render.html_step import attr, step_section
from attncli.render.long_names import Names
from attncli.render.marks import SLOT  # the block's id until the block is written
from attncli.render.md_prose import Marked, unmark

PAGE_ID = "attn"  # the block's id on a page of its own; a fragment's is made from its content


def render(walkthrough: Walkthrough, options: RenderOptions) -> str:
    return document(walkthrough, options, [options.lang])


def document(walkthrough: Walkthrough, options: RenderOptions, langs: Sequence[str]) -> str:
    # a token name too wide for a line shown in the middle as LaTeX shows it, in its text and
    # its attributes alike (render/long_names.py): the page never scrolls sideways
    names = Names.of(walkthrough)
    block = "".join(names.stream(_block(walkthrough, options, langs), ESCAPES, in_text))
    # a fragment's ids and its script's name are its own: two blocks on one page never meet
    name = PAGE_ID if not options.fragment else "attn-" + hashlib.sha256(
        block.encode()).hexdigest()[:8]
    block = block.replace(SLOT, name)
    if options.fragment:
        return block + "\n"
    number = number_format(walkthrough, options)
    t = translator(replace(options, lang=langs[0]), number)
    return "\n".join([
        "<!DOCTYPE html>",
        f'<html lang="{langs[0]}">',
        "<head>",
        '<meta charset="utf-8">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        # nothing from the network, ever: the page works offline and from file://
        '<meta http-equiv="Content-Security-Policy" content="default-src \'none\'; '
        "style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:\">",
        '<meta name="color-scheme" content="light dark">',
        f"<title>{names.replacer(ESCAPES)(escape(shown_title(walkthrough, langs[0], t)))}</title>",
        "</head>",
        '<body class="attn-page">',
        block,
        "</body>",
        "</html>",
        "",
    ])


# how a name is written: in an element's text, in an attribute
ESCAPES = (partial(escape, quote=False), partial(escape, quote=True))
# A script or style element, whole (attn's own code, never a name), or a tag (its attribute
# values, in double quotes, may hold a name)
_CODE_OR_TAG = re.compile(r"<(script|style)\b[^>]*>.*?</\1>|(<[^>]*>)", re.S)
_VALUE = re.compile(r'"[^"]*"')


def in_text(chunk: str, shorten: Callable[[str], str]) -> str:
    """`chunk` with `shorten` applied to its text and its attribute values, never to a script
    or a style, which a token may spell out."""
    out, end = [], 0
    for found in _CODE_OR_TAG.finditer(chunk):
        out.append(shorten(chunk[end:found.start()]))
        tag = found.group(2)
        out.append(found.group() if tag is None else _VALUE.sub(
            lambda value: shorten(value.group()), tag))
        end = found.end()
    out.append(shorten(chunk[end:]))
    return "".join(out)


def shown_title(walkthrough: Walkthrough, lang: str, t: Translate) -> str:
    """The title; a word too wide for any line shortened, as LaTeX does (shown_prose)."""
    return shown_prose(title(walkthrough.header, lang, t))


def _block(walkthrough: Walkthrough, options: RenderOptions,
           langs: Sequence[str]) -> Iterator[str]:
    yield f'<div class="attn" id="{SLOT}" data-attn>'
    yield f"<style>{STYLE}</style>"
    number = number_format(walkthrough, options)
    if len(langs) > 1:
        yield (f'<div class="attn-langs" role="tablist" aria-label="'
               f'{attr(translator(replace(options, lang=langs[0]), number)(Msg.of("Language")))}">')
        for k, lang in enumerate(langs):
            yield (f'<button type="button" role="tab" data-lang="{lang}" lang="{lang}" '
                   f'aria-selected="{"true" if k == 0 else "false"}" '
                   f'aria-controls="{SLOT}-{lang}">{lang.upper()}</button>')
        yield "</div>"
    for k, lang in enumerate(langs):
        t = translator(replace(options, lang=lang), number)
        made_from = t(Msg.of("Made from the highlighted numbers."))
        yield (f'<div class="attn-lang" id="{SLOT}-{lang}" lang="{lang}" data-lang="{lang}"'
               f' data-made-from="{attr(made_from)}"'
               + (' role="tabpanel"' if len(langs) > 1 else "") + (" hidden" if k else "") + ">")
        yield from _language(walkthrough, options, lang, t)
        yield "</div>"
    yield f"<script>{SCRIPT}</script>"
    yield "</div>"


def _language(walkthrough: Walkthrough, options: RenderOptions, lang: str,
              t: Translate) -> Iterator[str]:
    """One language's part: the header, the steps with their navigation, the readings."""
    header = walkthrough.header
    number = number_format(walkthrough, options)
    prefix = f"{SLOT}-{lang}-"
    if options.header:
        yield f"<header><h1>{escape(shown_title(walkthrough, lang, t))}</h1>"
        about = description(header, lang)
        if about:  # the user's words; a word too wide for any line shortened, as LaTeX does
            yield f"<p>{escape(shown_prose(about))}</p>"
        facts = header_facts(header, t)
        yield ('<ul class="attn-facts">' + "".join(f"<li>{sentence(fact, lang)}</li>"
                                                   for fact in facts) + "</ul></header>")
    # the step shown is named as every format heads it, by its number in the whole walkthrough:
    # "Step 4 of 9" where --steps kept the fourth step alone
    count = walkthrough.steps_in_all or len(walkthrough.steps)
    yield (f'<nav class="attn-nav" aria-label="{attr(t(Msg.of("Steps")))}">'
           f'<button type="button" data-go="-1" aria-keyshortcuts="p">'
           f'← {escape(t(Msg.of("Previous step")))}</button>'
           f'<span class="attn-at" aria-live="polite" data-of="'
           f'{attr(t(Msg.of("Step {number} of {total}", number="#", total=count)))}"></span>'
           f'<button type="button" data-go="1" aria-keyshortcuts="n">'
           f'{escape(t(Msg.of("Next step")))} →</button></nav>')
    keys = t(Msg.of("Keys: n and p go to the next and previous step; in a matrix the arrow keys "
                    "move between numbers, Enter explains one and Escape closes it."))
    yield f'<p class="attn-keys">{escape(keys)}</p>'
    for at, step in enumerate(walkthrough.steps):
        yield from step_section(step, f"{prefix}s{step.number}", t, number, options.full,
                                sources(walkthrough.steps, at, header.convention),
                                options.heatmap, lang)
    marked = Marked(t)
    for heading, sentences in reading_sections(walkthrough, marked):
        yield f'<section class="attn-reading"><h2>{escape(unmark(heading, marked.words))}</h2>'
        yield from (f"<p>{sentence(s, lang, marked.words)}</p>" for s in sentences)
        yield "</section>"
    drift = drift_lines(walkthrough, number, lang)
    if drift:
        yield (f'<section class="attn-reading"><h2>{escape(t(Msg.of("Hand calculation")))}</h2>'
               f"<p>{escape(drift[0])}</p><ul>"
               + "".join(f"<li>{escape(line.strip())}</li>" for line in drift[1:])
               + "</ul></section>")
