"""The token names written-out cells repeat, charged before any is written: each term of a
written-out sum names a row's or a column's vector (`q_cat·k_sat`), and a name may be 1,000
characters long. Used by `-x all` and named cells (steps/budget.py) and by `-x shown` and the
HTML page's default, whose cells are known only once the walkthrough is built (steps/build.py)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from attncli.errors import UsageError
from attncli.i18n import Count, Msg
from attncli.i18n.visible import visible_label
from attncli.spec.limits import max_terms

if TYPE_CHECKING:
    from collections.abc import Callable, Iterable

    from attncli.arithmetic.expand import Chosen
    from attncli.spec.model import Spec

# Characters of token names a term of the limit may repeat, on average: a written-out cell names
# its row and column, each term of its sum a row's or a column's vector (`q_cat·k_sat`). 30 tokens
# of 1,000 characters, `-x all` in text: 22 MB, 0.64 names' characters a term of the estimate per
# character of a name; at 64 (3.2 million characters by default) 30 tokens' names may be 92
# characters long, and the names written are at most about 2 MB, written in under a second.
NAME_CHARACTERS = 64
PAGE = "--html"  # the page that writes a softmax row's terms of its shown cells alone


def cell_terms(spec: Spec, step_id: str, column: str | None, cells: int | None = None) -> int:
    """The terms one written-out cell (a whole row: `column` None) of step `step_id` writes, at
    most: a sum over m + d_model terms; a row of a step that writes it as one line (weights,
    output, tiles) one such sum, a row of another step its `cells` (at most d_model) sums."""
    from attncli.spec.view import ROW_STEPS

    width = spec.keys_source.n + spec.queries.d_model
    if column is None and step_id not in ROW_STEPS:
        return width * (spec.queries.d_model if cells is None else cells)
    return width


def check_chosen(spec: Spec, chosen: Iterable[Chosen], max_cells: int,
                 terms_shown: bool = False) -> None:
    """Refuse the cells a view shows, chosen by `--expand shown` or by the HTML page's default
    (`terms_shown`), when the token names their terms repeat pass the limit, before any is
    written out.

    `--expand shown` writes each chosen cell whole and is charged as named cells are (12 tokens
    of 999-character names and 16 heads wrote 110 MB in 21 s); a view shows only the edges of a
    large matrix, and a small spec shown whole (16 heads of 12 tokens: 145,000 terms at most,
    1.1 MB) is what its page shows. The HTML page writes a softmax row's terms of its shown
    cells alone and a long sum shortened, and is charged the terms it writes
    (arithmetic/page_terms.py): the same 12 tokens and 16 heads, 25,344 terms, took 3.5 s
    CPU to write 5.6 MB; 200 tokens of 100-character names, 976 terms, write 0.26 MB."""
    if terms_shown:
        from attncli.arithmetic.page_terms import page_terms  # NumPy's, out of budget.py's path

        terms = sum(page_terms(ctx, step, cells) for ctx, step, cells in chosen)
        check_names(spec, terms, max_cells, PAGE, page=True)
        return
    terms = sum(cell_terms(spec, step.id, column, max(m.shape[1] for m in step.matrices))
                for _, step, cells in chosen for _, column in cells)
    check_names(spec, terms, max_cells, "--expand shown")


def name_characters(spec: Spec, terms: int, width: Callable[[str], int] | None = None) -> int:
    """The characters of token names `terms` written-out terms repeat, at most: each the
    longest name as `width` says a format writes it (default: the widest, written_width)."""
    names = (*spec.queries.tokens, *spec.keys_source.tokens)
    return terms * max(((width or written_width)(name) for name in set(names)), default=0)


def page_width(name: str) -> int:
    """The characters `name` takes on the HTML page: its text escaped as HTML (`&amp;`); a space
    is a space there, where an SVG's is `&#160;`."""
    from html import escape

    return len(escape(visible_label(name)))


def written_width(name: str) -> int:
    """The characters `name` takes where the widest format writes it: a line (an invisible
    character as its escape, `\u200d`), LaTeX and KaTeX text (`^` is `\textasciicircum{}`, 18
    characters: 22 of them wrote 24 MB where 22 letters wrote 3.7 MB), or XML (`&amp;`, a space
    as `&#160;`)."""
    from html import escape

    from attncli.model.latex_text import escape_text

    return max(len(visible_label(name)), len(escape_text(name, "latex")),
               len(escape_text(name, "katex")), len(escape(name).replace(" ", "&#160;")))


def check_names(spec: Spec, terms: int, max_cells: int, option: str, page: bool = False) -> None:
    """Refuse written-out cells whose token names, repeated in each term, write more characters
    than the limit allows, however few the terms; a `page` (HTML's default, which the user did
    not ask to write out) is told how to show fewer."""
    count = name_characters(spec, terms, page_width if page else None)
    limit = NAME_CHARACTERS * max_terms(max_cells)
    if count <= limit:
        return
    if page:
        raise UsageError(Msg.plural_of(
            "{option}: the cells written out would repeat the token names in up to {count} "
            "character; the limit is {limit}, which {limit_option} sets; show fewer steps with "
            "--steps or one head with --head, or give the tokens shorter names", "{option}: the "
            "cells written out would repeat the token names in up to {count} characters; the "
            "limit is {limit}, which {limit_option} sets; show fewer steps with --steps or one "
            "head with --head, or give the tokens shorter names",
            Count(count), option=option, limit=Count(limit), limit_option="--max-cells"))
    raise UsageError(Msg.plural_of(
        "{option}: the cells written out would repeat the token names in up to {count} "
        "character; the limit is {limit}, which {limit_option} sets; write out fewer cells "
        "or give the tokens shorter names", "{option}: the cells written out would repeat "
        "the token names in up to {count} characters; the limit is {limit}, which "
        "{limit_option} sets; write out fewer cells or give the tokens shorter names",
        Count(count), option=option, limit=Count(limit), limit_option="--max-cells"))
