"""Choosing what a walkthrough shows: precision and hand calculation, which cells are written
out, which steps and which head, the reading and the header, or one matrix alone. Shared by
every command that prints a walkthrough.

Each choice comes from a command's option (or a snippets manifest entry) when given, else from
the spec's `display`, else shows everything. Steps keep their numbers in the whole walkthrough
(Step.number), so a renderer of a narrowed walkthrough still writes "7. Attention weights".
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import NoReturn

from attncli.errors import Location, SpecError, UsageError
from attncli.expand import Selection
from attncli.i18n import Msg
from attncli.model import Drift, Matrix, Reading, Step, Walkthrough
from attncli.pick import pick
from attncli.spec.model import Display, Spec
from attncli.view import ALL, View
from attncli.walkthrough import build


@dataclass(frozen=True)
class Shown:
    """A walkthrough narrowed as asked, and how to write it."""

    walkthrough: Walkthrough
    header: bool = True
    md_flavor: str = "github"
    matrix: Matrix | None = None  # --matrix: this matrix alone

    def render_options(self) -> dict[str, object]:
        """The keyword arguments of attncli.render.render that these choices set."""
        return {"header": self.header, "md_flavor": self.md_flavor}


def refuse(key: str, problem: Msg, where: Location | None) -> NoReturn:
    """An error in a choice: about the option `--key` when typed, else at the manifest entry or
    the spec's display mapping where it was written."""
    if where is None:
        raise UsageError(Msg.of("{option}: {problem}", option="--" + key.replace("_", "-"),
                                problem=problem))
    path = f"{where.path}.{key}" if where.path else key
    raise SpecError(Msg.of("{path}: {problem}", path=path, problem=problem), where)


def prepare(spec: Spec, view: View) -> Shown:
    """The walkthrough of `spec` as `view` (over the spec's display) asks; an error naming the
    option, or the key where it was written, otherwise."""
    display = spec.display
    if view.precision is not None:
        display = replace(display, precision=view.precision)
    if view.round_intermediates is not None:
        display = replace(display, round_intermediates=view.round_intermediates)
    expand, expand_where = chosen(view.expand or None, view, display.expand, display)
    try:
        selection = Selection.parse(expand if isinstance(expand, tuple) else ())
    except UsageError as error:
        if expand_where is None:
            raise
        refuse("expand", error.message, expand_where)
    walkthrough = build(replace(spec, display=display), selection, summary=view.summary)
    steps, steps_where = chosen(view.steps, view, display.steps, display)
    head, head_where = chosen(view.head, view, display.head, display)
    reading = display.reading if view.reading is None else view.reading
    walkthrough = select(walkthrough, step_ids(steps, steps_where), head_number(head, head_where),
                         reading, steps_where, head_where)
    matrix = None
    if view.matrix is not None:
        try:
            matrix = pick(walkthrough, view.matrix)
        except UsageError as error:
            refuse("matrix", error.message, view.where)
    return Shown(walkthrough,
                 header=display.header if view.header is None else view.header,
                 md_flavor=view.md_flavor or display.md_flavor or "github",
                 matrix=matrix)


def chosen(asked: object, view: View, default: object,
           display: Display) -> tuple[object, Location | None]:
    """The view's value when given (with where it was written), else the display's."""
    if asked is not None:
        return asked, view.where
    return default, display.where


def step_ids(text: object, where: Location | None = None) -> tuple[str, ...] | None:
    if text is None or text == ALL:
        return None
    assert isinstance(text, str)
    ids = tuple(part.strip() for part in text.split(",") if part.strip())
    if not ids:
        refuse("steps", Msg.of("expected step ids separated by commas, found nothing"), where)
    return ids


def head_number(text: object, where: Location | None = None) -> int | None:
    """--head's text as a 1-based head, or None for every head."""
    if text is None or text == ALL:
        return None
    assert isinstance(text, str)
    if not text.strip().isdigit():
        refuse("head", Msg.of("expected a head number or all, found {found}", found=text), where)
    return int(text)


def select(walkthrough: Walkthrough, steps: Sequence[str] | None, head: int | None,
           reading: bool = True, steps_where: Location | None = None,
           head_where: Location | None = None) -> Walkthrough:
    """Only the steps with the given ids, only the given head's steps, its reading and its hand
    calculation; the reading only when its step, the weights, is shown."""
    known = list(dict.fromkeys(step.id for step in walkthrough.steps))
    for step_id in steps or ():
        if step_id not in known:
            refuse("steps", Msg.of("unknown step {found}; expected one of {known}",
                                   found=step_id, known=", ".join(known)), steps_where)
    count = len(walkthrough.heads)
    if head is not None and not 1 <= head <= count:
        refuse("head", Msg.of("expected a head from 1 to {count}, found {found}",
                              count=count, found=head), head_where)
    kept = tuple(
        step for step in walkthrough.steps
        if (steps is None or step.id in steps)
        and (head is None or step.head is None or step.head == head)
    )
    heads = walkthrough.heads
    if head is not None and count > 1:
        heads = tuple(h for h in heads if h.index == head)
    return replace(walkthrough, steps=kept, heads=heads,
                   reading=readings(walkthrough, kept, head) if reading else (),
                   drift=drift(walkthrough, kept))


def readings(walkthrough: Walkthrough, kept: Sequence[Step],
             head: int | None) -> tuple[Reading, ...]:
    """The readings whose weights are shown: a head's with its weights step; the comparison of
    several heads only when every head's weights are."""
    weights = {step.head for step in kept if step.id == "weights"}
    several = len(walkthrough.heads) > 1
    every = all(h.index in weights for h in walkthrough.heads) if several else None in weights
    return tuple(
        r for r in walkthrough.reading
        if (r.head in weights if r.head is not None else every and (head is None or not several))
    )


def drift(walkthrough: Walkthrough, kept: Sequence[Step]) -> tuple[Drift, ...] | None:
    """Hand calculation's drift, only in the matrices of the steps shown. When every drifted
    number is left out, there is nothing to say (rather than "nothing drifted")."""
    if not walkthrough.drift:
        return walkthrough.drift
    shown = {(matrix.symbol.text, step.head) for step in kept
             for matrix in step.matrices}
    left = tuple(d for d in walkthrough.drift if (d.matrix, d.head) in shown)
    return left or None
