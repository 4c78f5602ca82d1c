"""The `sinks` section: gpt-oss's learned sink logit of each head, one more term in the
denominator of every query row's softmax (attncli/steps/sinks.py)."""

from __future__ import annotations

from attncli.i18n import Msg
from attncli.spec.source import Node
from attncli.spec.values import fail_at, items, number


def sinks_spec(node: Node, heads: int) -> tuple[float, ...]:
    """`sinks: [s_1, …, s_H]`, one finite number a head; a single number for one head."""
    if heads == 1 and not isinstance(node.value, list):
        return (number(node),)
    logits = tuple(number(item) for item in items(node, Msg.plural_of(
        "a list of {count} sink logit, one per head", "a list of {count} sink logits, one per head",
        heads)))
    if len(logits) != heads:
        fail_at(node, Msg.plural_of(
            "has {count} sink logit, expected one per head ({expected})",
            "has {count} sink logits, expected one per head ({expected})", len(logits),
            expected=heads))
    return logits
