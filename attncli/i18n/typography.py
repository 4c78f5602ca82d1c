"""Typography of Polish and Russian sentences, as typesetters do it.

A one-letter word (pl: a i o u w z; ru: а в и к о с у я) is bound to the next word by a no-break
space, so no line ends with one; a dash is bound to the word before it, so no line starts with
one; `name = value` stays on one line, and so do a head or a step and its number and a
percentage and its sign. Text wrapping (textwrap) and TeX (`~`) keep a no-break
space. Quotation marks are the catalog's own („…” in Polish, «…» in Russian):
tests/test_typography.py checks that no straight quote is left there.

`typeset` works on a catalog sentence before its parameters are filled in, so what the user
wrote (a file name, a token) is never changed; a parameter that is itself a one-letter word is
bound to what follows it (see `bind_after`).

What fills a sentence in is a unit of its own too, in every language: a cell's name or a
vector in brackets (`S[sat, sat]`, `(S′ + M)[sat, sat]`, `[0.20, 1.00]`) and a number with its
unit (`1 MiB`, `4 bajty`). `bind_units` finds them in the finished sentence: the text renderers
wrap with it (render/wrap.py) and the help pages are set with it (cli/language.py).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from functools import cache, lru_cache

NBSP = "\u00a0"
ONE_LETTER_WORDS = {"pl": "aiouwz", "ru": "авикосуя"}
# The patterns are compiled when first used (`_re`): English text, and `attn --help`, need none.
# A one-letter word starts the text or follows a space, a bracket or an opening quote (so the
# "a" of "YAML-a" or a {placeholder} is not one).
_ONE_LETTER = {lang: rf"(?i)(?<![^\s(„«])([{letters}]) (?=\S)"
               for lang, letters in ONE_LETTER_WORDS.items()}
_DASH = r" (—|–)(?= )"
_EQUALS = r" = (?=\{\w+\}|\d)"  # "d_model = {d}": one unit, never split by a line end
# a formula in a sentence is one unit too: "{heads} · ({d_k} + {d_v}) · 2", "(i, i + d_k/2)"
OPERATORS = "[+−·×⊙/]"  # the binary operators of the formulas attn writes in sentences
_OPERATOR = r"(?<=\S) (" + OPERATORS + r") (?=\S)"
# a head, a step or a percentage and its number are one unit: "głowica 1", "Krok 2", "0.05 %"
_NUMBERED = (r"(?<=\w) (?=\{(?:index|head|other|number)\}(?!\w))|"
             r"(?<=\}) (?=%)")
_PAIR = r"([(\[][^\s,()\[\]]{1,8},) (?=[^\s,()\[\]]{1,12}[)\]\s])"
# a cell's name or a vector: brackets (after a short bracketed matrix: `(S′ + M)[sat, sat]`)
# holding at most 40 characters; a longer vector may break after its commas
_BRACKETED = r"(?:\([^()\[\]\n]{1,16}\))?\[[^\[\]\n]{1,40}\]"
UNITS = ("KiB", "MiB", "GiB", "kB", "KB", "MB", "GB", "bytes", "byte", "bits", "bit",
         "bajtów", "bajty", "bajt", "bitów", "bity", "КиБ", "МиБ", "ГиБ", "КБ", "МБ", "ГБ",
         "байтов", "байта", "байт", "битов", "бита", "бит")
# A model's name and its number are one unit in every language: "Gemma 2", "Llama 3.1", and the
# Polish cases of the names that decline ("Gemmy 2", "w Gemmie 2", "z Llamą 3").
_NAMED = (r"(?<![\w-])((?:Gemm|Llam)(?:a|y|ie|ą|ę)|GPT|Qwen|OLMo|Mistral|Phi|Falcon) "
          r"(?=\d+(?:\.\d+)*(?!\w|[.,]\d))")
_UNIT = r"(?<![\w.,])(\d+(?:[.,]\d+)?) (?=(?:" + "|".join(UNITS) + r")(?!\w))"


@cache
def _re(pattern: str) -> re.Pattern[str]:
    return re.compile(pattern)


def bind_formulas(text: str) -> str:
    """`text` with no-break spaces around the operators of its formulas and after the comma of
    a short pair, so no line (in the terminal, in a PDF) ends inside `(i, i + d_k/2)`."""
    text = _re(_OPERATOR).sub(NBSP + r"\1" + NBSP, text)
    return _re(_PAIR).sub(r"\1" + NBSP, text)


def bind_names(text: str) -> str:
    """`text` with a no-break space between a model's name and its number (`Gemma\u00a02`), so
    no line ends with the name: textwrap keeps it, LaTeX writes it `~`, Markdown, HTML and
    Typst keep the character."""
    return _re(_NAMED).sub(r"\1" + NBSP, text) if " " in text else text


# A decimal point between digits, and the `, ` between numbers of a list: with a decimal comma,
# `0.0625, 0.25` is `0,0625; 0,25`, as a table writes its row, since `, ` would read as one more
# decimal comma; in TeX math the comma is `{,}` (a bare one is punctuation, followed by a space)
_POINT = re.compile(r"(?<=[0-9])\.(?=[0-9])")
DECIMAL = re.compile(r"[0-9]+\.[0-9]+")  # a number with a decimal point, as attn writes one
LIST, COMMA_LIST = ", ", "; "


def comma_text(numbers: str) -> str:
    """Numbers attn wrote with a decimal point (and `, ` between them), with a decimal comma:
    `0.0625, 0.25` -> `0,0625; 0,25`."""
    return _POINT.sub(",", numbers.replace(LIST, COMMA_LIST))


def comma_math(numbers: str) -> str:
    """The same in TeX math: `1.702` -> `1{,}702`, `1.5 \\times 10^{20}` -> `1{,}5 \\times
    10^{20}`."""
    return _POINT.sub("{,}", numbers.replace(LIST, COMMA_LIST))


def with_comma(text: str, decimals: Iterable[str], math: bool = False) -> str:
    """`text` with each of `decimals` (numbers written with a decimal point) written with a
    decimal comma where it stands as a number: not inside a longer one, nor inside a name such
    as a token's `v1.25` or `Llama 3.1` beside it."""
    for decimal in decimals:
        comma = comma_math(decimal) if math else comma_text(decimal)
        text = re.sub(r"(?<![\w.])" + re.escape(decimal) + r"(?![0-9])",
                      comma.replace("\\", r"\\"), text)
    return text


