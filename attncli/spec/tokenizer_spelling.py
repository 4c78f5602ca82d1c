"""Whether the alternatives of a repeated group can spell one text in two ways, one pass after
another: `(?:ab|a|b)+` takes `ab` as one pass or as two, so a text of `ab` n times in 2ⁿ ways,
and a backtracking engine tries them all before a part after the group fails (Oniguruma took
0.19 s on `ab` 20 times and `!`, and gives up at 21; a text of 23 such words took 5.2 s). The
ways of spec/tokenizer_ways.py count runs of one character, which `ab` is not.

The alternatives read here are words of character sets, each set taken once or a fixed number
of times (`ab`, `\\r\\n`, `[a-z]{2}`); a group with another kind of alternative is left to the
other checks. Two ways of spelling one text are found as Sardinas and Patterson find that a set of
words is not a code: from every word that can begin another, what is left of the longer one
(`b`, after `a` begins `ab`) is set against every word again, and a remainder that comes out
empty is a text two sequences of passes spell. Two sets can stand for one character when they
share one (the sample of spec/tokenizer_charsets.py), and each character of the text is read
by exactly two passes, so comparing the sets place by place is exact.
"""

from __future__ import annotations

from attncli.spec.tokenizer_regex import Item

Word = tuple[int, ...]  # a character set for each character

# Characters of a group's alternatives read as words, in all (a pattern has at most 1,000
# characters, but `a{900}` is 900 letters): what is left of one is compared with each word,
# so the comparisons are at most this squared.
MAX_LETTERS = 1000


def spelled_twice(alts: list[list[Item]]) -> bool:
    """Whether two sequences of the alternatives `alts` (each a word of sets) can spell the same
    text; False where an alternative is not such a word."""
    words: list[Word] = []
    for items in alts:
        word = as_word(items)
        if word is None or sum(map(len, words)) + len(word) > MAX_LETTERS:
            return False
        words.append(word)
    left: set[Word] = set()
    for k, first in enumerate(words):
        for other in words[k + 1:]:
            if begins(first, other) or begins(other, first):
                if len(first) == len(other):
                    return True  # `a|a`, `[ab]|a`: one text, two passes
                shorter, longer = sorted((first, other), key=len)
                left.add(longer[len(shorter):])
    seen = set(left)
    while left:
        rest = left.pop()
        for word in words:
            if begins(word, rest) or begins(rest, word):
                if len(word) == len(rest):
                    return True
                shorter, longer = sorted((word, rest), key=len)
                after = longer[len(shorter):]
                if after not in seen:
                    seen.add(after)
                    left.add(after)
    return False


def begins(start: Word, word: Word) -> bool:
    """Whether a text `start` spells can begin one `word` spells."""
    return len(start) <= len(word) and all(a & b for a, b in zip(start, word, strict=False))


def as_word(items: list[Item]) -> Word | None:
    """The sets of `items`, each as many times as it is taken, if each is a set taken a fixed
    number of times, at least once; else None."""
    word: list[int] = []
    for item in items:
        if item.kind != "set" or item.high is None or item.low != item.high or item.low < 1:
            return None
        word.extend([item.chars] * item.low)
        if len(word) > MAX_LETTERS:
            return None
    return tuple(word) if word else None
