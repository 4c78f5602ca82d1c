"""What the `tokenizers` package says (serde's JSON reader, its models, Oniguruma), as catalogue
messages: the same rule as library_messages.py, for the package attn reads tokenizer files with."""

from __future__ import annotations

import re
from collections.abc import Callable

from attncli.i18n import Msg, quoted

# What the `tokenizers` package says of a tokenizer.json it refuses (serde's words, before the
# " at line L column C" it ends with), by pattern; each makes its message from the match.
TOKENIZERS_PROBLEMS: list[tuple[re.Pattern[str], Callable[[re.Match[str]], Msg]]] = [
    (re.compile(p), m) for p, m in [
        (r"missing field `(?P<key>[^`]*)`",
         lambda found: Msg.of("the key {key} is missing", key=found["key"])),
        (r"Model missing\.", lambda found: Msg.of("the key {key} is missing", key="model")),
        (r"unknown field `(?P<key>[^`]*)`.*",
         lambda found: Msg.of("the tokenizers package knows no key {key} here",
                              key=found["key"])),
        (r"unknown variant `(?P<found>[^`]*)`.*",
         lambda found: Msg.of("the tokenizers package knows no type {found} here",
                              found=found["found"])),
        (r"data did not match any variant of untagged enum .*",
         lambda found: Msg.of("the tokenizers package knows no part of this type with these "
                              "keys")),
        (r"invalid type: .*|invalid value: .*",
         lambda found: Msg.of("a value of the wrong kind (text, number, list or mapping) for "
                              "its key")),
        # serde's syntax messages, met in a file Python's JSON reader has read: the package
        # stopped where its tokenizer's layout and the file part (a file that is not one)
        (r"expected .*|EOF while parsing .*|trailing .*|key must be .*",
         lambda found: Msg.of("the tokenizers package expects something else here (is it a "
                              "tokenizer file?)")),
        (r"Oniguruma error: .*",
         lambda found: Msg.of("a pattern (Regex) that Oniguruma cannot compile")),
        (r"Unknown tokenizer version '(?P<found>.*)'",
         lambda found: Msg.of("the tokenizers package knows no tokenizer version {found}",
                              found=quoted(found["found"]))),
        (r"number out of range",
         lambda found: Msg.of("a number past the range of a 64-bit float")),
        (r"invalid length (?P<count>\d+), expected .*",
         lambda found: Msg.plural_of("a list of {count} item, a length the tokenizers package "
                                     "does not take here", "a list of {count} items, a length "
                                     "the tokenizers package does not take here",
                                     int(found["count"]))),
        (r"Dropout should be between 0 and 1, inclusive",
         lambda found: Msg.of("expected a dropout from 0 to 1")),
        (r"Unable to load vocab UnkIdNotInVocabulary",
         lambda found: Msg.of("the model's unk_id is the place of no piece of its vocabulary")),
        (r"Token `(?P<token>.*)` out of vocabulary",
         lambda found: Msg.of("a merge makes or joins the token {token}, which the vocabulary "
                              "does not hold", token=quoted(found["token"]))),
    ]]

# What the package says when a text it encodes meets what its model cannot give (no location).
ENCODING_PROBLEMS: list[tuple[re.Pattern[str], Callable[[re.Match[str]], Msg]]] = [
    (re.compile(p), m) for p, m in [
        # WordPiece's and WordLevel's name [UNK] whatever their unk_token is
        (r"(?:WordPiece|WordLevel) error: Missing .* token from the vocabulary|"
         r"Unk token `.*` not found in the vocabulary",
         lambda found: Msg.of("the text holds a word that the vocabulary does not, and the "
                              "model's unk_token is not in the vocabulary either")),
        (r"Encountered an unknown token but `unk_id` is missing",
         lambda found: Msg.of("the text holds a piece that the vocabulary does not, and the "
                              "model has no unk_id to give it")),
    ]]


def tokenizers_problem(message: str) -> tuple[Msg, int | None, int | None]:
    """The message of the `tokenizers` package refusing a tokenizer.json (which is JSON) as a
    catalogue message, with the line and column it names (None if it names none)."""
    place = re.fullmatch(r"(?P<said>.*) at line (?P<line>\d+) column (?P<column>\d+)", message)
    said = place["said"] if place is not None else message
    line = int(place["line"]) if place is not None else None
    column = int(place["column"]) if place is not None else None
    for pattern, made in TOKENIZERS_PROBLEMS:
        found = pattern.fullmatch(said)
        if found is not None:
            return made(found), line, column
    return Msg.of("the tokenizers package's message has no translation: {detail}",
                  detail=said), line, column


def encoding_problem(message: str) -> Msg:
    """The message of the `tokenizers` package failing to encode a text, as a catalogue
    message."""
    for pattern, made in ENCODING_PROBLEMS:
        found = pattern.fullmatch(message)
        if found is not None:
            return made(found)
    return Msg.of("the tokenizers package's message has no translation: {detail}",
                  detail=message)


def regex_search_problem(message: str, name: str, pattern: str, key: str) -> Msg | None:
    """Oniguruma giving up on the pattern `pattern` (at `key` of the tokenizer file `name`)
    while the tokenizer splits a text, past its retry or stack limit, as a catalogue message;
    None for any other failure."""
    if re.fullmatch(r"Onig: Regex search error: .*(limit|over).*", message.strip()):
        return Msg.of("{name}: the pattern {pattern} at {key} backtracks more on this text than "
                      "the regex engine (Oniguruma) allows; overlapping alternatives repeated, "
                      "as in (a|a)+, do that", name=name, pattern=pattern, key=key)
    return None
