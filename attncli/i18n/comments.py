"""Sentences that live outside the code, in the reader's language: the comments of the bundled
example specs (`attn examples NAME --lang pl`) and the descriptions of the JSON Schema
(`attn schema --lang ru`).

Each is a msgid of the catalog like any message (`python -m attncli.i18n.extract` collects them
from configs/*.yaml and spec/schema.json), so a translator sees them in the same `.po` file and
a reviewer reads them with the rest. A comment block (the `#` lines that follow one another, at
one indentation) is one msgid: its lines joined by spaces, so rewrapping the English does not
make a new message; its translation is wrapped again to the width of the file.
"""

from __future__ import annotations

import re
import textwrap
from typing import Any

from attncli.i18n import DEFAULT_LANG, catalog
from attncli.i18n.typography import NBSP, typeset
from attncli.records import record

WIDTH = 100  # the example specs' comments fill lines of at most this many characters
_RELATION = re.compile(r"(?<=\S) ([=≈<>]) (?=\S)")  # inside a formula: no line break
_COMMENT = re.compile(r"^(?P<indent>[ \t]*)#(?: (?P<text>.*))?$")


@record
class Block:
    """Lines start .. end - 1 of a YAML text: one comment, its text joined into one line."""

    start: int
    end: int
    indent: str
    text: str


def comment_blocks(lines: list[str]) -> list[Block]:
    """Every comment block of `lines`, in order."""
    found: list[Block] = []
    start, indent = 0, ""
    words: list[str] = []  # the text of the block being read
    for index, line in enumerate([*lines, ""]):
        match = _COMMENT.match(line)
        same = match is not None and match.group("indent") == indent and words
        if words and not same:
            found.append(Block(start, index, indent, " ".join(words)))
            words = []
        if match is not None and (match.group("text") or "").strip():
            if not words:
                start, indent = index, match.group("indent")
            words.append((match.group("text") or "").strip())
    return found


def translated_comments(text: str, lang: str) -> str:
    """YAML `text` with every comment block in `lang`, wrapped to WIDTH (a block the catalog
    has no translation for stays as written); the data lines are left as they are."""
    if lang == DEFAULT_LANG:
        return text
    lines = text.split("\n")
    cat = catalog(lang)
    for block in reversed(comment_blocks(lines)):
        translation = cat.gettext(block.text)
        if translation == block.text:
            continue
        prefix = block.indent + "# "
        lines[block.start:block.end] = [prefix + line for line in
                                        comment_lines(translation, lang, WIDTH - len(prefix))]
    return "\n".join(lines)


def comment_lines(text: str, lang: str, width: int) -> list[str]:
    """A translated comment in lines of at most `width` characters, broken between words and
    never inside a formula: besides what `typeset` binds, every `a = b` and `a ≈ b` is one unit
    (`F = (GELU(Y·W_1) ⊙ Y·W_3)·W_2` stays whole, even longer than a line)."""
    bound = _RELATION.sub(NBSP + r"\1" + NBSP, typeset(text, lang))
    return textwrap.wrap(bound, width, break_long_words=False, break_on_hyphens=False)


def descriptions(node: Any) -> list[str]:
    """Every `description` of a JSON Schema, in document order."""
    found: list[str] = []
    if isinstance(node, dict):
        for key, value in node.items():
            if key == "description" and isinstance(value, str):
                found.append(value)
            else:
                found += descriptions(value)
    elif isinstance(node, list):
        for value in node:
            found += descriptions(value)
    return found


def translated_schema(text: str, lang: str) -> str:
    """The JSON Schema `text` with every description in `lang`, written as the file is."""
    if lang == DEFAULT_LANG:
        return text
    cat = catalog(lang)

    def walk(node: Any) -> Any:
        if isinstance(node, dict):
            return {key: (typeset(cat.gettext(value), lang)
                          if key == "description" and isinstance(value, str) else walk(value))
                    for key, value in node.items()}
        if isinstance(node, list):
            return [walk(value) for value in node]
        return node

    import json  # the JSON Schema's comments only, not a walkthrough (5 million instructions)

    return json.dumps(walk(json.loads(text)), ensure_ascii=False, indent=2) + "\n"
