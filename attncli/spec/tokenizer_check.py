"""A tokenizer.json's configuration checked before a text is encoded: what it would pad to,
how long its normalizers can make the text (spec/tokenizer_growth.py), whether a pattern
repeats a repetition (which a backtracking regex engine, Oniguruma's in `tokenizers`, can take
exponential time on), and whether it cuts at random (BPE dropout), which would make the output
differ from run to run.

The tokenizer runs in a process of its own with bounded time and memory (spec/tokenizer.py), which
reads these parts back from the built tokenizer as tokenizer.json writes them; the checks turn
the cases found so far into a message that says what is wrong, before the work is done.
Before either, the file's bytes are counted (check_objects): its objects, texts, keys and
values, and how deep its lists and objects nest. Nothing here imports `tokenizers`: the
configuration is plain JSON.
"""

from __future__ import annotations

import re
from typing import Any

from attncli.i18n import Count, Msg
from attncli.spec.files import FileProblem
from attncli.spec.json_separators import deeper_past, separator_past
from attncli.spec.limits import MAX_DEPTH, MAX_TEXT
from attncli.spec.tokenizer_growth import grown
from attncli.spec.tokenizer_reach import check_reach
from attncli.spec.tokenizer_regex import MAX_DEPTH as MAX_GROUPS
from attncli.spec.tokenizer_regex import NotRun, TooDeep
from attncli.spec.tokenizer_ways import side_by_side

MAX_TOKENS = 4096  # tokens of one text
UNBOUNDED = re.compile(r"\{\d*,\}")  # {n,}: n or more
# JSON objects of one tokenizer.json, counted by their opening braces before `tokenizers` reads
# it. A vocabulary is one object and its merges are texts or lists; objects are the rest: added
# tokens, normalizers, template items (a real file holds a few thousand: 16,131 with 256,000
# tokens and 1,000 added ones). Each costs `tokenizers` about 700 bytes as it reads them: 300,000
# template items in 14.7 MB took 311 MB.
MAX_OBJECTS = 1 << 16
# JSON strings of one tokenizer.json, counted by their quotes: a token of the vocabulary is one, a
# merge one ("a b") or two (["a", "b"]). `tokenizers` takes 115 to 305 bytes for each as it reads
# them (a token is 305: the package holds the model three times over while reading it), so a file
# of more texts is past what spec/tokenizer.py's TOKENIZER_MEGABYTES allows; real ones hold fewer:
# 128,000 tokens and 280,000 merges as texts (Llama 3's) about 410,000; 256,000 tokens, 403,000
# merges as texts and 1,000 added tokens 669,027.
MAX_TEXTS = 1_000_000
# JSON values of one tokenizer.json (numbers, texts, lists, objects), bounded by its commas and
# opening brackets outside texts (spec/json_separators.py) before `tokenizers` reads it: numbers
# are neither texts nor objects, and the package holds each it reads inside its model or its
# post-processor (90 to 120 bytes a number: a special token of 900,000 ids and tokens took
# 215 MB; 9 million numbers in an unknown key of `padding`, 27 MB, 1.65 s and were "valid").
# A vocabulary token is one value, a merge one as a text and three as a pair (its bracket and
# two commas), a Unigram piece three: Llama 3's 128,000 tokens with 280,147 merges as pairs hold
# about 971,000, as texts 411,000; Qwen 2's 151,643 tokens and 151,387 pairs 606,000, Gemma 2's
# 256,000 tokens and 403,000 merges as texts 667,000, 256,000 tokens and 255,744 pairs 1,024,000.
MAX_VALUES = 1_200_000
# Keys of one tokenizer.json, counted by their colons: a vocabulary's token is one (a Unigram's
# piece none), an added token seven. `tokenizers` holds a vocabulary's token in about 305 bytes
# as it reads it, so a file of more does not fit the tokenizer's process: a WordLevel of 600,000
# tokens was stopped at its 160 MB after 0.96 s, one of 980,003 after 1.64 s. The largest real
# vocabularies have 256,000 to 262,144 tokens (Gemma's), with a few thousand added tokens.
MAX_KEYS = 400_000
# Lists and objects nested in one tokenizer.json, found from its brackets before `tokenizers`
# reads it (its reader stops at 128 levels, in English): a spec's limit. A real file nests 6
# deep (a Sequence's Replace's pattern); a Sequence inside a Sequence is two levels more.
MAX_NESTING = MAX_DEPTH


def check_config(config: Any, name: str, text_length: int) -> None:
    """FileProblem naming `name` and the key if the tokenizer.json `config` (parsed JSON) pads
    past MAX_TOKENS, can grow a text of `text_length` characters past MAX_NORMALIZED, holds
    a pattern that repeats a repetition, or has a model whose reach (config["model"]["reach"],
    read in the tokenizer's process) makes the grown text cost past MAX_TRIES."""
    if not isinstance(config, dict):
        raise FileProblem(Msg.of("{name}: cannot read the tokenizer: {reason}", name=name,
                                 reason="expected a JSON object"))
    check_padding(config.get("padding"), name)
    check_truncation(config.get("truncation"), name)
    check_dropout(config.get("model"), name)
    check_patterns_length(config, name)
    for key, regex in patterns(config):
        check_pattern(regex, key, name)
    length = text_length
    for key in ("normalizer", "pre_tokenizer"):
        length = grown(config.get(key), key, name, length)
    model = config.get("model")
    check_reach(model.get("reach") if isinstance(model, dict) else None, name, length)


