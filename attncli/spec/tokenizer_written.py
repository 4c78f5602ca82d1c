"""The normalizer, pre-tokenizer, post-processor and truncation as a tokenizer.json writes them,
found and checked in attn's process before the tokenizer's process starts: a growth or a pattern
that the checks of spec/tokenizer_check.py refuse, and a part that `tokenizers` would refuse in
its own English (a Precompiled normalizer's charsmap that is no charsmap, with serde's
line:column of its own re-reading, or whose trie points outside itself, a panic once a text is
encoded; a FixedLength pre-tokenizer of length 0, `chunk size must be non-zero`; a template
naming a special token its post-processor does not list, `no entry found for key`, or a single
text's template naming the sequence B), each refused at its line:column in the file; and where
the package stops on a text (a truncation that cuts only the second text of a pair, `Second
sequence not provided`, met only by a text longer than its max_length), the place of the key
(place_of). The parts are the values of the file's own keys (serde reads no other: a key of the
same name inside another object is passed over), each written once. The tokenizer's process
checks the growth and the patterns again as `tokenizers` built them.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from json.decoder import scanstring  # type: ignore[attr-defined]
from typing import Any

from attncli.errors import Location
from attncli.i18n import Msg, quoted
from attncli.spec.files import FileProblem
from attncli.spec.json_separators import depths_at
from attncli.spec.node import Node
from attncli.spec.tokenizer_charsmap import charsmap_problem
from attncli.spec.tokenizer_check import check_config, place
from attncli.spec.values import describe

# The normalizer, pre-tokenizer, post-processor and truncation as the file writes them, found by
# their keys before `tokenizers` reads the file (a key inside a text has its quotes escaped, so
# it is not found); those of the file's own object are the ones nested in one bracket.
WRITTEN = re.compile(rb'"(normalizer|pre_tokenizer|post_processor|truncation)"\s*:\s*\{')
WINDOW = 1 << 16  # bytes read for one of them at first, four times more up to WINDOW << 6
# bytes decoded in all, each part in windows up to WINDOW << 6 (5.3 MB): 16 keys, each an object
# that the next cut, decoded so took 5.9 s (now only the file's own keys are decoded, each once)
DECODED = WINDOW << 7
SPACE = re.compile(r"[ \t\n\r]*")

# A part's key path, from its key at the top: keys and the places of list items.
Path = tuple[str | int, ...]


def check_written(content: bytes | bytearray, name: str, text_length: int) -> None:
    """check_config on the normalizer and pre-tokenizer the file `content` writes (the JSON
    object at each of the file's own keys), so that a pattern or a growth the checks refuse is
    refused before the tokenizer's process starts; first, each part `tokenizers` would refuse
    in English, refused at its line:column, and a part written twice."""
    parts: dict[str, Any] = {}
    left = [DECODED]
    for match in own_keys(content):
        start, key = match.end() - 1, match.group(1).decode()
        if key in parts:
            line, column = place(content, match.start())
            raise FileProblem(Msg.of(
                "{name}:{line}:{column}: {key}: expected the key once in the file, found it "
                "again", name=name, line=line, column=column, key=key))
        value, piece = written_value(content, start, left)
        for path, problem in refused_parts(value, (key,)):
            at = start + len(piece[:offset_of(piece, path[1:])].encode("utf-8"))
            line, column = place(content, at)
            raise FileProblem(Msg.of(
                "{name}:{line}:{column}: {key}: {problem}", name=name, line=line,
                column=column, key=dotted(path), problem=problem))
        parts[key] = value
    # the rest (padding, truncation, the model's reach) as `tokenizers` built them, in its process
    check_config({key: parts.get(key) for key in ("normalizer", "pre_tokenizer")}, name,
                 text_length)


def own_keys(content: bytes | bytearray) -> Iterator[re.Match[bytes]]:
    """The WRITTEN keys of the file's own object (not of one inside it), in order."""
    found = list(WRITTEN.finditer(content))
    depths = depths_at(content, [match.start() for match in found]) if found else []
    return (match for match, depth in zip(found, depths, strict=True) if depth == 1)


def place_of(content: bytes | bytearray, path: Path) -> tuple[int, int] | None:
    """The line and column of the value at `path` (a WRITTEN key of the file's own object, then
    keys and list places inside it), or None if it is not there."""
    for match in own_keys(content):
        if match.group(1).decode() == path[0]:
            value, piece = written_value(content, match.end() - 1, [DECODED])
            try:
                at = offset_of(piece, path[1:]) if isinstance(value, dict) else None
            except (AssertionError, IndexError, TypeError, ValueError):
                return None  # not written there
            return None if at is None else place(
                content, match.end() - 1 + len(piece[:at].encode("utf-8")))
    return None


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
    if path[0] == "post_processor":
        return template_problems(part, path)
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


def template_problems(part: dict[str, Any], path: Path) -> list[tuple[Path, Msg]]:
    """The items of a TemplateProcessing post-processor (at `path`, or a member of a Sequence
    of them) that `tokenizers` meets in English once a text is encoded: a special token its
    special_tokens does not list (`no entry found for key`; its own builder refuses either
    template so), and the sequence B in the template of a single text (a panic)."""
    found: list[tuple[Path, Msg]] = []
    members = part.get("processors") if part.get("type") == "Sequence" else None
    for k, member in enumerate(members if isinstance(members, list) else []):
        if isinstance(member, dict):
            found += template_problems(member, (*path, "processors", k))
    listed = part.get("special_tokens")
    if part.get("type") != "TemplateProcessing" or not isinstance(listed, dict):
        return found
    for field in ("single", "pair"):
        items = part.get(field)
        for k, item in enumerate(items if isinstance(items, list) else []):
            special = item.get("SpecialToken") if isinstance(item, dict) else None
            token = special.get("id") if isinstance(special, dict) else None
            if isinstance(token, str) and token not in listed:
                found.append(((*path, field, k, "SpecialToken", "id"), Msg.of(
                    "expected a special token that {key} lists, found {token}",
                    key=dotted((*path, "special_tokens")), token=quoted(token))))
            sequence = item.get("Sequence") if isinstance(item, dict) else None
            named = sequence.get("id") if isinstance(sequence, dict) else None
            if field == "single" and named == "B":
                found.append(((*path, field, k, "Sequence", "id"), Msg.of(
                    "expected the sequence A, the only one a single text has, found B")))
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
