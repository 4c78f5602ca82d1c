"""`tokens: {tokenizer: tokenizer.json, text: "..."}`: the tokens of a text as a model's own
tokenizer cuts it, with their ids (for `rows: tokens` of an embedding matrix). The `tokenizers`
package is imported only in the process that runs the tokenizer, only when a spec asks for it
(pip install "attn[models]").

A tokenizer.json is code of a kind: its normalizers, patterns and padding decide how much work
and memory a text costs, and its vocabulary and merges how much reading it costs. So its JSON
texts, keys and values are counted first (spec/tokenizer_check.py), and it runs in a forked
process of its own, given TOKENIZER_SECONDS and TOKENIZER_MEGABYTES (workers/bounded.py), where
its configuration is checked before a text is encoded (spec/tokenizer_check.py); a Rust panic
there, or running out of time or memory, is one line and exit 2, and its tokens are held to the
limits of a spec's texts (MAX_TOKENS, each MAX_TEXT characters). Reading the file may take most
of TOKENIZER_SECONDS (a Llama 3-size one 1.1 to 1.3 s); encoding the text, once it is read and
checked, ENCODE_MILLISECONDS of the processor, however its patterns backtrack.
"""

from __future__ import annotations

import codecs
import json
import re
from functools import partial
from importlib.util import find_spec
from pathlib import Path
from typing import Any

from attncli.errors import SpecError
from attncli.i18n import Count, Msg
from attncli.i18n.library_messages import json_problem, os_problem
from attncli.i18n.tokenizers_messages import (
    encoding_problem,
    regex_search_problem,
    tokenizers_problem,
)
from attncli.spec.files import FileProblem, existing_file, resolve
from attncli.spec.limits import MAX_TEXT, max_bytes
from attncli.spec.opened import open_regular
from attncli.spec.source import LIMIT_HINT, Node, byte_count
from attncli.spec.tokenizer_check import MAX_TOKENS, check_config, check_objects, patterns
from attncli.spec.tokenizer_merges import merges_as_texts, unjoinable
from attncli.spec.tokenizer_model import model_problem
from attncli.spec.tokenizer_reach import reach_of
from attncli.spec.tokenizer_types import wrong_type
from attncli.spec.tokenizer_written import check_written, dotted, offset_of, place_of
from attncli.spec.values import check_keys, fail, fail_at, text
from attncli.workers.bounded import BUDGET_SIGNAL, Overrun, bounded, processor_budget

TOKENIZER_KEYS = ("tokenizer", "text")
TOKENIZER_SECONDS = 10
# The processor time of encoding the text, the file read and checked. A model's reach is held to
# about 0.3 s (spec/tokenizer_reach.py's MAX_TRIES), a real tokenizer's patterns take a few ms on
# a text of MAX_TEXT characters; a pattern whose repetition can take a word in many ways, each
# word just under Oniguruma's limit of retries in one match, took 0.19 s a word and 5.2 s for a
# text of 23 such words (`(?:ab|a|b)+$` on words of ab×20 and `!`).
ENCODE_MILLISECONDS = 500
# The file's bytes and all `tokenizers` makes of them, above attn's own (about 36 MB): attn and
# the tokenizer's process together stay under 200 MB. A vocabulary of 256,000 tokens and 403,000
# merges written as texts (Gemma 2's way, 12 MB) is read at 170 MB, attn's and its own; one of
# 137,560 tokens and 280,000 merges written as pairs (15 MB), stopped at 175 MB when the package
# read them as pairs, is read at 130 MB with them rewritten as texts (spec/tokenizer_merges.py).
TOKENIZER_MEGABYTES = 160
# An answer: every token at its longest (4 bytes a character) and its id, pickled.
LARGEST_ANSWER = MAX_TOKENS * (4 * MAX_TEXT + 32) + 4096

# What `Tokenizer.from_buffer` puts before serde's account of a file it cannot read.
FROM_BUFFER = "Cannot instantiate Tokenizer from buffer: "

# The panics of `tokenizers` building a BPE model from a merge it cannot join
# (spec/tokenizer_merges.py)
SLICE_PANIC = re.compile(r"range end index \d+ out of range .*|slice index starts at \d+ but ends "
                         r"at \d+")

# What `tokenizers` says when a text past truncation.max_length meets the strategy OnlySecond
SECOND_SEQUENCE = "Truncation error: Second sequence not provided"

