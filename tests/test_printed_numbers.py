"""What a careful reader checks, on random specs: every printed number is the half-up rounding of
its full value, every `=` line recomputes from its printed numbers (and every `≈` line does not),
and no reading contradicts the table it reads.

The specs mix ties that binary rounding gets wrong (0.125, 0.425, 0.2845, 1.0605, 2.675) with other
numbers, at every precision from 0 to 4, by hand and at full precision, in en, pl and ru, with a
decimal dot and a decimal comma, with and without masks, and with one head or two. The expected
text of every number is worked out here, from the float's shortest decimal in exact fractions,
independently of attncli/arithmetic/numbers.py.
"""

from __future__ import annotations

import json
import os
import re
from fractions import Fraction
from typing import Any

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from attncli import build, loads_spec
from attncli.arithmetic.expand import Selection
from attncli.i18n import Msg, translate
from attncli.model import Difference, Exp, Expr, Num, Product, Quotient, Sum, Vec, Walkthrough
from attncli.render import render
from tests.printed_arithmetic import agrees, half_up, scientific, written_out

EXAMPLES = int(os.environ.get("ATTN_PROPERTY_EXAMPLES", "120"))
TIES = [0.125, -0.125, 0.425, 0.2845, 1.0605, 2.675, 0.5, -0.5, 0.25, 0.0, 1.0, -1.0, 0.35, 0.045]
numbers = st.one_of(st.sampled_from(TIES),
                    st.integers(-300, 300).map(lambda k: k / 100),
                    st.integers(-20000, 20000).map(lambda k: k / 10000))


def expected(x: float, precision: int, comma: bool) -> str:
    """`x` as a person writes it at `precision` decimals: half up on its shortest decimal."""
    if x == float("-inf"):
        return "−∞"
    found = scientific(Fraction(repr(x)), precision)  # m × 10^k (docs/formats.md)
    q = half_up(Fraction(repr(x)), precision) if found is None else found[0]
    scaled = abs(q) * 10**precision
    assert scaled.denominator == 1
    digits = str(scaled.numerator).rjust(precision + 1, "0")
    text = digits[:len(digits) - precision] + ("." + digits[-precision:] if precision else "")
    text = ("−" if q < 0 else "") + text
    if found is not None:
        text += "×10" + str(found[1]).translate(str.maketrans("-0123456789", "⁻⁰¹²³⁴⁵⁶⁷⁸⁹"))
    return text.replace(".", ",") if comma else text


@st.composite
def specs(draw: st.DrawFn) -> dict[str, Any]:
    n = draw(st.integers(1, 4))
    two_heads = draw(st.booleans())
    d = 2 * draw(st.integers(1, 2)) if two_heads else draw(st.integers(1, 3))
    matrix = lambda rows, cols: [[draw(numbers) for _ in range(cols)]  # noqa: E731
                                 for _ in range(rows)]
    spec: dict[str, Any] = {"tokens": [f"t{i}" for i in range(n)],
                            "embeddings": matrix(n, d)}
    weights = {name: matrix(d, d) for name in ("W_Q", "W_K", "W_V") if draw(st.booleans())}
    if weights:
        spec["weights"] = weights
    if two_heads:
        spec["heads"] = 2
    spec["scale"] = draw(st.sampled_from(["sqrt_dk", "none", 0.5, 3]))
    spec["mask"] = draw(st.sampled_from(
        ["none", "causal", {"padding": [True] * (n - 1) + [False]} if n > 1 else "none"]))
    spec["display"] = {"precision": draw(st.integers(0, 4)),
                       "decimal": draw(st.sampled_from(["dot", "comma"])),
                       "round_intermediates": draw(st.booleans())}
    return spec


def walkthrough_of(spec: dict[str, Any]) -> Walkthrough:
    return build(loads_spec(json.dumps(spec)), Selection.parse(["all"]))


def operands(expr: Expr) -> list[float]:
    """The numbers of a written-out expression, in the order they are printed."""
    if isinstance(expr, Num):
        return [expr.value]
    if isinstance(expr, Vec):
        return list(expr.values)
    if isinstance(expr, Exp):
        return operands(expr.argument)
    parts: tuple[Expr, ...]
    if isinstance(expr, Sum):
        parts = expr.terms
    elif isinstance(expr, Product):
        parts = expr.factors
    elif isinstance(expr, Quotient):
        parts = (expr.numerator, expr.denominator)
    else:
        assert isinstance(expr, Difference)
        parts = (expr.left, expr.right)
    return [x for part in parts for x in operands(part)]


