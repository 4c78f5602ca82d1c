"""Choosing what a walkthrough shows: precision and hand calculation, which cells are written
out, which steps and which head. Shared by every command that prints a walkthrough."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from attncli.errors import UsageError
from attncli.expand import Selection
from attncli.i18n import Msg
from attncli.model import Walkthrough
from attncli.spec.model import Spec
from attncli.view import STEP_IDS, View
from attncli.walkthrough import build


def prepare(spec: Spec, view: View) -> Walkthrough:
    """The walkthrough of `spec` as `view` asks; UsageError naming the option otherwise."""
    display = spec.display
    if view.precision is not None:
        display = replace(display, precision=view.precision)
    if view.round_intermediates is not None:
        display = replace(display, round_intermediates=view.round_intermediates)
    walkthrough = build(replace(spec, display=display), Selection.parse(view.expand),
                        summary=view.summary)
    return select(walkthrough, step_ids(view.steps), view.head)


def step_ids(text: str | None) -> tuple[str, ...] | None:
    if text is None:
        return None
    ids = tuple(part.strip() for part in text.split(",") if part.strip())
    if not ids:
        raise UsageError(Msg.of("--steps: expected step ids separated by commas, found nothing"))
    return ids


def select(walkthrough: Walkthrough, steps: Sequence[str] | None,
           head: int | None) -> Walkthrough:
    """Only the steps with the given ids, and only the given head's steps and reading."""
    known = list(dict.fromkeys(step.id for step in walkthrough.steps))
    for step_id in steps or ():
        if step_id in STEP_IDS and step_id not in known:
            raise UsageError(Msg.of("--steps: {found} is not in this spec, whose steps are "
                                    "{known}", found=step_id, known=", ".join(known)))
        if step_id not in known:
            raise UsageError(Msg.of("--steps: unknown step {found}; expected one of {known}",
                                    found=step_id, known=", ".join(known)))
    count = len(walkthrough.heads)
    if head is not None and not 1 <= head <= count:
        raise UsageError(Msg.of("--head: expected a head from 1 to {count}, found {found}",
                                count=count, found=head))
    several = count > 1
    kept = tuple(
        step for step in walkthrough.steps
        if (steps is None or step.id in steps)
        and (head is None or step.head is None or step.head == head)
    )
    heads, reading = walkthrough.heads, walkthrough.reading
    if head is not None and several:
        heads = tuple(h for h in heads if h.index == head)
        reading = tuple(r for r in reading if r.head == head)
    return replace(walkthrough, steps=kept, heads=heads, reading=reading)
