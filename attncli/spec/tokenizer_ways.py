"""Whether a tokenizer pattern's repetitions, side by side, can share out a text among them in
more ways than a text has characters before a part that can fail (the pattern read by
spec/tokenizer_regex.py): `\\w*\\w*\\w*\\d` on 1,000 letters tries about 10⁹ ways at each
position, `\\w{0,200}\\w{0,200}\\w{0,200}\\d` 8·10⁶, and a backtracking engine (Oniguruma's, in
`tokenizers`) tries every one before the `\\d` gives up.

A run is the repetitions met one after another, with only optional items between them, whose
characters overlap (one character all of them can take); its ways are the product of the lengths
each can take (a repetition without an end: MAX_TEXT). A part that can fail (a character, a group
that must match, an assertion, a repetition of at least one) after a run of more than MAX_TEXT
ways is refused. So `\\s*[\\r\\n]+` (Llama 3) or o200k's `[\\p{Lu}…]*[\\p{Ll}…]+` pass: the part
that fails is one of the two. Possessive repetitions (`*+`) and atomic groups (`(?>…)`) give
nothing back, so they start no run.

An optional item (`x?`, `x??`, `x{0,1}`, `(?:…)?`) takes its characters or none: 2 ways where
its characters overlap the run's or the item's before it (22 `\\w?` before a `\\d`: 2²² ways at
each position); one that overlaps neither leaves the run as it is (`\\s*x?\\s*`). A run holding
an optional item may have twice MAX_TEXT ways, no more: GPT-4o's `[^\\r\\n\\p{L}\\p{N}]?`
before `[\\p{Lu}…]*` (the two share the combining marks) makes 2 × 1,000 before the `+` after
them.

A group repeated (`{n}`, `{n,m}`, `*`, `+`) whose one pass can take a run of one character in
w ways, w > 1, takes n passes in w^n ways (at most MAX_TEXT⁴): `(\\w{1,9})+`, `(\\w?\\w?){11}`,
and `(?:a|ab?){30}`, whose two alternatives both take an `a` (2³⁰ ways before a `\\d` fails;
Oniguruma gives up on 30 letters). Alternatives add their ways where both can take a run of the
same character; `(?:ab|ac)+` and `(?:\\r?\\n)+` take no such run, and pass. A group whose
passes can spell one text in two ways, `(?:ab|a|b)+` (`ab` one pass or two), counts 2 ways a
pass however its characters run (spec/tokenizer_spelling.py). Within a pass that
must take a character, the parts that take the run's multiply their ways: `(?:\\w\\w?)*` cuts a
run of letters into pieces of one or two, 2 ways a pass (Oniguruma took 2.3 s on 35 words of 27
letters before a `\\d` gave up), as `(?:\\w|\\w\\w)*` does. A pass that takes
nothing ends Oniguruma's repetition, so `(?:\\w?){22}` tries one length of the text for each count
of passes, as `\\w{0,22}` does, and counts 1 way here as a pass does (1,000 letters took it 2 ms;
22 `\\w?` in a row took 1.6 s on 30).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple

from attncli.spec.limits import MAX_TEXT
from attncli.spec.tokenizer_regex import Item, Parser
from attncli.spec.tokenizer_spelling import spelled_twice


@dataclass(frozen=True)
class Run:
    """Repetitions met one after another that can take a common character: the ways they can
    share out a text, the characters all of them take, the last one's, and their texts."""
    ways: int = 1
    common: int = 0
    last: int = 0
    last_ways: int = 1
    parts: tuple[str, ...] = ()
    spare: int = 1  # the ways of its optional items (at most SPARE), and of the last item's
    last_spare: int = 1
    last_part: str = ""


SPARE = 2  # the ways a run's optional items may multiply MAX_TEXT by


class TooManyWays(Exception):
    def __init__(self, run: Run) -> None:
        super().__init__(run.parts)
        self.run = run


class Found(NamedTuple):
    """Repetitions that share out a text in more ways than their run may have (`limit`)."""
    parts: tuple[str, ...]
    ways: int
    limit: int


def side_by_side(regex: str) -> Found | None:
    """The repetitions of `regex` (texts), the ways they share out a text of MAX_TEXT characters
    before a part that can fail, and the most their run may have (MAX_TEXT, twice that with an
    optional item), if the ways are more; else None."""
    WALKED.clear()
    try:
        walk(Parser(regex).alternatives(), Run(), True)
    except TooManyWays as found:
        return Found(found.run.parts, found.run.ways, limit(found.run))
    finally:
        WALKED.clear()
    return None


def walk(alts: list[list[Item]], run: Run, checking: bool) -> Run:
    """The run after the alternatives `alts` met with `run` open (the one of most ways); each
    group is walked once for each run met with, however deep it is."""
    key = (id(alts), run, checking)
    if key not in WALKED:
        WALKED[key] = max((sequence(items, run, checking) for items in alts),
                          key=lambda end: end.ways)
    return WALKED[key]


WALKED: dict[tuple[int, Run, bool], Run] = {}


def limit(run: Run) -> int:
    return MAX_TEXT * run.spare


def fails(run: Run, checking: bool) -> None:
    if checking and run.ways > limit(run):
        raise TooManyWays(run)


