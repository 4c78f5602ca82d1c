"""Oniguruma's (Ruby) syntax read as the tokenizer reads it, so the way counter
(attncli/spec/tokenizer_ways.py) sees the alternatives a pattern really has: extended mode
(`(?x)`: spaces and `#…` comments outside classes ignored, to the end of its group), octal
escapes (`\\141` is `a`) and control escapes (`\\cA`, `\\C-a` are U+0001). Each pattern below took
Oniguruma 2 to 5 s on 47 words of 20 letters while it was read as alternatives that share no
character. Subexpression calls (`\\g<x>`) and the absent operator (`(?~…)`) are refused.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from attncli.spec.tokenizer_ways import side_by_side
from tests.test_tokenizer_patterns import refused_unrun

ANY = 1000 ** 4  # the most a run is counted: a group repeated without an end, 2 ways a pass


@pytest.mark.parametrize(("pattern", "part"), [
    (r"(?x) (?: \w | \w )+ \d", r"(?: \w | \w )+"),
    (r"(?x:(?:\w | \w)+)\d", r"(?:\w | \w)+"),
    (r"(?x: (?: a | a ) )+x", r"(?x: (?: a | a ) )+"),
    ("(?x)(?:a#\n|a)+x", "(?:a#\n|a)+"),
    ("(?x)(?:a # one a\n | a)+x", "(?:a # one a\n | a)+"),
    (r"(?:\141|a)+x", r"(?:\141|a)+"),
    (r"(?:[\141]|a)+x", r"(?:[\141]|a)+"),
    (r"(?:[\140-\142]|a)+x", r"(?:[\140-\142]|a)+"),
    (r"(?:\01|\x01)+x", r"(?:\01|\x01)+"),
    (r"(?:\cA|\x01)+x", r"(?:\cA|\x01)+"),
    (r"(?:\C-a|\x01)+x", r"(?:\C-a|\x01)+"),
    (r"(?:[\cA]|\x01)+x", r"(?:[\cA]|\x01)+"),
    (r"(?:\M-a|\xe1)+x", r"(?:\M-a|\xe1)+"),  # meta: 0x61 | 0x80
    (r"(?:\M-\C-a|\x81)+x", r"(?:\M-\C-a|\x81)+"),
])
def test_alternatives_written_in_oniguruma_syntax_are_read_as_the_same(
        pattern: str, part: str) -> None:
    assert side_by_side(pattern) == ((part,), ANY, 1000)


@pytest.mark.parametrize(("pattern", "part"), [
    (r"(?x)(?:[ ]|\x20)+x", r"(?:[ ]|\x20)+"),  # a class keeps its space
    (r"(?x)(?:\ |\x20)+x", r"(?:\ |\x20)+"),  # so does an escaped one
])
def test_extended_mode_keeps_the_spaces_it_does_not_ignore(pattern: str, part: str) -> None:
    assert side_by_side(pattern) == ((part,), ANY, 1000)


@pytest.mark.parametrize("pattern", [
    r"(?x)(?-x: a|a)+x",  # extended mode off again: ` a` and `a` share no first character
    r"(?x: a | b )(?: a|a)+x",  # on only inside its group
    r"(?:\142|a)+x", r"(?:\cB|\x01)+x",  # b, U+0002
])
def test_alternatives_that_share_no_character_pass(pattern: str) -> None:
    assert side_by_side(pattern) is None


CALLS = ("expected a pattern without subexpression calls (\\g<…>, \\g'…') or absent operators "
         "((?~…)), which attn does not run; found {construct} in the pattern {pattern}")


@pytest.mark.parametrize(("lang", "pattern", "line"), [
    ("en", r"(?<x>\w|\w\w)\g<x>*\d", CALLS.format(construct=r"\g<",
                                                   pattern=r"(?<x>\w|\w\w)\g<x>*\d")),
    ("en", r"(?<x>\w|\w\w)\g'x'*\d", CALLS.format(construct=r"\g'",
                                                   pattern=r"(?<x>\w|\w\w)\g'x'*\d")),
    ("en", r"(\w|\w\w)\g<-1>*\d", CALLS.format(construct=r"\g<", pattern=r"(\w|\w\w)\g<-1>*\d")),
    ("en", r"(?~\d)+\d", CALLS.format(construct="(?~", pattern=r"(?~\d)+\d")),
    ("pl", r"(\w|\w\w)\g<1>*\d", "oczekiwano wzorca bez wywołań podwyrażeń (\\g<…>,\u00a0\\g'…') "
     "i\u00a0operatorów nieobecności ((?~…)), których attn nie wykonuje; otrzymano: \\g< we wzorcu "
     r"(\w|\w\w)\g<1>*\d"),
    ("ru", r"(\w|\w\w)\g<1>*\d", "ожидается шаблон без вызовов подвыражений (\\g<…>,\u00a0\\g'…') "
     "и\u00a0операторов отсутствия ((?~…)), которые attn не выполняет; в\u00a0шаблоне "
     r"(\w|\w\w)\g<1>*\d найдено \g<"),
])
def test_a_subexpression_call_or_absent_operator_is_refused_before_the_tokenizer_runs(
        lang: str, pattern: str, line: str, tmp_path: Path,
        monkeypatch: pytest.MonkeyPatch) -> None:
    assert refused_unrun(pattern, lang, tmp_path, monkeypatch) == (
        f"s.yaml:1:21: tokens.tokenizer: t.json: pre_tokenizer.pattern.Regex: {line}\n")
