"""Merges written as pairs are read as texts (attncli/spec/tokenizer_merges.py) with not one
token changed: the oracle is the `tokenizers` package reading the file as it was saved."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from attncli.i18n import Count, Msg, quoted
from attncli.spec.tokenizer import run
from attncli.spec.tokenizer_merges import MAX_STEPS, merges_as_texts, unjoinable
from tests.conftest import BAD_INPUTS
from tests.conftest import run as cli
from tests.test_checkpoints import needed

CORPUS = ["Ala ma kota, a kot ma Alę. Zażółć gęślą jaźń!",
          "Съешь же ещё этих мягких французских булок, да выпей чаю.",
          "The quick brown fox jumps over the lazy dog 1234567890 times.",
          "emoji 🙂🚀 and   runs\tof\n\nwhitespace    here", "tokenizers tokenize tokens"] * 20
TEXTS = ["Hello world, the lazy dog", "Zażółć gęślą jaźń, kot ma Alę",
         "Съешь ещё этих булок", "🙂🚀 emoji 🙂", "a   b\t\tc\n\n  d    ", "tokenizers"]


def trained(kind: str) -> Any:
    """A BPE trained on CORPUS (deterministic: the trainer breaks ties by order), byte-level
    as GPT-2's and Llama 3's or with a metaspace ▁ as Gemma's."""
    tokenizers = needed("tokenizers")
    model = tokenizers.models.BPE(unk_token=None if kind == "bytes" else "<unk>")
    tokenizer = tokenizers.Tokenizer(model)
    if kind == "bytes":
        tokenizer.pre_tokenizer = tokenizers.pre_tokenizers.ByteLevel(add_prefix_space=False)
        tokenizer.decoder = tokenizers.decoders.ByteLevel()
        alphabet = tokenizers.pre_tokenizers.ByteLevel.alphabet()
    else:
        tokenizer.pre_tokenizer = tokenizers.pre_tokenizers.Metaspace()
        alphabet = sorted(set("".join(CORPUS).replace(" ", "▁")))
    trainer = tokenizers.trainers.BpeTrainer(vocab_size=600, initial_alphabet=alphabet,
                                             special_tokens=["<unk>"], show_progress=False)
    tokenizer.train_from_iterator(CORPUS, trainer)
    return tokenizer


@pytest.mark.parametrize("kind", ["bytes", "metaspace"])
@pytest.mark.parametrize("pretty", [True, False])
def test_merges_saved_as_pairs_give_the_same_tokens_read_as_texts(
        tmp_path: Path, kind: str, pretty: bool) -> None:
    tokenizers = needed("tokenizers")
    path = tmp_path / "tokenizer.json"
    path.write_text(trained(kind).to_str(pretty=pretty), encoding="utf-8")
    content = path.read_bytes()
    merges = json.loads(content)["model"]["merges"]
    assert len(merges) > 150 and all(isinstance(merge, list) for merge in merges)
    rewritten = merges_as_texts(bytearray(content))
    # every merge a text of its two parts, in the same order
    assert json.loads(rewritten)["model"]["merges"] == [" ".join(merge) for merge in merges]
    assert rewritten.count(b"\n") == content.count(b"\n")
    original, read = tokenizers.Tokenizer.from_file(str(path)), tokenizers.Tokenizer.from_buffer(
        rewritten)
    assert read.get_vocab() == original.get_vocab()
    assert json.loads(read.to_str())["model"] == json.loads(original.to_str())["model"]
    for sentence in TEXTS:
        expected, found = original.encode(sentence), read.encode(sentence)
        assert (found.ids, found.tokens) == (expected.ids, expected.tokens)
        answer = run(bytearray(content), "tokenizer.json", sentence)
        assert answer == ("tokens", tuple(expected.tokens), expected.ids)
        assert expected.ids
    # a text of its own characters that the merges still cut, so they are at work
    assert len(original.encode("Zażółć gęślą jaźń, kot ma Alę").ids) > 5


