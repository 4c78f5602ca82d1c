"""`tokens: {tokenizer: tokenizer.json, text: "..."}`: the tokens of a text as a model's own
tokenizer cuts it, with their ids (for `rows: tokens` of an embedding matrix). The `tokenizers`
package is imported only here, only when a spec asks for it (pip install "attn[models]")."""

from __future__ import annotations

from pathlib import Path

from attncli.errors import SpecError
from attncli.i18n import Msg
from attncli.spec.files import FileProblem, resolve
from attncli.spec.limits import max_bytes
from attncli.spec.source import LIMIT_HINT, Node
from attncli.spec.values import check_keys, fail, fail_at, text

TOKENIZER_KEYS = ("tokenizer", "text")
MAX_TOKENS = 4096


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
        path = resolve(folder, name, allow_outside)
        if not path.is_file():
            raise FileProblem(Msg.of("{name}: no such file", name=name))
        size, limit = path.stat().st_size, max_bytes(max_cells)
        if size > limit:
            raise FileProblem(Msg.plural_of(
                "{name} has {count} byte; the limit is {limit} bytes, which {option} sets",
                "{name} has {count} bytes; the limit is {limit} bytes, which {option} sets",
                size, name=name, limit=limit, option=LIMIT_HINT))
        try:
            from tokenizers import Tokenizer
        except ImportError:
            raise FileProblem(Msg.of("{name}: reading a tokenizer needs the tokenizers package "
                                     "(pip install \"attn[models]\")", name=name)) from None
        try:
            tokenizer = Tokenizer.from_str(path.read_text(encoding="utf-8"))
        except Exception as error:  # the Rust side's errors
            reason = str(error).splitlines()[0][:200] if str(error) else type(error).__name__
            raise FileProblem(Msg.of("{name}: cannot read the tokenizer: {reason}", name=name,
                                     reason=reason)) from None
    except FileProblem as problem:
        raise SpecError(Msg.of("{path}: {problem}", path=name_node.where.path,
                               problem=problem.message), name_node.where) from None
    encoding = tokenizer.encode(sentence)
    if not encoding.ids:
        fail(keys["text"], "the tokenizer gives no tokens for this text")
    if len(encoding.ids) > MAX_TOKENS:
        fail_at(keys["text"], Msg.plural_of(
            "the tokenizer gives {count} token; the limit is {limit}",
            "the tokenizer gives {count} tokens; the limit is {limit}", len(encoding.ids),
            limit=MAX_TOKENS))
    return tuple(encoding.tokens), list(encoding.ids)
