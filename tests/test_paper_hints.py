"""A printed page or a published document names no command-line switch: "(--full shows them)"
stays in the terminal, and LaTeX, Beamer, Markdown, Typst and HTML say the same sentence
without it ("W_Q, W_K and W_V are the 2 × 2 identity matrix I.", "[elided in the middle;
24 × 16 in all]")."""

from __future__ import annotations

import re

import pytest

from tests.conftest import CONFIGS, run

SPEC = str(CONFIGS / "cat_chases_mouse.yaml")
IDENTITY = {"en": ("are the 2 × 2 identity matrix I.", "(--full shows them)"),
            "pl": ("to macierze jednostkowe I o wymiarach 2 × 2.", "(pokazuje je --full)"),
            "ru": ("единичные матрицы I размера 2 × 2.", "(их покажет --full)")}


def plain(text: str) -> str:
    """Text as a reader sees it: no-break spaces as spaces, LaTeX's × and -- as typed, a symbol
    set as math (`$I$`, `$`I`$`) as its letter."""
    text = re.sub(r"\$`?([A-Za-z])`?\$", r"\1", text)
    return (text.replace("\u00a0", " ").replace("~", " ").replace(r"\ensuremath{\times}", "×")
            .replace("-{}-{}", "--"))


@pytest.mark.parametrize("lang", ["en", "pl", "ru"])
@pytest.mark.parametrize("fmt", ["latex", "beamer", "markdown", "typst", "html"])
def test_a_document_says_it_without_the_switch(fmt: str, lang: str) -> None:
    result = run("export", SPEC, f"--{fmt}", "--lang", lang)
    assert result.exit_code == 0, result.stderr
    document = plain(result.stdout)
    assert IDENTITY[lang][0] in document
    assert "--full" not in document


@pytest.mark.parametrize("lang", ["en", "pl", "ru"])
def test_the_terminal_keeps_the_hint(lang: str) -> None:
    result = run("explain", SPEC, "--lang", lang, "-f", "text", "--width", "200")
    assert result.exit_code == 0, result.stderr
    assert IDENTITY[lang][1] in plain(result.stdout)


@pytest.mark.parametrize(("lang", "marker"), [
    ("en", "elided in the middle; 24 × 16 in all"),
    ("pl", "środek pominięty; całość: 24 × 16"),
    ("ru", "середина пропущена; всего 24 × 16"),
])
def test_an_elided_matrix_in_a_document_gives_its_size(lang: str, marker: str) -> None:
    result = run("export", str(CONFIGS / "life_is_short.yaml"), "--markdown", "--lang", lang)
    assert result.exit_code == 0, result.stderr
    assert marker in plain(result.stdout) and "--full" not in plain(result.stdout)