def saved(merges: list[list[str]]) -> bytes:
    vocab = {"a": 0, "b": 1, "ab": 2, " ": 3, "a ": 4, "#version": 5, "x": 6, "#versionx": 7}
    return json.dumps({"version": "1.0", "model": {"type": "BPE", "vocab": vocab,
                                                    "merges": merges}}).encode()


@pytest.mark.parametrize("merges", [[["a", "b"], ["a", " "]], [["a", "b"], ["a", "\\u0020"]],
                                    [["a", "b"], ["#version", "x"]], ["a b"],
                                    [["a", "b", "c"]], [["a", "b"], "a b"]])
def test_a_file_whose_merges_would_not_read_the_same_as_texts_is_left_as_it_is(
        merges: list[Any]) -> None:
    content = saved(merges).replace(b"\\\\u0020", b"\\u0020")
    assert merges_as_texts(bytearray(content)) == content


def test_a_refusal_names_the_same_place_after_the_rewrite() -> None:
    tokenizers = needed("tokenizers")
    # "b" merged with "x" makes "bx", which is no token of the vocabulary
    content = json.dumps({"version": "1.0", "model": {
        "type": "BPE", "vocab": {"a": 0, "b": 1, "ab": 2, "x": 3},
        "merges": [["a", "b"], ["b", "x"]]}}, indent=2).encode()
    rewritten = merges_as_texts(bytearray(content))
    assert b'"a b"' in rewritten and len(rewritten) == len(content)
    said = []
    for text in (content, rewritten):
        with pytest.raises(Exception) as refused:
            tokenizers.Tokenizer.from_buffer(text)
        said.append(str(refused.value))
    # where the package stands once the model is read: the file's last line, its closing brace
    last = content.count(b"\n") + 1
    assert content.splitlines()[-1] == b"}"
    assert said[0] == said[1]
    assert said[0].endswith(f"Token `bx` out of vocabulary at line {last} column 1")


def test_escaped_parts_and_a_hash_are_rewritten_as_the_package_reads_them() -> None:
    tokenizers = needed("tokenizers")
    # json.dumps escapes "\\" and "é" (\u00e9): the escapes are kept as they are written
    letters = ["#", "a", "#a", "\\", "é", "éa", "u", "0", "2", "u0", "u00", "u002", "u0020"]
    vocab = {token: i for i, token in enumerate([*letters, "\\u0020"])}
    merges = [["#", "a"], ["u", "0"], ["u0", "0"], ["u00", "2"], ["u002", "0"],
              ["\\", "u0020"], ["é", "a"]]
    content = json.dumps({"version": "1.0", "model": {"type": "BPE", "vocab": vocab,
                                                      "merges": merges}}).encode()
    assert b'["\\\\", "u0020"]' in content and b'"\\u00e9"' in content
    rewritten = merges_as_texts(bytearray(content))
    assert b'"\\\\ u0020"' in rewritten and b'"\\u00e9 a"' in rewritten
    assert json.loads(rewritten)["model"]["merges"] == [" ".join(merge) for merge in merges]
    original, read = (tokenizers.Tokenizer.from_buffer(text) for text in (content, rewritten))
    assert json.loads(read.to_str())["model"] == json.loads(original.to_str())["model"]
    for sentence in ("#a", "\\u0020", "éa"):
        assert read.encode(sentence).ids == original.encode(sentence).ids == [vocab[sentence]]


@pytest.mark.parametrize("old, new", [
    (b'["a", "b"]', b'["a",\n "b"]'),  # a line break inside a pair: its columns would move
    (b'"merges"', b'"merges": [], "merges"'),  # two merges: the package takes the last
    (b'"model"', b'"model": {}, "model"')])  # two models
def test_a_file_of_another_layout_is_left_as_it_is(old: bytes, new: bytes) -> None:
    content = saved([["a", "b"]]).replace(old, new)
    assert content.count(new) == 1
    assert merges_as_texts(bytearray(content)) == content


