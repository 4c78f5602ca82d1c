"""The one module that knows about gettext.

The catalogs are the `.po` files in locale/<lang>/LC_MESSAGES/, read when first needed (po.py
says why there are no compiled `.mo` files); their terms follow GLOSSARY.md. Callers build a
`Msg` (an English msgid, optionally a plural form and a count, and named parameters) and never
format user-facing text themselves. A renderer translates a Msg with
`translate(msg, lang, number)`: the catalog picks the sentence (and its plural form by the
language's CLDR rule), then the parameters are filled in. Numbers are formatted by the caller's
`number` function, so precision and the decimal mark stay a rendering choice.
"""

from __future__ import annotations

import gettext
import io
import re
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import field
from functools import cache
from itertools import islice
from pathlib import Path
from typing import Union

from attncli.i18n.suggest import closest
from attncli.records import record

LANGUAGES = ("en", "pl", "ru")
DEFAULT_LANG = "en"
DOMAIN = "attn"
LOCALE_DIR = Path(__file__).parent / "locale"

@record
class Finer:
    """A number to be printed with `more` decimals than the others (a weight that would
    otherwise read the same as its neighbour's)."""

    value: float
    more: int


@record
class Power:
    """A number far from 1 (a number format's largest, its smallest) written m × 10^k to two
    significant digits, with the reader's decimal mark: 3.4×10³⁸, 1,2×10⁻³⁸."""

    value: float


# an exponent in superscript digits (m × 10^k as attn writes it) and back
SUPERSCRIPT = str.maketrans("0123456789-", "⁰¹²³⁴⁵⁶⁷⁸⁹⁻")
PLAIN_DIGITS = str.maketrans("⁰¹²³⁴⁵⁶⁷⁸⁹⁻⁺", "0123456789-+")


def power_text(power: Power, number: Callable[[float], str]) -> str:
    """`power` as text, with the decimal mark of `number` (a NumberFormat): 3,4×10³⁸."""
    m, k = f"{power.value:.1e}".split("e")
    return m.replace(".", getattr(number, "decimal", ".")) + "×10" + str(int(k)).translate(
        SUPERSCRIPT)


class Symbol(str):
    """attn's own notation where a user's word could stand (a matrix's name `W_Q` in a sentence,
    a column label `m_old`): text formats print the text; LaTeX and Markdown typeset `latex` as
    math instead of escaping the text as a word."""

    latex: str

    def __new__(cls, text: str, latex: str) -> Symbol:
        made = super().__new__(cls, text)
        made.latex = latex
        return made

    def __getnewargs__(self) -> tuple[str, str]:  # type: ignore[override]
        return (str(self), self.latex)


class Constant(Symbol):
    """A Symbol that holds numbers of the spec (`α = 1.702`, `ε = 10⁻⁵`, GELU's 0.044715), written
    with a decimal point: a renderer writes them with the reader's decimal mark
    (attncli/render/decimal_marks.py), since the walkthrough is built once for either."""

    __slots__ = ()


class Digits(str):
    """Numbers of the spec a sentence writes as words, as given (ALiBi's slopes `0.0625, 0.25`, a
    gradient `−0.023083`), with a decimal point and `, ` between several: a renderer writes them
    with the reader's decimal mark, and `; ` between them after a decimal comma
    (attncli/render/decimal_marks.py)."""

    __slots__ = ()


class Count(int):
    """A count or a size in a sentence (numbers, bytes, characters, tokens, values): written with
    its digits grouped as the language writes them, `10,000,000` in English, `10 000 000` in
    Polish and Russian (typography.py `group_digits`). A position a user types back (a row, a
    line, a column, an index) stays a plain int, written as it is; a matrix's shape in an error
    line is a Shape."""

    __slots__ = ()


class Shape(tuple[int | str, ...]):
    """A matrix's shape in an error line, `3 × 2`: each size grouped as a Count is
    (`1 × 100,000,000`; `1 × 100 000 000` in Polish and Russian), `?` for a size not known. The
    shapes of the walkthrough's own matrices are written by the renderers, as they are."""

    __slots__ = ()

    def __str__(self) -> str:
        return " × ".join(str(size) for size in self)


