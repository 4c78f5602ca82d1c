"""The notation in attn's own prose (d_model, √d_k, q_mouse, qᵢ·kⱼ, cos θ) typeset as math, the
words around it and every word a user wrote (token names in the parameters) as literal text.

Only the catalog's sentences (trusted, written by attn) are searched for notation; a parameter that
is a token name is escaped whole, except where the sentence writes it as a subscript (`q_{query}`),
where it becomes `q_{\\text{mouse}}`.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache
from string import Formatter

from attncli.i18n import (
    Count,
    Finer,
    Msg,
    Param,
    Power,
    Shape,
    Symbol,
    power_text,
    template,
)
from attncli.i18n.typography import DECIMAL, group_digits, with_comma
from attncli.render import symbols
from attncli.render.tex_metrics import UNBROKEN, text_width

# Formulas the catalog's sentences write in Unicode (the same in every language), as LaTeX math.
# A sentence with new notation registers it here; tests/test_notation.py finds every catalog
# sentence whose notation is left as text.
FORMULAS: dict[str, str] = {
    # the backward pass
    "L = Σ dO ⊙ O": r"L = \sum dO \odot O",
    "h = 10⁻⁶": r"h = 10^{-6}",
    "(L(W_Q[d1, d1] + h) − L(W_Q[d1, d1] − h)) / 2h =":
        r"\bigl(L(W_{Q}[\text{d1}, \text{d1}] + h) - L(W_{Q}[\text{d1}, \text{d1}] - h)\bigr)"
        r" / 2h =",
    "dW_Q[d1, d1]": r"dW_{Q}[\text{d1}, \text{d1}]",
    "dW_K = Xᵀ·dK": r"dW_{K} = X^{\top} dK", "dW_V = Xᵀ·dV": r"dW_{V} = X^{\top} dV",
    "dW_K = dKᵀ·X": r"dW_{K} = dK^{\top} X", "dW_V = dVᵀ·X": r"dW_{V} = dV^{\top} X",
    "dS′": "dS'", "Rᵀ": r"R^{\top}", "−p·θᵢ": r"-p \cdot \theta_i", "p·θᵢ": r"p \cdot \theta_i",
    "−p·ωᵢ": r"-p \cdot \omega_i", "p·ωᵢ": r"p \cdot \omega_i",
    "dx = (dx̂ − x̂·(1/d)·Σⱼ dx̂ⱼ·x̂ⱼ) / RMS(x)":
        r"dx = \bigl(d\hat{x} - \hat{x} \cdot \tfrac{1}{d} \sum_{j} d\hat x_{j} \hat x_{j}\bigr)"
        r" / \operatorname{RMS}(x)",
    "dx̂ = dy ⊙ gain": r"d\hat{x} = dy \odot \mathrm{gain}",
    "dM = dF·W_2ᵀ": r"dM = dF \cdot W_{2}^{\top}",
    "dU = dM ⊙": r"dU = dM \odot", "dA₁ = dM ⊙ U ⊙": r"dA_{1} = dM \odot U \odot",
    "′(A₁)": r"{}'(A_{1})", "(A₁)": r"(A_{1})",
    "SiLU′(a) = σ(a)·(1 + a·(1 − σ(a)))":
        r"\operatorname{SiLU}'(a) = \sigma(a) \cdot \bigl(1 + a \cdot (1 - \sigma(a))\bigr)",
    # positions
    "θᵢ": r"\theta_i", "ωᵢ": r"\omega_i",
    "−m·|i − j|": r"-m \cdot |i - j|",
    # online softmax
    "ℓ = rowsum(P̃)": r"\ell = \operatorname{rowsum}(\tilde{P})",
    "Õ = P̃·V": r"\tilde{O} = \tilde{P} V",
    "m = max(m_old,": r"m = \max(m_{\text{old}},", "Õ": r"\tilde{O}", "ℓ": r"\ell", "α": r"\alpha",
    "Z = A·V": r"Z = A V", "O = Õ / ℓ": r"O = \tilde{O} / \ell",
    "−∞": r"-\infty",
    # GPT-2's activation
    "GELU_tanh(x) = 0.5·x·(1 + tanh(√(2/π)·(x + 0.044715·x³)))":
        r"\operatorname{GELU_{tanh}}(x) = 0.5 \cdot x \cdot \bigl(1 + \tanh\bigl("
        r"\sqrt{2/\pi} \cdot (x + 0.044715 \cdot x^{3})\bigr)\bigr)",
    "GELU_tanh": r"\operatorname{GELU_{tanh}}",
    # logit soft-capping
    "(−c, c)": r"(-c, c)", "tanh x ≈ x": r"\tanh x \approx x",
    # attention sinks
    "e^s": r"e^{s}",
    # QK-norm
    "RMS(x) = √((1/d)·Σᵢ xᵢ² + ε)":
        r"\operatorname{RMS}(x) = \sqrt{\tfrac{1}{d} \sum_{i} x_{i}^{2} + \varepsilon}",
    "heads·d_k": r"\mathrm{heads} \cdot d_{k}",
    "kv_heads·d_k": r"\text{kv\_heads} \cdot d_{k}",
    # multi-head latent attention
    "Q_C·W_UKᵀ": r"Q_{C} W_{\text{UK}}^{\top}",
}
# each that writes numbers (GELU's), also as a sentence with a decimal comma has it (Msg.decimals)
FORMULAS |= {with_comma(text, found): with_comma(tex, found, math=True)
             for text, tex in list(FORMULAS.items()) if (found := DECIMAL.findall(text))}


def _bounded(formula: str) -> str:
    """The formula as a pattern, not a part of a longer word (`Õ` but not in a word `Õx`)."""
    head = r"(?<![\w])" if re.match(r"\w", formula) else ""
    tail = r"(?![\w])" if re.match(r"\w", formula[-1]) else ""
    return head + re.escape(formula) + tail


_KNOWN = "|".join(_bounded(f) for f in sorted(FORMULAS, key=len, reverse=True))

# After a word character only these may begin a piece of notation: a known formula that does not
# begin with a word character, `÷ √d_k`, `cos θ` and `^(…)`; every other piece is looked for only
# where no word character is before it (each begins with a lookbehind that says so). Tested first,
# this one condition spares trying every piece inside every word (scan takes half the time).
_AFTER_WORD = "".join(sorted({f[0] for f in FORMULAS if not re.match(r"\w", f)} | set("÷√c^")))

# One piece of notation in a sentence of the catalog, in the order they are tried.
_PIECES = (
    r"(?P<known>" + _KNOWN + ")"
    r"|(?P<sqrt>(?P<div>÷ )?√(?P<sq_base>[A-Za-z])_(?P<sq_sub>[A-Za-z0-9]+)"
    r"(?P<sq_eq> = [0-9]+(?:[.,][0-9]+)?)?)"
    r"|(?P<chain>(?<![\w|])\|?[A-Za-z][ᵢⱼ]?\|?(?:·(?:cos θ|\|?[A-Za-z](?![A-Za-z])[ᵢⱼ]?\|?))+)"
    # k_name, and k_nam…ame: a name too wide for a line shortened (model/latex_text.py shown_word)
    r"|(?P<sub>(?<![\w])(?P<base>[A-Za-z])_(?P<index>[A-Za-z0-9]+(?:…[A-Za-z0-9]+)?)(?![\w])"
    r"(?P<over>/[0-9]+(?![\w.,]))?"  # d_k/2
    r"(?P<eq> = [0-9]+(?:[.,][0-9]+)?(?: [+−] [0-9]+(?:[.,][0-9]+)?)*)?)"  # d_k = 4 + 2
    r"|(?P<cos>cos θ(?P<cos_eq> = [-−]?[0-9]+(?:[.,][0-9]+)?)?)"
    r"|(?P<power>(?<![\w])e\^(?:x|\((?P<from>x|m_old) − m\))(?![\w])(?P<power_eq> = 1| < 1)?)"
    r"|(?P<trig>(?<![\w])(?P<fn>sin|cos)\((?P<angle>[a-z]) / (?P<base_of>[0-9]+)"
    r"\^\((?P<of>[^()]+)\)\))"
    r"|(?P<exponent>(?<![\w.,])(?P<number>[0-9]+)\^\((?P<power_of>[^()]+)\))"
    r"|(?P<bare>\^\((?P<bare_of>[^()]+)\))"
    r"|(?P<gradient>(?<![\w])d(?P<grad_of>[A-Z])(?P<grad_prime>′?)"
    r"(?:_(?P<grad_sub>[A-Za-z0-9]+))?(?![\w′]))"
    r"|(?P<minus>(?<![\w.,−-])[-−](?=[0-9]))"
    r"|" + symbols.SUBSCRIPTED
    + r"|" + symbols.LETTER
)
_NOTATION = re.compile(
    r"(?:(?<![\w])|(?=[" + re.escape(_AFTER_WORD) + r"]))(?:" + _PIECES + ")")
_SYMBOLS = {"ᵢ": "_i", "ⱼ": "_j", "·": r" \cdot ", "|": "|", "θ": r"\theta"}
# math, " = " (or " + ", " − "), math: one formula (`d_k = d_nope + d_R = 4`)
_JOINED = re.compile(r"^\s*([=+−])\s*$")

ORDINARY_SPACE = " \t\n\r\f\v"  # whitespace a line may break at: not the no-break space
NBSP = "\u00a0"
_BEFORE_RELATION = re.compile(r" (?=[=<>≈≤≥≠→](?: |$))")
_OPERATOR_NAME = re.compile(r"(?<![\w])(ln|log|exp) (?=\S|$)")  # `ln 65504`: one operand
_BRACKETED = re.compile(r"(?:\([^()]*\))?\[[^\[\]]*\]")  # a cell: S[a, b], (S′ + M)[a, b]
Segment = tuple[bool, str]  # (is math, text or LaTeX)
TextFn = Callable[[str], str]


def subscript(base: str, index: str) -> str:
    """`d_k`, `W_O`, `W_1`, but `d_{\\text{model}}`: a word as a subscript is upright."""
    if len(index) > 1 and not index.isdigit():
        return base + r"_{\text{" + index + "}}"
    return base + "_{" + index + "}"


@dataclass(frozen=True)
class SizeMath:
    """How one math syntax writes the notation that names a size: a symbol with a subscript,
    `/2` after it, a root, the division sign before it, and ` = 4 + 2` after either."""
    subscript: Callable[[str, str], str]
    over: Callable[[str], str]  # the divisor's digits
    root: Callable[[str], str]
    divide: str
    value: Callable[[str | None], str]


def size_math(match: re.Match[str], syntax: SizeMath) -> str | None:
    """A piece of notation that names a size (`d_k = 2 + 2`, `d_k/2`, `÷ √d_k = 1.41`) in
    `syntax`, or None for any other piece: it is the caller's (LaTeX's) or stays text."""
    if match.group("sub"):
        over = match.group("over")
        return (syntax.subscript(match.group("base"), match.group("index"))
                + ("" if over is None else syntax.over(over[1:])) + syntax.value(match.group("eq")))
    if match.group("sqrt"):
        root = syntax.root(syntax.subscript(match.group("sq_base"), match.group("sq_sub")))
        return (syntax.divide if match.group("div") else "") + root + syntax.value(
            match.group("sq_eq"))
    return None


LATEX_SIZES = SizeMath(subscript=subscript, over=lambda digits: "/" + digits,
                       root=lambda inside: r"\sqrt{" + inside + "}", divide=r"\div ",
                       value=symbols.value)


def _math(match: re.Match[str]) -> str:
    if match.group("known"):
        return FORMULAS[match.group("known")]
    sized = size_math(match, LATEX_SIZES)
    if sized is not None:
        return sized
    if match.group("chain"):
        text = match.group("chain").replace("cos θ", r"\cos\theta")
        return "".join(_SYMBOLS.get(ch, ch) for ch in text)
    if match.group("trig"):  # sin(k / 10000^(2i/d)), the sinusoidal encoding's column
        return (f"\\{match.group('fn')}({match.group('angle')} / {match.group('base_of')}"
                f"^{{{match.group('of')}}})")
    if match.group("exponent"):  # 10000^(−2i/d_k)
        return match.group("number") + "^{" + match.group("power_of").replace("−", "-") + "}"
    if match.group("bare"):  # the power of a base written apart (1e+04^(2i/d))
        return "{}^{" + match.group("bare_of").replace("−", "-") + "}"
    if match.group("cos"):
        return r"\cos\theta" + symbols.value(match.group("cos_eq"))
    if match.group("minus"):  # -0.94 in prose: the minus sign, not a hyphen
        return "-"
    if match.group("gradient"):  # dO, dZ, dS′, dW_Q: a gradient's symbol
        sub = match.group("grad_sub")
        return ("d" + match.group("grad_of") + "'" * len(match.group("grad_prime"))
                + ("" if sub is None else "_{" + sub + "}"))
    if match.group("subscripted"):  # K₁, z₃: as the layer writes R₁, `R_{1}`
        return symbols.subscripted(match)
    if match.group("letter"):  # c = 5.00, the gain g, the matrix A
        return symbols.math(match)
    relation = match.group("power_eq") or ""
    if match.group("from") == "m_old":  # the rescale of online softmax
        return r"e^{m_{\text{old}} - m}" + relation
    return ("e^{x - m}" if match.group("from") else "e^{x}") + relation


@lru_cache(maxsize=4096)
def segments(text: str, lang: str = "en") -> tuple[Segment, ...]:
    """`text` split into prose and math: `scale: ÷ √d_k = 1.41` gives prose `scale: ÷ ` and the
    math `\\sqrt{d_k}`, then ` = 1.41`; a one-letter symbol is math as `lang`'s words allow
    (attncli/render/symbols.py). Kept for the next time: `attn snippets` writes the same
    sentences for every spec, and one scan tries every notation at every character."""
    return scan(text, lang, _math)


def scan(text: str, lang: str,
         write: Callable[[re.Match[str]], str | None]) -> tuple[Segment, ...]:
    """`text` split into prose and the math `write` makes of each piece of notation found (a
    match of _NOTATION, by its groups); a piece it gives None for stays prose."""
    out: list[Segment] = []
    start = 0
    # Polish and Russian typography binds `=` with no-break spaces: matched as spaces
    plain = text.replace("\u00a0", " ")
    quoted = symbols.quoted_spans(plain)
    for match in _NOTATION.finditer(plain):
        if match.group("letter") and not symbols.is_symbol(plain, match.start(),
                                                           match.start() + 1, lang, quoted):
            continue
        math = write(match)
        if math is None:
            continue
        if match.start() > start:
            out.append((False, text[start:match.start()]))
        out.append((True, math))
        start = match.end()
    if start < len(text):
        out.append((False, text[start:]))
    return tuple(_join(out))


def _join(parts: list[Segment]) -> list[Segment]:
    """`q·k` ` = ` `|q|·|k|·cos θ` is one formula, not two with text between; so is
    `d_nope` ` + ` `d_R = 4`."""
    out: list[Segment] = []
    for part in parts:
        joined = (_JOINED.match(out[-1][1]) if len(out) >= 2 and part[0] and out[-2][0]
                  and not out[-1][0] else None)
        if joined:
            operator = joined.group(1).replace("−", "-")
            out[-2:] = [(True, out[-2][1] + f" {operator} " + part[1])]
        else:
            out.append(part)
    return out


def latex(text: str, escape: TextFn, lang: str = "en") -> str:
    """Trusted prose as LaTeX text: notation in `$...$`, the rest through `escape`."""
    return "".join("$" + s + "$" if is_math else spaced(unbroken(s), escape)
                   for is_math, s in segments(text, lang))


def unbroken(text: str) -> str:
    """`text` with no-break spaces where TeX would break a formula written as text: before a
    relation (`13.6641 > ln 65504`: a line may end after `>`, as in math, not before it), after
    an operator's name (`ln 65504`) and inside brackets that fit a line (`S[cat, mouse]`,
    `[0.20, 1.00]`)."""
    text = _OPERATOR_NAME.sub(r"\1" + NBSP, _BEFORE_RELATION.sub(NBSP, text))
    return _BRACKETED.sub(lambda m: m.group().replace(" ", NBSP)
                          if text_width(m.group()) <= UNBROKEN else m.group(), text)


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
    pending = ""  # the sentence's own text so far, with its whole numbers (`10000^(−2i/d_k)`)
    for literal, field, _spec, _conversion in Formatter().parse(sentence):
        pending += literal
        if field is None:
            continue
        value = params[field]
        if isinstance(value, Count):  # a count or a size, grouped as the language groups it
            pending += group_digits(value, lang)
            continue
        if (isinstance(value, int) and not isinstance(value, bool)) or (
                symbols.is_subscript(value)):
            pending += str(value)  # a whole number, the `₁` of `K₁`: the sentence's own
            continue
        valued = (symbols.valued(pending, lang) if isinstance(value, float | Finer | Symbol)
                  else None)
        if valued:  # c = {cap}: the value is math with its symbol
            assert isinstance(value, float | Finer | Symbol)
            out.append(latex(pending[:valued.start()], escape, lang))
            text = value.latex if isinstance(value, Symbol) else _in_math(value, escape, number)
            out.append("$" + symbols.math_of(valued.group(1)) + " = " + text + "$")
        elif isinstance(value, Symbol):  # attn's own notation: a matrix's name
            out.append(_touching(latex(pending, escape, lang), value.latex))
        elif isinstance(value, str) and re.search(r"(?<![\w])([A-Za-z])_$", pending):
            tail = re.search(r"(?<![\w])([A-Za-z])_$", pending)
            assert tail is not None  # q_{query}: the token is the subscript
            out.append(latex(pending[:tail.start()], escape, lang))
            out.append("$" + tail.group(1) + r"_{\text{" + escape(value) + "}}$")
        else:
            out.append(latex(pending, escape, lang))
            out.append(_param(value, lang, escape, number))
        pending = ""
    out.append(latex(pending, escape, lang))
    return "".join(out)


def _touching(before: str, tex: str) -> str:
    """`before` then the math `tex`; math ending `before` (the S of `S{ij}`) takes `tex` in, as
    `$S$$…$` would open a display."""
    if before.endswith("$") and not before.endswith("\\$"):
        return before[:-1] + tex + "$"
    return before + "$" + tex + "$"


def _param(value: Param, lang: str, escape: TextFn, number: Callable[[float], str]) -> str:
    if isinstance(value, Msg):
        return message(value, lang, escape, number)
    if isinstance(value, bool):
        return str(value).lower()
    if isinstance(value, int):
        return str(value)
    if isinstance(value, Shape):  # an error line's; no walkthrough sentence holds one
        return escape(str(value))
    if isinstance(value, float | Finer | Power):
        text = _number_text(value, number)
        power = symbols.power_math(text)
        if power is not None:  # 1.0×10⁻³¹⁰: one formula, its exponent whole
            return f"${power}$"
        return "$-$" + escape(text[1:]) if text[:1] in "-−" else escape(text)
    return spaced(unbroken(value), escape)


def _number_text(value: float | Finer | Power, number: Callable[[float], str]) -> str:
    if isinstance(value, Finer):  # a weight shown with more decimals than its neighbours
        finer = getattr(number, "finer", None)
        return finer(value.more)(value.value) if finer else number(value.value)
    if isinstance(value, Power):
        return power_text(value, number)
    return number(value)


def _in_math(value: float | Finer | Power, escape: TextFn, number: Callable[[float], str]) -> str:
    """A number as the inside of a formula already open (`c = {cap}`): a true minus, a decimal
    comma as math's `{,}`, m × 10^k with its `\\times` and not a formula of its own."""
    text = _number_text(value, number)
    power = symbols.power_math(text)
    if power is not None:
        return power
    sign = "-" if text[:1] in "-−" else ""
    return sign + escape(text[len(sign):]).replace(",", "{,}")

