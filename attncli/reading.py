"""The weights in words, generated from the numbers: whom each query attends to most and least.

Keys whose weights print the same at the display precision are one group ("cat and mouse (0.30
each)"), so a sentence never ranks two numbers a reader sees as equal. A query that sees only
itself, one that sees a single other key and one that sees nothing are each said as such. With
several heads, each head gets its own reading and one more says where the heads disagree about
which key a query attends to most. Expanded score cells also get the angle between query and key.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from attncli.handcalc import written
from attncli.i18n import Msg
from attncli.model import Array, HeadResult, Reading, Walkthrough

MOST_LISTED = 4  # groups named between "most" and "least" before the rest is counted
NAMED_KEYS = 5  # keys named in a group of equal weights before the rest is counted

Group = tuple[tuple[str, ...], float]  # keys with the same printed weight, and that weight


def groups(head: HeadResult, i: int, precision: int) -> list[Group]:
    """The keys query i sees, grouped by printed weight, largest weight first."""
    weights = head.weights.row(i)  # (m,)
    visible = np.isfinite(head.scores.row(i))  # (m,)
    order = np.argsort(-weights, kind="stable")  # (m,)
    order = order[visible[order]]  # (seen,): the keys it sees, largest weight first
    ranked = weights[order]  # (seen,), descending
    found: list[Group] = []
    start = 0
    while start < len(order):
        printed = written(float(ranked[start]), precision)
        end = _run_end(ranked, start, printed, precision)
        found.append((tuple(head.weights.columns[j] for j in order[start:end]), printed))
        start = end
    return found


def _run_end(ranked: Array, start: int, printed: float, precision: int) -> int:
    """Where the run of weights that print as `printed` ends, from `start` on. Rounding keeps
    the order of the descending weights, so the run is contiguous: found by doubling the step
    then halving it, with a few roundings even in a row of thousands of keys."""
    def same(index: int) -> bool:
        return written(float(ranked[index]), precision) == printed

    low, step = start, 1  # ranked[low] prints as `printed`
    while start + step < len(ranked) and same(start + step):
        low, step = start + step, step * 2
    high = min(start + step, len(ranked))  # the first index known to differ, or the end
    while high - low > 1:
        middle = (low + high) // 2
        low, high = (middle, high) if same(middle) else (low, middle)
    return high


def key_name(query: str, key: str) -> Msg | str:
    return Msg.of("itself") if key == query else key


def group_msg(query: str, group: Group) -> Msg:
    keys, weight = group
    if len(keys) == 1:
        return Msg.of("{token} ({weight})", token=key_name(query, keys[0]), weight=weight)
    return Msg.of("{tokens} ({weight} each)", tokens=key_listing(query, keys),
                  weight=weight)


def key_listing(query: str, keys: Sequence[str]) -> Msg | str:
    """`a, b and c`; a long list (a row of thousands of equal weights) names its first keys and
    counts the rest: `t0, t1, t2, t3, t4 and 1995 more keys`."""
    if len(keys) <= NAMED_KEYS + 1:
        return listing([key_name(query, k) for k in keys])
    named: Msg | str = key_name(query, keys[0])
    for key in keys[1:NAMED_KEYS]:
        named = Msg.of("{first}, {second}", first=named, second=key_name(query, key))
    return Msg.plural_of("{first} and {count} more key", "{first} and {count} more keys",
                         len(keys) - NAMED_KEYS, first=named)


def listing(items: Sequence[Msg | str]) -> Msg | str:
    """`a`, `a and b`, `a, b and c`."""
    if len(items) == 1:
        return items[0]
    head: Msg | str = items[0]
    for item in items[1:-1]:
        head = Msg.of("{first}, {second}", first=head, second=item)
    return Msg.of("{first} and {last}", first=head, last=items[-1])


def query_sentence(head: HeadResult, i: int, precision: int) -> Msg:
    query = head.weights.rows[i]
    if np.isnan(head.weights.row(i)).any():
        return Msg.of("{query} sees no key, so its weights are undefined (NaN).", query=query)
    found = groups(head, i, precision)
    if not found:
        return Msg.of("{query} sees no key, so it attends to nothing: its weights are all 0.",
                      query=query)
    if len(found) == 1 and len(found[0][0]) == 1:
        (key,), weight = found[0]
        if key == query:
            return Msg.of("{query} sees only itself, so all its weight ({weight}) stays there.",
                          query=query, weight=weight)
        return Msg.of("{query} sees only {key}, so all its weight ({weight}) goes there.",
                      query=query, key=key, weight=weight)
    if len(found) == 1:
        keys, weight = found[0]
        return Msg.plural_of("{query} attends equally to the {count} key it sees ({weight} each).",
                             "{query} attends equally to the {count} keys it sees "
                             "({weight} each).", len(keys), query=query, weight=weight)
    first, last = group_msg(query, found[0]), group_msg(query, found[-1])
    if len(found) == 2:
        return Msg.of("{query} attends more to {first} than to {last}.",
                      query=query, first=first, last=last)
    return Msg.of("{query} attends most to {first}, then to {middle}, least to {last}.",
                  query=query, first=first, last=last, middle=middle(query, found[1:-1]))


def middle(query: str, found: list[Group]) -> Msg:
    shown = [group_msg(query, g) for g in found[:MOST_LISTED]]
    rest = sum(len(keys) for keys, _ in found[MOST_LISTED:])
    result = shown[0]
    for part in shown[1:]:
        result = Msg.of("{first}, then to {second}", first=result, second=part)
    if rest:
        result = Msg.plural_of("{first}, then {count} more key", "{first}, then {count} more keys",
                               rest, first=result)
    return result


def head_reading(head: HeadResult, index: int | None, precision: int) -> Reading:
    read = head.weights.row_indices()
    sentences = [query_sentence(head, i, precision) for i in read]
    return Reading(index, (*sentences, *rest(head, len(read))))


def rest(head: HeadResult, read: int) -> tuple[Msg, ...]:
    """What a summary leaves unread (see model.Matrix.kept)."""
    left = len(head.weights.rows) - read
    if not left:
        return ()
    return (Msg.plural_of("The other {count} query is not read here; --full reads every one.",
                          "The other {count} queries are not read here; --full reads every one.",
                          left),)


def comparison(heads: Sequence[HeadResult], precision: int) -> Reading:
    """Where the heads disagree about which keys a query attends to most."""
    sentences: list[Msg] = []
    for i in heads[0].weights.row_indices():
        query = heads[0].weights.rows[i]
        tops = []
        for head in heads:
            found = groups(head, i, precision)
            tops.append(found[0][0] if found else ())
        if len(set(tops)) > 1:
            parts: Msg | str = ""
            for head, top in zip(heads, tops, strict=True):
                part = (Msg.of("to {keys} in head {index}", index=head.index,
                               keys=key_listing(query, top)) if top else
                        Msg.of("to no key in head {index}, which sees none", index=head.index))
                # commas between the heads: "and" already joins the keys within one head
                parts = Msg.of("{first}, {second}", first=parts, second=part) if parts else part
            sentences.append(Msg.of("The heads disagree about {query}: it attends most {parts}.",
                                    query=query, parts=parts))
    left = rest(heads[0], len(heads[0].weights.row_indices()))
    if not sentences and not left:
        sentences.append(Msg.plural_of(
            "The {count} head agrees on where every query attends most.",
            "All {count} heads agree on where every query attends most.", len(heads)))
    return Reading(None, (*sentences, *left))


def angle_sentence(head: HeadResult, i: int, j: int) -> Msg | None:
    q, k = head.queries.values[i], head.keys.values[j]  # (d_k,), (d_k,)
    norms = float(np.linalg.norm(q) * np.linalg.norm(k))
    if norms == 0.0:
        return None
    cos = min(1.0, max(-1.0, float(q @ k) / norms))
    return Msg.of("q_{query} and k_{key} are {angle}° apart (cos θ = {cos}).",
                  query=head.queries.rows[i], key=head.keys.rows[j],
                  angle=math.degrees(math.acos(cos)), cos=cos)


def read(walkthrough: Walkthrough, angles: Sequence[tuple[int, int, int]] = ()) -> tuple[
        Reading, ...]:
    """Per head, a sentence for every query; with several heads, where they disagree; and the
    angle between query and key for every expanded score cell (head, query row, key column)."""
    heads = walkthrough.heads
    several = len(heads) > 1
    readings = []
    for head in heads:
        reading = head_reading(head, head.index if several else None, walkthrough.precision)
        found = [angle_sentence(head, i, j) for index, i, j in angles if index == head.index]
        said = tuple(s for s in found if s is not None)
        if said:
            said = (Msg.of("q·k = |q|·|k|·cos θ: the smaller the angle between a query and a "
                           "key, the larger their score."), *said)
        readings.append(Reading(reading.head, reading.sentences + said))
    if several:
        readings.append(comparison(heads, walkthrough.precision))
    return tuple(readings)
