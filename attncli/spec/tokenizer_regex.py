"""A tokenizer pattern read in Oniguruma's (Ruby) syntax, the one `tokenizers` compiles, into
alternatives of items (a character set, a group, an assertion, each with its repetition), for
spec/tokenizer_ways.py to count the ways its repetitions can share out a text.

Character sets are compared on a sample of characters (spec/tokenizer_charsets.py), so two
classes overlap when a character of the sample is in both; what is not understood is taken as
any character, which can only make the check stricter. Extended mode (`(?x)`) is read as
Oniguruma reads it, spaces and comments dropped, and octal and control escapes as their
characters; a subexpression call or an absent operator is NotRun.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from attncli.spec.tokenizer_charsets import ESCAPED, Sample

MAX_DEPTH = 32  # groups inside groups (real patterns nest 2 deep)


class TooDeep(Exception):
    """A pattern nesting groups more than MAX_DEPTH deep."""


class NotRun(Exception):
    """A construct attn does not run, as written in the pattern: a subexpression call
    (`\\g<name>`, which may call a group from inside itself) or an absent operator (`(?~…)`),
    whose ways the count below cannot bound."""

    def __init__(self, construct: str) -> None:
        super().__init__(construct)
        self.construct = construct


EXTENDED_SPACE = " \t\n\r\f\v"
SIMPLE = {"t": 9, "n": 10, "r": 13, "f": 12, "v": 11, "a": 7, "e": 27}
CAPTURES = re.compile(r"\((?!\?)|\(\?P?<(?![=!])|\(\?'")


@dataclass
class Item:
    """One part of a sequence and its repetition (`high` None: no end)."""
    kind: str  # "set", "group", "atomic", "look", "zero" (an assertion), "flags", "backref"
    text: str
    chars: int = 0
    alts: list[list[Item]] = field(default_factory=list)
    low: int = 1
    high: int | None = 1
    possessive: bool = False
    empty: bool | None = None  # a group's: whether it can match nothing
    twice: bool | None = None  # a group's: whether its passes can spell one text two ways


class Parser:
    """A pattern read into alternatives of items; anything not understood is taken as any
    character (so it can only make the check stricter)."""

    def __init__(self, regex: str) -> None:
        self.regex, self.k, self.depth = regex, 0, 0
        self.sample = Sample(regex)
        self.fold = re.search(r"\(\?[a-z-]*i", regex) is not None
        self.extended = False  # Oniguruma's `x`: spaces and `#…` comments outside classes ignored
        self.captures = len(CAPTURES.findall(regex))  # at least; `\\12` past them is octal

    def skip_extended(self) -> None:
        """Past the spaces and comments extended mode ignores."""
        while self.extended and self.k < len(self.regex):
            if self.peek() in EXTENDED_SPACE:
                self.k += 1
            elif self.peek() == "#":
                end = self.regex.find("\n", self.k)
                self.k = end + 1 if end >= 0 else len(self.regex)
            else:
                return

    def peek(self, n: int = 1) -> str:
        return self.regex[self.k: self.k + n]

    def alternatives(self) -> list[list[Item]]:
        alts: list[list[Item]] = [[]]
        while True:
            self.skip_extended()
            if self.k >= len(self.regex) or self.peek() == ")":
                break
            if self.peek() == "|":
                self.k += 1
                alts.append([])
                continue
            start = self.k
            item = self.atom()
            if item is not None:
                alts[-1].append(self.quantified(item, start))
        return alts

    def atom(self) -> Item | None:
        char, start = self.peek(), self.k
        self.k += 1
        if char == "(":
            return self.group(start)
        if char == "[":
            return Item("set", "", self.bracket())
        if char == ".":
            return Item("set", "", self.sample.all & ~self.sample.char(10, False))
        if char in "^$":
            return Item("zero", char)
        if char == "\\":
            return self.escape()
        return Item("set", char, self.sample.char(ord(char), self.fold))

    def group(self, start: int) -> Item | None:
        kind = "group"
        if self.peek() == "?":
            self.k += 1
            head = self.peek()
            if head == "~":
                raise NotRun("(?~")
            if head == "#":
                self.k = self.regex.find(")", self.k) + 1 or len(self.regex)
                return None
            if head in "=!" or self.peek(2) in ("<=", "<!"):
                kind, self.k = "look", self.k + (1 if head in "=!" else 2)
            elif head == ">":
                kind, self.k = "atomic", self.k + 1
            elif head in "<'P" and self.peek(2) != "<=":
                close = ">" if head in "<P" else "'"
                self.k = self.regex.find(close, self.k + 1) + 1 or len(self.regex)
            else:
                flags = re.match(r"[a-zA-Z]*(-[a-zA-Z]*)?", self.regex[self.k:])
                written = flags.group(0) if flags else ""
                self.k += len(written)
                if "x" in written:  # on before the `-`, off after it
                    on = "x" in written.split("-")[0]
                    if self.peek() == ")":  # to the end of the enclosing group
                        self.extended = on
                    else:
                        outside, self.extended = self.extended, on
                        self.k += self.peek() == ":"
                        return self.inner(start, kind, outside)
                if self.peek() == ")":
                    self.k += 1
                    return Item("flags", self.regex[start: self.k])
                self.k += self.peek() == ":"
        return self.inner(start, kind, self.extended)

    def inner(self, start: int, kind: str, outside: bool) -> Item:
        """The group begun at `start`, read to its `)`, then extended mode as it was outside."""
        self.depth += 1
        if self.depth > MAX_DEPTH:
            raise TooDeep
        alts = self.alternatives()
        self.depth -= 1
        self.extended = outside
        self.k += self.peek() == ")"
        return Item(kind, self.regex[start: self.k], alts=alts)

    def escape(self) -> Item:
        char = self.peek()
        if char == "g" and self.peek(2)[1:] in ("<", "'"):
            raise NotRun("\\g" + self.regex[self.k + 1: self.k + 2])
        number = re.match(r"[1-9]\d*", self.regex[self.k:])
        if number and int(number.group(0)) > max(9, self.captures) and char in "1234567":
            char = "0"  # `\\141`: no group of that number, so the character 0o141, `a`
        if char in "bBAzZG" or (char.isdigit() and char != "0") or char == "k":
            self.k += 1
            if char == "k":
                self.k = self.regex.find(">", self.k) + 1 or len(self.regex)
            return Item("zero" if char in "bBAzZG" else "backref", "\\" + char,
                        self.sample.all)
        return Item("set", "", self.class_escape())

    def class_escape(self) -> int:
        """The set of `\\x` after the backslash (read on)."""
        s, char = self.sample, self.peek()
        self.k += 1
        found = s.escape(char)
        if found is not None:
            return found
        if char in "pP":
            name = self.peek()
            if name == "{":
                end = self.regex.find("}", self.k)
                name, self.k = self.regex[self.k + 1: end if end >= 0 else None], (
                    end + 1 if end >= 0 else len(self.regex))
            else:
                self.k += 1
            negate = (char == "P") != name.startswith("^")
            found = s.property(name.lstrip("^"))
            return s.all & ~found if negate else found
        if char in SIMPLE:
            return s.char(SIMPLE[char], False)
        written = self.written_char(char)
        if written is not None:
            return s.char(written, self.fold)
        if char in "xu":
            match = ESCAPED.match(self.regex, self.k - 2)
            if match:
                self.k = match.end()
                code = int(next(g for g in match.groups() if g), 16)
                return s.char(min(code, 0x10FFFF), self.fold)
        if char.isalnum():  # \R, \X, \N, \O… : any character, to be safe
            return s.all
        return s.char(ord(char), self.fold) if char else 0

    def bracket(self) -> int:
        """The set of a bracket class, `[` read, up to and past its `]`."""
        s = self.sample
        negate = self.peek() == "^"
        self.k += negate
        found, first = 0, True
        while self.k < len(self.regex) and (self.peek() != "]" or first):
            first = False
            if self.peek(2) == "&&":  # the rest of the class, as a class of its own
                self.k += 2
                found &= self.bracket()
                return s.all & ~found if negate else found
            if self.peek(2) == "[:":
                end = self.regex.find(":]", self.k)
                name = self.regex[self.k + 2: end]
                self.k = end + 2 if end >= 0 else len(self.regex)
                part = s.property(name.lstrip("^"))
                found |= s.all & ~part if name.startswith("^") else part
            elif self.peek() == "[":
                self.k += 1
                found |= self.bracket()
            elif self.peek() == "\\" and self.peek(2)[1:] in tuple("wWdDsShHpP"):
                self.k += 1
                found |= self.class_escape()
            else:
                low = self.bracket_char()
                high = low
                if self.peek() == "-" and self.peek(2) not in ("-]", "-"):
                    self.k += 1
                    high = self.bracket_char()
                found |= (s.char(low, self.fold) if high == low
                          else s.span(low, high, self.fold))
        self.k += self.peek() == "]"
        return s.all & ~found if negate else found

    def bracket_char(self) -> int:
        """One character of a class, written or escaped."""
        char = self.peek()
        self.k += 1
        if char != "\\":
            return ord(char) if char else 0
        escaped = self.peek()
        match = ESCAPED.match(self.regex, self.k - 1)
        if escaped in "xu" and match:
            self.k = match.end()
            return min(int(next(g for g in match.groups() if g), 16), 0x10FFFF)
        self.k += 1
        written = self.written_char(escaped)
        if written is not None:
            return written
        return SIMPLE.get(escaped, ord(escaped) if escaped else 0)

    def written_char(self, char: str) -> int | None:
        """The character of an octal (`\\141`, `\\01`) or control escape (`\\cA`,
        `\\C-a`, `\\M-a`, `\\M-\\C-a`), `char` the one read after its backslash; None
        for another escape."""
        if char in "01234567":
            digits = re.match(r"[0-7]{0,2}", self.regex[self.k:])
            text = char + (digits.group(0) if digits else "")
            self.k += len(text) - 1
            return int(text, 8)
        if char == "c" or (char in "CM" and self.peek() == "-"):
            self.k += char != "c"
            inner = self.peek()
            self.k += 1
            if inner == "\\" and (self.peek() == "c" or self.peek(2) in ("C-", "M-")):
                self.k += 1
                code = self.written_char(self.regex[self.k - 1]) or 0
            else:
                code = ord(inner) if inner else 0
            if char == "M":
                return code | 0x80
            return 0x7F if code == ord("?") else code & 0x9F
        return None

    def quantified(self, item: Item, start: int) -> Item:
        """`item` with the repetitions after it: a repetition of a repetition (`\\w{1,9}+`,
        in Ruby's syntax) is a group repeated."""
        while True:
            self.skip_extended()
            bounds = self.bounds()
            if bounds is None:
                item.text = item.text or self.regex[start: self.k]
                return item
            if item.high != 1 or item.low != 1:
                item = Item("group", self.regex[start: self.k], alts=[[item]])
            item.low, item.high = bounds
            if self.peek() == "?":
                self.k += 1
            elif self.peek() == "+" and self.regex[self.k - 1] in "*+?":
                self.k += 1
                item.possessive = True
            item.text = self.regex[start: self.k]

    def bounds(self) -> tuple[int, int | None] | None:
        char = self.peek()
        if char in ("*", "+", "?") and char:
            self.k += 1
            return {"*": (0, None), "+": (1, None), "?": (0, 1)}[char]
        match = re.compile(r"\{(\d*)(,?)(\d*)\}").match(self.regex, self.k)
        if char != "{" or match is None or not (match.group(1) or match.group(3)):
            return None
        self.k = match.end()
        low = int(match.group(1) or 0)
        high = int(match.group(3)) if match.group(3) else (None if match.group(2) else low)
        return low, high
