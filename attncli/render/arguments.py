"""The library's `render` (attncli.render), its arguments checked before they are used: a wrong
type is a UsageError naming the function, the argument, what was expected and what was found
(`render: lang: expected a language code such as "pl", a comma list such as "pl,en", or a list
of codes, found 3`), never Python's AttributeError or TypeError from inside a renderer."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING

from attncli.errors import Location
from attncli.i18n import Msg, comma_parts
from attncli.spec.arguments import refused
from attncli.spec.view import checked_language, parse_languages

if TYPE_CHECKING:
    from attncli.model import Walkthrough

FUNCTION = "render"
# Options render holds to their range itself, with -p's own message for a wrong type too
# (`precision: expected a whole number from 0 to 12, found '3'`)
CHECKED_APART = frozenset({"precision"})


def walkthrough(value: object) -> Walkthrough:
    from attncli.model import Walkthrough  # loaded already wherever a walkthrough was built

    if isinstance(value, Walkthrough):
        return value
    raise refused(FUNCTION, "walkthrough", Msg.of("a Walkthrough (from attncli.build or "
                                                  "attncli.walkthrough_of)"), value)


def format_name(value: object, known: Iterable[str]) -> str:
    if isinstance(value, str):
        return value  # an unknown name is refused with its suggestion (render._module)
    raise refused(FUNCTION, "format", Msg.of("one of {known}", known=", ".join(known)), value)


def languages(value: str | Sequence[str]) -> tuple[str, ...]:
    """`lang`: codes as one text (`"pl,en"`) or a list of codes (each may be a comma list), in
    order. Each code is checked as it is read and the first bad one refused, named by its item
    (`render: lang[1]: the language pl is given twice`): a list of two million codes was joined
    whole (2.5 s, 340 MB) before its second was found twice."""
    if isinstance(value, str):
        return parse_languages(value, "lang", Location(FUNCTION, "lang"))
    if isinstance(value, (list, tuple)) and value:
        codes: list[str] = []
        for place, item in enumerate(value):  # attn speaks three: the fourth code is refused
            where = Location(FUNCTION, f"lang[{place}]")
            if not isinstance(item, str):  # the item, not the list: `lang[1]: … found 3`
                raise refused(FUNCTION, where.path, Msg.of("a language code such as \"pl\""),
                              item)
            for part in comma_parts(item):
                codes.append(checked_language(part, codes, where.path, item, where))
        return tuple(codes)
    raise refused(FUNCTION, "lang", Msg.of("a language code such as \"pl\", a comma list such "
                                           "as \"pl,en\", or a list of codes"), value)


def options(given: dict[str, object], annotations: dict[str, str]) -> None:
    """Each option of the type its RenderOptions field is annotated with (`width: int`,
    `header: bool`, `jobs: int | None`); an unknown option is left to Python's TypeError, as in
    any call, and a value of the right type to the option's own check (`width` from 40 to 1000)."""
    for name, value in given.items():
        hint = annotations.get(name)
        if hint is None or name in CHECKED_APART or (value is None and "None" in hint):
            continue
        if hint.startswith("bool"):
            right, expected = isinstance(value, bool), Msg.of("True or False")
        elif hint.startswith("int"):
            right = isinstance(value, int) and not isinstance(value, bool)
            expected = Msg.of("a whole number")
        else:
            right, expected = isinstance(value, str), Msg.of("a text (a str)")
        if not right:
            raise refused(FUNCTION, name, expected, value)
