"""The weights in words, generated from the numbers: whom each query attends to most and least.

Keys whose weights are equal at full precision (within `TOLERANCE`) are one group ("cat and mouse
(0.30 each)"); "most" names the group with the largest weight. A weight that would print the
same as its neighbour's though it differs, or print as 0 or 1 though it is not, is given with as
many more decimals as tell them apart (`cat (0.352), then dog (0.348)`, `itself (0.9998)`), so a
sentence never ranks two numbers that read the same; the keys after the last weight that prints
above 0 are one group, `under 0.01 each`; a row whose weights all print the same but differ
is said to be almost equal, with its range (`0.247–0.252`) (at `-p 0` or `-p 1`: those that
print the same with 2 decimals). A query that sees only itself, one that sees a single other
key and one that sees nothing are each said as such. With several heads, each head gets its own
reading and one more says where the heads disagree about which keys a query attends
to most. Expanded score cells also get the angle between query and key.
"""

from __future__ import annotations

import math
from bisect import bisect_right
from collections.abc import Iterable, Iterator, Sequence
from functools import partial
from itertools import chain
from typing import overload

import numpy as np

from attncli.arithmetic.elision import FULL_SWITCH
from attncli.arithmetic.numbers import rounded
from attncli.i18n import Finer, Msg, Param, listing, quoted
from attncli.model import HeadResult, Lazy, Reading, Walkthrough

MOST_LISTED = 4  # groups named between "most" and "least" before the rest is counted
NAMED_KEYS = 5  # keys named in a group of equal weights before the rest is counted
TOLERANCE = 1e-12  # weights closer than this are equal: float64 sums in another order differ less
ALMOST_DECIMALS = 2  # weights that print alike at 2 decimals (or finer) are almost equal
LAST_DECIMAL = 12  # two weights further apart than TOLERANCE print differently with 12 decimals
TINY = 10  # a weight that prints as 0 with 10 decimals is said to be under 10⁻¹⁰: weights within
# TOLERANCE of it, grouped with it, may print otherwise at 12

Group = tuple[Sequence[str], float]  # keys with the same weight, and that weight


def ranked(head: HeadResult, i: int) -> tuple[np.ndarray, np.ndarray]:
    """The keys query i sees, largest weight first, and their weights negated (ascending)."""
    weights = head.weights.row(i)  # (m,)
    visible = np.isfinite(head.scores.row(i))  # (m,)
    order = np.argsort(-weights, kind="stable")  # (m,)
    order = order[visible[order]]  # (seen,): the keys it sees, largest weight first
    return order, -weights[order]  # (seen,), (seen,)


def groups(head: HeadResult, i: int) -> Sequence[Group]:
    """The keys query i sees, grouped by weight (equal within TOLERANCE), largest first."""
    order, falling = ranked(head, i)
    if (np.diff(falling) > TOLERANCE).all():  # no two alike (a large random layer): one each
        return Singles(head.weights.columns, order.tolist(), (-falling).tolist())
    # a few weights alike among thousands: each group found by bisecting Python floats, which
    # costs a fraction of a NumPy call per group (the same floats, the same ends)
    columns, keys, values = head.weights.columns, order.tolist(), falling.tolist()
    found: list[Group] = []
    start = 0
    while start < len(keys):
        end = bisect_right(values, values[start] + TOLERANCE, lo=start)
        found.append((tuple(columns[j] for j in keys[start:end]), -values[start]))
        start = end
    return found


class Singles(Sequence[Group]):
    """Groups of one key each, largest weight first, made as a sentence reads them: a query of a
    thousand keys names a dozen and counts the rest."""

    def __init__(self, columns: Sequence[str], keys: list[int], weights: list[float]) -> None:
        self.columns, self.keys, self.weights = columns, keys, weights

    def __len__(self) -> int:
        return len(self.keys)

    @overload
    def __getitem__(self, k: int) -> Group: ...
    @overload
    def __getitem__(self, k: slice) -> Singles: ...

    def __getitem__(self, k: int | slice) -> Group | Singles:
        if isinstance(k, slice):
            return Singles(self.columns, self.keys[k], self.weights[k])
        return (self.columns[self.keys[k]],), self.weights[k]



