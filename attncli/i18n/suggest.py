"""Did you mean …? Offered only when the word written is close to one the input could hold:
an option, a command, a key, or a value of a closed set (mask kinds, step ids, formats,
languages, flavours, examples). One rule for all of them, so a suggestion is never a guess;
`attncli.i18n.suggesting` puts it into a message."""

from __future__ import annotations

from collections.abc import Iterable


def closest(word: str, known: Iterable[str]) -> str | None:
    """The one known word `word` is a slip of, or None: at most one edit (a letter added, left
    out, changed, or two swapped) per three letters, ignoring case, `-` and `_`, or the start of
    one known word alone: `weigths` is weights, `casual` causal, `wq` W_Q and `cat_chase`
    cat_chases_mouse, but `--pdf` is nothing like `--expand`, nor `pk` like pl."""
    def fold(text: str) -> str:
        return text.lower().replace("_", "").replace("-", "")

    target, names = fold(word), list(known)
    if not target:
        return None
    most = len(target) // 3
    scored = [(edits(target, fold(name), most), i, name) for i, name in enumerate(names)]
    close = min((s for s in scored if s[0] <= most), default=None)
    if close is None and len(target) >= 3:
        starting = [name for name in names if fold(name).startswith(target)]
        close = (0, 0, starting[0]) if len(starting) == 1 else None
    return close[2] if close is not None and close[2] != word else None


def edits(a: str, b: str, most: int) -> int:
    """The optimal-string-alignment distance of `a` and `b`, or `most` + 1 once it is past."""
    if abs(len(a) - len(b)) > most:
        return most + 1
    before: list[int] = []
    row = list(range(len(b) + 1))
    for i, x in enumerate(a, start=1):
        current = [i] + [0] * len(b)
        for j, y in enumerate(b, start=1):
            current[j] = min(row[j] + 1, current[j - 1] + 1, row[j - 1] + (x != y))
            if i > 1 and j > 1 and x == b[j - 2] and a[i - 2] == y:
                current[j] = min(current[j], before[j - 2] + 1)
        before, row = row, current
        if min(row) > most:
            return most + 1
    return row[-1]