@settings(max_examples=EXAMPLES, deadline=None)
@given(specs(), st.sampled_from(["en", "pl", "ru"]))
def test_every_printed_number_is_rounded_half_up_and_every_equals_recomputes(
        spec: dict[str, Any], lang: str) -> None:
    walkthrough = walkthrough_of(spec)
    p, comma = spec["display"]["precision"], spec["display"]["decimal"] == "comma"
    out = render(walkthrough, "text", lang)
    rows = [line.split() for line in out.splitlines()]

    # tables: every cell, as this test writes it, on the row of its label
    for step in walkthrough.steps:
        for matrix in step.matrices:
            if matrix.identity:  # said in a sentence, not printed
                assert (matrix.values == np.eye(len(matrix.rows))).all()
                continue
            for i, label in enumerate(matrix.rows):
                cells = ["—" if matrix.hidden(i, j) and matrix.at(i, j) == 0.0
                         else expected(matrix.at(i, j), p, comma)
                         for j in range(len(matrix.columns))]
                assert [label, *cells] in rows, (step.id, matrix.symbol.text, label, cells)

    # written-out lines: the numbers are the operands rounded, and "=" recomputes exactly
    heading = translate(Msg.of("Written out:"), lang)
    lines = written_out(out, heading)
    expansions = [e for step in walkthrough.steps for e in step.expansions]
    assert len(lines) == len(expansions) > 0
    for line, expansion in zip(lines, expansions, strict=True):
        result = expansion.result if isinstance(expansion.result, tuple) else (expansion.result,)
        numbers_shown = [expected(x, p, comma) for x in (*operands(expansion.expression),
                                                          *result)]
        assert line.numbers() == [n for n in numbers_shown if n != "−∞"], line.text
        assert ("=" if expansion.exact else "≈") == line.sign, line.text
        assert agrees(line, p) == (line.sign == "="), line.text


def test_the_issues_ties_print_half_up() -> None:
    walkthrough = walkthrough_of({"tokens": ["a", "b"], "embeddings": [[0.25, 0.25], [1, 0]],
                                  "scale": "none"})
    text = render(walkthrough, "text")
    assert "S[a, a] = q_a·k_a = 0.25·0.25 + 0.25·0.25 = 0.13" in text  # 0.125 exactly
    for value, precision, printed in ((0.2845, 3, "0.285"), (0.425, 2, "0.43"),
                                      (1.0605, 3, "1.061"), (-0.125, 2, "−0.13")):
        spec = {"tokens": ["a"], "embeddings": [[value]], "display": {"precision": precision}}
        table = render(walkthrough_of(spec), "text").split("2. ")[0]
        assert f"a  {printed}" in table, table


READING = re.compile(  # the keys, quoted (“t0”), or itself
    r"((?:(?:“t\d”|itself)(?:, | and ))*(?:“t\d”|itself)) \((under |over )?(−?[\d.]+)( each)?\)")


