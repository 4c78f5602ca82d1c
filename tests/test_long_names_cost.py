"""Many long token names cost what their text costs (render/long_names.py, model/latex_text.py):
4,096 names of 1,000 characters are within the spec's limits, and a page that shows a few of
them shortened (`--steps weights`) must not pay for a pattern of every name or for measuring
every character of each."""

from __future__ import annotations

import json
import random
import re
from html import escape
from pathlib import Path

import pytest

from attncli.model import latex_text
from attncli.model.latex_text import WIDEST_WORD, shown_name
from attncli.render.long_names import Names, _Replacer
from tests.conftest import run


def by_pattern(table: dict[str, str], text: str) -> str:
    """Each key replaced as a pattern of every key, the longest first, replaces it."""
    found = re.compile("|".join(map(re.escape, sorted(table, key=len, reverse=True))))
    return found.sub(lambda match: table[match.group()], text)


def test_thousands_of_long_names_are_replaced_without_a_pattern_of_them(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """The names were one pattern to compile: 2,000 names of 1,000 letters took 1.9 s."""
    draw = random.Random(19)
    names = ["".join(draw.choice("abcdefghij") for _ in range(995)) + f"{i:05d}"
             for i in range(2000)]
    compiled = [0]  # characters of the patterns compiled
    compile_ = re.compile

    def counted(pattern: str, flags: int = 0) -> re.Pattern[str]:
        compiled[0] += len(pattern)
        return compile_(pattern, flags)

    monkeypatch.setattr(re, "compile", counted)
    replace = Names.of_labels(names).replacer((escape,))
    shown = replace(" | ".join(names[:40] + names[-40:]))
    monkeypatch.undo()
    # a pattern of each name's first HEAD characters (none escaped: letters and digits) and a
    # `|` between them, not of every name's 1,000
    assert compiled[0] <= len(names) * (_Replacer.HEAD + 1)
    assert shown == " | ".join(map(shown_name, names[:40] + names[-40:]))


def test_names_are_replaced_as_a_pattern_of_every_name_replaces_them() -> None:
    draw = random.Random(7)
    for _ in range(3000):
        alphabet = draw.choice(["ab", "a, ", "xy&;"])
        keys = {"".join(draw.choice(alphabet) for _ in range(draw.randint(1, 30)))
                for _ in range(draw.randint(1, 8))}
        table = {key: f"<{i}>" for i, key in enumerate(sorted(keys))}
        text = "".join(draw.choice([*alphabet, "Z", *keys]) for _ in range(draw.randint(0, 40)))
        assert _Replacer(table)(text) == by_pattern(table, text), (table, text)


def test_a_long_name_is_measured_only_until_it_is_too_wide(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Every character of a name was measured to learn that it is wider than a line: 8,192
    names of 1,000 letters took 0.8 s."""
    names = ["x" * 995 + f"{i:05d}" for i in range(8192)]
    measured = [0]  # characters whose width is looked up

    class Widths(dict[str, float]):
        def get(self, ch: str, default: float | None = None) -> float | None:  # type: ignore[override]
            measured[0] += 1
            return super().get(ch, default)

    monkeypatch.setattr(latex_text, "TEXT_WIDTHS", Widths(latex_text.TEXT_WIDTHS))
    shown = [shown_name(name) for name in names]
    # a name is measured until it is wider than WIDEST_WORD (that many x's and one more), then
    # its first and last characters until they fill it, and `…`: not its 1,000 characters
    fit = int(WIDEST_WORD / latex_text.TEXT_WIDTHS["x"]) + 1
    assert measured[0] <= len(names) * (2 * fit + 2)
    assert shown[7] == "x" * 20 + "…" + "x" * 15 + "00007"


@pytest.mark.parametrize("fmt", ["--typst", "--html", "--beamer"])
def test_each_long_name_is_shortened_once_for_a_page(fmt: str, tmp_path: Path,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    """The labels of each token list and the long names a format replaces each shortened every
    name again: 4,096 names of `, ` took 1.4 s for a page of 16 rows, 5 shortenings a name."""
    names = [", " * 498 + f"{i:04d}" for i in range(512)]
    spec = tmp_path / "s.json"
    spec.write_text(json.dumps({"tokens": names, "mask": "causal",
                                "embeddings": {"random": {"seed": 1}, "dim": 8}}), "utf-8")
    shortened: list[str] = []
    shorten = latex_text.shown_word

    def counted(word: str, widest: float = WIDEST_WORD) -> str:
        shortened.append(word)
        return shorten(word, widest)

    forget = getattr(latex_text.shown_name, "cache_clear", lambda: None)  # names shortened before
    forget()
    monkeypatch.setattr(latex_text, "shown_word", counted)
    result = run("export", str(spec), fmt, "--steps", "weights", "-o", str(tmp_path / "page"))
    monkeypatch.undo()
    forget()
    assert result.exit_code == 0, result.stderr
    assert set(names) <= set(shortened)  # every name is shortened: its label depends on it
    assert sum(word in names for word in shortened) == len(names)  # each once
    # the last query's row, its name shortened in the middle as every page shows it
    assert ", , , , , , , , , , , , , , , , ,… , , , , , , , , , , , , , , 0511" in (
        tmp_path / "page").read_text(encoding="utf-8")
