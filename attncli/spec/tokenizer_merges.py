"""A tokenizer.json's BPE merges written as pairs (`["a", "b"]`, as tokenizers 0.20 and later
save them) rewritten as texts (`"a b"`, as Llama 3's and Gemma 2's files are shipped), on the
file's bytes before `tokenizers` reads them: the package holds a pair as a JSON array of two
JSON strings, about 440 bytes, and a text as one, about 115, so a real-size vocabulary saved again
fits in the tokenizer's process (spec/tokenizer.py).

The package reads a text merge by splitting it at each space (U+0020, and no other character)
into exactly two parts, after dropping every merge that begins with "#version"
(tokenizers/src/models/bpe/model.rs, `convert_merges_to_hashmap`). So the rewrite gives the same
merges, in the same order, exactly when no part holds a space (written or escaped as \\u0020)
and no first part begins with "#version"; any other file is left as it is. Each part's bytes are
kept as they are (its escapes too), and each pair's place is filled with spaces and its line
breaks, so every line and column after it is where it was: a message of the package's about a
place in the file names the same place. (So a pair is rewritten only on one line, or with its
closing bracket on a line of its own, as tokenizers writes it; a file with another is left too.)
"""

from __future__ import annotations

import json
import re
from typing import Any

from attncli.i18n import Count, Msg, quoted
from attncli.spec.json_separators import plain

# Runs of plain characters are taken in one step (`++`): one character a step, the scan of a
# 27 MB file took 1.0 s, of a vocabulary of 18 MB 0.8 s; now 0.17 s and 0.21 s.
TEXT = rb'"(?:[^"\\]++|\\.)*+"'
# A JSON string, a key (a string and its colon), a bracket (the structure around the merges),
# or a quote that opens no string (a file cut short): there the scan stops, so no later quote
# is tried again to the file's end.
SCAN = re.compile(TEXT + rb'(?:\s*:)?|[\[\]{}]|"', re.DOTALL)
# The scan's steps (strings and brackets outside a vocabulary and the merges): a real file
# takes a few thousand (its added tokens the most); a file that needs more is left as written,
# for the package to read in its bounded process, and is not walked at Python's pace.
MAX_STEPS = 1 << 16
# An object or array holding no other (a vocabulary), passed over in one step.
FLAT = re.compile(rb'\{(?:[^\[\]{}"]++|' + TEXT + rb')*+\}|\[(?:[^\[\]{}"]++|' + TEXT + rb')*+\]',
                  re.DOTALL)
# What is between the quotes of a part that the package's split keeps whole: no space written
# or escaped, no control character and no escaped surrogate (which the package refuses with a
# place in the file, so it is left where it is).
BODY = rb'(?:[^"\\\x00-\x20]++|\\["\\/bfnrt]|\\u(?!0020)(?![dD][89abAB])[0-9a-fA-F]{4})*+'
# A pair on one line, or one whose closing bracket begins a line (as tokenizers writes them
# pretty): where the text, three spaces, the pair's spaces and line breaks, and one space put
# every line and column after it where it was.
# (Each run of spaces is taken whole, `*+`, where what follows cannot be a space.)
SHAPE = (rb'\[(?:([ \t\r]*+)"(%s)"([ \t\r]*+),([ \t\r]*+)"(%s)"([ \t\r]*+)'
         rb'|(\s*+)"(%s)"(\s*+),(\s*+)"(%s)"(\s*\n[ \t\r]*+))\]')
PAIR = re.compile(SHAPE % ((BODY,) * 4))
# An array of pairs, its spaces and parts not kept (Llama 3's 280,000 pairs: 0.22 s kept,
# 0.12 s not).
UNKEPT = SHAPE.replace(b"(?:", b"(").replace(b"(", b"(?:")
PAIRS = re.compile(rb"\[\s*+(?:%s\s*+(?:,\s*+%s\s*+)*+)?\]" % ((UNKEPT % ((BODY,) * 4),) * 2))
# A first part that begins with "#": the package drops a text merge that begins "#version".
HASH = re.compile(rb'\[\s*("(?:#|\\u0023)' + BODY + rb'")')
VERSION = "#version"


def merges_as_texts(buffer: bytearray) -> bytes:
    """The file's bytes with its model's merges written as texts where that gives the same
    merges, else as they were. `buffer` is rewritten in place (a text and its spaces fill its
    pair's place exactly) and emptied as the bytes are made, so no more than two copies of the
    file are held at once."""
    found = merges_at(buffer)
    if found is not None:
        start, end = found
        if not any(json.loads(first.group(1)).startswith(VERSION)
                   for first in HASH.finditer(buffer, start, end)):
            buffer[start:end] = rewritten(buffer[start:end])  # as long as they were
    content = bytes(buffer)
    buffer.clear()
    return content


def rewritten(merges: bytearray) -> bytes | bytearray:
    """The array of pairs `merges` (PAIRS) with each pair written as a text (`as_text`): where
    every pair is laid out across lines as the first is (as tokenizers writes them), by three
    replacements of the whole; else pair by pair (a merge a call: Llama 3's 280,000 pairs took
    0.5 s, the three replacements 0.03 s)."""
    first = PAIR.search(merges)
    if first is None or first.group(8) is None:  # none, or the first on one line
        return PAIR.sub(as_text, merges)
    before, after_a, after_comma, after_b = first.group(7, 9, 10, 12)
    if b"\n" not in before or b"\n" not in after_comma:
        return PAIR.sub(as_text, merges)
    # A line break is never inside a JSON string, so each of these is found only where a pair
    # opens, cuts its parts, closes; found once for each pair, they are where each pair is.
    layout = ((b'[%s"' % before, b'"'), (b'"%s,%s"' % (after_a, after_comma), b" "),
              (b'"%s]' % after_b, b'"   %s%s%s%s ' % (before, after_a, after_comma, after_b)))
    pairs = plain(merges).count(b'"') // 4  # two parts' quotes each, the only ones
    if any(merges.count(written) != pairs for written, _ in layout):
        return PAIR.sub(as_text, merges)
    for written, text in layout:
        merges = merges.replace(written, text)
    return merges