@contextmanager
def counted_scan() -> Iterator[list[tuple[int, bytes]]]:
    """The tokens the merges' scan reads (place, bytes), in order, while the block runs."""
    from attncli.spec import tokenizer_merges

    tokens: list[tuple[int, bytes]] = []
    scan = tokenizer_merges.SCAN

    class Counted:
        def search(self, content: bytearray, at: int) -> re.Match[bytes] | None:
            found = scan.search(content, at)
            if found is not None:
                tokens.append((found.start(), found.group(0)))
            return found

    tokenizer_merges.SCAN = Counted()  # type: ignore[assignment]
    try:
        yield tokens
    finally:
        tokenizer_merges.SCAN = scan


@pytest.mark.parametrize("tail", [b'"a' + b'\\"' * 200_000,  # a string never closed, of \"
                                  b'"' + b'\\\\\\"' * 150_000])  # of \\ and \"
def test_a_file_cut_inside_a_string_is_scanned_once(tail: bytes) -> None:
    # each of its 200,000 quotes began a string tried to the file's end: 20 s and more; now
    # the scan stops at the first quote that opens no string, and leaves the file as it was
    content = b'{"model": {"type": "BPE", "merges": [["a", "b"]], "x": ' + tail
    with counted_scan() as tokens:
        assert merges_as_texts(bytearray(content)) == content
    # the last token the scan read is the tail's opening quote, read as no string: it stopped
    assert tokens[-1] == (content.index(tail), b'"')


