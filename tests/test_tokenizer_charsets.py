"""A tokenizer pattern's character sets are worked out on a sample of 2,804 characters
(attncli/spec/tokenizer_charsets.py): each named class once for a pattern, however often it is
written, and a span without looking at the characters one by one. `\\w` written 500 times (a
pattern of 1,000 characters, the limit) looked at the whole sample 500 times, 1,402,000 calls
of a Python test of one character, and took 2 s CPU before the tokenizer ran."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from attncli.spec.tokenizer_charsets import BASE, Sample
from attncli.spec.tokenizer_regex import Item, Parser


def looked_at(regex: str, monkeypatch: pytest.MonkeyPatch) -> tuple[int, Sample, list[Item]]:
    """How many times reading `regex` tests one character of its sample for a class, the
    sample, and the items of its first alternative."""
    calls = 0
    where = Sample.where

    def counted(self: Sample, name: str, keep: Callable[[int], bool]) -> int:
        def kept(c: int) -> bool:
            nonlocal calls
            calls += 1
            return keep(c)
        return where(self, name, kept)

    monkeypatch.setattr(Sample, "where", counted)
    parser = Parser(regex)
    items = parser.alternatives()[0]
    return calls, parser.sample, items


def members(sample: Sample, found: int) -> str:
    return "".join(chr(c) for k, c in enumerate(sample.chars) if found >> k & 1)


def test_a_class_written_500_times_is_worked_out_once(monkeypatch: pytest.MonkeyPatch) -> None:
    assert len(BASE) == 2804  # 768 below U+0300, 2,019 every 97th to U+30000, 17 spaces
    for regex in (r"\w" * 500, "[" + r"\w" * 499 + "]", r"\W" * 500, "|".join([r"\w"] * 333)):
        calls, sample, _ = looked_at(regex, monkeypatch)
        assert len(sample.chars) == 2804  # the pattern writes only \, w, W, [, ], |
        assert calls == 2804, regex
    parser = Parser(r"\w" * 500)
    (items,) = parser.alternatives()
    assert len(items) == 500 and len({item.chars for item in items}) == 1
    assert members(parser.sample, items[0].chars)[:64] == (
        "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ_abcdefghijklmnopqrstuvwxyzª")


def test_each_name_is_looked_at_once_whatever_writes_it(monkeypatch: pytest.MonkeyPatch) -> None:
    # \w, \d, the category L (\p{L}, \p{Letter}, and [:alpha:] with the category M): four
    regex = r"(?:\w|\d|\p{L}|[[:alpha:]]|\p{Letter})" * 25
    calls, sample, _ = looked_at(regex, monkeypatch)
    assert calls == 4 * len(sample.chars)
    calls, sample, _ = looked_at(r"\p{Han}" * 142, monkeypatch)
    assert calls == len(sample.chars)


def test_spans_are_found_without_looking_at_each_character(
        monkeypatch: pytest.MonkeyPatch) -> None:
    # a-b to a-m, b-c to b-n, … z-{ to z-\x86: 312 spans, each its own
    spans = "".join(f"{chr(c)}-{chr(c + k)}" for c in range(0x61, 0x7B) for k in range(1, 13))
    held = "".join(map(chr, range(0x61, 0x87)))  # a to z, {|}~, DEL and U+0080 to U+0086
    for regex, expected in (("[" + spans + "]", held),
                            ("(?i)[" + spans + "]", "ABCDEFGHIJKLMNOPQRSTUVWXYZ" + held)):
        calls, sample, items = looked_at(regex, monkeypatch)
        assert calls == 0
        assert members(sample, items[-1].chars) == expected


@pytest.mark.parametrize(("regex", "expected"), [
    ("[r-t]", "rst"),
    ("(?i)[r-t]", "RSTrst"),
    ("(?i)[R-T]", "RSTrstſ"),  # ſ (U+017F): its upper case is S
    ("[t-r]", ""),  # a span backwards holds nothing
    ("(?i)[\u00c0-\u00c2]", "ÀÁÂàáâ"),
])
def test_a_span_holds_its_characters_and_their_cases(regex: str, expected: str) -> None:
    parser = Parser(regex)
    (items,) = parser.alternatives()  # after the flags' item, if any
    assert members(parser.sample, items[-1].chars) == expected
