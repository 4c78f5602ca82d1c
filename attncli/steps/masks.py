"""Masks: which keys each query may see, and the scores with −∞ where it may not."""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from attncli.compute import ops
from attncli.i18n import Msg
from attncli.model import Formula, Step
from attncli.spec.model import CausalMask, Mask, MatrixMask, PaddingMask, WindowMask
from attncli.steps.base import Build, HeadState, Made


def visible_keys(masks: tuple[Mask, ...], n: int, m: int, first: int = 0) -> ops.Bools:
    """Where every mask lets query i see key j; the rows of queries first .. first + n - 1."""
    if len(masks) == 1 and isinstance(masks[0], CausalMask):  # the usual one: no second array
        return ops.causal(n, m, first)  # (n, m)
    visible = np.ones((n, m), dtype=bool)  # (n, m)
    for mask in masks:
        if isinstance(mask, CausalMask):
            visible &= ops.causal(n, m, first)
        elif isinstance(mask, WindowMask):
            visible &= ops.window(n, m, mask.width, mask.causal, mask.sink_tokens, first)
        elif isinstance(mask, PaddingMask):
            visible &= ops.padding(n, mask.keep)
        elif isinstance(mask, MatrixMask):
            visible &= mask.visible[first:first + n]
    return visible


def describe_masks(masks: tuple[Mask, ...]) -> Msg:
    if not masks:
        return Msg.of("none")
    parts = [describe_mask(mask) for mask in masks]
    result = parts[0]
    for part in parts[1:]:
        result = Msg.of("{first} and {second}", first=result, second=part)
    return result


def describe_mask(mask: Mask) -> Msg:
    if isinstance(mask, CausalMask):
        return Msg.of("causal")
    if isinstance(mask, WindowMask):
        if mask.sink_tokens:
            window = describe_mask(WindowMask(mask.width, mask.causal))
            if mask.sink_tokens == 1:  # "the first key", not "the first 1 key"; a plural form
                # cannot drop the number: Russian's form for 1 serves 21 and 31 too
                return Msg.of("{window} and the first key", window=window)
            return Msg.plural_of("{window} and the first {count} key",
                                 "{window} and the first {count} keys", mask.sink_tokens,
                                 window=window)
        if mask.causal:
            return Msg.of("causal window of {width}", width=mask.width)
        return Msg.of("window of ±{width}", width=mask.width)
    if isinstance(mask, PaddingMask):
        hidden = sum(1 for keep in mask.keep if not keep)
        return Msg.plural_of("padding ({count} key hidden)", "padding ({count} keys hidden)",
                             hidden)
    return Msg.of("explicit matrix")


def masked(b: Build, hs: HeadState) -> Made[HeadState]:
    """S′ + M: −∞ where a mask hides the key."""
    assert hs.logits is not None and hs.scores is not None
    n, m = len(b.query_labels), len(b.key_labels)
    visible = b.visible.get((n, m))
    if visible is None:  # the same for every head: made once (once a block of rows in blocks)
        visible = b.visible[n, m] = visible_keys(b.spec.masks, n, m, b.first_row)  # (n, m)
    logits = ops.apply_mask(hs.logits, visible, b.reuse(hs.logits))  # (n, m)
    given = hs.scores.symbol
    symbol = Formula(f"{given.text} + M", f"{given.latex} + M")
    scores = b.attention(symbol, logits)
    step = Step("masked", Msg.of("Masked scores"), symbol, (scores,), hs.index,
                (Msg.of("A hidden key gets −∞, which softmax turns into weight 0."),))
    return (step,), replace(hs, logits=logits, scores=scores)
