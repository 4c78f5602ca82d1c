"""The notation in attn's own prose (d_model, √d_k, q_mouse, qᵢ·kⱼ, cos θ) typeset as math, the
words around it and every word a user wrote (token names in the parameters) as literal text.

Only the catalog's sentences (trusted, written by attn) are searched for notation; a parameter that
is a token name is escaped whole, except where the sentence writes it as a subscript (`q_{query}`),
where it becomes `q_{\\text{mouse}}`.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from string import Formatter

from attncli.i18n import Finer, Msg, Param, template

# One piece of notation in a sentence of the catalog, in the order they are tried.
_NOTATION = re.compile(
    r"(?P<sqrt>(?P<div>÷ )?√(?P<sq_base>[A-Za-z])_(?P<sq_sub>[A-Za-z0-9]+)"
    r"(?P<sq_eq> = [0-9]+(?:[.,][0-9]+)?)?)"
    r"|(?P<chain>(?<![\w|])\|?[A-Za-z][ᵢⱼ]?\|?(?:·(?:cos θ|\|?[A-Za-z](?![A-Za-z])[ᵢⱼ]?\|?))+)"
    r"|(?P<sub>(?<![\w])(?P<base>[A-Za-z])_(?P<index>[A-Za-z0-9]+)(?![\w])"
    r"(?P<eq> = [0-9]+(?:[.,][0-9]+)?)?)"
    r"|(?P<cos>cos θ)"
    r"|(?P<power>(?<![\w])e\^(?:x|\((?P<from>x|m_old) − m\))(?![\w]))"
    r"|(?P<minus>(?<![\w.,−-])[-−](?=[0-9]))"
)
_SYMBOLS = {"ᵢ": "_i", "ⱼ": "_j", "·": r" \cdot ", "|": "|", "θ": r"\theta"}
# math, " = ", math: one formula
_JOINED = re.compile(r"^\s*=\s*$")

ORDINARY_SPACE = " \t\n\r\f\v"  # whitespace a line may break at: not the no-break space
Segment = tuple[bool, str]  # (is math, text or LaTeX)
TextFn = Callable[[str], str]


def subscript(base: str, index: str) -> str:
    """`d_k`, `W_O`, `W_1`, but `d_{\\text{model}}`: a word as a subscript is upright."""
    if len(index) > 1 and not index.isdigit():
        return base + r"_{\text{" + index + "}}"
    return base + "_{" + index + "}"


def _math(match: re.Match[str]) -> str:
    if match.group("sqrt"):
        root = r"\sqrt{" + subscript(match.group("sq_base"), match.group("sq_sub")) + "}"
        return (r"\div " if match.group("div") else "") + root + _value(match.group("sq_eq"))
    if match.group("chain"):
        text = match.group("chain").replace("cos θ", r"\cos\theta")
        return "".join(_SYMBOLS.get(ch, ch) for ch in text)
    if match.group("sub"):
        return subscript(match.group("base"), match.group("index")) + _value(match.group("eq"))
    if match.group("cos"):
        return r"\cos\theta"
    if match.group("minus"):  # -0.94 in prose: the minus sign, not a hyphen
        return "-"
    if match.group("from") == "m_old":  # the rescale of online softmax
        return r"e^{m_{\text{old}} - m}"
    return "e^{x - m}" if match.group("from") else "e^{x}"


def _value(equals: str | None) -> str:
    """` = 1.41` after a symbol, as math (`1{,}41` with a decimal comma)."""
    return "" if equals is None else " = " + equals[3:].replace(",", "{,}")


def segments(text: str) -> list[Segment]:
    """`text` split into prose and math: `scale: ÷ √d_k = 1.41` gives prose `scale: ÷ ` and the
    math `\\sqrt{d_k}`, then ` = 1.41`."""
    out: list[Segment] = []
    start = 0
    for match in _NOTATION.finditer(text):
        if match.start() > start:
            out.append((False, text[start:match.start()]))
        out.append((True, _math(match)))
        start = match.end()
    if start < len(text):
        out.append((False, text[start:]))
    return _join(out)


def _join(parts: list[Segment]) -> list[Segment]:
    """`q·k` ` = ` `|q|·|k|·cos θ` is one formula, not two with text between."""
    out: list[Segment] = []
    for part in parts:
        if (len(out) >= 2 and part[0] and out[-2][0] and not out[-1][0]
                and _JOINED.match(out[-1][1])):
            out[-2:] = [(True, out[-2][1] + " = " + part[1])]
        else:
            out.append(part)
    return out


def latex(text: str, escape: TextFn) -> str:
    """Trusted prose as LaTeX text: notation in `$...$`, the rest through `escape`."""
    return "".join("$" + s + "$" if is_math else spaced(s, escape) for is_math, s in segments(text))


def spaced(text: str, escape: TextFn) -> str:
    """`escape(text)` with the spaces at either end kept (escapers collapse them); a no-break
    space there (typography.py: `w {cell}`) stays one, so no line ends with `w`."""
    core = text.strip(ORDINARY_SPACE)
    if not core:
        return " " if text else ""
    head = " " if text[0] in ORDINARY_SPACE else ""
    tail = " " if text[-1] in ORDINARY_SPACE else ""
    return head + escape(core) + tail


def message(msg: Msg | str, lang: str, escape: TextFn, number: Callable[[float], str]) -> str:
    """A catalog sentence in `lang` as LaTeX text: its notation as math, its parameters (token
    names, numbers, nested sentences) filled in literally; `number` writes a float as text."""
    if isinstance(msg, str):
        return escape(msg)
    params = dict(msg.params)
    words = {name: value for name, value in params.items() if isinstance(value, str)}
    sentence = template(msg, lang, words)
    out: list[str] = []
    for literal, field, _spec, _conversion in Formatter().parse(sentence):
        pending = literal
        if field is not None and isinstance(params.get(field), str):
            tail = re.search(r"(?<![\w])([A-Za-z])_$", pending)
            if tail:  # q_{query}: the token is the subscript
                out.append(latex(pending[:tail.start()], escape))
                value = str(params[field])
                out.append("$" + tail.group(1) + r"_{\text{" + escape(value) + "}}$")
                continue
        out.append(latex(pending, escape))
        if field is not None:
            out.append(_param(params[field], lang, escape, number))
    return "".join(out)


def _param(value: Param, lang: str, escape: TextFn, number: Callable[[float], str]) -> str:
    if isinstance(value, Msg):
        return message(value, lang, escape, number)
    if isinstance(value, bool):
        return str(value).lower()
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float | Finer):
        if isinstance(value, Finer):  # a weight shown with more decimals than its neighbours
            finer = getattr(number, "finer", None)
            text = finer(value.more)(value.value) if finer else number(value.value)
        else:
            text = number(value)
        return "$-$" + escape(text[1:]) if text[:1] in "-−" else escape(text)
    return spaced(value, escape)