class Names(Sequence[str]):
    """The names of keys, looked up as a sentence reads them (it names five and counts the
    rest)."""

    def __init__(self, columns: Sequence[str], keys: list[int]) -> None:
        self.columns, self.keys = columns, keys

    def __len__(self) -> int:
        return len(self.keys)

    @overload
    def __getitem__(self, k: int) -> str: ...
    @overload
    def __getitem__(self, k: slice) -> tuple[str, ...]: ...

    def __getitem__(self, k: int | slice) -> str | tuple[str, ...]:
        if isinstance(k, slice):
            return tuple(self.columns[j] for j in self.keys[k])
        return self.columns[self.keys[k]]


def keys_of(found: Sequence[Group]) -> Sequence[str]:
    """The keys of every group, in order."""
    if isinstance(found, Singles):
        return Names(found.columns, found.keys)
    return tuple(chain.from_iterable(group[0] for group in found))


def top_keys(head: HeadResult, i: int) -> tuple[str, ...]:
    """The keys of the first of `groups(head, i)` (none when query i sees no key), without
    grouping the rest."""
    order, falling = ranked(head, i)
    if not len(order):
        return ()
    end = int(np.searchsorted(falling, falling[0] + TOLERANCE, side="right"))
    return tuple(head.weights.columns[j] for j in order[:end])


def decimals(weight: float, others: Sequence[float], precision: int,
             significant: bool = True) -> int:
    """The fewest decimals, from `precision` on, at which `weight` prints as something other
    than each of `others` and, if `significant`, as neither 0 nor 1 unless it is exactly that:
    a weight of 0.99984 is not said as (1.00), nor 0.000163 as (0.00)."""
    places = precision
    while places < LAST_DECIMAL and (
            (significant and rounded(weight, places) in (0.0, 1.0)
             and weight not in (0.0, 1.0))
            or any(rounded(weight, places) == rounded(o, places) for o in others)):
        places += 1
    return places


def shown(found: Sequence[Group], k: int, precision: int) -> Param:
    """The weight of group k as a sentence prints it: with more decimals where needed."""
    weight = found[k][1]
    neighbours = [found[n][1] for n in (k - 1, k + 1) if 0 <= n < len(found)]
    more = decimals(weight, neighbours, precision) - precision
    return Finer(weight, more) if more else weight


def negligible_tail(found: Sequence[Group], precision: int) -> tuple[Sequence[Group], bool]:
    """The groups after the last weight that prints as more than 0, as one group, and whether
    there was such a tail: the keys the table shows as 0 are said to be under the last printed
    decimal (`under 0.01 each`), not told apart with twelve decimals nor said as 0."""
    # the weights fall, so those that print as 0 are a tail: found by halving, not one by one
    low, tail = 1, len(found)  # found[:low] ends above 0 (or is the first group); found[tail:] 0
    while low < tail:
        middle = (low + tail) // 2
        if rounded(found[middle][1], precision) == 0.0:
            tail = middle
        else:
            low = middle + 1
    if len(found) - tail < 2 or rounded(found[tail - 1][1], precision) == 0.0:
        return found, False
    return [*found[:tail], (keys_of(found[tail:]), found[tail][1])], True


def key_name(query: str, key: str) -> Msg:
    return Msg.of("itself") if key == query else quoted(key)


def group_msg(query: str, found: Sequence[Group], k: int, precision: int,
              under: bool = False) -> Msg:
    """`cat (0.40)`, `cat and dog (0.30 each)`, or, for keys whose weights print as 0 though
    they are not (`under`: the last keys of the table's 0s; or weights below 10⁻¹⁰), under the
    last decimal printed: `is, Life and first (under 0.0001 each)`; a weight within 10⁻¹⁰ of 1
    but not 1 is over 0.9999999999."""
    keys, weight = found[k]
    places = max(precision, TINY)
    if under or 0.0 < weight < 0.5 * 10.0 ** -places:  # (the group's largest weight)
        places = precision if under else places
        bound: Param = 10.0 ** -places
        if places > precision:
            bound = Finer(10.0 ** -places, places - precision)
        if len(keys) == 1:
            return Msg.of("{token} (under {bound})", token=key_name(query, keys[0]), bound=bound)
        return Msg.of("{tokens} (under {bound} each)", tokens=key_listing(query, keys),
                      bound=bound)
    if 1.0 - 0.5 * 10.0 ** -places < weight < 1.0:  # (only one key's weight can be this)
        return Msg.of("{token} (over {bound})", token=key_name(query, keys[0]),
                      bound=Finer(1.0 - 10.0 ** -places, places - precision))
    shown_weight = shown(found, k, precision)
    if len(keys) == 1:
        return Msg.of("{token} ({weight})", token=key_name(query, keys[0]), weight=shown_weight)
    return Msg.of("{tokens} ({weight} each)", tokens=key_listing(query, keys),
                  weight=shown_weight)


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


