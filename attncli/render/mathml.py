"""A formula's plain text (`S′ = S / √d_k`, `A = softmax(S′ + M)`, `zᵢ = Σⱼ Aᵢⱼ·vⱼ`) as
MathML, which Chromium, Firefox and Safari draw natively: the HTML export needs no math engine.

The text is the one every format prints (model.Formula.text), read token by token: a letter or a
name is an identifier, a digit run a number, `_x`, `ᵢ`, `₁₂` a subscript, `ᵀ`, `′`, `⁻¹¹` and
`^(…)` a superscript, `√x` a root, anything else an operator. Every character is escaped.
"""

from __future__ import annotations

import re
from html import escape

SUBSCRIPTS = dict(zip("₀₁₂₃₄₅₆₇₈₉ᵢⱼₖₕ", "0123456789ijkh", strict=True))
SUPERSCRIPTS = dict(zip("⁰¹²³⁴⁵⁶⁷⁸⁹⁻ᵀ", "0123456789−T", strict=True))
SCRIPTS = frozenset(SUBSCRIPTS) | frozenset(SUPERSCRIPTS) | {"′"}
# a name: letters with their combining accents (Q̂, X̃); a number: ASCII digits and a mark
NAME = r"(?:(?![" + "".join(sorted(SCRIPTS)) + r"])[^\W\d_][\u0300-\u036f]*)+"
TOKEN = re.compile(NAME + r"|[0-9]+(?:[.,][0-9]+)?|\S")
FORMULAS_APART = ",  "  # `Q = X·W_Q,  K = X·W_K`: several formulas on one line


def math(text: str, display: bool = False, label: str | None = None) -> str:
    """`<math>` for `text`; `label`, when given, is what a screen reader says (the text)."""
    shown = ('<math display="block"' if display else "<math") + (
        f' aria-label="{escape(label)}"' if label else "") + ">"
    parts = text.split(FORMULAS_APART)
    inner = '<mo separator="true">,</mo><mspace width="1.5em"/>'.join(row(p) for p in parts)
    return shown + inner + "</math>"


def row(text: str) -> str:
    return "<mrow>" + "".join(_items(TOKEN.findall(text))) + "</mrow>"


def _items(tokens: list[str]) -> list[str]:
    out: list[str] = []
    k = 0
    while k < len(tokens):
        token = tokens[k]
        k += 1
        if token == "√" and k < len(tokens):
            base, k = _operand(tokens, k)
            out.append(f"<msqrt>{base}</msqrt>")
        elif token == "_" and out and k < len(tokens):
            sub, k = _operand(tokens, k)
            out[-1] = f"<msub>{out[-1]}{sub}</msub>"
        elif token == "^" and out and k < len(tokens):
            sup, k = _operand(tokens, k)
            out[-1] = f"<msup>{out[-1]}{sup}</msup>"
        elif token in SUBSCRIPTS and out:
            run, k = _run(tokens, k - 1, SUBSCRIPTS)
            out[-1] = f"<msub>{out[-1]}{_plain(run)}</msub>"
        elif (token in SUPERSCRIPTS or token == "′") and out:
            run, k = (_run(tokens, k - 1, SUPERSCRIPTS) if token != "′" else ("′", k))
            out[-1] = f"<msup>{out[-1]}{_plain(run) if token != '′' else '<mo>′</mo>'}</msup>"
        else:
            out.append(_token(token))
    return out


def _run(tokens: list[str], k: int, table: dict[str, str]) -> tuple[str, int]:
    """The characters of `table` from tokens[k] on, as what they stand for."""
    chars = []
    while k < len(tokens) and len(tokens[k]) == 1 and tokens[k] in table:
        chars.append(table[tokens[k]])
        k += 1
    return "".join(chars), k


def _operand(tokens: list[str], k: int) -> tuple[str, int]:
    """One operand from tokens[k]: a bracketed group (its brackets dropped after `^`), or one
    token with the sub- and superscripts that follow it."""
    if tokens[k] == "(":
        depth, end = 0, k
        while end < len(tokens):
            depth += {"(": 1, ")": -1}.get(tokens[end], 0)
            if depth == 0:
                break
            end += 1
        return "<mrow>" + "".join(_items(tokens[k + 1:end])) + "</mrow>", end + 1
    item = _token(tokens[k])
    k += 1
    while k < len(tokens) and (tokens[k] in SUBSCRIPTS or (tokens[k] == "_"
                                                           and k + 1 < len(tokens))):
        if tokens[k] == "_":
            item, k = f"<msub>{item}{_token(tokens[k + 1])}</msub>", k + 2
        else:
            run, k = _run(tokens, k, SUBSCRIPTS)
            item = f"<msub>{item}{_plain(run)}</msub>"
    return item, k


def _plain(text: str) -> str:
    """A sub- or superscript's characters: a number, a minus and a number, or a name."""
    if text.startswith("−"):
        return f"<mrow><mo>−</mo>{_plain(text[1:])}</mrow>"
    return f"<mn>{text}</mn>" if text.isdigit() else f"<mi>{escape(text)}</mi>"


def _token(token: str) -> str:
    if token[0] in "0123456789":
        return f"<mn>{escape(token)}</mn>"
    if token[0].isalpha() and token not in ("Σ", "∂"):
        return f"<mi>{escape(token)}</mi>"
    return f"<mo>{escape(token)}</mo>"
