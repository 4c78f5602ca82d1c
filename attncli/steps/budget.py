"""What an option asks to be written, bounded by the cell limit before it is paid for.

The cell limit (attncli/spec/limits.py) bounds what a spec holds and computes. What is *written* can
still be far more: `-x all` writes every cell of every step out as a sum, `--full` and the
formats that show every number (JSON, LaTeX, Markdown) print every number of every n x m matrix.
So, from the same `--max-cells`:

- a document that shows every number (JSON, LaTeX, Markdown, a heatmap, `--full`) may come from
  a walkthrough of at most `max_shown` numbers (default 500,000: a LaTeX file of about 8 MB or a
  JSON file of 20 MB, written in 3 to 4 seconds within 200 MB); so may a walkthrough the library
  hands back whole (`attncli.walkthrough_of`, `attncli.build(spec)`), whose every matrix can be
  read or rendered in full (4,096 tokens took 9 s and 444 MB to be built whole, where the
  summary the command line builds takes 0.7 s);
- hand calculation (`--round-intermediates`, display.round_intermediates), which works each
  softmax in exact decimal arithmetic, may take at most `max_hand` weights (n x m for each head;
  default 20,000, about 2 seconds);
- `-x all` may write out at most `max_terms` terms (default 50,000), estimated from the spec's
  shape before any cell is written out; and as each term names its row and column, the token
  names it repeats are charged too: the terms times the longest name as written, at most
  NAME_CHARACTERS characters a term of the limit (30 tokens of 1,000-character names were 34,680
  terms, within the limit, and wrote 22 MB).

The shares and their floors are in attncli/spec/limits.py. Past any, the command is refused at once,
naming the option, or the key where the choice was written (see check_view).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from attncli.errors import AttnError, Location, SpecError, UsageError
from attncli.i18n import Count, Msg
from attncli.spec.limits import max_hand, max_shown, max_terms
from attncli.steps.name_charge import cell_terms, check_names

if TYPE_CHECKING:
    from collections.abc import Callable

    from attncli.arithmetic.expand import Selection
    from attncli.spec.model import Spec
    from attncli.spec.view import View


def written_terms(spec: Spec) -> int:
    """An upper bound of the terms `-x all` writes: every row of every head's steps, each cell a
    sum over at most m + d_model terms, and at most m + d_model cells a row."""
    n, m = spec.queries.n, spec.keys_source.n
    width = m + spec.queries.d_model
    return len(spec.heads) * n * width * width


def hand_weights(spec: Spec, rows: int | None = None) -> int:
    """The weights hand calculation of `spec` works: n x m for each head, or `rows` x m when
    it works those rows of the n alone."""
    return len(spec.heads) * (spec.queries.n if rows is None else rows) * spec.keys_source.n


def check_hand(spec: Spec, max_cells: int, option: str = "--round-intermediates") -> None:
    """Refuse hand calculation of more weights than the limit allows, before any is worked."""
    if not spec.display.round_intermediates:
        return
    weights, limit = hand_weights(spec), max_hand(max_cells)
    if weights > limit:
        raise UsageError(Msg.plural_of(
            "{option}: hand calculation of this spec works {count} weight; the limit is "
            "{limit}, which {limit_option} sets", "{option}: hand calculation of this spec works "
            "{count} weights; the limit is {limit}, which {limit_option} sets", Count(weights),
            option=option, limit=Count(limit), limit_option="--max-cells"))


def asked_terms(spec: Spec, selection: Selection) -> int:
    """An upper bound of the terms the cells asked for by name write, for each head: a cell is a
    sum over at most m + d_model terms; a row of a step that writes it as one line (weights,
    output, tiles) is one such sum, a row of another step at most m + d_model cells of at most
    d_model terms. Each cell or row is counted once however often it is asked for."""
    return len(spec.heads) * sum(cell_terms(spec, step_id, column)
                                 for step_id, (_, column) in dict.fromkeys(selection.cells))


def check_expansion(spec: Spec, selection: Selection, max_cells: int,
                    option: str = "--expand all") -> None:
    if selection.mode == "cells":
        terms, limit = asked_terms(spec, selection), max_terms(max_cells)
        if terms > limit:
            raise UsageError(Msg.plural_of(
                "{option}: writing out the cells asked for takes up to {count} term; the limit "
                "is {limit}, which {limit_option} sets; ask for fewer cells",
                "{option}: writing out the cells asked for takes up to {count} terms; the limit "
                "is {limit}, which {limit_option} sets; ask for fewer cells", Count(terms),
                option=option, limit=Count(limit), limit_option="--max-cells"))
        check_names(spec, terms, max_cells, option)
        return
    if selection.mode != "all":
        return
    terms, limit = written_terms(spec), max_terms(max_cells)
    if terms > limit:
        raise UsageError(Msg.plural_of(
            "{option}: writing out every cell of this spec takes up to {count} term; the limit "
            "is {limit}, which {limit_option} sets; choose cells with STEP:ROW",
            "{option}: writing out every cell of this spec takes up to {count} terms; the limit "
            "is {limit}, which {limit_option} sets; choose cells with STEP:ROW", Count(terms),
            option=option, limit=Count(limit), limit_option="--max-cells"))
    check_names(spec, terms, max_cells, option)


def check_shown(spec: Spec, max_cells: int, option: str) -> None:
    """Refuse, before it is built, a document (`option`: --full, --json, --latex ...) that
    shows every number of a walkthrough computing more numbers than the limit allows."""
    shown_within(spec, max_cells, lambda count, limit: Msg.plural_of(
        "{option}: this document would print about {count} number; the limit is {limit}, "
        "which {limit_option} sets", "{option}: this document would print about {count} "
        "numbers; the limit is {limit}, which {limit_option} sets", count,
        option=option, limit=limit, limit_option="--max-cells"))


def check_whole(spec: Spec, max_cells: int, function: str) -> None:
    """Refuse, before it is built, a walkthrough the library function `function` would hand
    back with every matrix whole, under the bound of a document that shows every number."""
    shown_within(spec, max_cells, lambda count, limit: Msg.plural_of(
        "this walkthrough would hold every matrix whole, about {count} number; the limit "
        "is {limit}, which {option} sets", "this walkthrough would hold every matrix whole, "
        "about {count} numbers; the limit is {limit}, which {option} sets", count,
        limit=limit, option="max_cells"), Location(function))


def shown_within(spec: Spec, max_cells: int, refusal: Callable[[Count, Count], Msg],
                 where: Location | None = None) -> None:
    """UsageError (at `where`) if a walkthrough of `spec` shown whole holds more numbers than
    `max_shown` allows, with `refusal(count, limit)`: the sentence that says what would hold
    them."""
    count, limit = shown_numbers(spec), max_shown(max_cells)
    if count > limit:
        raise UsageError(refusal(Count(count), Count(limit)), where)


def shown_numbers(spec: Spec) -> int:
    """About how many numbers a walkthrough of `spec` shown whole holds: its forward pass, and
    a decode's every step (each shows its query, the cache so far, its scores, weights and z)."""
    from attncli.spec.costs import decode_cells, forward_cells

    return forward_cells(spec) + decode_cells(spec)