def as_text(pair: re.Match[bytes]) -> bytes:
    """`["a", "b"]` as `"a b"`, the parts' bytes as they were (escapes too), and the pair's
    spaces and line breaks: as many bytes as the pair."""
    groups = (2, 5, 1, 3, 4, 6) if pair.group(2) is not None else (8, 11, 7, 9, 10, 12)
    # four spaces for the brackets, the comma and two of the quotes
    return b'"%s %s"   %s%s%s%s ' % pair.group(*groups)


def merges_at(content: bytearray) -> tuple[int, int] | None:
    """Where the array of pairs that is the one "merges" of the one "model" lies, (start, end);
    None if there is no such array (texts already, a part with a space, another shape)."""
    stack: list[bytes] = []  # the open brackets, and the key each object is the value of
    key, found, models = b"", None, 0
    at, steps = 0, 0
    while (token := SCAN.search(content, at)) is not None:
        at, steps = token.end(), steps + 1
        piece = token.group(0)
        if piece == b'"' or steps > MAX_STEPS:
            return None
        if piece[:1] == b'"':
            if piece[-1:] == b":":
                key = name(piece[:piece.rindex(b'"') + 1])
                if len(stack) == 1 and key == b"model":
                    models += 1
                if len(stack) == 2 and stack[1] == b"{model" and key == b"merges":
                    if found is not None:
                        return None  # more than one: the package takes the last
                    array = PAIRS.match(content, skip_space(content, at))
                    if array is None:
                        return None
                    found = array.span()
                    at = array.end()
            continue
        if piece in (b"{", b"[") and len(stack) >= 2:
            flat = FLAT.match(content, token.start())
            if flat is not None:
                at, key = flat.end(), b""
                continue
        if piece in (b"{", b"["):
            stack.append(piece + key if len(stack) == 1 else piece)
        elif not stack or stack.pop()[:1] != (b"{" if piece == b"}" else b"["):
            return None
        key = b""
    return found if models == 1 and not stack else None


def name(key: bytes) -> bytes:
    """A key's text as the package reads it (escapes decoded only where there are some)."""
    if b"\\" not in key:
        return key[1:-1]
    try:
        return str(json.loads(key)).encode("utf-8", "surrogatepass")
    except ValueError:
        return b""


def skip_space(content: bytearray, at: int) -> int:
    while at < len(content) and content[at] in b" \t\r\n":
        at += 1
    return at


def unjoinable(model: Any) -> tuple[int, Msg] | None:
    """The first merge of a BPE `model` (tokenizer.json's, parsed) that `tokenizers` panics on
    as it builds the model, and why: its second token shorter in bytes than the model's
    continuing_subword_prefix, which the package cuts off it, or cut by it inside a character
    (the panic's message is then cut there too, and the process aborts), or the token the two
    make longer than every token of the vocabulary, which the package writes into a buffer of
    that length (tokenizers/src/models/bpe/model.rs, `BpeBuilder::build`). Merges before it
    are as the package takes them: each token in the vocabulary."""
    if not isinstance(model, dict) or not isinstance(model.get("vocab"), dict):
        return None
    vocab, merges = model["vocab"], model.get("merges")
    prefix = model.get("continuing_subword_prefix")
    cut = len(prefix.encode("utf-8")) if isinstance(prefix, str) else 0
    longest = max((len(token.encode("utf-8")) for token in vocab), default=0)
    for k, merge in enumerate(merges if isinstance(merges, list) else []):
        parts = merge.split(" ") if isinstance(merge, str) else merge
        if not isinstance(parts, list) or len(parts) != 2 or not all(
                isinstance(part, str) and part in vocab for part in parts):
            return None  # the package's own refusal comes first
        first, second = (part.encode("utf-8") for part in parts)
        if len(second) < cut:
            return k, Msg.plural_of(
                "expected a second token of at least {count} byte, the length of "
                "model.continuing_subword_prefix, found {token}",
                "expected a second token of at least {count} bytes, the length of "
                "model.continuing_subword_prefix, found {token}", Count(cut),
                token=quoted(parts[1]))
        if cut < len(second) and 0x80 <= second[cut] < 0xC0:  # a UTF-8 continuation byte
            return k, Msg.plural_of(  # the package's own panic message is then cut mid-character
                "expected a second token whose first {count} byte, the length of "
                "model.continuing_subword_prefix, ends where a character ends, found {token}",
                "expected a second token whose first {count} bytes, the length of "
                "model.continuing_subword_prefix, end where a character ends, found {token}",
                Count(cut), token=quoted(parts[1]))
        joined = first + second[cut:]
        if len(joined) > longest:
            return k, Msg.of("a merge makes or joins the token {token}, which the vocabulary "
                             "does not hold", token=quoted(joined.decode("utf-8", "replace")))
    return None
