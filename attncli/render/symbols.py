"""One-letter symbols in attn's prose (`c = 5.00`, the gain `g`, the sink logit `s`, the matrix
`A`): set as math, so a symbol looks the same in a sentence as in the formula beside it.

A Latin letter standing alone in a catalog sentence is a symbol, except where the language has a
one-letter word: English "a", "A" and "I"; Polish "a", "i", "o", "u", "w", "z" (a conjunction or a
preposition); Russian has none in Latin letters. Such a letter is a symbol where no word can
stand: before a comma, a bracket, an operator, a hyphen (`i-ta para`), or the end of the sentence,
and a capital one also inside a sentence (`suma wiersza A`). Letters inside quotation marks are a
token's name, never a symbol.
"""

from __future__ import annotations

import re

from attncli.i18n import PLAIN_DIGITS, Symbol

# Letters that are words of a language, by language (Russian: none among Latin letters).
WORD_LETTERS: dict[str, frozenset[str]] = {
    "en": frozenset("aAI"),
    "pl": frozenset("aiouwzAIOUWZ"),
    "ru": frozenset(),
}

# A lone letter, with primes and ` = number` after it: `c = 5.00`, `s = −1`, `S′`; not a cell's
# name before its tokens in brackets (`Z[short, d11]` stays one name, as written).
LETTER = (r"(?P<letter>(?<![\w'’\\.−-])[A-Za-z](?P<primes>[′″]?)(?![\w'’\[]|\.\w)"
          r"(?P<letter_eq> = [-−]?[0-9]+(?:[.,][0-9]+)?(?:×10[⁻]?[⁰¹²³⁴⁵⁶⁷⁸⁹]+)?"
          r"(?!\w|[.,]\d))?)")

# A number written m × 10^k (arithmetic/numbers.py, i18n.Power), as text: `−1.5×10⁻³`
POWER_TEXT = re.compile(r"([-−]?)([0-9]+(?:[.,][0-9]+)?)×10([⁻]?[⁰¹²³⁴⁵⁶⁷⁸⁹]+)")

# A letter with subscript digits (`K₁`, `z₃`, attn's own numbering of a matrix or a row): one
# symbol, `K_{1}` in math, as the layer writes `R₁` (`R_{1}`), never `K` upright and `₁` apart.
SUBSCRIPT_DIGITS = "₀₁₂₃₄₅₆₇₈₉"
SUBSCRIPTED = (r"(?P<subscripted>(?<![\w'’\\.−-])(?P<sub_letter>[A-Za-z][′″]?)"
               rf"(?P<sub_digits>[{SUBSCRIPT_DIGITS}]+)(?![\w′″]))")

# Spans a symbol is never found in: a token in quotation marks.
_QUOTED = re.compile(r"„[^”]*”|«[^»]*»|“[^”]*”|\"[^\"]*\"|`[^`]*`")
# After a word letter: an operator, a closing mark or the end (a symbol), or a word (a word).
_AFTER_SYMBOL = re.compile(r"[ \u00a0]*[=+−<>≈·/×⊙]|$|[,;:.)\]}-]")
_NUMBER_SIGN = re.compile(r"(?:\bnr|№|\bNo\.)[ \u00a0]$")  # `tokenu nr i`: an index
_SENTENCE_START = re.compile(r"(?:^|[.!?:;(]\s*)$")


def quoted_spans(text: str) -> list[tuple[int, int]]:
    return [m.span() for m in _QUOTED.finditer(text)]


def is_symbol(text: str, start: int, end: int, lang: str,
              quoted: list[tuple[int, int]]) -> bool:
    """Whether the letter at text[start:end] (matched by LETTER) is a symbol, not a word."""
    if any(a <= start < b for a, b in quoted):
        return False
    letter = text[start]
    if letter not in WORD_LETTERS.get(lang, WORD_LETTERS["en"]):
        return True
    if _AFTER_SYMBOL.match(text, end) or _NUMBER_SIGN.search(text, 0, start):
        return True
    # a capital word letter is a word only where a sentence starts (`A row…`, `Z tych…`)
    return letter.isupper() and not _SENTENCE_START.search(text, 0, start)


# A symbol a number parameter is the value of: `c = {cap}`. SYMBOL_EQUALS is the symbol (group 1)
# and its ` = `; VALUED finds it at the end of a piece of a sentence, and Markdown's prose
# (md_prose.py) before a marked number.
SYMBOL_EQUALS = r"(?<![\w'’\\.−-])([A-Za-zε][′″]?)[ \u00a0]=[ \u00a0]"
VALUED = re.compile(SYMBOL_EQUALS + "$")


def valued(piece: str, lang: str) -> re.Match[str] | None:
    """`c = ` at the end of `piece`, when its letter is a symbol: the number after it joins it."""
    match = VALUED.search(piece)
    if match is None:
        return None
    plain = piece.replace("\u00a0", " ")
    return match if is_symbol(plain, match.start(), match.start() + 1, lang,
                              quoted_spans(plain)) else None


def math_of(letter: str) -> str:
    """`S′` as LaTeX math: `S'`; `ε` as `\\varepsilon`."""
    base = r"\varepsilon" if letter[0] == "ε" else letter[0]
    return base + "'" * {"′": 1, "″": 2}.get(letter[1:], 0)


def value(equals: str | None) -> str:
    """` = 1.41` after a symbol, as math (`1{,}41` with a decimal comma, a true minus; `1.00×10⁶`
    as `1.00 \\times 10^{6}`)."""
    if equals is None:
        return ""
    return " = " + (power_math(equals[3:]) or
                    equals[3:].replace(",", "{,}").replace("−", "-"))


def power_math(text: str) -> str | None:
    """A number written m × 10^k (`1.0×10⁻³¹⁰`) as the LaTeX math of one formula, its exponent
    whole (`1.0 \\times 10^{-310}`); None for a number written otherwise."""
    power = POWER_TEXT.fullmatch(text)
    if power is None:
        return None
    sign, m, k = power.groups()
    exponent = k.translate(PLAIN_DIGITS)
    return f"{'-' if sign else ''}{m.replace(',', '{,}')} \\times 10^{{{exponent}}}"


def math(match: re.Match[str]) -> str:
    """The letter as LaTeX math, its primes and value with it."""
    return math_of(match.group("letter")[:1] + match.group("primes")) + value(
        match.group("letter_eq"))


def is_subscript(value: object) -> bool:
    """Whether `value` is a plain string of subscript digits (`₁`, `₁₂`): attn's numbering, never
    a word; a Symbol keeps its own LaTeX."""
    return (isinstance(value, str) and not isinstance(value, Symbol) and bool(value)
            and all(ch in SUBSCRIPT_DIGITS for ch in value))


def subscripted(match: re.Match[str]) -> str:
    """`K₁` as LaTeX math: `K_{1}`; `S′₂` as `S'_{2}`."""
    digits = match.group("sub_digits").translate(_DIGITS)
    return math_of(match.group("sub_letter")) + "_{" + digits + "}"


_DIGITS = str.maketrans(SUBSCRIPT_DIGITS, "0123456789")
