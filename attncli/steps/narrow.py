"""A walkthrough narrowed to what a spec's `display` asks: which cells are written out, which
steps and which head, and the reading only with the step it reads. `build` applies it, so
`render(build(spec))` prints what `attn explain SPEC` prints; the options reach it through the
display (attncli/steps/show.py puts each option given in place of the display's key).

An error in a choice names the key where it was written (`display.steps`, `snippets[0].head`),
or, for a choice typed as an option (no location), the option (`--steps`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import NoReturn

from attncli.arithmetic.expand import Selection
from attncli.errors import Location, SpecError, UsageError
from attncli.i18n import Msg, suggesting
from attncli.model import Drift, Reading, Step, Walkthrough
from attncli.spec.model import Display
from attncli.spec.view import ALL, STEP_IDS


def refuse(key: str, problem: Msg, where: Location | None) -> NoReturn:
    if where is None:
        raise UsageError(Msg.of("{option}: {problem}", option="--" + key.replace("_", "-"),
                                problem=problem))
    raise SpecError(Msg.of("{path}: {problem}", path=where.path or key, problem=problem), where)


def selection(display: Display) -> Selection:
    """The cells the display asks to write out (default: auto)."""
    try:
        return Selection.parse(display.expand)
    except UsageError as error:
        raise located(error, display) from None


def located(error: UsageError, display: Display) -> UsageError | SpecError:
    """An error of --expand where the cells were written in a file (display.expand, a manifest
    entry's or a block's expand): the message names the key where it stands, at its line and
    column, instead of the option."""
    return located_at(error, display.where.get("expand"))


def located_at(error: UsageError, where: Location | None) -> UsageError | SpecError:
    """An error naming an option (its `option`), said of the key at `where` instead when the
    choice was written in a file; as it is when it was typed (`where` None)."""
    if where is None:
        return error
    params = tuple((name, where.path if name == "option" else value)
                   for name, value in error.message.params)
    return SpecError(replace(error.message, params=params), where)


def narrow(walkthrough: Walkthrough, display: Display) -> Walkthrough:
    """The steps, head and reading `display` asks for (all of them by default)."""
    if display.steps is None and display.head is None and display.reading:
        return walkthrough
    return select(walkthrough, step_ids(display.steps, display.where.get("steps")),
                  head_number(display.head, display.where.get("head")), display.reading,
                  display.where)


def step_ids(text: str | None, where: Location | None = None) -> tuple[str, ...] | None:
    if text is None or text == ALL:
        return None
    ids = tuple(part.strip() for part in text.split(",") if part.strip())
    if not ids:
        refuse("steps", Msg.of("expected step ids separated by commas, found nothing"), where)
    return ids


def unread(display: Display) -> frozenset[str]:
    """The step ids the display's `steps` leaves out; none when it is bad (narrow refuses it)."""
    try:
        asked = step_ids(display.steps, display.where.get("steps"))
    except (SpecError, UsageError):
        return frozenset()
    return frozenset() if asked is None else frozenset(STEP_IDS).difference(asked)


def keeps(display: Display) -> Callable[[Step], bool]:
    """Whether a step is one of those the display's `steps` and `head` keep; every step when
    either is bad (narrow refuses it)."""
    try:
        return keeping(step_ids(display.steps), head_number(display.head))
    except (SpecError, UsageError):
        return lambda step: True


def keeping(steps: Sequence[str] | None, head: int | None) -> Callable[[Step], bool]:
    """Whether a step has one of the ids `steps` (None: every id) and is of `head` or of no
    head (None: every head)."""
    return lambda step: ((steps is None or step.id in steps)
                         and (head is None or step.head is None or step.head == head))


def head_number(text: str | None, where: Location | None = None) -> int | None:
    """--head's text as a 1-based head, or None for every head."""
    if text is None or text == ALL:
        return None
    if not text.strip().isdecimal() or len(text.strip().lstrip("0")) > 18:  # no spec has 10¹⁸
        refuse("head", Msg.of("expected a head number or all, found {found}", found=text), where)
    return int(text.strip().lstrip("0") or "0")  # 000…01 (5,000 zeros) is head 1


def select(walkthrough: Walkthrough, steps: Sequence[str] | None, head: int | None,
           reading: bool = True, where: dict[str, Location] | None = None) -> Walkthrough:
    """Only the steps with the given ids, only the given head's steps, its reading and its hand
    calculation; the reading only when its step, the weights, is shown."""
    where = where or {}
    known = list(dict.fromkeys(step.id for step in walkthrough.steps))
    for step_id in steps or ():
        if step_id in STEP_IDS and step_id not in known:  # a step of another kind of spec
            refuse("steps", Msg.of("{found} is not in this spec, whose steps are {known}",
                                   found=step_id, known=", ".join(known)), where.get("steps"))
        if step_id not in known:
            refuse("steps", suggesting(Msg.of("unknown step {found}; expected one of {known}",
                                              found=step_id, known=", ".join(known)),
                                       step_id, known), where.get("steps"))
    count = len(walkthrough.heads)
    if head is not None and not 1 <= head <= count:
        refuse("head", Msg.of("the spec has one head; expected 1, found {found}", found=head)
               if count == 1 else Msg.of("expected a head from 1 to {last}, found {found}",
                                         last=count, found=head), where.get("head"))
    kept = tuple(filter(keeping(steps, head), walkthrough.steps))
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
    shown = {(matrix.symbol.text, step.head) for step in kept for matrix in step.matrices}
    left = tuple(d for d in walkthrough.drift if (d.matrix, d.head) in shown)
    return left or None
