"""The normalizer and pre-tokenizer as a tokenizer.json writes them, found and checked in attn's
process before the tokenizer's process starts: a growth or a pattern that the checks of
spec/tokenizer_check.py refuse, and a part that `tokenizers` would refuse in its own English (a
Precompiled normalizer's charsmap that is no charsmap, with serde's line:column of its own
re-reading; a FixedLength pre-tokenizer of length 0, `chunk size must be non-zero` once a text
is encoded), each refused at its line:column in the file. The tokenizer's process checks the
growth and the patterns again as `tokenizers` built them.
"""

from __future__ import annotations

import json
import re
from itertools import islice
from json.decoder import scanstring  # type: ignore[attr-defined]
from typing import Any

from attncli.errors import Location
from attncli.i18n import Msg
from attncli.spec.files import FileProblem
from attncli.spec.node import Node
from attncli.spec.tokenizer_charsmap import charsmap_problem
from attncli.spec.tokenizer_check import check_config, place
from attncli.spec.values import describe

# The normalizer and pre-tokenizer as the file writes them, found by their keys before `tokenizers`
# reads the file (a key inside a text has its quotes escaped, so it is not found).
WRITTEN = re.compile(rb'"(normalizer|pre_tokenizer)"\s*:\s*\{')
WINDOW = 1 << 16  # bytes read for one of them at first, four times more up to WINDOW << 6
# bytes decoded in all, however many keys are found: 16 of them, each an object that the next cuts,
# decoded in windows up to WINDOW << 6 (5.3 MB each) took 5.9 s
DECODED = WINDOW << 7
SPACE = re.compile(r"[ \t\n\r]*")

# A part's key path, from its key at the top: keys and the places of list items.
Path = tuple[str | int, ...]


def check_written(content: bytes | bytearray, name: str, text_length: int) -> None:
    """check_config on the normalizer and pre-tokenizer the file `content` writes (the first
    JSON object at each key), so that a pattern or a growth the checks refuse is refused before
    the tokenizer's process starts; first, each part `tokenizers` would refuse in English,
    refused at its line:column."""
    parts: dict[str, Any] = {}
    left = [DECODED]
    for match in islice(WRITTEN.finditer(content), 16):
        start = match.end() - 1
        value, piece = written_value(content, start, left)
        if isinstance(value, dict):
            key = match.group(1).decode()
            for path, problem in refused_parts(value, (key,)):
                at = start + len(piece[:offset_of(piece, path[1:])].encode("utf-8"))
                line, column = place(content, at)
                raise FileProblem(Msg.of(
                    "{name}:{line}:{column}: {key}: {problem}", name=name, line=line,
                    column=column, key=dotted(path), problem=problem))
            parts.setdefault(key, value)
    check_config(parts, name, text_length)


def written_value(content: bytes | bytearray, start: int, left: list[int]) -> tuple[Any, str]:
    """The JSON value that begins at byte `start` and the text it was read from (None and "" if
    it is not one within WINDOW << 6 bytes or within the bytes `left` to decode: left[0],
    lessened by those decoded here)."""
    size = WINDOW
    while size <= left[0]:
        piece = bytes(content[start: start + size]).decode("utf-8", "ignore")
        left[0] -= len(piece)
        try:
            return json.JSONDecoder().raw_decode(piece)[0], piece
        except (ValueError, RecursionError):
            if start + size >= len(content) or size >= WINDOW << 6:
                return None, ""
            size *= 4
    return None, ""


def refused_parts(part: Any, path: Path) -> list[tuple[Path, Msg]]:
    """The values of the normalizer or pre-tokenizer `part` (at `path`) that `tokenizers`
    refuses in English, each with what was expected and found, Sequences' members in order."""
    if not isinstance(part, dict):
        return []
    found: list[tuple[Path, Msg]] = []
    for field in ("normalizers", "pretokenizers"):
        members = part.get(field) if part.get("type") == "Sequence" else None
        for k, member in enumerate(members if isinstance(members, list) else []):
            found += refused_parts(member, (*path, field, k))
    if part.get("type") == "Precompiled" and "precompiled_charsmap" in part:
        problem = charsmap_problem(part["precompiled_charsmap"])
        if problem is not None:
            found.append(((*path, "precompiled_charsmap"), problem))
    length = part.get("length")
    if part.get("type") == "FixedLength" and type(length) is int and length < 1:
        found.append(((*path, "length"), Msg.of(
            "expected {expected}, found {found}", expected=Msg.of("a whole number of 1 or more"),
            found=describe(Node(length, Location(""))))))
    return found


def offset_of(text: str, path: Path) -> int:
    """Where the value at `path` (keys and list places) begins in the JSON `text`, which holds
    one value first (the last of a key given twice, as Python's reader takes)."""
    scan = json.scanner.make_scanner(json.JSONDecoder())  # type: ignore[attr-defined]
    at = 0
    for step in path:
        at, chosen = skip(text, at + 1), None  # into the object or the list
        if isinstance(step, int):
            for _ in range(step):  # past an item and its comma
                at = skip(text, skip(text, scan(text, at)[1]) + 1)
            continue
        while text[at] == '"':
            key, at = scanstring(text, at + 1)
            at = skip(text, skip(text, at) + 1)  # past the colon
            if key == step:
                chosen = at
            at = skip(text, scan(text, at)[1])
            if text[at] != ",":
                break
            at = skip(text, at + 1)
        assert chosen is not None
        at = chosen
    return at


def skip(text: str, at: int) -> int:
    """Past the whitespace at `at`."""
    found = SPACE.match(text, at)
    assert found is not None  # matches the empty string
    return found.end()


def dotted(path: Path) -> str:
    """`normalizer.normalizers[2].precompiled_charsmap` for its path."""
    return "".join(f"[{step}]" if isinstance(step, int) else f".{step}" for step in path)[1:]