SINK_TOLERANCE = 1e-12  # a row of weights that sums below 1 by more gave the rest to a sink


def query_sentence(head: HeadResult, i: int, precision: int) -> Msg:
    name = head.weights.rows[i]
    query = quoted(name)
    if np.isnan(head.weights.row(i)).any():
        if not np.isneginf(head.scores.row(i)).all():
            # in a low precision, a score that overflowed to inf: inf − inf is NaN
            return Msg.of("{query}: its weights are NaN, from a score that overflowed.",
                          query=query)
        return Msg.of("{query} sees no key, so its weights are undefined (NaN).", query=query)
    found = groups(head, i)
    if not found:
        return Msg.of("{query} sees no key, so it attends to nothing: its weights are all 0.",
                      query=query)
    if len(found) == 1 and len(found[0][0]) == 1:
        (key,), weight = found[0]
        if float(head.weights.row(i).sum()) < 1.0 - SINK_TOLERANCE:  # a sink took the rest
            if key == name:
                return Msg.of("{query} sees only itself: it keeps {weight} there, and the sink "
                              "takes the rest.", query=query, weight=weight)
            return Msg.of("{query} sees only {key}: it gives it {weight}, and the sink takes "
                          "the rest.", query=query, key=quoted(key), weight=weight)
        if key == name:
            return Msg.of("{query} sees only itself, so all its weight ({weight}) stays there.",
                          query=query, weight=weight)
        return Msg.of("{query} sees only {key}, so all its weight ({weight}) goes there.",
                      query=query, key=quoted(key), weight=weight)
    seen = int(np.isfinite(head.scores.row(i)).sum())  # the keys it sees, all in `found`
    if len(found) == 1:
        return Msg.plural_of("{query} attends equally to the {count} key it sees ({weight} each).",
                             "{query} attends equally to the {count} keys it sees "
                             "({weight} each).", seen, query=query,
                             weight=shown(found, 0, precision))
    high, low = found[0][1], found[-1][1]
    almost = max(precision, ALMOST_DECIMALS)
    if rounded(high, almost) == rounded(low, almost):  # they all print the same
        places = max(decimals(low, [high], precision), decimals(high, [], precision))
        return Msg.plural_of(
            "{query} attends almost equally to the {count} key it sees ({low}–{high}).",
            "{query} attends almost equally to the {count} keys it sees ({low}–{high}).",
            seen, query=query, low=Finer(low, places - precision),
            high=Finer(high, places - precision))
    found, under = negligible_tail(found, precision)
    first = group_msg(name, found, 0, precision)
    last = group_msg(name, found, len(found) - 1, precision, under)
    if len(found) == 2:
        return Msg.of("{query} attends more to {first} than to {last}.",
                      query=query, first=first, last=last)
    return Msg.of("{query} attends most to {first}, then to {middle}, least to {last}.",
                  query=query, first=first, last=last, middle=middle(name, found, precision))


def middle(query: str, found: Sequence[Group], precision: int) -> Msg:
    """The groups between the first and the last, the first few named."""
    inner = range(1, len(found) - 1)
    shown_groups = [group_msg(query, found, k, precision) for k in inner[:MOST_LISTED]]
    rest = sum(len(found[k][0]) for k in inner[MOST_LISTED:])
    result = shown_groups[0]
    for part in shown_groups[1:]:
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
    return (Msg.plural_of("The other {count} query is not read here; {switch} reads every one.",
                          "The other {count} queries are not read here; {switch} reads every "
                          "one.", left, switch=FULL_SWITCH),)


