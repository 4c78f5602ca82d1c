"""A tokenizer.json model's values that `tokenizers` (serde) refuses in English of its own: a
BPE merge written as a text that is not two tokens with one space between them (`Merges text
file invalid at line 1`), a Unigram vocabulary that is empty (`EmptyVocabulary`), and a Unigram
entry that is not a token and its score (`invalid length 3, expected fewer elements in array`)
or whose score is past a 64-bit float (`number out of range`, -1e400). Each is found in the
file Python's JSON reader has read, after the package refused it, with the path of its value,
so that it is refused at its line:column."""

from __future__ import annotations

import math
from typing import Any

from attncli.i18n import Count, Msg, quoted

# The package drops a text merge that begins so (tokenizers/src/models/bpe/model.rs)
VERSION = "#version"

# A value's path in the file: keys and list places from the top.
Path = tuple[str | int, ...]


def model_problem(model: Any) -> tuple[Path, Msg] | None:
    """The first value of the `model` (tokenizer.json's, parsed) that `tokenizers` refuses in
    English, with its path and what was expected and found; None if there is none."""
    if not isinstance(model, dict):
        return None
    if model.get("type") == "BPE" or "merges" in model:
        merges = model.get("merges")
        for k, merge in enumerate(merges if isinstance(merges, list) else []):
            if isinstance(merge, str) and not merge.startswith(VERSION) and (
                    len(merge.split(" ")) != 2):
                return ("model", "merges", k), Msg.of(
                    "expected two tokens with one space between them, found {merge}",
                    merge=quoted(merge))
    if model.get("type") == "Unigram":
        vocab = model.get("vocab")
        if vocab == []:  # `Unable to load vocab EmptyVocabulary`
            return ("model", "vocab"), Msg.of("expected a vocabulary of at least one piece, "
                                              "found an empty list")
        for k, entry in enumerate(vocab if isinstance(vocab, list) else []):
            if isinstance(entry, list) and len(entry) != 2:
                return ("model", "vocab", k), Msg.plural_of(
                    "expected a token and its score, two items, found {count} item",
                    "expected a token and its score, two items, found {count} items",
                    Count(len(entry)))
            if isinstance(entry, list) and isinstance(entry[1], float) and not math.isfinite(
                    entry[1]):
                return ("model", "vocab", k, 1), Msg.of(
                    "expected a score that a 64-bit float holds, found one past its range")
    return None