@lru_cache(maxsize=4096)
def typeset(text: str, lang: str) -> str:
    """`text` with no-break spaces inside a model's name (`Gemma 2`, in every language), after
    its one-letter words, before its dashes and inside its formulas (in a language that needs
    them). Kept for the next time: `text` is a catalog sentence, and a walkthrough asks for the
    same few hundred many times (23,000 times for `attn snippets` of 20 specs)."""
    text = bind_names(text)
    pattern = _ONE_LETTER.get(lang)
    if pattern is None:
        return text
    text = bind_formulas(text)
    text = _re(_EQUALS).sub(NBSP + "=" + NBSP, text)
    text = _re(_NUMBERED).sub(NBSP, text)
    text = _re(pattern).sub(r"\1" + NBSP, text)
    return _re(_DASH).sub(NBSP + r"\1", text)


def bind_units(text: str, space: str = NBSP) -> str:
    """`text` with `space` (a no-break space) for the spaces inside each cell name or vector in
    brackets and between a number and its unit: `S[sat,\u00a0sat]`, `1\u00a0MiB`."""
    if "[" in text:
        text = _re(_BRACKETED).sub(lambda m: m.group(0).replace(" ", space), text)
    return _re(_UNIT).sub(r"\1" + space, text)


# Inside a formula in prose: no line starts with a relation or an operator (`a⏎= b`, `dy⏎⊙ gain`)
# or ends with `ln` or a sum's Σⱼ (`ln⏎65504`), and a number stays with the word it counts
# (`1⏎komórce`; not a range's end: `columns 1–2⏎of W_V`).
_IN_FORMULA = (r" (?=[=≈<>≤≥≠→] )|(?<=\S) (?=" + OPERATORS + r" \S)|(?<=\S " + OPERATORS
               + r") (?=\S)|"
               r"(?:(?<=\bln)|(?<=\blog)|(?<=\bexp)|(?<=Σ\S)) (?=\S)|"
               r"(?<![–-]\d)(?<![–-]\d\d)(?<=\d) (?=[^\W\d_]{2})")


def bind_formulas_in_prose(text: str, space: str) -> str:
    """`text` with `space` for the spaces a line should not break at inside a formula of a
    sentence: before a relation or an operator, after one, after `ln` or `Σⱼ`, and between a number
    and the word it counts (for text wrapped in columns: attncli/render/wrap.py)."""
    return _re(_IN_FORMULA).sub(space, text)


def is_one_letter_word(text: str, lang: str) -> bool:
    letters = ONE_LETTER_WORDS.get(lang, "")
    return len(text) == 1 and text.lower() in letters


def bind_after(template: str, names: Iterable[str]) -> str:
    """The template with a no-break space after each `{name}` that is followed by a space."""
    for name in names:
        template = template.replace("{" + name + "} ", "{" + name + "}" + NBSP)
    return template


# Digit grouping of a whole number: English 10,000,000 from 1,000; Polish and Russian
# 10 000 000 (a no-break space, so a line never splits the number) from 10 000, their four-digit
# numbers staying whole (1000), as their typesetters write them.
_GROUPING = {"en": (",", 1000), "pl": (NBSP, 10000), "ru": (NBSP, 10000)}


def group_digits(number: int, lang: str) -> str:
    """`number` as the help pages print it in `lang`: 10000000 is `10,000,000` in English and
    `10 000 000` in Polish and Russian."""
    if number < 0:  # a size a lying file gives (a .npy header's -2 × 2): a true minus sign
        return "\u2212" + group_digits(-number, lang)
    separator, least = _GROUPING.get(lang, _GROUPING["en"])
    return f"{number:,}".replace(",", separator) if number >= least else str(number)
