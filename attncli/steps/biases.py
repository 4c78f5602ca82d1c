"""Score biases: a matrix B added to the scaled scores before the mask, ALiBi's −m·|i − j| (Press
et al.) with a slope m for each head, or the matrices a spec gives."""

from __future__ import annotations

from dataclasses import replace

from attncli.compute import ops
from attncli.i18n import Constant, Msg
from attncli.model import Array, Formula, Step
from attncli.steps.base import Build, HeadState, Made


def head_bias(b: Build, index: int | None) -> tuple[Array, Msg]:
    """This head's B (n, m) and a note on where it comes from: the rows of the build's queries
    (a block's, from b.first_row on)."""
    bias = b.spec.bias
    assert bias is not None
    n, m = len(b.query_labels), len(b.key_labels)
    h = len(b.spec.heads)
    i = (index or 1) - 1
    if bias.kind == "alibi":
        slope = float(ops.alibi_slopes(h)[i])
        return ops.alibi(n, m, slope, b.first_row), Msg.of(
            "ALiBi adds −m·|i − j| to the score of query i and key j, with this head's slope "
            "m = {slope}: the further a key is from the query, the more its score is lowered.",
            slope=Constant(f"{slope:.6g}", f"{slope:.6g}"))
    first = b.first_row
    rows = bias.for_head(i)[first:first + n]  # (n, m): a block's rows of the given B
    return rows, Msg.of("B is the bias matrix of the spec, added to the scores.")


def biased(b: Build, hs: HeadState) -> Made[HeadState]:
    """S′ + B."""
    assert hs.logits is not None and hs.scores is not None
    values, note = head_bias(b, hs.index)  # (n, m)
    if b.spec.dtype != "float64":
        values = b.calc.rounded(values)  # ALiBi's −m·|i − j| as the format stores it
    logits = b.calc.rounded(hs.logits + values)  # (n, m) + (n, m)
    b.finite(logits, "S′ + B", b.query_labels, b.key_labels)
    given = hs.scores.symbol
    symbol = Formula(f"{given.text} + B", f"{given.latex} + B")
    matrices = (b.attention(Formula("B", "B"), values), b.attention(symbol, logits))
    step = Step("bias", Msg.of("Score bias"), symbol, matrices, hs.index, (note,))
    return (step,), replace(hs, logits=logits, scores=matrices[1])
