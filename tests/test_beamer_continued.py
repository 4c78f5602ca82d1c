"""A step too long for one Beamer frame goes on in the next, titled with the step's title and
"(cont.)" in the deck's language („(cd.)”, «(продолжение)»), never a bare "(2)" that reads as a
number of the step."""

from __future__ import annotations

import re

import pytest

from tests.conftest import CONFIGS, run

TITLE = re.compile(r"\\frametitle\{(.*)\}")
SUFFIX = {"en": r"\ (cont.)", "pl": r"\ (cd.)",
          "ru": r"\ ({\fontencoding{T2A}\selectfont продолжение})"}


@pytest.mark.parametrize("lang", ["en", "pl", "ru"])
def test_a_continued_frame_names_its_step_and_says_it_goes_on(lang: str) -> None:
    result = run("export", str(CONFIGS / "two_heads.yaml"), "--beamer", "--lang", lang)
    assert result.exit_code == 0, result.stderr
    titles = TITLE.findall(result.stdout)
    continued = [k for k, title in enumerate(titles) if title.endswith(SUFFIX[lang])]
    assert len(continued) >= 3  # two_heads' scores, weights and projections of each head
    for k in continued:  # each follows a frame of its own step (the first, or a continuation)
        step = titles[k][: -len(SUFFIX[lang])]
        assert titles[k - 1] in (step, titles[k])
    assert not any(re.search(r"\\ \(\d+\)$", title) for title in titles)
