"""`attn snippets` never writes over a file a spec reads where the spec's text does not show its
name (attncli/snippets/rules.py, escapes.py; docs/snippets.md, "What attn writes").

Two holes: a spec that its reader refuses (a mistake in its syntax, a byte that is not UTF-8, a
JSON spec that does not parse) writing its tokenizer's name only through an escape
(`"tokenizer\\x2ejson"`) was searched as written, the name was not found, and another entry's
snippet replaced the tokenizer; and a valid `model:` spec of token ids reads no tokenizer.json,
so the folder's tokenizer.json was no input, and a snippet `m/tokenizer.json` replaced it (the
next spec of a text read a walkthrough as its tokenizer). Each is run as attn is, in a process
of its own, on a tree made here: one line, exit 2, nothing written.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from attncli.snippets import escapes
from tests.test_read_once import llama_folder
from tests.test_snippet_writes import snapshot

TOKENIZER = '{"kept": "the tokenizer that was there"}\n'
SPEC = "tokens: [cat, mouse]\nembeddings: [[1, 0], [0, 1]]\n"


def entry(specs: str, output: str, formats: str = '["json"]') -> str:
    return f'[[snippets]]\nspecs = "{specs}"\nformats = {formats}\noutput = "{output}"\n'


def attn_snippets(root: Path, *options: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "attncli", "snippets", *options], cwd=root,
                          capture_output=True, text=True, timeout=120,
                          env={**os.environ, "ATTN_LANG": ""})


def refused(root: Path, line: str, *options: str) -> None:
    """`attn snippets`, --check and --diff each refuse with `line` alone, and write nothing."""
    before = snapshot(root)
    for args in (options, ("--check", *options), ("--diff", *options)):
        done = attn_snippets(root, *args)
        assert (done.returncode, done.stdout, done.stderr) == (2, "", line + "\n"), args
    assert snapshot(root) == before


ESCAPED = "attn.toml:8:10: snippets[1].output: the snippet m/tokenizer.json would be written " \
          "over the input m/tokenizer.json"


@pytest.mark.parametrize(("name", "spec"), [
    # YAML: the reader stops at the mistake on line 1, before the name
    ("cat.attn.yaml", b'maks: ]\ntokens: {tokenizer: "tokenizer\\x2ejson", text: "cat mouse"}\n'),
    ("cat.attn.yaml", b'maks: ]\ntokens: {tokenizer: "\\u0074okenizer.json", text: "cat"}\n'),
    ("cat.attn.yaml", b'maks: ]\ntokens: {tokenizer: "tokenizer\\U0000002ejson", text: "a"}\n'),
    # a byte that is not UTF-8: the text is not read as YAML at all
    ("cat.attn.yaml", b'title: "caf\xe9"\ntokens: {tokenizer: "tokenizer\\x2ejson"}\n'),
    # JSON that does not parse (a comma missing, or cut off): no text of it is read
    ("cat.attn.json", b'{"tokens": {"tokenizer": "tokenizer\\u002ejson" "text": "cat"}}\n'),
    ("cat.attn.json", b'{"tokens": {"tokenizer": "\\u0074\\u006f\\u006b\\u0065\\u006eizer.json"'),
])
def test_no_snippet_is_written_over_a_name_a_broken_spec_writes_with_escapes(
        tmp_path: Path, name: str, spec: bytes) -> None:
    (tmp_path / "m").mkdir()
    (tmp_path / "m/tokenizer.json").write_text(TOKENIZER, encoding="utf-8")
    (tmp_path / "m" / name).write_bytes(spec)
    (tmp_path / "planted.attn.yaml").write_text(SPEC, encoding="utf-8")
    (tmp_path / "attn.toml").write_text(entry("m/cat.attn.*", "out/{name}.{ext}")
                                        + entry("planted.attn.yaml", "m/tokenizer.json"),
                                        encoding="utf-8")
    refused(tmp_path, ESCAPED)
    assert (tmp_path / "m/tokenizer.json").read_text(encoding="utf-8") == TOKENIZER


@pytest.mark.parametrize(("text", "read"), [
    # worked by hand: \x2e, \u002e and \U0000002e are ".", \\ a backslash (so \\x2e is not
    # an escape of "."), \/ a slash, \N YAML's next line (U+0085), \_ its no-break space
    (b'"t\\x2ejson"', b'"t.json"'),
    (b'"t\\u002ejson" "\\U0000002e"', b'"t.json" "."'),
    (b'"t\\\\x2ejson"', b'"t\\x2ejson"'),
    (b'"t\\\\\\x2ejson"', b'"t\\.json"'),
    (b'"a\\/b\\N\\_"', b'"a/b\xc2\x85\xc2\xa0"'),
    (b'"\\ud83d\\ude00.txt"', "\"\U0001F600.txt\"".encode()),  # JSON's surrogate pair
    (b'"t.js\\\n    on"', b'"t.json"'),  # a line continued: YAML drops the next one's indent
    (b'"\\q\\x2"', b'"\\q\\x2"'),  # no escape of either reader: as written
    (b"no escape", None),
])
def test_the_escapes_are_read_as_yaml_and_json_read_them(text: bytes, read: bytes | None) -> None:
    assert escapes.Escapes().read(text) == ([] if read is None else [read])


def test_a_part_that_may_begin_within_a_pair_is_read_both_ways() -> None:
    # a part of a spec read past the bytes held begins where it begins: its "\\\\x2e" may be
    # a backslash and x2e, or the end of "\\\\\\x2e" whose first backslash is in the part
    # before: a backslash, then "." (read from the part's second byte)
    assert escapes.Escapes().read(b"\\\\x2e.txt", mid=True) == [b"\\x2e.txt", b"..txt"]


def test_past_the_escapes_read_every_snippet_is_taken_to_be_named(
        monkeypatch: pytest.MonkeyPatch) -> None:
    # 32 million escapes in 64 MB took 70 s to read one by one; past MAX_ESCAPES in all the
    # texts together none is read, and every snippet there is counts as named
    monkeypatch.setattr(escapes, "MAX_ESCAPES", 5)
    calls = 0
    real = escapes._character

    def counted(match: object) -> bytes:
        nonlocal calls
        calls += 1
        return real(match)  # type: ignore[arg-type]

    monkeypatch.setattr(escapes, "_character", counted)
    read = escapes.Escapes()
    assert read.read(b"\\x2e\\x2e\\x2e") == [b"..."]
    assert read.read(b"\\x2e\\x2e\\x2e") == []
    assert read.read(b"\\x2e") == []
    assert (read.past, calls) == (True, 3)


MODEL_LINES = {
    "en": "attn.toml:8:10: snippets[1].output: the snippet m/tokenizer.json would be written into "
          "m, a model folder a spec reads; attn snippets writes nothing in a model folder",
    "pl": "attn.toml:8:10: snippets[1].output: fragment m/tokenizer.json zostałby zapisany "
          "w\u00a0katalogu modelu m, z\u00a0którego czyta jedna ze specyfikacji; attn snippets "
          "nie zapisuje niczego w\u00a0katalogach modeli",
    "ru": "attn.toml:8:10: snippets[1].output: фрагмент m/tokenizer.json был бы записан "
          "в\u00a0папку модели m, которую читает одна из спецификаций; attn snippets ничего не "
          "записывает в\u00a0папки моделей",
}


@pytest.mark.parametrize("lang", ["en", "pl", "ru"])
def test_no_snippet_is_written_into_a_model_folder_a_valid_spec_reads(tmp_path: Path,
                                                                      lang: str) -> None:
    # the spec gives token ids, so it reads no tokenizer.json: the folder's was replaced
    llama_folder(tmp_path, 1)
    (tmp_path / "m/tokenizer.json").write_text(TOKENIZER, encoding="utf-8")
    (tmp_path / "layer.attn.yaml").write_text("model: {path: m, layer: 0}\n"
                                              "tokens: {ids: [1, 2, 3]}\n", encoding="utf-8")
    (tmp_path / "planted.attn.yaml").write_text(SPEC, encoding="utf-8")
    (tmp_path / "attn.toml").write_text(entry("layer.attn.yaml", "out/{name}.{ext}")
                                        + entry("planted.attn.yaml", "m/tokenizer.json"),
                                        encoding="utf-8")
    refused(tmp_path, MODEL_LINES[lang], *(["--lang", lang] if lang != "en" else []))
    assert (tmp_path / "m/tokenizer.json").read_text(encoding="utf-8") == TOKENIZER


@pytest.mark.parametrize("output", ["m/tokenizer_config.json", "m/notes/{name}.txt"])
def test_nothing_new_is_written_into_a_model_folder_either(tmp_path: Path, output: str) -> None:
    # a file that is not there yet, or a folder below: the next spec of a text would read
    # a tokenizer.json written there, and the folder is the model's
    llama_folder(tmp_path, 1)
    (tmp_path / "layer.attn.yaml").write_text("model: {path: m, layer: 0}\n"
                                              "tokens: {ids: [1, 2, 3]}\n", encoding="utf-8")
    (tmp_path / "planted.attn.yaml").write_text(SPEC, encoding="utf-8")
    (tmp_path / "attn.toml").write_text(
        entry("layer.attn.yaml", "out/{name}.{ext}")
        + entry("planted.attn.yaml", output, formats='["json"]' if "json" in output
                else '["text"]'), encoding="utf-8")
    shown = output.replace("{name}", "planted")
    refused(tmp_path, f"attn.toml:8:10: snippets[1].output: the snippet {shown} would be written "
            "into m, a model folder a spec reads; attn snippets writes nothing in a model folder")


def test_a_tree_beside_a_model_folder_is_written(tmp_path: Path) -> None:
    llama_folder(tmp_path, 1)
    (tmp_path / "layer.attn.yaml").write_text("model: {path: m, layer: 0}\n"
                                              "tokens: {ids: [1, 2, 3]}\n", encoding="utf-8")
    (tmp_path / "attn.toml").write_text(entry("layer.attn.yaml", "m-notes/{name}.{ext}"),
                                        encoding="utf-8")
    done = attn_snippets(tmp_path)
    assert (done.returncode, done.stderr) == (0, "attn: 1 written, 0 unchanged, 0 failed\n")
