"""The numbers of the spec that the walkthrough writes into its formulas and sentences (a soft
cap's c, ALiBi's slopes, ε, α, GELU's 0.044715), written with the reader's decimal mark.

The walkthrough is built once and may be written with either mark (`render(w, decimal=...)`
overrides the spec's `display.decimal`), so the build writes them with a decimal point and marks
them (a Constant, a Digits parameter; the `decimals` of a Formula and of a sentence); this
module is the one place that decides to write them with a decimal comma, for every format alike,
as i18n/typography.py writes one: `0,25` in text, `0{,}25` in TeX math, and `; ` between several
numbers (`0,0625; 0,25`). With the decimal point, the walkthrough is written as it was built.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import TypeVar

from attncli.i18n import Constant, Digits, Msg, Param, Symbol
from attncli.i18n.typography import comma_math, comma_text, with_comma
from attncli.model import Expansion, Formula, Lazy, Matrix, Reading, Step, Walkthrough

T = TypeVar("T")


def marked(walkthrough: Walkthrough, decimal: str) -> Walkthrough:
    """The walkthrough with its constants written with `decimal` (`dot` or `comma`)."""
    if decimal != "comma":
        return walkthrough
    header = walkthrough.header
    return replace(
        walkthrough,
        header=replace(header, mask=_msg(header.mask), scale=_msg(header.scale),
                       facts=tuple(map(_msg, header.facts))),
        steps=tuple(map(_step, walkthrough.steps)),
        notes=tuple(map(_msg, walkthrough.notes)),
        reading=tuple(Reading(r.head, _each(r.sentences, _msg)) for r in walkthrough.reading))


def _step(step: Step) -> Step:
    return replace(step, title=_msg(step.title),
                   formula=None if step.formula is None else _formula(step.formula),
                   matrices=tuple(map(_matrix, step.matrices)),
                   notes=tuple(map(_msg, step.notes)),
                   expansions=_each(step.expansions, _expansion))


def _each(items: Sequence[T], mark: Callable[[T], T]) -> Sequence[T]:
    if isinstance(items, Lazy):  # made on demand, and marked as it is made
        return Lazy(lambda: map(mark, items), items.most)
    return tuple(map(mark, items))


def _matrix(matrix: Matrix) -> Matrix:
    return replace(matrix, symbol=_formula(matrix.symbol)) if matrix.symbol.decimals else matrix


def _expansion(expansion: Expansion) -> Expansion:
    target, symbolic = expansion.target, expansion.symbolic
    if not (target and target.decimals) and not (symbolic and symbolic.decimals):
        return expansion
    return replace(expansion, target=target and _formula(target),
                   symbolic=symbolic and _formula(symbolic))


def _formula(formula: Formula) -> Formula:
    return replace(formula, text=with_comma(formula.text, formula.decimals),
                   latex=with_comma(formula.latex, formula.decimals, math=True), decimals=())


def _msg(msg: Msg) -> Msg:
    params = tuple((name, _param(value)) for name, value in msg.params)
    if not msg.decimals and all(new is old for (_, new), (_, old)
                                in zip(params, msg.params, strict=True)):
        return msg
    return replace(msg, params=params, comma=bool(msg.decimals))


def _param(value: Param) -> Param:
    if isinstance(value, Msg):
        return _msg(value)
    if isinstance(value, Constant):
        return Symbol(comma_text(value), comma_math(value.latex))
    if isinstance(value, Digits):
        return comma_text(value)
    return value