def check_patterns_length(config: dict[str, Any], name: str) -> None:
    """FileProblem if the Regex patterns of the normalizer and pre-tokenizer have more than
    MAX_TEXT characters in all: each is read and its repetitions counted (check_pattern), in
    attn's own process too, at up to 0.2 s for 1,000 characters, and a Sequence may hold any
    number of them (100 patterns of 1,000 characters took 26 s). A real tokenizer's have a few
    hundred (o200k's, the longest of tests/test_tokenizer_patterns.py, 274)."""
    total = sum(len(regex) for _, regex in patterns(config))
    if total > MAX_TEXT:
        raise FileProblem(Msg.plural_of(
            "{name}: the patterns at normalizer and pre_tokenizer have {count} character in all; "
            "the limit is {limit}",
            "{name}: the patterns at normalizer and pre_tokenizer have {count} characters in all; "
            "the limit is {limit}", Count(total), name=name, limit=Count(MAX_TEXT)))


def check_objects(content: bytes | bytearray, name: str) -> None:
    """FileProblem if the tokenizer.json bytes `content` may hold more than MAX_OBJECTS JSON
    objects or MAX_TEXTS JSON strings (a brace or a quote inside a text counts too: a bound,
    found at C speed), up to more than MAX_KEYS keys (colons), or more than MAX_VALUES values,
    refused at the separator past them."""
    objects = content.count(b"{")
    if objects > MAX_OBJECTS:
        raise FileProblem(Msg.plural_of(
            "{name}: the file holds up to {count} JSON object; the limit is {limit}",
            "{name}: the file holds up to {count} JSON objects; the limit is {limit}",
            Count(objects), name=name, limit=Count(MAX_OBJECTS)))
    texts = content.count(b'"') // 2
    if texts > MAX_TEXTS:
        raise FileProblem(Msg.plural_of(
            "{name}: the file holds up to {count} JSON string (tokens and merges); the limit is "
            "{limit}",
            "{name}: the file holds up to {count} JSON strings (tokens and merges); the limit is "
            "{limit}", Count(texts), name=name, limit=Count(MAX_TEXTS)))
    keys = content.count(b":")
    if keys > MAX_KEYS:
        raise FileProblem(Msg.plural_of(
            "{name}: the file holds up to {count} JSON key (a vocabulary's tokens, seven for "
            "each added token); the limit is {limit}",
            "{name}: the file holds up to {count} JSON keys (a vocabulary's tokens, seven for "
            "each added token); the limit is {limit}", Count(keys), name=name,
            limit=Count(MAX_KEYS)))
    at = separator_past(content, MAX_VALUES)
    if at is not None:
        line, column = place(content, at)
        raise FileProblem(Msg.plural_of(
            "{name}:{line}:{column}: the file has more than {count} comma and opening bracket "
            "outside its texts, the limit of one tokenizer.json: each opens a JSON value, a "
            "number, a list or an object",
            "{name}:{line}:{column}: the file has more than {count} commas and opening brackets "
            "outside its texts, the limit of one tokenizer.json: each opens a JSON value, a "
            "number, a list or an object", Count(MAX_VALUES), name=name, line=line,
            column=column))
    at = deeper_past(content, MAX_NESTING)
    if at is not None:
        line, column = place(content, at)
        raise FileProblem(Msg.plural_of(
            "{name}:{line}:{column}: the file nests lists and objects more than {count} level "
            "deep, the limit of one tokenizer.json",
            "{name}:{line}:{column}: the file nests lists and objects more than {count} levels "
            "deep, the limit of one tokenizer.json", Count(MAX_NESTING), name=name, line=line,
            column=column))


def place(content: bytes | bytearray, at: int) -> tuple[int, int]:
    """The line and column (in characters) of byte `at` of the UTF-8 `content`."""
    start = content.rfind(b"\n", 0, at) + 1
    return (content.count(b"\n", 0, at) + 1,
            len(bytes(content[start:at]).decode("utf-8", "replace")) + 1)


def too_large(name: str, key: str, found: object, limit: int) -> FileProblem:
    return FileProblem(Msg.of("{name}: {key} is {found}; the limit is {limit}", name=name,
                              key=key, found=str(found), limit=Count(limit)))


def check_padding(padding: Any, name: str) -> None:
    if not isinstance(padding, dict):
        return
    strategy = padding.get("strategy")
    fixed = strategy.get("Fixed") if isinstance(strategy, dict) else None
    if isinstance(fixed, int) and fixed > MAX_TOKENS:
        raise too_large(name, "padding.strategy.Fixed", fixed, MAX_TOKENS)
    multiple = padding.get("pad_to_multiple_of")
    if isinstance(multiple, int) and multiple > MAX_TOKENS:
        raise too_large(name, "padding.pad_to_multiple_of", multiple, MAX_TOKENS)