def comparison(heads: Sequence[HeadResult], precision: int) -> Reading:
    """Where the heads disagree about which keys a query attends to most."""
    sentences: list[Msg] = []
    for i in heads[0].weights.row_indices():
        query = heads[0].weights.rows[i]
        tops = []
        for head in heads:
            tops.append(top_keys(head, i))
        if len({frozenset(top) for top in tops}) > 1:
            parts: Msg | str = ""
            for head, top in zip(heads, tops, strict=True):
                part = (Msg.of("to {keys} in head {index}", index=head.index,
                               keys=key_listing(query, top)) if top else
                        Msg.of("to no key in head {index}, which sees none", index=head.index))
                # commas between the heads: "and" already joins the keys within one head
                parts = Msg.of("{first}, {second}", first=parts, second=part) if parts else part
            sentences.append(Msg.of("The heads disagree about {query}: it attends most {parts}.",
                                    query=quoted(query), parts=parts))
    left = rest(heads[0], len(heads[0].weights.row_indices()))
    if not sentences and not left and len(heads) == 2:  # "both": Polish "obie", Russian "обе"
        sentences.append(Msg.of("Both heads agree on where every query attends most."))
    elif not sentences and not left:
        sentences.append(Msg.plural_of(
            "The {count} head agrees on where every query attends most.",
            "All {count} heads agree on where every query attends most.", len(heads)))
    return Reading(None, (*sentences, *left))


def angle_sentence(head: HeadResult, i: int, j: int, precision: int) -> Msg:
    q, k = head.queries.row(i), head.keys.row(j)  # (d_k,), (d_k,)
    query, key = head.queries.rows[i], head.keys.rows[j]
    for letter, token, vector in (("q", query, q), ("k", key, k)):
        if not vector.any():
            return Msg.of("q_{query} and k_{key}: the angle is undefined, since {vector} has "
                          "length 0.", query=query, key=key, vector=f"{letter}_{token}")
    q, k = q / np.abs(q).max(), k / np.abs(k).max()  # (d_k,): no norm underflows to 0
    unit_q, unit_k = q / np.linalg.norm(q), k / np.linalg.norm(k)  # (d_k,)
    cos = min(1.0, max(-1.0, float(unit_q @ unit_k)))
    return Msg.of("q_{query} and k_{key} are {angle}° apart (cos θ = {cos}).",
                  query=head.queries.rows[i], key=head.keys.rows[j],
                  angle=math.degrees(math.acos(cos)),
                  cos=Finer(cos, decimals(cos, [], precision, significant=False) - precision))


def measured(head: HeadResult, i: int, j: int) -> bool:
    """Whether query i and key j have an angle: no entry overflowed to ∞ (a low-precision
    walkthrough goes on past an overflow, which it has already pointed out)."""
    return bool(np.isfinite(head.queries.row(i)).all() and np.isfinite(head.keys.row(j)).all())


def angle_sentences(head: HeadResult, angles: Iterable[tuple[int, int, int]],
                    precision: int) -> Iterator[Msg]:
    """The angle of every expanded score cell of `head`, after one sentence saying what it is."""
    cells = ((i, j) for index, i, j in angles if index == head.index and measured(head, i, j))
    first = next(cells, None)
    if first is None:
        return
    yield Msg.of("q·k = |q|·|k|·cos θ: the smaller the angle between a query and a key, the "
                 "larger their score.")
    for i, j in chain((first,), cells):
        yield angle_sentence(head, i, j, precision)


def read(walkthrough: Walkthrough, angles: Iterable[tuple[int, int, int]] = ()) -> tuple[
        Reading, ...]:
    """Per head, a sentence for every query; with several heads, where they disagree; and the
    angle between query and key for every expanded score cell (head, query row, key column),
    made as they are read (`-x all` expands every score cell)."""
    heads = walkthrough.heads
    several = len(heads) > 1
    readings = []
    for head in heads:
        reading = head_reading(head, head.index if several else None, walkthrough.precision)
        said = Lazy(partial(angle_sentences, head, angles, walkthrough.precision))
        sentences: Sequence[Msg] = reading.sentences
        if said:
            sentences = Lazy(partial(chain, reading.sentences, said))
        readings.append(Reading(reading.head, sentences))
    if several:
        readings.append(comparison(heads, walkthrough.precision))
    return tuple(readings)