def sequence(items: list[Item], run: Run, checking: bool) -> Run:
    for item in items:
        nullable = item.low == 0 or may_be_empty(item)
        if item.kind in ("look", "atomic", "group") and (
                item.kind != "group" or item.high != 1 or item.possessive):
            walk(item.alts, Run(), True)  # what it does on its own
        if item.kind == "flags":
            continue
        if item.kind in ("zero", "look"):  # matches nothing, may fail
            fails(run, checking)
        elif item.high == 1 or item.possessive or item.kind == "atomic":  # gives nothing back
            optional = item.low == 0 and item.high == 1 and not item.possessive
            grouped = item.kind == "group" and not item.possessive and item.high == 1
            if grouped:
                if nullable:  # cannot fail: its repetitions may join the run
                    walk(item.alts, Run(), True)
                    run = max(run, walk(item.alts, run, False), key=lambda end: end.ways)
                else:
                    run = walk(item.alts, run, checking)
            if optional and item.kind in ("set", "backref", "group", "atomic"):
                run = joined(run, item)  # taken or not: 2 ways
            elif not grouped and not nullable:
                fails(run, checking)
                run = run if item.possessive else Run()
        else:  # a repetition that can give back what it took
            if not nullable:
                fails(run, checking)
            run = joined(run, item)
    return run


def joined(run: Run, item: Item) -> Run:
    chars = item.chars if item.kind in ("set", "backref") else all_chars(item.alts)
    ways = repeated(item)
    optional = item.high == 1
    spare = ways if optional else 1
    if run.common & chars:  # (the ways said at most MAX_TEXT⁴)
        return Run(min(run.ways * ways, MAX_TEXT ** 4), run.common & chars, chars, ways,
                   (*run.parts, item.text), min(run.spare * spare, SPARE), spare, item.text)
    if run.last & chars:
        return Run(min(run.last_ways * ways, MAX_TEXT ** 4), run.last & chars, chars, ways,
                   (run.last_part, item.text), min(run.last_spare * spare, SPARE), spare,
                   item.text)
    if optional:  # overlaps neither: the run goes on, and the next item may join this one
        return Run(run.ways, run.common, chars, ways, run.parts, run.spare, spare, item.text)
    return Run(ways, chars, chars, ways, (item.text,), spare, spare, item.text)


def repeated(item: Item) -> int:
    """The ways `item`'s repetition can take a run of one character: the lengths it can have
    (a repetition without an end: MAX_TEXT), or for a group repeated, its passes' ways to the
    number of passes (`(\\w{1,9}){3}`: 9³; at most MAX_TEXT⁴)."""
    top = MAX_TEXT if item.high is None else min(item.high, MAX_TEXT)
    ways = max(1, min(MAX_TEXT, top - item.low + 1))
    if item.kind == "group" and item.high != 1 and (each := passes_ways(item)) > 1:
        ways = min(each ** min(top, PASSES), MAX_TEXT ** 4)
    return ways


def passes_ways(item: Item) -> int:
    """The ways one pass of the repeated group `item` takes a run of one character, at least 2
    where its passes can spell one text in two ways (`(?:ab|a|b)+`: spec/tokenizer_spelling.py),
    which n passes can do n/2 times over."""
    if item.twice is None:
        item.twice = spelled_twice(item.alts)
    return max(one_pass(item.alts), 2 if item.twice else 1)


PASSES = 40  # enough passes of 2 ways each to pass MAX_TEXT⁴


def one_pass(alts: list[list[Item]]) -> int:
    """The ways one pass of a group can take a run of one character: each alternative's, added
    where two can take a run of the same character (`a|ab?`: 2; `ab|ac`: 1, neither takes `aa`)."""
    each = [(max(sequence(items, Run(), False).ways, along(items, chars)), chars)
            for items in alts for chars in (uniform(items),)]
    return max(sum(other for other, theirs in each if theirs & chars) if chars else ways
               for ways, chars in each)


def along(items: list[Item], chars: int) -> int:
    """The ways `items`, where one must take a character, take a run of one of `chars` one after
    another: the product of the ways each that takes them can (`\\w\\w?`: 1 × 2, the run cut
    after its first or its second letter). A pass that may take nothing is counted as a run
    (`sequence`): one that takes nothing ends Oniguruma's repetition."""
    if all(map(may_be_empty, items)):
        return 1
    ways = 1
    for item in items:
        taken = item.chars if item.kind in ("set", "backref") else all_chars(item.alts)
        if item.kind in ("zero", "look", "flags", "atomic") or item.possessive or not (
                taken & chars):
            continue  # takes none of them, or gives nothing back
        ways *= repeated(item)
        if item.kind == "group" and item.high == 1:
            ways *= one_pass(item.alts)
    return min(ways, MAX_TEXT ** 4)


def uniform(items: list[Item]) -> int:
    """The characters of which `items` can take a run (one character, many times): those every
    part that must take a character takes, or, where none must, those any part takes."""
    taking = [item for item in items if item.kind in ("set", "backref", "group", "atomic")]
    must = [item for item in taking if not may_be_empty(item)]
    found = -1 if must else 0
    for item in must or taking:
        chars = item.chars if item.kind in ("set", "backref") else 0
        for inner in item.alts:
            chars |= uniform(inner)
        found = found & chars if must else found | chars
    return found


def all_chars(alts: list[list[Item]]) -> int:
    found = 0
    for items in alts:
        for item in items:
            found |= item.chars | all_chars(item.alts)
    return found


def may_be_empty(item: Item) -> bool:
    if item.low == 0 or item.kind in ("zero", "look", "flags"):
        return True
    if item.kind in ("group", "atomic"):
        if item.empty is None:
            item.empty = any(all(map(may_be_empty, items)) for items in item.alts)
        return item.empty
    return False