# What the tokenizer's process answers: the tokens and ids, or why there are none.
Answer = tuple[str, object, object]


def tokenize(node: Node, folder: Path, allow_outside: bool,
             max_cells: int) -> tuple[tuple[str, ...], list[int]]:
    """The token strings and ids of `text` under the tokenizer file the spec names."""
    keys = check_keys(node, TOKENIZER_KEYS)
    for key in TOKENIZER_KEYS:
        if key not in keys:
            fail(node, "the key {key} is missing", key=key)
    name_node = keys["tokenizer"]
    name = text(name_node)
    sentence = text(keys["text"])
    try:
        kind, first, second = run(read(folder, name, allow_outside, max_cells), name, sentence)
    except FileProblem as problem:
        raise SpecError(Msg.of("{path}: {problem}", path=name_node.where.path,
                               problem=problem.message), name_node.where) from None
    if kind == "too_many":
        fail_at(keys["text"], Msg.plural_of(
            "the tokenizer gives {count} token; the limit is {limit}",
            "the tokenizer gives {count} tokens; the limit is {limit}", Count(int(str(first))),
            limit=Count(MAX_TOKENS)))
    if kind == "too_long":
        fail_at(keys["text"], Msg.plural_of(
            "the tokenizer gives a token of {count} character; the limit is {limit}",
            "the tokenizer gives a token of {count} characters; the limit is {limit}",
            Count(int(str(first))), limit=Count(MAX_TEXT)))
    tokens, ids = first, second
    assert isinstance(tokens, tuple) and isinstance(ids, list)
    if not ids:
        fail(keys["text"], "the tokenizer gives no tokens for this text")
    return tokens, ids


def read(folder: Path, name: str, allow_outside: bool, max_cells: int) -> bytearray:
    """The tokenizer file's bytes, UTF-8 within the spec's byte limit and the counts of
    check_objects; FileProblem if there is none. Kept as bytes: `tokenizers` reads them as they
    are, where a Python text of them would take up to four times as much, and a UTF-8 copy more;
    in a bytearray, where its merges can be rewritten in place (`run`)."""
    path = resolve(folder, name, allow_outside)
    existing_file(path, name)
    size, limit = path.stat().st_size, max_bytes(max_cells)
    if size > limit:
        raise FileProblem(Msg.plural_of(
            "{name} has {count} byte; the limit is {limit}, which {option} sets",
            "{name} has {count} bytes; the limit is {limit}, which {option} sets",
            Count(size), name=name, limit=byte_count(limit), option=LIMIT_HINT))
    try:
        with open_regular(path) as file:
            content = bytearray(size)
            content[file.readinto(content):] = b""  # a file that shrank as it was read
    except OSError as error:  # the system's words, never str(error), which names the path
        raise FileProblem(Msg.of("{name}: cannot read the tokenizer: {reason}", name=name,
                                 reason=os_problem(error))) from None
    check_utf8(content, name)
    check_objects(content, name)  # before `tokenizers` builds them
    if find_spec("tokenizers") is None:
        raise FileProblem(Msg.of("{name}: reading a tokenizer needs the tokenizers package "
                                 "(pip install \"attn[models]\")", name=name))
    return content


def check_utf8(content: bytes | bytearray, name: str) -> None:
    """FileProblem at the line:column of the first byte that is not UTF-8; decoded a MiB at a
    time, each piece ending before a character's first byte, so no text of the whole is made."""
    view, start = memoryview(content), 0
    while start < len(content):
        end = min(start + (1 << 20), len(content))
        while end < len(content) and end - start > 4 and content[end] & 0xC0 == 0x80:
            end -= 1  # a continuation byte: the piece ends before its character
        try:
            codecs.utf_8_decode(view[start:end], "strict", True)
        except UnicodeDecodeError as error:
            at = start + error.start
            line = content.count(b"\n", 0, at) + 1
            column = at - (content.rfind(b"\n", 0, at) + 1) + 1
            raise FileProblem(Msg.of(
                "{name}:{line}:{column}: cannot read the tokenizer: {reason}", name=name,
                line=line, column=column, reason=Msg.of(
                    "expected UTF-8 text, found the byte 0x{byte}", byte=f"{content[at]:02x}"))
            ) from None
        start = end


