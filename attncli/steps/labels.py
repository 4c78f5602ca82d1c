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

import re
from collections import Counter
from collections.abc import Callable, Sequence

from attncli.i18n.visible import visible_label
from attncli.model.latex_text import shown_name

SUBSCRIPTS = str.maketrans("0123456789", "₀₁₂₃₄₅₆₇₈₉")

Form = tuple[Callable[[str, int], str], Callable[[str], str]]  # (label, pattern of its labels)


def subscript(number: int) -> str:
    return str(number).translate(SUBSCRIPTS)


def _subscripted() -> Form:
    return (lambda token, k: token + subscript(k),
            lambda token: re.escape(token) + "[₀₁₂₃₄₅₆₇₈₉]+")


def _bracketed(depth: int) -> Form:
    return (lambda token, k: f"{token} {'(' * depth}{k}{')' * depth}",
            lambda token: re.escape(token) + " " + r"\(" * depth + "[0-9]+" + r"\)" * depth)


def _forms(tokens: int) -> list[Form]:
    """Subscripts, then brackets ever deeper: `tokens` tokens cannot take every depth."""
    return [_subscripted(), *(_bracketed(depth) for depth in range(1, tokens + 2))]


def token_labels(tokens: Sequence[str]) -> tuple[str, ...]:
    """The label of each token: itself, or, when repeated, itself and its occurrence."""
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
    label = next(form for form, pattern in _forms(len(counts)) if not any(
        re.fullmatch(pattern(token), other) for token in repeated for other in counts))
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
