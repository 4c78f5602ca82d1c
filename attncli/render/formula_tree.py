"""A formula's plain text (`S′ = S / √d_k`, `A = softmax(S′ + M)`, `zᵢ = Σⱼ Aᵢⱼ·vⱼ`), the one
every format prints (model.Formula.text), read into a small tree that a format without TeX
writes as its own math: MathML for the HTML page (render/mathml.py), Typst (render/typst_math.py).

Token by token: a letter or a name is an identifier, a digit run a number, `_x`, `ᵢ`, `₁₂` a
subscript, `ᵀ`, `′`, `⁻¹¹` and `^(…)` a superscript, `√x` a root, anything else an operator.
"""

from __future__ import annotations

import re

from attncli.records import record

SUBSCRIPTS = dict(zip("₀₁₂₃₄₅₆₇₈₉ᵢⱼₖₕ", "0123456789ijkh", strict=True))
SUPERSCRIPTS = dict(zip("⁰¹²³⁴⁵⁶⁷⁸⁹⁻ᵀ", "0123456789−T", strict=True))
PRIME = "′"
PRIMES = {PRIME: 1, "″": 2}  # S′, and S″ (the soft-capped scores)
SCRIPTS = frozenset(SUBSCRIPTS) | frozenset(SUPERSCRIPTS) | frozenset(PRIMES)
# a name: letters with their combining accents (Q̂, X̃); a number: ASCII digits and a mark
NAME = r"(?:(?![" + "".join(sorted(SCRIPTS)) + r"])[^\W\d_][\u0300-\u036f]*)+"
TOKEN = re.compile(NAME + r"|[0-9]+(?:[.,][0-9]+)?|\S")
FORMULAS_APART = ",  "  # `Q = X·W_Q,  K = X·W_K`: several formulas on one line
OPERATOR_LETTERS = frozenset("Σ∂")


@record
class Leaf:
    kind: str  # "name", "number" or "operator"
    text: str


@record
class Script:
    kind: str  # "sub" or "sup"
    base: Node
    script: Node


@record
class Root:
    radicand: Node


@record
class Row:
    items: tuple[Node, ...]


Node = Leaf | Script | Root | Row


def formulas(text: str) -> list[Row]:
    """The formulas of one line (`Q = X·W_Q,  K = X·W_K` holds two), each a Row."""
    return [Row(tuple(_items(TOKEN.findall(part)))) for part in text.split(FORMULAS_APART)]


def _items(tokens: list[str]) -> list[Node]:
    out: list[Node] = []
    k = 0
    while k < len(tokens):
        token = tokens[k]
        k += 1
        if token == "√" and k < len(tokens):
            radicand, k = _operand(tokens, k)
            out.append(Root(radicand))
        elif token in "_^" and out and k < len(tokens):
            script, k = _operand(tokens, k, bracketed=token == "^")
            out[-1] = Script("sub" if token == "_" else "sup", out[-1], script)
        elif token in SUBSCRIPTS and out:
            run, k = _run(tokens, k - 1, SUBSCRIPTS)
            out[-1] = Script("sub", out[-1], _plain(run))
        elif token in PRIMES and out:
            out[-1] = Script("sup", out[-1], Leaf("operator", token))
        elif token in SUPERSCRIPTS and out:
            run, k = _run(tokens, k - 1, SUPERSCRIPTS)
            out[-1] = Script("sup", out[-1], _plain(run))
        else:
            out.append(_leaf(token))
    return out


def _run(tokens: list[str], k: int, table: dict[str, str]) -> tuple[str, int]:
    """The characters of `table` from tokens[k] on, as what they stand for."""
    chars = []
    while k < len(tokens) and len(tokens[k]) == 1 and tokens[k] in table:
        chars.append(table[tokens[k]])
        k += 1
    return "".join(chars), k


def _operand(tokens: list[str], k: int, bracketed: bool = False) -> tuple[Node, int]:
    """One operand from tokens[k]: a bracketed group after `^` (its brackets dropped), or one
    token with the subscripts that follow it."""
    if bracketed and tokens[k] == "(":
        depth, end = 0, k
        while end < len(tokens):
            depth += {"(": 1, ")": -1}.get(tokens[end], 0)
            if depth == 0:
                break
            end += 1
        return Row(tuple(_items(tokens[k + 1:end]))), end + 1
    item: Node = _leaf(tokens[k])
    k += 1
    while k < len(tokens) and (tokens[k] in SUBSCRIPTS or (tokens[k] == "_"
                                                           and k + 1 < len(tokens))):
        if tokens[k] == "_":
            item, k = Script("sub", item, _leaf(tokens[k + 1])), k + 2
        else:
            run, k = _run(tokens, k, SUBSCRIPTS)
            item = Script("sub", item, _plain(run))
    return item, k


def _plain(text: str) -> Node:
    """A sub- or superscript's characters: a number, a minus and a number, or a name."""
    if text.startswith("−"):
        return Row((Leaf("operator", "−"), _plain(text[1:])))
    return Leaf("number" if text.isdigit() else "name", text)


def _leaf(token: str) -> Leaf:
    if token[0] in "0123456789":
        return Leaf("number", token)
    if token[0].isalpha() and token not in OPERATOR_LETTERS:
        return Leaf("name", token)
    return Leaf("operator", token)
