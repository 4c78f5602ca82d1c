"""The text output of every example in configs/, in every language, compared byte for byte with
tests/golden/<example>.<lang>.txt.

When a change alters the output on purpose, regenerate with `ATTN_UPDATE_GOLDEN=1 pytest
tests/test_golden.py` and read the diff of the golden files like code before committing.
"""

from __future__ import annotations

import os
import re
from functools import cache
from pathlib import Path

import pytest

from attncli.i18n import LANGUAGES, po_path
from attncli.i18n.extract import extract
from attncli.i18n.po import read_po
from attncli.spec import load_spec
from tests.conftest import EXAMPLES, run

GOLDEN = Path(__file__).parent / "golden"
CONFIGS = EXAMPLES


def explain(config: Path, lang: str) -> str:
    result = run("explain", str(config), "--format", "text", "--lang", lang)
    assert result.exit_code == 0, result.stderr
    return result.stdout


def golden(config: Path, lang: str) -> Path:
    return GOLDEN / f"{config.stem}.{lang}.txt"


@pytest.mark.parametrize("lang", LANGUAGES)
@pytest.mark.parametrize("config", CONFIGS, ids=lambda path: path.stem)
def test_output_matches_golden_file(config: Path, lang: str) -> None:
    text = explain(config, lang)
    path = golden(config, lang)
    if os.environ.get("ATTN_UPDATE_GOLDEN"):
        path.write_text(text, encoding="utf-8", newline="\n")
    assert path.exists(), f"no golden file {path.name}; run with ATTN_UPDATE_GOLDEN=1"
    assert path.read_text(encoding="utf-8") == text


def test_every_example_has_golden_files_and_no_golden_file_is_left_over() -> None:
    expected = {golden(config, lang).name for config in CONFIGS for lang in LANGUAGES}
    assert len(CONFIGS) >= 4
    assert {path.name for path in GOLDEN.glob("*.txt")} == expected


def words(text: str) -> set[str]:
    """Latin-script words of prose, leaving out dotted spec paths, {placeholders}, `code` (the
    step ids a help text lists) and a help text's example commands (its `\\b` paragraphs)."""
    text = re.sub(r"\{\w*\}|`[^`]*`|\x08\n(?:.+\n?)*", " ", text)
    return set(re.findall(r"(?<![\w.])[a-z]{3,}(?![\w.])", text.lower()))


@cache
def english_words(lang: str) -> frozenset[str]:
    """Words of attn's English messages that the catalog of `lang` never uses itself."""
    english: set[str] = set()
    for message in extract().messages.values():
        english |= words(message.msgid) | words(message.plural or "")
    own: set[str] = set()
    for entry in read_po(po_path(lang).read_text(encoding="utf-8")):
        for text in entry.msgstr if entry.msgid else []:
            own |= words(text)
    return frozenset(english - own)


@pytest.mark.parametrize("lang", ["pl", "ru"])
@pytest.mark.parametrize("config", CONFIGS, ids=lambda path: path.stem)
def test_golden_output_has_no_english_word_but_token_names(config: Path, lang: str) -> None:
    english = english_words(lang)
    assert {"attention", "weights", "scores", "each", "sums"} <= english  # the check can fail
    spec = load_spec(str(config))
    context = spec.context.tokens if spec.context is not None else ()
    tokens = {token.lower() for token in spec.queries.tokens + context}
    text = golden(config, lang).read_text(encoding="utf-8")
    assert (words(text) - tokens) & english == set()