def check_truncation(truncation: Any, name: str) -> None:
    """A stride of max_length or more never moves on: refused here, not met as a panic."""
    if not isinstance(truncation, dict):
        return
    length, stride = truncation.get("max_length"), truncation.get("stride", 0)
    if isinstance(length, int) and isinstance(stride, int) and stride >= max(length, 1):
        raise too_large(name, "truncation.stride", stride, max(length - 1, 0))


def check_dropout(model: Any, name: str) -> None:
    """BPE dropout cuts a text differently on every run: a worked example must be the same
    each time it is written."""
    dropout = model.get("dropout") if isinstance(model, dict) else None
    if isinstance(dropout, (int, float)) and dropout > 0:
        raise too_large(name, "model.dropout", dropout, 0)


def check_pattern(regex: str, key: str, name: str) -> None:
    """FileProblem if `regex` is longer than a text may be, repeats a group that itself holds a
    repetition, as `(a+)+` or `(\\w*)*` (time exponential in the text's length), or has
    repetitions side by side that share out a text in more than MAX_TEXT ways before a part that
    can fail, as `\\w*\\w*\\d` (time polynomial: spec/tokenizer_ways.py), or a
    repeated group whose passes can spell one text in two ways, as `(?:ab|a|b)+$`
    (spec/tokenizer_spelling.py)."""
    if len(regex) > MAX_TEXT:
        raise too_large(name, key, Msg.plural_of("{count} character", "{count} characters",
                                                 Count(len(regex))), MAX_TEXT)
    if nested_repetition(regex):
        raise FileProblem(Msg.of(
            "{name}: the pattern {pattern} at {key} repeats a repetition, which can take a time "
            "that grows exponentially with the text", name=name, pattern=regex, key=key))
    try:
        found = side_by_side(regex)
    except TooDeep:
        raise FileProblem(Msg.plural_of(
            "{name}: {key}: expected groups nested at most {count} deep; found the pattern "
            "{pattern}, which nests them deeper",
            "{name}: {key}: expected groups nested at most {count} deep; found the pattern "
            "{pattern}, which nests them deeper", MAX_GROUPS, name=name, key=key,
            pattern=regex)) from None
    except NotRun as construct:
        raise FileProblem(Msg.of(
            "{name}: {key}: expected a pattern without subexpression calls (\\g<…>, \\g'…') "
            "or absent operators ((?~…)), which attn does not run; found {construct} in the "
            "pattern {pattern}", name=name, key=key, construct=construct.construct,
            pattern=regex)) from None
    if found is not None:  # the limit of the run found: MAX_TEXT, twice that with a `?`
        raise FileProblem(Msg.plural_of(
            "{name}: {key}: expected at most {limit} ways for repetitions side by side to share "
            "out a text of {length} characters before a part that can fail; found {count} way "
            "for {parts} in the pattern {pattern}",
            "{name}: {key}: expected at most {limit} ways for repetitions side by side to share "
            "out a text of {length} characters before a part that can fail; found {count} ways "
            "for {parts} in the pattern {pattern}",
            Count(found.ways), name=name, key=key, limit=Count(found.limit),
            length=Count(MAX_TEXT), parts=", ".join(found.parts), pattern=regex))


def nested_repetition(regex: str) -> bool:
    """Whether a group holding an unbounded repetition (+, *, {n,}) is itself repeated."""
    groups: list[bool] = []  # for each open group: does it hold a repetition?
    k, in_class = 0, False
    while k < len(regex):
        char = regex[k]
        if char == "\\":
            k += 2
            continue
        if in_class:
            in_class = char != "]"
        elif char == "[":
            in_class = True
        elif char == "(":
            groups.append(False)
        elif char == ")" and groups:
            holds = groups.pop()
            if holds and repeats(regex, k + 1):
                return True
            if holds and groups:
                groups[-1] = True
        elif groups and repeats(regex, k):
            groups[-1] = True
        k += 1
    return False


def repeats(regex: str, k: int) -> bool:
    """Whether an unbounded repetition starts at `k`: +, * or {n,}."""
    return regex[k: k + 1] in ("+", "*") or UNBOUNDED.match(regex, k) is not None


def patterns(config: dict[str, Any]) -> list[tuple[str, str]]:
    """Every Regex pattern of the normalizer and pre-tokenizer, with its key path."""
    found: list[tuple[str, str]] = []

    def walk(part: Any, key: str) -> None:
        if not isinstance(part, dict):
            return
        for field in ("normalizers", "pretokenizers"):
            members = part.get(field)
            for k, member in enumerate(members if isinstance(members, list) else []):
                walk(member, f"{key}.{field}[{k}]")
        pattern = part.get("pattern")
        regex = pattern.get("Regex") if isinstance(pattern, dict) else None
        if isinstance(regex, str):
            found.append((f"{key}.pattern.Regex", regex))

    for key in ("normalizer", "pre_tokenizer"):
        walk(config.get(key), key)
    return found
