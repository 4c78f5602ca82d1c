"""One matrix of a walkthrough by its symbol as shown (`A`, `W_Q`, `S′ + M`, `R₁`), for
`--matrix`: `A:2` is head 2's. Typed forms are forgiving: spaces are ignored, `'` stands for `′`
and `R_1` or `R1` for `R₁`."""

from __future__ import annotations

from attncli.errors import UsageError
from attncli.i18n import Msg
from attncli.model import Matrix, Walkthrough

SUBSCRIPTS = str.maketrans("₀₁₂₃₄₅₆₇₈₉", "0123456789")


def key(symbol: str) -> str:
    """The symbol as compared: no spaces, ASCII prime, subscript digits as digits, no `_`
    before a digit (`R₁`, `R_1` and `R1` are one matrix; `W_Q` stays `W_Q`)."""
    text = "".join(symbol.split()).replace("'", "′").translate(SUBSCRIPTS)
    return "".join(ch for i, ch in enumerate(text)
                   if not (ch == "_" and text[i + 1:i + 2].isdigit()))


def named(walkthrough: Walkthrough) -> list[tuple[str, int | None, Matrix, str]]:
    """(symbol, head, matrix, step id) of every matrix shown, in order."""
    return [(matrix.symbol.text, step.head, matrix, step.id)
            for step in walkthrough.steps for matrix in step.matrices]


def pick(walkthrough: Walkthrough, written: str) -> Matrix:
    """The matrix `written` names (`SYMBOL` or `SYMBOL:HEAD`); UsageError naming the symbols the
    walkthrough has when there is none, or when the name fits several."""
    symbol, colon, head_text = written.rpartition(":") if ":" in written else (written, "", "")
    head: int | None = None
    if colon:
        if not head_text.strip().isdigit():
            raise UsageError(Msg.of("expected SYMBOL or SYMBOL:HEAD such as A:2, found {found}",
                                    found=written))
        head = int(head_text)
    everything = named(walkthrough)
    wanted = key(symbol)
    same = [entry for entry in everything if key(entry[0]) == wanted]
    if not same:
        raise UsageError(Msg.of("no matrix {found} here; this walkthrough has {known}",
                                found=written, known=known(everything)))
    if head is None:
        found = [entry for entry in same if entry[1] is None]
        if not found:  # a head's matrix, asked for without its head
            raise UsageError(Msg.of("{symbol} is one per head; add the head, as in {example}",
                                    symbol=same[0][0], example=f"{same[0][0]}:{same[0][1]}"))
    else:
        only = len(walkthrough.heads) == 1  # its steps carry no head: A:1 is A
        found = [entry for entry in same if entry[1] == head or (only and head == 1)]
        if not found:
            heads = sorted({entry[1] for entry in same if entry[1] is not None})
            raise UsageError(Msg.of("no matrix {found} here; this walkthrough has {known}",
                                    found=written, known=known(everything))
                             if not heads else
                             Msg.of("{symbol} has no head {head}; it is in heads {heads}",
                                    symbol=same[0][0], head=head,
                                    heads=", ".join(map(str, heads))))
    if len(found) > 1:
        raise UsageError(Msg.of("{symbol} is in several steps ({steps}); keep one with --steps",
                                symbol=found[0][0], steps=", ".join(e[3] for e in found)))
    return found[0][2]


def known(everything: list[tuple[str, int | None, Matrix, str]]) -> str:
    """`X, W_Q, W_K, W_V, Q, K, V, S, A, Z` with `A:1`, `A:2` for each head's."""
    names = (symbol if head is None else f"{symbol}:{head}" for symbol, head, _, _ in everything)
    return ", ".join(dict.fromkeys(names))
