"""An answer file is read as a spec is (the same byte, value and depth limits), but a refusal of
the whole file speaks of an answer file: `answers.yaml: the answer file is empty`, never "the
spec", which a student checking a hand calculation has not given there."""

from __future__ import annotations

from collections.abc import Callable

from attncli.errors import SpecError
from attncli.i18n import Msg, Param

# the refusals of the spec reader that name "the spec", each said again of an answer file, with
# the same numbers
_SAID_OF_THE_FILE: dict[str, Callable[[int, dict[str, Param]], Msg]] = {
    "the spec is empty, expected a mapping of keys": lambda count, p: Msg.of(
        "the answer file is empty; expected a mapping of step ids to matrices"),
    "this is a folder, expected a spec file": lambda count, p: Msg.of(
        "this is a folder, expected an answer file"),
    "the spec is larger than {count} byte, the limit that {option} sets": lambda count, p: (
        Msg.plural_of("the answer file is larger than {count} byte, the limit that {option} sets",
                      "the answer file is larger than {count} bytes, the limit that {option} "
                      "sets", count, **p)),
    "the spec has {count} byte; the limit is {limit}, which {option} sets": lambda count, p: (
        Msg.plural_of("the answer file has {count} byte; the limit is {limit}, which {option} "
                      "sets", "the answer file has {count} bytes; the limit is {limit}, which "
                      "{option} sets", count, **p)),
    "the spec holds {count} value once its aliases are expanded; the limit is {limit}, which "
    "{option} sets": lambda count, p: Msg.plural_of(
        "the answer file holds {count} value once its aliases are expanded; the limit is "
        "{limit}, which {option} sets", "the answer file holds {count} values once its aliases "
        "are expanded; the limit is {limit}, which {option} sets", count, **p),
    "the spec holds more than {count} value, the limit that {option} sets": lambda count, p: (
        Msg.plural_of("the answer file holds more than {count} value, the limit that {option} "
                      "sets", "the answer file holds more than {count} values, the limit that "
                      "{option} sets", count, **p)),
    "the spec nests lists and mappings more than {count} level deep": lambda count, p: (
        Msg.plural_of("the answer file nests lists and mappings more than {count} level deep",
                      "the answer file nests lists and mappings more than {count} levels deep",
                      count, **p)),
}


def of_the_answer_file(error: SpecError) -> SpecError:
    """`error` as said of an answer file, where the spec reader said "the spec"."""
    say = _SAID_OF_THE_FILE.get(error.message.msgid)
    if say is None:
        return error
    params = {key: value for key, value in error.message.params if key != "count"}
    count = error.message.count if error.message.count is not None else 0
    return SpecError(say(count, params), error.where)
