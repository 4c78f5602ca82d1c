"""The one module that knows about gettext.

Callers build a `Msg` (an English msgid, optionally a plural form and a count, and named
parameters) and never format user-facing text themselves. A renderer translates a Msg with
`translate(msg, lang, number)`: the catalog picks the sentence (and its plural form by the
language's CLDR rule), then the parameters are filled in. Numbers are formatted by the caller's
`number` function, so precision and the decimal mark stay a rendering choice.
"""

from __future__ import annotations

import gettext
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Union

LANGUAGES = ("en", "pl", "ru")
DEFAULT_LANG = "en"
DOMAIN = "attn"
LOCALE_DIR = Path(__file__).parent / "locale"

# A str parameter is shown as written (a token name, a file name); a Msg is translated too.
Param = Union[str, int, float, "Msg"]


@dataclass(frozen=True)
class Msg:
    """A sentence to be translated: msgid (English), optional plural msgid and its count."""

    msgid: str
    params: tuple[tuple[str, Param], ...] = field(default=())
    plural: str | None = None
    count: int | None = None

    @classmethod
    def of(cls, msgid: str, /, **params: Param) -> Msg:
        return cls(msgid, tuple(sorted(params.items())))

    @classmethod
    def plural_of(cls, singular: str, plural: str, count: int, /, **params: Param) -> Msg:
        params = {"count": count, **params}
        return cls(singular, tuple(sorted(params.items())), plural, count)


def _default_number(value: float) -> str:
    return f"{value:g}"


@cache
def catalog(lang: str) -> gettext.NullTranslations:
    """The compiled catalog of `lang`; English is the source language and needs none."""
    if lang == DEFAULT_LANG:
        return gettext.NullTranslations()
    return gettext.translation(DOMAIN, localedir=str(LOCALE_DIR), languages=[lang])


def translate(
    msg: Msg | str, lang: str = DEFAULT_LANG, number: Callable[[float], str] = _default_number
) -> str:
    """The sentence in `lang`, its parameters filled in (numbers through `number`)."""
    if isinstance(msg, str):
        return msg
    cat = catalog(lang)
    if msg.plural is not None and msg.count is not None:
        text = cat.ngettext(msg.msgid, msg.plural, msg.count)
    else:
        text = cat.gettext(msg.msgid)
    values = {name: _param(value, lang, number) for name, value in msg.params}
    return text.format(**values)


def _param(value: Param, lang: str, number: Callable[[float], str]) -> str:
    if isinstance(value, Msg):
        return translate(value, lang, number)
    if isinstance(value, bool):
        return str(value).lower()
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return number(value)
    return value