def check_view(spec: Spec, view: View, max_cells: int, shows: str,
               shows_at: Location | None = None, name: str | None = None) -> None:
    """Every bound above for `spec` shown as `view` asks over the spec's own display (its
    `expand` and `round_intermediates` count: a spec from a pull request may ask for them);
    `shows` names the option that asks for every number, when the view does not elide, and
    `shows_at` where it was written, if it was (a manifest entry's format).

    A refusal names what asked for the work where it was written: the spec's `display` key, a
    manifest entry's or an attn block's key, at its line and column; the option only when it
    was typed. Refused at a key of another file, it names the spec too when `name` is given
    (a manifest entry lists many specs, each refused alike)."""
    from dataclasses import replace

    from attncli.steps.narrow import selection
    from attncli.steps.show import over

    display = over(spec.display, view)
    cells = selection(display)
    try:
        check_expansion(spec, cells, max_cells,
                        ("--expand all" if "all" in view.expand else "--expand") if view.expand
                        else "display.expand")
    except UsageError as error:
        raise located(error, display.where.get("expand"), name) from None
    try:
        check_hand(replace(spec, display=display), max_cells,
                   "--round-intermediates" if view.round_intermediates is not None
                   else "display.round_intermediates")
    except UsageError as error:
        raise located(error, display.where.get("round_intermediates"), name) from None
    if not view.summary:
        try:
            check_shown(spec, max_cells, shows)
        except UsageError as error:
            raise located(error, shows_at, name) from None


def located(error: UsageError, where: Location | None, name: str | None) -> AttnError:
    """The refusal said of the key at `where` (see narrow.located_at), after the spec's `name`
    when that key is in another file."""
    from attncli.steps.narrow import located_at

    said = located_at(error, where)
    if where is None or name is None or where.source == name:
        return said
    return SpecError(Msg.of("{path}: {problem}", path=name, problem=said.message), where)