# A str parameter is shown as written (a token name, a file name); a Msg is translated too.
Param = Union[str, int, float, Finer, Power, Shape, "Msg"]  # a Count is an int


@record
class Msg:
    """A sentence to be translated: msgid (English), optional plural msgid and its count."""

    msgid: str
    params: tuple[tuple[str, Param], ...] = field(default=())
    plural: str | None = None
    count: int | None = None
    # numbers the sentence itself writes with a decimal point (GELU's 0.5 and 0.044715), and
    # whether the reader's mark is the comma (attncli/render/decimal_marks.py sets it): `template`
    # writes them with it, in every language and format
    decimals: tuple[str, ...] = ()
    comma: bool = False

    @classmethod
    def of(cls, msgid: str, /, **params: Param) -> Msg:
        return cls(msgid, tuple(sorted(params.items())))

    @classmethod
    def plural_of(cls, singular: str, plural: str, count: int, /, **params: Param) -> Msg:
        params = {"count": count, **params}
        return cls(singular, tuple(sorted(params.items())), plural, count)


def renamed(msg: Msg, names: Mapping[str, str]) -> Msg:
    """`msg` with each value `names` has (a whole parameter, also in the sentences it holds)
    written as `names` says: the command line's `--max-cells` as the library's `max_cells`."""
    params = tuple((name, names.get(value, value) if isinstance(value, str)
                    else renamed(value, names) if isinstance(value, Msg) else value)
                   for name, value in msg.params)
    return Msg(msg.msgid, params, msg.plural, msg.count, msg.decimals, msg.comma)


def quoted(name: str) -> Msg:
    """A token's name inside a sentence, in the language's quotation marks („a”, «a», “a”): a
    token may be a word of the sentence's own language (`a`, `I`, `we`, `и`), so it is always
    set apart, in every format alike."""
    return Msg.of("“{name}”", name=name)


def listing(items: Sequence[Msg | str]) -> Msg | str:
    """`a`, `a and b`, `a, b and c`."""
    if len(items) == 1:
        return items[0]
    return Msg.of("{first} and {last}", first=_commas(items[:-1]), last=items[-1])


def quoted_list(names: Sequence[str], most: int | None = None) -> Msg | str:
    """Token names in a sentence, each quoted, separated by commas: „we”, „read”; with `most`,
    a longer list is its first names, an ellipsis and its last (the rows of 600 tokens)."""
    if not names:
        return ""
    items: list[Msg | str] = [quoted(name) for name in names]
    if most is not None and len(items) > most:
        items = [*items[:most - 1], "…", items[-1]]
    return _commas(items)


def _commas(items: Sequence[Msg | str]) -> Msg | str:
    """`a, b, c`, nested in halves: a list of 3,000 names is 12 sentences deep, not 3,000
    (which no recursion of Python's reaches)."""
    if len(items) == 1:
        return items[0]
    half = len(items) // 2
    return Msg.of("{first}, {second}", first=_commas(items[:half]), second=_commas(items[half:]))


def N_(msgid: str) -> str:
    """Mark `msgid` for the catalogs where a plain string is needed (an option's help text, a
    word of Click's): the extractor collects it, and the caller translates it later."""
    return msgid


# what a shell's locale names English by (LANG=C, LANG=POSIX)
_ENGLISH_LOCALES = ("c", "posix")


def language_code(text: str) -> str:
    """The language of a code or a locale as the shell writes it: `PL` -> `pl`, `pl_PL.UTF-8`
    -> `pl`, `ru-RU` -> `ru`, `C.UTF-8` -> `en`; unchecked."""
    code = re.split(r"[_.@-]", text.strip().lower(), maxsplit=1)[0]
    return DEFAULT_LANG if code in _ENGLISH_LOCALES else code