def run(buffer: bytearray, name: str, sentence: str) -> Answer:
    """`encode` in a process of its own, bounded in time and in memory: TOKENIZER_MEGABYTES
    for the file's bytes (already held) and all `tokenizers` makes of them. Merges written as
    pairs are rewritten as texts first, here, where `buffer` is let go before the process
    begins (spec/tokenizer_merges.py). The normalizer and pre-tokenizer the file writes are
    checked first, so a pattern the checks refuse does not start the process."""
    check_written(buffer, name, len(sentence))
    content = merges_as_texts(buffer)
    held = -(-len(content) // (1 << 20))
    try:
        kind, first, second = bounded(partial(encode, content, name, sentence),
                                      TOKENIZER_SECONDS, TOKENIZER_MEGABYTES - held,
                                      LARGEST_ANSWER)
    except (Overrun, MemoryError) as overrun:
        if isinstance(overrun, Overrun) and overrun.timed_out:
            raise FileProblem(Msg.plural_of(
                "{name}: the tokenizer took more than {count} second; attn stopped it",
                "{name}: the tokenizer took more than {count} seconds; attn stopped it",
                TOKENIZER_SECONDS, name=name)) from None
        if isinstance(overrun, Overrun) and overrun.ended_by == BUDGET_SIGNAL:
            raise FileProblem(Msg.plural_of(
                "{name}: the tokenizer took more than {count} millisecond of processor time to "
                "encode the text; attn stopped it ({signal})",
                "{name}: the tokenizer took more than {count} milliseconds of processor time to "
                "encode the text; attn stopped it ({signal})", ENCODE_MILLISECONDS, name=name,
                signal=BUDGET_SIGNAL)) from None
        merge = aborted_at(content, name)
        if merge is not None:
            raise FileProblem(merge) from None
        raise FileProblem(Msg.of("{name}: the tokenizer stopped without an answer; it may "
                                 "have needed more than {megabytes} MB of memory", name=name,
                                 megabytes=TOKENIZER_MEGABYTES)) from None
    if kind == "problem":
        assert isinstance(first, Msg)
        raise FileProblem(first)
    return kind, first, second


def aborted_at(content: bytes, name: str) -> Msg | None:
    """Why the tokenizer's process ended without an answer when a merge is the cause: a
    continuing_subword_prefix cut inside a character of a merge's second token makes the
    package's panic message invalid UTF-8, and the process aborts (tokenizer_merges.py
    `unjoinable`); the merge at its line:column, or None."""
    try:
        text = codecs.utf_8_decode(content, "strict", True)[0]
        config = json.loads(text)
    except (ValueError, RecursionError):
        return None
    merge = unjoinable(config.get("model")) if isinstance(config, dict) else None
    return None if merge is None else at_value(text, name, ("model", "merges", merge[0]),
                                               merge[1])


def encode(content: bytes, name: str, sentence: str) -> Answer:
    """In the tokenizer's process: the tokenizer built, its configuration checked, the text
    encoded; ("tokens", tokens, ids), ("too_many", count, None), ("too_long", length, None) or
    ("problem", message, None). Nothing is raised: a panic is a problem too."""
    try:  # its files opened: refused where no more may be (ulimit -n), said in the user's words
        from tokenizers import Tokenizer
    except OSError as error:
        return "problem", Msg.of("{name}: cannot read the tokenizer: {reason}", name=name,
                                 reason=os_problem(error)), None
    try:
        tokenizer = Tokenizer.from_buffer(content)
        config = configuration(tokenizer)
    except BaseException as error:  # the Rust side's errors, and its panics (BaseException)
        return "problem", refused(content, name, first_line(error, FROM_BUFFER)), None
    try:  # what costs work or memory is in effect only when a text is encoded
        check_config(config, name, len(sentence))
    except FileProblem as problem:
        return "problem", problem.message, None
    try:
        with processor_budget(ENCODE_MILLISECONDS / 1000):
            encoding = tokenizer.encode(sentence)
            ids, tokens = encoding.ids, encoding.tokens
    except BaseException as error:
        said = first_line(error)
        search = regex_search_problem(said, name, **pattern_at(config))
        if search is not None:
            return "problem", search, None
        where = place_of(content, ("truncation", "strategy")) if (
            said == SECOND_SEQUENCE) else None
        if where is not None:  # a text longer than max_length, which OnlySecond cannot cut
            return "problem", Msg.of(
                "{name}:{line}:{column}: {key}: {problem}", name=name, line=where[0],
                column=where[1], key="truncation.strategy", problem=Msg.of(
                    "expected LongestFirst or OnlyFirst, the ways to cut one text, found "
                    "OnlySecond")), None
        # a word with no token, in attn's words; else the package's own, said to be
        # untranslated (none a file met is left: each is refused first, spec/tokenizer_written.py)
        return "problem", Msg.of("{name}: the tokenizer failed: {reason}", name=name,
                                 reason=encoding_problem(said)), None
    if len(ids) > MAX_TOKENS:
        return "too_many", len(ids), None
    longest = max(map(len, tokens), default=0)
    if longest > MAX_TEXT:
        return "too_long", longest, None
    return "tokens", tuple(tokens), list(ids)


def refused(content: bytes, name: str, said: str) -> Msg:
    """Why `tokenizers` refused the file: Python's JSON reader's account if it is not JSON,
    else the package's own (serde's) message, each at the line:column of the file it names."""
    text = codecs.utf_8_decode(content, "strict", True)[0]
    try:  # as UTF-8 (checked before): bytes would be guessed UTF-16 or -32 from their NULs
        config = json.loads(text)
    except json.JSONDecodeError as error:
        return Msg.of("{name}:{line}:{column}: cannot read the tokenizer: {reason}", name=name,
                      line=error.lineno, column=error.colno, reason=Msg.of(
                          "malformed JSON: {problem}", problem=json_problem(error.msg)))
    except RecursionError:
        pass  # nested past Python's limit: the package's message says where
    else:
        found = model_problem(config.get("model")) if isinstance(config, dict) else None
        if found is not None:  # serde's English for a value of the model (tokenizer_model.py)
            return at_value(text, name, *found)
        merge = unjoinable(config.get("model")) if SLICE_PANIC.fullmatch(said) and isinstance(
            config, dict) else None
        if merge is not None:
            return at_value(text, name, ("model", "merges", merge[0]), merge[1])
        typed = wrong_type(text, config, said)
        if typed is not None:  # serde's place is the end of the part (tokenizer_types.py)
            return at_value(text, name, *typed)
    reason, line, column = tokenizers_problem(said)
    if line is None or column is None:
        return Msg.of("{name}: cannot read the tokenizer: {reason}", name=name, reason=reason)
    return Msg.of("{name}:{line}:{column}: cannot read the tokenizer: {reason}", name=name,
                  line=line, column=max(column, 1), reason=reason)


def at_value(text: str, name: str, path: tuple[str | int, ...], problem: Msg) -> Msg:
    """`problem` of the value at `path` of the tokenizer file `name` (whose JSON is `text`),
    at the value's line:column and named by its key path."""
    at = offset_of(text, path)
    return Msg.of("{name}:{line}:{column}: {key}: {problem}", name=name,
                  line=text.count("\n", 0, at) + 1, column=at - text.rfind("\n", 0, at),
                  key=dotted(path), problem=problem)


def pattern_at(config: dict[str, Any]) -> dict[str, str]:
    """The key and pattern of the tokenizer's split or replace patterns (the ones Oniguruma
    runs), several joined by commas."""
    found = patterns(config)
    return {"key": ", ".join(key for key, _ in found) or "pre_tokenizer",
            "pattern": ", ".join(regex for _, regex in found)}


def configuration(tokenizer: Any) -> dict[str, Any]:
    """The parts of a built tokenizer that spec/tokenizer_check.py checks, as tokenizer.json
    writes them, and the model's reach (spec/tokenizer_reach.py): read back from the tokenizer,
    so the file's model, often most of its bytes, is parsed once, by `tokenizers`."""
    padding = tokenizer.padding
    if padding is not None:
        length = padding.get("length")
        padding = {"strategy": "BatchLongest" if length is None else {"Fixed": length},
                   "pad_to_multiple_of": padding.get("pad_to_multiple_of")}
    parts = {key: None if part is None else json.loads(part.__getstate__())
             for key, part in (("normalizer", tokenizer.normalizer),
                               ("pre_tokenizer", tokenizer.pre_tokenizer))}
    model = {"dropout": getattr(tokenizer.model, "dropout", None), "reach": reach_of(tokenizer)}
    return {"padding": padding, "truncation": tokenizer.truncation, "model": model, **parts}


def first_line(error: BaseException, prefix: str = "") -> str:
    """An error's first line without `prefix`, at most 200 characters (a Rust message can be a
    page)."""
    said = str(error).strip().removeprefix(prefix)
    return said.splitlines()[0][:200] if said else type(error).__name__