@settings(max_examples=EXAMPLES, deadline=None)
@given(specs())
def test_no_reading_contradicts_its_table(spec: dict[str, Any]) -> None:
    spec["display"]["decimal"] = "dot"
    walkthrough = walkthrough_of(spec)
    tolerance = 1e-12
    for reading in walkthrough.reading:
        if reading.head is None and len(walkthrough.heads) > 1:
            continue  # the comparison, checked below
        head = walkthrough.heads[(reading.head or 1) - 1]
        queries = [s for s in reading.sentences if "attends" in s.msgid or "sees" in s.msgid]
        for i, sentence in enumerate(queries):
            text = translate(sentence, "en", _format(walkthrough))
            query = head.weights.rows[i]
            assert text.startswith(f"“{query}” "), text
            seen = {head.weights.columns[j]: head.weights.at(i, j)
                    for j in range(len(head.weights.columns)) if head.scores.at(i, j) > -1e308}
            if not seen or "undefined" in text:
                continue
            largest, smallest = max(seen.values()), min(seen.values())
            if "sees only" in text:
                assert len(seen) == 1 and f"({expected(largest, walkthrough.precision, False)})" \
                    in text, text
                continue
            if "almost equally" in text:
                low, high = re.search(r"\((−?[\d.]+)–(−?[\d.]+)\)", text).groups()  # type: ignore[union-attr]
                places = len(low.partition(".")[2])
                assert largest - smallest > tolerance, text
                assert half_up(Fraction(repr(smallest)), places) == Fraction(low), text
                assert half_up(Fraction(repr(largest)), places) == Fraction(high), text
                assert low != high, text
                continue
            if "equally" in text:
                assert largest - smallest <= tolerance, text
                continue
            named = READING.findall(text)
            assert named, text
            printed = []
            for names, under, weight, each in named:
                keys = [query if k == "itself" else k.strip("“”") for k in re.split(r", | and ",
                                                                                   names)]
                places = len(weight.partition(".")[2])
                if under == "over ":  # a weight within 10⁻¹⁰ of 1, not 1
                    assert len(keys) == 1 and Fraction(weight) < Fraction(repr(seen[keys[0]]))
                    assert seen[keys[0]] < 1 and half_up(Fraction(repr(seen[keys[0]])),
                                                         places) == 1, text
                    printed.append((keys, Fraction(1)))
                    continue
                if under:  # keys the table shows as 0 though they are not: the last ones
                    assert (names, under, weight, each) == named[-1], text
                    assert Fraction(weight) == Fraction(1, 10 ** places), text
                    assert all(seen[k] > 0 and half_up(Fraction(repr(seen[k])), places) == 0
                               for k in keys), text
                    printed.append((keys, Fraction(0)))
                    continue
                for key in keys:  # every key named has the weight printed beside it
                    assert half_up(Fraction(repr(seen[key])), places) == Fraction(weight), text
                    if Fraction(weight) in (0, 1):  # never a rounded 0 or 1
                        assert seen[key] == float(weight), text
                if each:  # equal weights
                    values = [seen[k] for k in keys]
                    assert max(values) - min(values) <= tolerance, text
                printed.append((keys, Fraction(weight)))
            if len(printed) > 1:
                first, last = printed[0][0], printed[-1][0]
                assert all(abs(seen[k] - largest) <= tolerance for k in first), text  # "most"
                assert any(abs(seen[k] - smallest) <= tolerance for k in last), text  # "least"
                assert [w for _, w in printed] == sorted({w for _, w in printed},
                                                         reverse=True), text
    if len(walkthrough.heads) > 1:
        together = [translate(s, "en") for s in walkthrough.reading[-1].sentences]
        for i, query in enumerate(walkthrough.heads[0].weights.rows):
            tops = []
            for head in walkthrough.heads:
                seen = [head.weights.at(i, j) for j in range(len(head.weights.columns))
                        if head.scores.at(i, j) > -1e308]
                top = max(seen, default=None)
                tops.append(frozenset(
                    head.weights.columns[j] for j in range(len(head.weights.columns))
                    if top is not None and head.scores.at(i, j) > -1e308
                    and abs(head.weights.at(i, j) - top) <= tolerance))
            disagree = any(f"disagree about “{query}”:" in s for s in together)
            assert disagree == (len(set(tops)) > 1), (together, tops)


def _format(walkthrough: Walkthrough):  # type: ignore[no-untyped-def]
    from attncli.arithmetic.numbers import NumberFormat

    return NumberFormat(walkthrough.precision)


def test_a_matrix_written_at_once_gives_each_number_half_up_from_its_shortest_decimal() -> None:
    """NumberFormat.written (a table's shown numbers at once) against the rule worked here in
    exact fractions: ties binary rounding gets wrong, numbers a hair off a tie, signs that round to
    zero, zeros, infinities, NaN, numbers too large for the quick path, and numbers written
    m × 10^k (a million and more once rounded), at precisions 0 to 6."""
    from attncli.arithmetic.numbers import NumberFormat

    rng = np.random.default_rng(7)
    ties = [0.125, 0.425, 0.2845, 1.0605, 2.675, -0.125, -2.675, 0.005, -0.0049, 9.995, 0.5, 1.5]
    values = [*ties, 0.0, -0.0, float("inf"), -float("inf"), float("nan"), 1e300, -1e15, 5e-324,
              999999.995, -999999.4995, 9.995e20, 1.23456e-30, -1e-29, 827392.0,
              *np.nextafter(np.array(ties), np.inf).tolist(),
              *(rng.standard_normal(400) * 10).tolist(),
              *np.round(rng.standard_normal(400), 3).tolist()]
    for precision in range(7):
        for mark, decimal in (("dot", "."), ("comma", ",")):
            written = NumberFormat.with_mark(precision, mark).written(values)
            for value, text in zip(values, written, strict=True):
                if value != value:
                    assert text == "NaN"
                    continue
                if abs(value) == float("inf"):
                    assert text == ("−∞" if value < 0 else "∞")
                    continue
                shortest = Fraction(repr(value))
                found = scientific(shortest, precision)  # m × 10^k (docs/formats.md)
                exact = half_up(shortest, precision) if found is None else found[0]
                power = "" if found is None else "×10" + str(found[1]).translate(
                    str.maketrans("-0123456789", "⁻⁰¹²³⁴⁵⁶⁷⁸⁹"))
                digits = f"{abs(exact.numerator) * 10**precision // exact.denominator}"
                digits = digits.rjust(precision + 1, "0")
                body = (digits[:-precision] + decimal + digits[-precision:] if precision
                        else digits) + power
                assert text == ("−" + body if exact < 0 else body), (value, precision, mark)
