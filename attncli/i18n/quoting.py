"""Values quoted back in a refusal, cut to a length a reader takes in: a 400-digit number, a
100,000-character --steps or a pasted page in --expand is shown by its ends around an ellipsis,
so that the one line on stderr stays one line a terminal or a CI log shows whole."""

from __future__ import annotations

from attncli.i18n import Msg, Param

SHOWN = 40  # characters of a value quoted back in a message; a longer one is cut in the middle
LONGEST = 120  # a parameter longer than this that is not a list ("a, b, c") is a quoted value


def shown(text: str) -> str:
    """`text` to quote in a message: whole when short, else its ends around an ellipsis."""
    return text if len(text) <= SHOWN else f"{text[:SHOWN // 2]}…{text[-(SHOWN // 4):]}"


def clipped(message: Msg) -> Msg:
    """`message` with every value it quotes from the input held to `shown`'s length: the one
    rule for every refusal the commands print (attncli/cli/running.py), whichever check made
    it. A list of the known names ("expected one of a, b, c") is kept whole."""
    return Msg(message.msgid, tuple((name, _clipped(value)) for name, value in message.params),
               message.plural, message.count)


def _clipped(value: Param) -> Param:
    if isinstance(value, Msg):
        return clipped(value)
    if isinstance(value, bool) or not isinstance(value, (str, int)):
        return value
    if isinstance(value, int):
        return value if abs(value) < 10**SHOWN else shown(str(value))
    if len(value) > LONGEST and ", " not in value:
        return shown(value)
    return value

