"""Choosing what a walkthrough shows, for every command that prints one: a command's options (or
a snippets manifest entry) over the spec's `display`, then the walkthrough built as that asks
(attncli/steps/narrow.py narrows it), or one matrix of it alone.

Steps keep their numbers in the whole walkthrough (Step.number), so a renderer of a narrowed
walkthrough still writes "7. Attention weights".
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import replace
from itertools import islice
from typing import TypeVar

from attncli.errors import UsageError
from attncli.i18n import Msg
from attncli.model import Matrix, Walkthrough, has, pick
from attncli.model.walkthrough import key
from attncli.records import record
from attncli.spec.limits import DEFAULT_MAX_CELLS
from attncli.spec.model import Display, Spec
from attncli.spec.view import STEP_IDS, View
from attncli.steps import narrow
from attncli.steps.build import build, outline
from attncli.steps.narrow import refuse

T = TypeVar("T")
# the symbols of the decode steps' matrices (attncli/steps/decode.py), as `key` writes them
DECODED = re.compile(r"[qsaz][0-9]+|[KV]\[1:[0-9]+\]")

# View fields that stand for a Display key of the same name when given
CHOICES = ("precision", "round_intermediates", "steps", "head", "reading", "header", "md_flavor")


@record
class Shown:
    """A walkthrough built as asked, and the one matrix to show alone (--matrix), if any."""

    walkthrough: Walkthrough
    matrix: Matrix | None = None
    spec: Spec | None = None  # the spec as built (the spreadsheet reads its constants)


def over(display: Display, view: View) -> Display:
    """The display with each choice the view makes in place of the spec's, located where the
    view's was written (a manifest entry), or nowhere for an option."""
    given = {key: getattr(view, key) for key in CHOICES if getattr(view, key) is not None}
    if view.expand:
        given["expand"] = view.expand
    where = {key: at for key, at in display.where.items() if key not in given}
    where.update({key: view.where[key] for key in given if key in view.where})
    return replace(display, **given, where=where)


def prepare(spec: Spec, view: View, max_cells: int = DEFAULT_MAX_CELLS) -> Shown:
    """The walkthrough of `spec` as `view` (over the spec's display) asks; an error naming the
    option, or the key where it was written, otherwise."""
    if spec.dtype != "float64":
        low_precision(spec, view)
    for name, on in (("softcap", spec.softcap is not None), ("qk_norm", spec.qk_norm is not None),
                     ("sinks", spec.sinks is not None),
                     ("moe", spec.block is not None and spec.block.moe is not None),
                     ("image", spec.vision is not None), ("latent", spec.latent is not None)):
        if view.backward and on:
            refuse("backward", Msg.of("{key} does not work with {name} yet; remove {name} or "
                                      "{key}", key="--backward", name=name),
                   view.where.get("backward"))
    if view.backward and spec.backward is None:
        from attncli.spec.backward import with_ones

        spec = with_ones(spec)
    spec = replace(spec, display=over(spec.display, view))
    if view.matrix is not None and spec.backward is not None:  # refused before the gradients
        # a bad --steps or --head: refused as it is
        named = outline(spec, summary=view.summary, every_decode=decode_symbol(view.matrix))
        try:
            pick(named, view.matrix)
        except UsageError as error:
            refuse("matrix", error.message, view.where.get("matrix"))
    # a matrix asked by name is looked for first where the steps that only add steps (decode's)
    # are blank; in them only when it may be theirs. A refusal names their matrices unworked.
    light = view.matrix is not None and not decode_symbol(view.matrix)
    unread = frozenset(STEP_IDS) if light or not view.read else frozenset()
    selection = replace(narrow.selection(spec.display), max_cells=max_cells)
    if view.terms_shown:
        selection = replace(selection, terms_shown=True)
    try:
        walkthrough = build(spec, selection, summary=view.summary, unread=unread,
                            every_decode=view.matrix is not None and decode_symbol(view.matrix))
    except UsageError as error:  # a row or column the expand written names that is not
        # there, or the cells it shows past the limit (`--expand shown`)
        if not str(dict(error.message.params).get("option")).startswith("--expand"):
            raise
        raise narrow.located(error, spec.display) from None
    matrix = None
    if view.matrix is not None:
        if light and not has(walkthrough, view.matrix):
            if spec.decode is None:
                walkthrough = build(spec, selection, summary=view.summary)
            else:  # refused, naming the decode steps' matrices, which are not worked for it
                from attncli.steps import decode  # a family is imported where it is used

                walkthrough = decode.named(walkthrough, spec.decode.prefill, spec.queries.n,
                                           view.summary)
        try:
            matrix = pick(walkthrough, view.matrix)
        except UsageError as error:
            refuse("matrix", error.message, view.where.get("matrix"))
    return Shown(walkthrough, matrix, spec)


def decode_symbol(written: str) -> bool:
    """Whether `written` may name a matrix of a decode step (q₃, K[1:3], s₃, a₃, z₃, with or
    without its head), which only a walkthrough with its decode steps worked has."""
    return any(DECODED.fullmatch(key(symbol)) for symbol in (written, written.rpartition(":")[0]))


# A walkthrough written more than once keeps at most this many written-out cells (or sentences)
# of a step (or a reading) once made; more are made again on every pass, as they are read.
HELD = 256


def held(shown: Shown) -> Shown:
    """`shown` to be written many times (each language and format of `attn snippets`): the
    written-out cells and the reading's sentences, made as they are read, made once here where
    there are few."""
    def once(items: Sequence[T]) -> Sequence[T]:
        first = tuple(islice(items, HELD + 1))
        return first if len(first) <= HELD else items

    w = shown.walkthrough
    return replace(shown, walkthrough=replace(
        w, steps=tuple(replace(step, expansions=once(step.expansions)) for step in w.steps),
        reading=tuple(replace(r, sentences=once(r.sentences)) for r in w.reading)))


def low_precision(spec: Spec, view: View) -> None:
    """What a spec's dtype below float64 leaves out, asked for by an option (or a manifest)."""
    if view.backward:
        refuse("backward", Msg.of("expected no {key} with dtype: {dtype} (low precision is worked "
                                  "out without it), found one; remove it or use dtype: float64",
                                  key="--backward", dtype=spec.dtype), view.where.get("backward"))
    if view.round_intermediates:
        refuse("round_intermediates", Msg.of(
            "hand calculation works on decimals as written; it cannot be combined with dtype: "
            "{dtype}", dtype=spec.dtype), view.where.get("round_intermediates"))
