"""The token names written-out cells repeat, charged before any is written: each term of a
written-out sum names a row's or a column's vector (`q_cat·k_sat`), and a name may be 1,000
characters long. Used by `-x all` and named cells (steps/budget.py) and by `-x shown`, whose
cells are known only once the walkthrough is built (steps/build.py)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from attncli.errors import UsageError
from attncli.i18n import Count, Msg
from attncli.i18n.visible import visible_label
from attncli.spec.limits import max_terms

if TYPE_CHECKING:
    from collections.abc import Iterable

    from attncli.spec.model import Spec

# Characters of token names a term of the limit may repeat, on average: a written-out cell names
# its row and column, each term of its sum a row's or a column's vector (`q_cat·k_sat`). 30 tokens
# of 1,000 characters, `-x all` in text: 22 MB, 0.64 names' characters a term of the estimate per
# character of a name; at 64 (3.2 million characters by default) 30 tokens' names may be 92
# characters long, and the names written are at most about 2 MB, written in under a second.
NAME_CHARACTERS = 64


def cell_terms(spec: Spec, step_id: str, column: str | None, cells: int | None = None) -> int:
    """The terms one written-out cell (a whole row: `column` None) of step `step_id` writes, at
    most: a sum over m + d_model terms; a row of a step that writes it as one line (weights,
    output, tiles) one such sum, a row of another step its `cells` (at most d_model) sums."""
    from attncli.spec.view import ROW_STEPS

    width = spec.keys_source.n + spec.queries.d_model
    if column is None and step_id not in ROW_STEPS:
        return width * (spec.queries.d_model if cells is None else cells)
    return width


def check_chosen(spec: Spec, chosen: Iterable[tuple[str, int, str | None]], max_cells: int,
                 option: str = "--expand shown") -> None:
    """Refuse the cells `--expand shown` chose (every cell a view shows), given as (step id,
    the cells of a row of its widest matrix, column) over every head's steps, when the token
    names their terms repeat pass the limit, before any is written out: 12 tokens of
    999-character names and 16 heads wrote 110 MB in 21 s. Their terms are not held to the
    limit of `-x all`: a view shows only the edges of a large matrix, and a small spec shown
    whole (16 heads of 12 tokens: 145,000 terms at most, 1.1 MB) is what its page shows. A page
    that writes only the shown terms of each row (HTML's) is not charged here."""
    terms = sum(cell_terms(spec, step_id, column, cells) for step_id, cells, column in chosen)
    check_names(spec, terms, max_cells, option)


def name_characters(spec: Spec, terms: int) -> int:
    """The characters of token names `terms` written-out terms repeat, at most: each the
    longest name as any format writes it (written_width)."""
    names = (*spec.queries.tokens, *spec.keys_source.tokens)
    return terms * max((written_width(name) for name in set(names)), default=0)


def written_width(name: str) -> int:
    """The characters `name` takes where the widest format writes it: a line (an invisible
    character as its escape, `\u200d`), LaTeX and KaTeX text (`^` is `\textasciicircum{}`, 18
    characters: 22 of them wrote 24 MB where 22 letters wrote 3.7 MB), or XML (`&amp;`, a space
    as `&#160;`)."""
    from html import escape

    from attncli.model.latex_text import escape_text

    return max(len(visible_label(name)), len(escape_text(name, "latex")),
               len(escape_text(name, "katex")), len(escape(name).replace(" ", "&#160;")))


def check_names(spec: Spec, terms: int, max_cells: int, option: str) -> None:
    """Refuse written-out cells whose token names, repeated in each term, write more characters
    than the limit allows, however few the terms."""
    count, limit = name_characters(spec, terms), NAME_CHARACTERS * max_terms(max_cells)
    if count > limit:
        raise UsageError(Msg.plural_of(
            "{option}: the cells written out would repeat the token names in up to {count} "
            "character; the limit is {limit}, which {limit_option} sets; write out fewer cells "
            "or give the tokens shorter names", "{option}: the cells written out would repeat "
            "the token names in up to {count} characters; the limit is {limit}, which "
            "{limit_option} sets; write out fewer cells or give the tokens shorter names",
            Count(count), option=option, limit=Count(limit), limit_option="--max-cells"))
