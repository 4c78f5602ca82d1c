"""Row and column labels for tokens: every label different, and none mistakable for a token.

A token written once is its own label. A token written more than once gets its occurrence as a
subscript, `the₁, the₂, the₃`. When some token of the spec is itself shaped like such a label
(the tokens `the, the₁, the`), the occurrence is written in brackets instead, `the (1)`, and in
as many more pairs of brackets as it takes, `the ((1))`, so that no label is another token or
could be read as another token's label. Tokens are shown `visible_label` (attncli/i18n/visible.py):
a control or invisible character is written as its escape, so no label acts on a terminal, and
two tokens that differ only where nothing is drawn (`a`, `a` + U+FE0F) or only in their Unicode
normalisation (`é`, `e` + U+0301) get labels that look different. Two names too wide for a line
that a page shows alike, their first and last characters around `…` (model/latex_text.py
shown_name), are numbered as one token written twice, so their shortened labels differ too.
"""

from __future__ import annotations

from bisect import bisect_right
from collections import Counter
from collections.abc import Callable, Sequence
from functools import lru_cache

from attncli.i18n.visible import visible_label
from attncli.model.latex_text import shown_name

SUBSCRIPTS = str.maketrans("0123456789", "₀₁₂₃₄₅₆₇₈₉")

DIGITS = frozenset("0123456789")
SUBSCRIPT_DIGITS = frozenset("₀₁₂₃₄₅₆₇₈₉")


def subscript(number: int) -> str:
    return str(number).translate(SUBSCRIPTS)


def _subscripted(token: str, k: int) -> str:
    return token + subscript(k)


def _bracketed(depth: int) -> Callable[[str, int], str]:
    return lambda token, k: f"{token} {'(' * depth}{k}{')' * depth}"


def _split_subscript(name: str) -> tuple[str, str]:
    """A name and the run of subscript digits it ends in: `a₁₂` is (`a`, `₁₂`)."""
    start = len(name)
    while start and name[start - 1] in SUBSCRIPT_DIGITS:
        start -= 1
    return name[:start], name[start:]


def _reads_subscripted(repeated: set[str], names: Sequence[str]) -> bool:
    """Whether some name is a repeated token followed by subscript digits (`a₁` of `a`, `a₁₂` of
    `a₁`): the same stem, and the token's digits a proper beginning of the name's. Runs sorted
    by stem put those beginnings next to each other, so no pair of names is compared."""
    runs: dict[str, list[str]] = {}
    for name in names:
        stem, run = _split_subscript(name)
        runs.setdefault(stem, []).append(run)
    for found in runs.values():
        found.sort()
    for token in repeated:
        stem, run = _split_subscript(token)
        found = runs.get(stem, [])
        after = bisect_right(found, run)
        if after < len(found) and found[after].startswith(run):
            return True
    return False


def _bracket_stem(name: str) -> tuple[str, int] | None:
    """The token and depth `name` would be a bracketed label of (`the ((2))`: `the`, 2), if any.

    A label of depth d ends in exactly d closing brackets after its digits, so the run of
    closing brackets at the end decides the only depth it could be a label of.
    """
    depth = len(name) - len(name.rstrip(")"))
    body = name[:len(name) - depth]
    start = len(body)
    while start and body[start - 1] in DIGITS:
        start -= 1
    opening = " " + "(" * depth
    if not depth or start == len(body) or not body[:start].endswith(opening):
        return None
    return body[:start - len(opening)], depth


def _label_form(repeated: set[str], names: Sequence[str]) -> Callable[[str, int], str]:
    """Subscripts unless some name reads as a repeated token's subscripted label; else the
    shallowest brackets no name reads as. Each name is looked at once: it can read as a label
    of one depth only, so a form is found in time linear in the names."""
    if not _reads_subscripted(repeated, names):
        return _subscripted
    taken = {stem[1] for stem in map(_bracket_stem, names)
             if stem is not None and stem[0] in repeated}
    return _bracketed(next(depth for depth in range(1, len(taken) + 2) if depth not in taken))


def token_labels(tokens: Sequence[str]) -> tuple[str, ...]:
    """The label of each token: itself, or, when repeated, itself and its occurrence."""
    given = tuple(tokens)
    if all(type(token) is str for token in given):  # a Symbol equals its text, but is shown
        return _texts_labelled(given)               # unshortened: never taken for it
    return _labels(given)


def _labels(tokens: tuple[str, ...]) -> tuple[str, ...]:
    tokens = tuple(map(visible_label, tokens))
    counts = Counter(tokens)
    # a long name's group is the names shown alike with it, each token's group itself
    shown = {token: shown_name(token) for token in counts}
    alike = Counter(shown.values())  # how many different tokens each shortened form shows
    group = {token: shown[token] if alike[shown[token]] > 1 else token for token in counts}
    sizes = Counter(group[token] for token in tokens)
    repeated = [token for token in counts if sizes[group[token]] > 1]
    if not repeated:
        return tuple(tokens)
    label = _label_form(set(repeated), tuple(counts))
    seen: Counter[str] = Counter()
    labels = []
    numbered = set(repeated)
    for token in tokens:
        if token in numbered:
            seen[group[token]] += 1
            labels.append(label(token, seen[group[token]]))
        else:
            labels.append(token)
    return tuple(labels)


# the same tokens are labelled again by every layer a model folder works out before the one
# shown, twice each (queries and keys): 256 times for layer 127, about 1 ms each for 758 tokens
_texts_labelled = lru_cache(maxsize=4)(_labels)
