"""Values quoted back in a refusal, cut to a length a reader takes in: a 400-digit number, a
100,000-character --steps or a pasted page in --expand is shown by its ends around an ellipsis,
so that the one line on stderr stays one line a terminal or a CI log shows whole.

Lengths are counted as the reader sees them: a hidden character by the escape it is shown as
(`\\u202e`, six characters), and the cut never falls between a letter and the accent that sits on
it, nor inside an escape."""

from __future__ import annotations

import unicodedata

from attncli.i18n import Msg, Param
from attncli.i18n.visible import escape_char, is_hidden

SHOWN = 40  # characters of a value quoted back in a message; a longer one is cut in the middle
LONGEST = 120  # a quoted value longer than this is cut to SHOWN
# The parameters that list names attn knows ("expected one of a, b, c", "its rows are …"): kept
# whole up to LIST_LONGEST, so that the reader sees every name they may write; a longer list (the
# rows of 8,000 tokens, the matrices of 256 heads) keeps its first names and its last.
LISTS = frozenset({"known", "choices", "allowed", "options", "names", "expandable", "folders",
                   "files", "words", "steps", "rows", "columns", "heads", "keys"})
LIST_LONGEST = 1000
LIST_HEAD = 200  # characters of the first names of a list cut at LIST_LONGEST


def width(text: str) -> int:
    """How many characters `text` takes once its hidden characters are shown as escapes."""
    return sum(len(escape_char(char)) if is_hidden(char) else 1 for char in text)


def shown(text: str) -> str:
    """`text` to quote in a message: whole when short, else its ends around an ellipsis."""
    if len(text) <= SHOWN and width(text) <= SHOWN:
        return text
    head = _fitting(text, SHOWN // 2)
    while head < len(text) and unicodedata.combining(text[head]):  # the accents of its last letter
        head += 1
    tail = len(text) - _fitting(text[::-1], SHOWN // 4)
    while 0 < tail < len(text) and unicodedata.combining(text[tail]):  # the letter they sit on
        tail -= 1
    return f"{text[:head]}…{text[max(tail, head):]}"


def _fitting(text: str, most: int) -> int:
    """How many characters from the start of `text` show in at most `most` characters."""
    used = 0
    for count, char in enumerate(text):
        used += len(escape_char(char)) if is_hidden(char) else 1
        if used > most:
            return count
    return len(text)


def clipped(message: Msg) -> Msg:
    """`message` with every value it quotes from the input held to `shown`'s length: the one
    rule for every refusal the commands print (attncli/cli/running.py), whichever check made
    it. A list of the known names ("expected one of a, b, c") is kept whole up to
    LIST_LONGEST characters."""
    params = tuple((name, _clipped(name, value)) for name, value in message.params)
    return Msg(message.msgid, params, message.plural, message.count)


def quoted_name(text: str) -> str:
    """A file name that begins a refusal (`spec.yaml:3:7: …`), held to `shown`'s length when it
    is longer than LONGEST: a name that no file has can be as long as the command line."""
    return shown(text) if len(text) > LONGEST or width(text) > LONGEST else text


def _clipped(name: str, value: Param) -> Param:
    if isinstance(value, Msg):
        return clipped(value)
    if isinstance(value, bool) or not isinstance(value, (str, int)):
        return value
    if isinstance(value, int):
        return value if abs(value) < 10**SHOWN else shown(str(value))
    if name in LISTS:
        return _listed(value)
    return quoted_name(value)


def _listed(value: str) -> str:
    if len(value) <= LIST_LONGEST and width(value) <= LIST_LONGEST:
        return value
    names = value.split(", ")
    first: list[str] = []
    used = 0
    for name in names[:-1]:
        name = quoted_name(name)
        used += width(name) + 2
        if used > LIST_HEAD and first:
            break
        first.append(name)
    return ", ".join([*first, "…", quoted_name(names[-1])])