def test_a_file_of_more_steps_than_a_tokenizer_takes_is_left_as_written() -> None:
    # three million empty arrays beside the merges: walked one by one, 1.5 s of processor time
    # before the package was given the file; the scan stops after MAX_STEPS of them
    content = saved([["a", "b"]]).replace(b'"vocab"', b'"x": [' + b"[], " * 3_000_000
                                          + b'[]], "vocab"')
    with counted_scan() as tokens:
        assert merges_as_texts(bytearray(content)) == content
    assert len(tokens) == MAX_STEPS + 1  # not one per array: three million
    # a file of as many steps as a tokenizer takes is still rewritten
    few = saved([["a", "b"]]).replace(b'"vocab"', b'"x": [' + b"[], " * (MAX_STEPS // 2)
                                      + b'[]], "vocab"')
    assert b'"a b"' in merges_as_texts(bytearray(few))


def test_the_scan_takes_what_it_took_one_character_at_a_time() -> None:
    # runs of plain characters are taken in one step (`++`); the patterns as they were, a
    # character a step, match the same spans on texts with escapes, brackets and cut ends
    import random

    from attncli.spec import tokenizer_merges

    text = rb'"(?:[^"\\]|\\.)*+"'
    flat = re.compile(rb'\{(?:[^\[\]{}"]|' + text + rb')*+\}|\[(?:[^\[\]{}"]|' + text
                      + rb')*+\]', re.DOTALL)
    scan = re.compile(text + rb'(?:\s*:)?|[\[\]{}]|"', re.DOTALL)
    rng = random.Random(3)
    pieces = [b'"', b"\\", b"\\\\", b'\\"', b"a", b" ", b":", b",", b"[", b"]", b"{", b"}",
              b"\n", "ą".encode()]
    for _ in range(3000):
        content = b"".join(rng.choices(pieces, k=rng.randint(0, 14)))
        for at in range(len(content)):
            for old, new in ((flat, tokenizer_merges.FLAT), (scan, tokenizer_merges.SCAN)):
                was, now = old.match(content, at), new.match(content, at)
                assert (was and was.span()) == (now and now.span()), (content, at)
            assert ((found := scan.search(content, at)) and found.span()) == (
                (again := tokenizer_merges.SCAN.search(content, at)) and again.span())


@contextmanager
def counted_pairs() -> Iterator[list[bytes]]:
    """The pairs rewritten one by one (`as_text`), while the block runs."""
    from attncli.spec import tokenizer_merges

    pairs: list[bytes] = []
    as_text = tokenizer_merges.as_text

    def counted(pair: re.Match[bytes]) -> bytes:
        pairs.append(pair.group(0))
        return as_text(pair)

    tokenizer_merges.as_text = counted
    try:
        yield pairs
    finally:
        tokenizer_merges.as_text = as_text


def pretty(merges: list[list[str]]) -> bytes:
    """As tokenizers writes a file pretty: two spaces an indent, each part on a line."""
    return json.dumps({"version": "1.0", "model": {"type": "BPE", "vocab": {},
                                                   "merges": merges}}, indent=2).encode()


def test_pairs_laid_out_alike_across_lines_are_rewritten_at_once() -> None:
    # worked by hand: `[`, the parts' quotes and the comma become `"a b"` and four spaces, the
    # pair's line breaks and indents kept, so every line and column after it is where it was
    content = pretty([["a", "b"], ["ab", "c"]])
    merges = (b'[\n      [\n        "a",\n        "b"\n      ],\n'
              b'      [\n        "ab",\n        "c"\n      ]\n    ]')
    texts = (b'[\n      "a b"   \n        \n        \n       ,\n'
             b'      "ab c"   \n        \n        \n       \n    ]')
    assert merges in content and len(texts) == len(merges)
    with counted_pairs() as pairs:
        assert merges_as_texts(bytearray(content)) == content.replace(merges, texts)
    assert pairs == []  # none one by one: 280,000 of them took 0.5 s


@pytest.mark.parametrize("merges", [
    # parts that hold what the layout's replacements look for, but never a line break
    [["[", '"'], ['",', '"'], ["]", ","], ['"]', "[\\"], ["a", "b"], ['","', ""]],
    [["a", "b"]] * 100])
def test_replacements_give_what_the_pairs_one_by_one_give(merges: list[list[str]]) -> None:
    from attncli.spec.tokenizer_merges import PAIR, as_text

    content = pretty(merges)
    with counted_pairs() as pairs:
        rewritten = merges_as_texts(bytearray(content))
    assert (pairs, rewritten) == ([], PAIR.sub(as_text, content))
    assert json.loads(rewritten)["model"]["merges"] == [" ".join(merge) for merge in merges]


@pytest.mark.parametrize("change", [
    (b'[\n        "a",\n        "b"\n      ]', b'["a", "b"]                               '),
    (b'"b"\n      ]', b'"b"\n       ]'), (b'"a",\n', b'"a" ,\n'),
    (b'[\n        "a"', b'[ \n       "a"')])
def test_pairs_laid_out_otherwise_are_rewritten_one_by_one(change: tuple[bytes, bytes]) -> None:
    # one pair of three laid out otherwise (on one line, or a space more around its parts):
    # every pair is rewritten one by one, each as the pattern finds it
    from attncli.spec.tokenizer_merges import PAIR, as_text

    content = pretty([["x", "y"], ["a", "b"], ["ab", "c"]])
    changed = content.replace(*change)
    assert content.count(change[0]) == 1 and changed != content
    with counted_pairs() as pairs:
        rewritten = merges_as_texts(bytearray(changed))
    assert (len(pairs), rewritten) == (3, PAIR.sub(as_text, changed))
    assert json.loads(rewritten)["model"]["merges"] == ["x y", "a b", "ab c"]


@pytest.mark.parametrize(("case", "lang", "line"), [
    # ["c", "a"] joins "ca", 2 bytes, where the vocabulary's longest token has 1: the package
    # wrote it into a buffer of 1 (`range end index 2 out of range for slice of length 1`)
    ("tokenizer_merge_longer", "pl", "tokenizer_merge_longer.tokenizer.json:20:7: "
     "model.merges[0]: scalenie tworzy lub łączy token „ca”, którego nie ma w\u00a0słowniku"),
    ("tokenizer_merge_longer", "ru", "tokenizer_merge_longer.tokenizer.json:20:7: "
     "model.merges[0]: слияние даёт или использует токен «ca», которого нет в\u00a0словаре "
     "токенизатора"),
    # "a", 1 byte, cut by a prefix "##" of 2 (`slice index starts at 1 but ends at 0`)
    ("tokenizer_merge_prefix", "pl", "tokenizer_merge_prefix.tokenizer.json:1:264: "
     "model.merges[0]: oczekiwano drugiego tokenu o\u00a0długości co najmniej 2 bajtów (tyle ma "
     "model.continuing_subword_prefix), otrzymano token „a”"),
    ("tokenizer_merge_prefix", "ru", "tokenizer_merge_prefix.tokenizer.json:1:264: "
     "model.merges[0]: ожидается второй токен длиной не менее 2 байт (такова длина "
     "model.continuing_subword_prefix), получен токен «a»"),
    # "éx" cut by a prefix "#" of 1 byte inside its é: the package's panic message is cut there
    # too, is not UTF-8, and its process aborts with no answer
    ("tokenizer_merge_mid_character", "pl", "tokenizer_merge_mid_character.tokenizer.json:1:281: "
     "model.merges[1]: oczekiwano drugiego tokenu, którego pierwszy bajt "
     "(model.continuing_subword_prefix ma 1 bajt) kończy się na granicy znaku, otrzymano token "
     "„éx”"),
    ("tokenizer_merge_mid_character", "ru", "tokenizer_merge_mid_character.tokenizer.json:1:281: "
     "model.merges[1]: ожидается второй токен, у\u00a0которого начало длиной 1 байт (такова длина "
     "model.continuing_subword_prefix) заканчивается на границе символа, получен токен «éx»"),
])
def test_a_merge_the_package_panics_on_is_refused_at_its_place(
        case: str, lang: str, line: str, monkeypatch: pytest.MonkeyPatch) -> None:
    row = 3 if case == "tokenizer_merge_mid_character" else 1  # below its two comment lines
    assert_tokenizer_refused(monkeypatch, case, lang, row, line)


def assert_tokenizer_refused(monkeypatch: pytest.MonkeyPatch, case: str, lang: str, row: int,
                             line: str) -> None:
    """The catalogue's spec `case` refused in `lang` at its tokenizer key (row `row`), the
    tokenizer file's own place and problem being `line`."""
    monkeypatch.chdir(BAD_INPUTS)
    result = cli("explain", f"{case}.yaml", "--lang", lang)
    assert (result.exit_code, result.stdout) == (2, "")
    assert result.stderr == f"{case}.yaml:{row}:21: tokens.tokenizer: {line}\n"


def test_merges_the_package_takes_are_passed_over() -> None:
    # the first merge joins "ca", which the vocabulary holds; the second, ["ca", "t"], "cat",
    # longer than its every token
    model = {"vocab": {"c": 0, "a": 1, "t": 2, "ca": 3}, "merges": ["c a", ["ca", "t"]]}
    assert unjoinable(model) == (1, Msg.of(
        "a merge makes or joins the token {token}, which the vocabulary does not hold",
        token=quoted("cat")))
    # a token the vocabulary lacks: the package's own refusal, which comes first
    assert unjoinable({**model, "merges": [["c", "x"], ["ca", "t"]]}) is None
    # "##a" keeps 3 bytes past a prefix of 2; "a" does not
    prefixed = {"vocab": {"c": 0, "##a": 1, "ca": 2, "a": 3}, "continuing_subword_prefix": "##"}
    assert unjoinable({**prefixed, "merges": [["c", "##a"]]}) is None
    assert unjoinable({**prefixed, "merges": [["c", "##a"], ["c", "a"]]}) == (1, Msg.plural_of(
        "expected a second token of at least {count} byte, the length of "
        "model.continuing_subword_prefix, found {token}",
        "expected a second token of at least {count} bytes, the length of "
        "model.continuing_subword_prefix, found {token}", Count(2), token=quoted("a")))
    # a prefix of 2 bytes ends inside "aé"'s é (bytes a, 0xC3, 0xA9), and at the edge of "éa"'s
    split = {"vocab": {"c": 0, "aé": 1, "éa": 2, "ca": 3}, "continuing_subword_prefix": "##"}
    assert unjoinable({**split, "merges": [["c", "éa"], ["c", "aé"]]}) == (1, Msg.plural_of(
        "expected a second token whose first {count} byte, the length of "
        "model.continuing_subword_prefix, ends where a character ends, found {token}",
        "expected a second token whose first {count} bytes, the length of "
        "model.continuing_subword_prefix, end where a character ends, found {token}", Count(2),
        token=quoted("aé")))