def comma_parts(text: str) -> Iterator[str]:
    """The parts of a comma list, one at a time: a caller that stops at the first bad one reads
    no further (`text.split(",")` made two million parts of a list refused at its second)."""
    start = 0
    while (end := text.find(",", start)) >= 0:
        yield text[start:end]
        start = end + 1
    yield text[start:]


def suggesting(message: Msg, word: str, known: Iterable[str]) -> Msg:
    """`message`, then `; did you mean X?` when `word` is close to one of `known` (suggest.py)."""
    close = closest(word, known)
    return message if close is None else Msg.of("{problem}; did you mean {suggestion}?",
                                                 problem=message, suggestion=close)


def first_known(*texts: str | None) -> str:
    """The first code of these comma lists that attn speaks, else English: the language of an
    error found before the requested languages are checked."""
    for text in texts:
        # a list is refused by its (len(LANGUAGES) + 1)th part at the latest: no further parts
        for code in map(language_code, islice(comma_parts(text or ""), len(LANGUAGES) + 1)):
            if code in LANGUAGES:
                return code
    return DEFAULT_LANG


def _default_number(value: float) -> str:
    return f"{value:g}"


def po_path(lang: str) -> Path:
    return LOCALE_DIR / lang / "LC_MESSAGES" / f"{DOMAIN}.po"


@cache
def catalog(lang: str) -> gettext.NullTranslations:
    """The catalog of `lang`; English is the source language and needs none."""
    if lang == DEFAULT_LANG:
        return gettext.NullTranslations()
    from attncli.i18n.po import mo_bytes, read_po

    entries = read_po(po_path(lang).read_text(encoding="utf-8"))
    return gettext.GNUTranslations(io.BytesIO(mo_bytes(entries)))


def translate(
    msg: Msg | str, lang: str = DEFAULT_LANG, number: Callable[[float], str] = _default_number
) -> str:
    """The sentence in `lang`, its parameters filled in (numbers through `number`)."""
    if isinstance(msg, str):
        return msg
    values = {name: _param(value, lang, number) for name, value in msg.params}
    return template(msg, lang, values).format(**values)


def template(msg: Msg, lang: str, values: dict[str, str] | None = None) -> str:
    """The catalog sentence of `msg` in `lang`, its `{fields}` not yet filled in, typeset
    (no-break spaces after one-letter words, before dashes; see typography.py). `values`, the
    parameters as they will be written, say which one is itself a one-letter word. Every
    format starts from here, so a PDF keeps the same no-break spaces as the terminal."""
    cat = catalog(lang)
    if msg.plural is not None and msg.count is not None:
        text = cat.ngettext(msg.msgid, msg.plural, msg.count)
    else:
        text = cat.gettext(msg.msgid)
    from attncli.i18n.typography import bind_after, is_one_letter_word, typeset, with_comma

    if msg.comma:
        text = with_comma(text, msg.decimals)
    if lang == DEFAULT_LANG:
        return typeset(text, lang)  # English as written, but for a model's name: `Gemma 2`

    short = [name for name, value in (values or {}).items() if is_one_letter_word(value, lang)]
    return bind_after(typeset(text, lang), short)


def _param(value: Param, lang: str, number: Callable[[float], str]) -> str:
    if isinstance(value, Msg):
        return translate(value, lang, number)
    if isinstance(value, bool):
        return str(value).lower()
    if isinstance(value, Count):
        from attncli.i18n.typography import group_digits

        return group_digits(value, lang)
    if isinstance(value, Power):
        return power_text(value, number)
    if isinstance(value, Shape):
        from attncli.i18n.typography import group_digits

        return " × ".join(size if isinstance(size, str) else group_digits(size, lang)
                          for size in value) or "()"  # a single number: NumPy's shape ()
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return number(value)
    if isinstance(value, Finer):
        finer = getattr(number, "finer", None)  # a NumberFormat; a bare function as it is
        return finer(value.more)(value.value) if finer else number(value.value)
    return value
