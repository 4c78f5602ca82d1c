"""`attn snippets` and the specs it could not read (attncli/snippets/rules.py, check_unread): a
snippet is not written over a file whose name such a spec's text holds, and finding that costs
the bytes read, never their product with the number of snippets.

Found by an adversarial round: 20 sparse spec files of 70 MB each (refused for their size) were
each read whole (64 MB) and kept, 1.3 GB, to say four lines; one such spec named by 800 entries
whose snippets were there was searched once for each name, 22 s. And 300 small specs each
writing `.txt` 4,000 times had each place looked at for each snippet name's length (9 s), and a
spec of 100,000 texts had each asked of the system four times (4 s).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from attncli.snippets import rules
from tests.test_limits import PEAK_MB, peak_rss_mb

ENTRY = ('[[snippets]]\nspecs = "{specs}"\nformats = ["{format}"]\nlanguages = ["en"]\n'
         'output = "{output}"\n')
TOO_LARGE = 70 << 20  # a spec file past the default byte limit (4.8 MB), refused unread


def sparse_specs(root: Path, count: int, linked: bool = False) -> None:
    """`count` spec files of 70 MB of zeros in root/specs (hard links of one with `linked`),
    each with its snippet already there, so that every one is looked for."""
    (root / "specs").mkdir()
    (root / "out").mkdir()
    for i in range(count):
        spec = root / f"specs/b{i}.yaml"
        if linked and i:
            os.link(root / "specs/b0.yaml", spec)
        else:
            with open(spec, "wb") as out:
                out.truncate(TOO_LARGE)
        (root / f"out/b{i}.md").write_text("old\n", encoding="utf-8")
    (root / "attn.toml").write_text(ENTRY.format(specs="specs/*.yaml", format="markdown",
                                                 output="out/{name}.{ext}"), encoding="utf-8")


def test_specs_that_cannot_be_read_are_not_kept_whole(tmp_path: Path) -> None:
    sparse_specs(tmp_path, 20)
    code, stderr, mb = peak_rss_mb("snippets", "--check", cwd=tmp_path)
    assert code == 2
    assert stderr.count("the spec has 73,400,320 bytes; the limit is 4,800,000 bytes") == 20
    assert mb < PEAK_MB  # 1,300 MB when each was read and kept


def test_a_spec_under_many_names_is_read_once(tmp_path: Path) -> None:
    sparse_specs(tmp_path, 40, linked=True)
    code, stderr, mb = peak_rss_mb("snippets", "--check", cwd=tmp_path)
    assert code == 2
    assert stderr.count("the spec has 73,400,320 bytes") == 40
    assert mb < PEAK_MB  # 2,600 MB when each name was read whole and kept


@pytest.mark.parametrize(("text", "held"), [
    (b"maks: 1\ntokens: {tokenizer: model/t.json, text: a}\n", {b"t.json"}),
    (b'{"maks": 1, "tokens": {"tokenizer": "t.json"}}', {b"t.json"}),
    (b"maks: 1\ntokens: {tokenizer: model/at.json, text: a}\n", {b"at.json", b"t.json"}),
    (b"maks: 1\nnote: t.jso n.json\n", {b"n.json"}),
    (b"maks: 1\n" + b"x.json " * (rules.MAX_PLACES + 1), {b"t.json", b"n.json", b"at.json"}),
    (b"maks: 1\n" + b"x.md " * (rules.MAX_PLACES + 1) + b"t.json", {b"t.json"}),
])
def test_the_names_a_text_holds_are_found_where_their_extension_stands(text: bytes,
                                                                        held: set[bytes]) -> None:
    names = {b"t.json", b"at.json", b"n.json", b"t.md"}
    # as `name in text` finds them; past MAX_PLACES places of one extension, every name of it
    assert rules._held_names(names, [text]) == held | ({b"t.md"} if b"x.md" in text else set())


@pytest.mark.parametrize("name", ["config.json", "tokenizer.json",
                                  "model.safetensors.index.json"])
def test_no_snippet_is_written_over_a_model_folders_file_when_its_spec_cannot_be_read(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, name: str) -> None:
    from tests.conftest import run

    # the model spec is refused at a key before its folder is read, and its text names the
    # folder alone: another entry's snippet m/NAME replaced the folder's file, and the next
    # run of the model spec read a walkthrough as its config
    monkeypatch.chdir(tmp_path)
    (tmp_path / "m").mkdir()
    (tmp_path / "m" / name).write_text('{"model_type": "llama"}\n', encoding="utf-8")
    (tmp_path / "model.yaml").write_text("model: {path: m, layer: 0}\nmaks: 1\n",
                                         encoding="utf-8")
    (tmp_path / "specs").mkdir()
    stem = name[: -len(".json")]
    (tmp_path / "specs" / f"{stem}.yaml").write_text(
        "tokens: [cat, mouse]\nembeddings: [[1, 0], [0, 1]]\n", encoding="utf-8")
    (tmp_path / "attn.toml").write_text(
        ENTRY.format(specs="model.yaml", format="markdown", output="out/{name}.{ext}")
        + ENTRY.format(specs=f"specs/{stem}.yaml", format="json", output="m/{name}.{ext}"),
        encoding="utf-8")
    result = run("snippets")
    assert result.exit_code == 2
    assert result.stderr.startswith(f"attn.toml:10:10: snippets[1].output: the snippet m/{name} "
                                    f"would be written over the input m/{name}\n")
    assert (tmp_path / "m" / name).read_text(encoding="utf-8") == '{"model_type": "llama"}\n'


@pytest.mark.parametrize("codec", ["utf-8", "utf-16", "utf-32"])
@pytest.mark.parametrize("pad", range(0, 40, 3))
@pytest.mark.parametrize("written", ["t.json", '"t\\x2ejson"', '"\\U00000074\\u002ejson"'])
def test_a_name_past_the_bytes_held_is_found_in_the_parts_read_after(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, codec: str, pad: int,
        written: str) -> None:
    # a spec within its byte limit (--max-cells 20000000: 80 MB) named t.json past the first
    # 64 MiB held to be searched; another entry's snippet was written over t.json. Here the bytes
    # held are 64 and each later part 16, so the name stands past them, across two parts (across
    # several, escaped)
    from attncli.errors import Location, SpecError

    monkeypatch.setattr(rules, "UNREAD_BYTES", 64)
    monkeypatch.setattr(rules, "SCANNED_BYTES", 16)
    spec = tmp_path / "b.yaml"
    spec.write_bytes(("maks: 1\n# " + "x" * (64 + pad) + f"\nnote: {written}\n").encode(codec))
    (tmp_path / "t.json").write_text("{}\n", encoding="utf-8")
    outputs = [(Path("t.json"), tmp_path / "t.json", Location("attn.toml", 4, 10))]
    with pytest.raises(SpecError) as refused:
        rules.check_unread(outputs, [spec], 10_000)
    message = refused.value.message
    assert "would be written over the input" in message.msgid
    assert dict(message.params)["output"] == "t.json"
    # a spec past its byte limit is refused for its size before it is read: it names nothing
    rules.check_unread(outputs, [spec], spec.stat().st_size - 1)


def test_a_spec_is_searched_in_parts_of_a_bounded_size(tmp_path: Path,
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    # 1,000 bytes held and parts of 100: the rest of a 5,000-byte spec is read from byte 560
    # (1,000 less 4 x 10 x (6 + 5) = 440 bytes: the longest name and "model" in UTF-32, each
    # character escaped as \U0000002e) in parts of 100, each searched with the 440 bytes before
    # it (fewer in the first), never the whole of it at once
    monkeypatch.setattr(rules, "UNREAD_BYTES", 1000)
    monkeypatch.setattr(rules, "SCANNED_BYTES", 100)
    searched: list[int] = []
    real = rules._held_names

    def counted(names: set[bytes], texts: list[bytes]) -> set[bytes]:
        searched.extend(map(len, texts))
        return real(names, texts)

    monkeypatch.setattr(rules, "_held_names", counted)
    spec = tmp_path / "b.yaml"
    spec.write_bytes(b"maks: 1\n" + b"#" * 4991 + b"\n")
    (tmp_path / "t.json").write_text("{}\n", encoding="utf-8")
    from attncli.errors import Location

    rules.check_unread([(Path("t.json"), tmp_path / "t.json", Location("attn.toml", 4, 10))],
                       [spec], 10_000)
    # 4,440 bytes: 44 parts of 100 and one of 40; then the 1,000 held
    assert searched == [100, 200, 300, 400, 500] + [440 + 100] * 39 + [440 + 40] + [1000]


def test_the_places_of_an_extension_are_looked_at_a_bounded_number_of_times_in_all() -> None:
    # 300 specs that cannot be read, each holding `.txt` 4,000 times (under MAX_PLACES each,
    # 1,200,000 in all), beside 60 snippets of 60 name lengths: each place was looked at for
    # each length, 72 million slices (8 s for a tree whose other work takes 0.7 s). Past
    # MAX_PLACES places in all, every name of the extension is held, none looked at
    looked = 0

    class Counted(bytes):
        def find(self, *args: object) -> int:
            nonlocal looked
            looked += 1
            return super().find(*args)  # type: ignore[arg-type]

    texts: list[bytes] = [Counted(b"# " + b" .txt" * 4000) for _ in range(300)]
    names = {b"v" + b"x" * i + b".txt" for i in range(60)}
    assert rules._held_names(names, texts) == names
    assert looked == 0  # 1,200,300 before


def test_within_the_places_the_names_the_texts_hold_are_found_in_any_of_them() -> None:
    texts = [b"maks: 1\nx: [ab.txt, t.json]\n", b"y: a.txt\n", b"z: xab.txt\n"]
    names = {b"ab.txt", b"a.txt", b"b.txt", b"t.json", b"u.json"}
    assert rules._held_names(names, texts) == {b"ab.txt", b"a.txt", b"b.txt", b"t.json"}


def test_each_text_of_a_spec_that_cannot_be_read_is_asked_of_the_system_once(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # 20,000 texts, 1,000 of them distinct, one naming a file: four questions a text (the file
    # and a model folder's three files) made 80,000; 3 s for the 100,000 texts a spec may write
    spec = tmp_path / "b.yaml"
    spec.write_text("maks: 1\nx: [" + ", ".join(f"d{i % 1000}/e.json" for i in range(20_000))
                    + "]\n", encoding="utf-8")
    (tmp_path / "d7").mkdir()
    (tmp_path / "d7/e.json").write_text("{}", encoding="utf-8")
    asked = 0

    def counted(ask: Any) -> Any:
        def call(*args: Any, **keys: Any) -> Any:
            nonlocal asked
            asked += 1
            return ask(*args, **keys)
        return call

    monkeypatch.setattr(os, "lstat", counted(os.lstat))
    monkeypatch.setattr(os, "stat", counted(os.stat))
    found = rules._named_files([(spec, spec.read_bytes())])
    assert found == {(tmp_path / "d7/e.json").resolve()}
    assert asked < 1_100  # 80,000 before


def test_a_folder_a_text_names_gives_its_model_files(tmp_path: Path) -> None:
    (tmp_path / "m").mkdir()
    (tmp_path / "m/config.json").write_text("{}", encoding="utf-8")
    (tmp_path / "lm").symlink_to("m")
    spec = tmp_path / "b.yaml"
    spec.write_text("maks: 1\nmodel: {path: lm}\nx: [nothing, m/tokenizer.json]\n",
                    encoding="utf-8")
    found = rules._named_files([(spec, spec.read_bytes())])
    # the folder through its link, and the one model file there is; m/tokenizer.json is not
    assert found == {(tmp_path / "m").resolve(), (tmp_path / "m/config.json").resolve()}
