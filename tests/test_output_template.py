"""A manifest's `output` template refused as the manifest is read, at its key, in attn's words:
a brace that opens or closes nothing (Python's Formatter said so in English, in a Polish or
Russian line too), and a name longer than the file system takes (refused by the system only
once the folders before it were made, and removed again, without the manifest's location)."""

from __future__ import annotations

import re
from pathlib import Path, PurePosixPath

import pytest

from attncli.errors import Location, SpecError
from attncli.snippets.output_template import check_name_lengths
from tests.conftest import run

SPEC = "tokens: [a, b]\nembeddings: [[1, 0], [0, 1]]\n"
LONG = "x" * 300  # a name of 300 bytes and more: Linux takes 255 (NAME_MAX)
PREFIX = "attn.toml:4:10: snippets[0].output: "
KNOWN = "{name}, {dir}, {lang}, {format}, {ext}"
SHARED = {"system"}  # Polish too: "system plików"


def manifest(output: str) -> str:
    return f'[[snippets]]\nspecs = "s/*.yaml"\nformats = ["markdown"]\noutput = "{output}"\n'


def english_words(line: str, *quoted: str) -> set[str]:
    """The English words of `line`, but those of its location and of the inputs it quotes."""
    for text in (PREFIX, KNOWN, *quoted):
        line = line.replace(text, " ")
    return {word for word in re.findall(r"[a-z]{3,}", line)} - SHARED


@pytest.fixture
def folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    (tmp_path / "s").mkdir()
    (tmp_path / "s/one.yaml").write_text(SPEC, encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    return tmp_path


def refused_in_every_language(folder: Path, output: str, line: str, *quoted: str) -> None:
    """`line` in English, a sentence of no English word in Polish and Russian; nothing written,
    and no folder made and removed again (the folder's time of change is kept)."""
    (folder / "attn.toml").write_text(manifest(output), encoding="utf-8")
    changed = folder.stat().st_mtime_ns
    english = english_words(line, *quoted)
    for args in (["snippets"], ["snippets", "--check"]):
        result = run(*args, "attn.toml")
        assert (result.exit_code, result.stdout, result.stderr) == (2, "", line + "\n")
        for lang in ("pl", "ru"):
            result = run(*args, "attn.toml", "--lang", lang)
            assert (result.exit_code, result.stdout) == (2, "")
            assert result.stderr.count("\n") == 1
            said = english_words(result.stderr, *quoted)
            assert said.isdisjoint(english), (lang, said & english)
    assert sorted(p.name for p in folder.iterdir()) == ["attn.toml", "s"]
    assert folder.stat().st_mtime_ns == changed



@pytest.mark.parametrize(("output", "problem"), [
    # Python: "expected '}' before end of string"
    ("out/{{name}}{name}{.md", "a { that no } closes; write {{ for a { in a name"),
    ("out/{name", "a { that no } closes; write {{ for a { in a name"),
    # Python: "Single '}' encountered in format string"
    ("out/{name}}.md", "a } that no { opens; write }} for a } in a name"),
    ("out/}}}.md", "a } that no { opens; write }} for a } in a name"),
    # Python: "unmatched '{' in format spec", and a field inside a field it took as a spec
    ("out/{name:{x}}.md", "a { inside a placeholder"),
    ("out/{name{.md", "a { inside a placeholder"),
])
def test_an_unbalanced_brace_is_said_in_attns_words(folder: Path, output: str,
                                                    problem: str) -> None:
    line = f"{PREFIX}expected a path with {{placeholders}}, found {output} ({problem})"
    refused_in_every_language(folder, output, line, output)


@pytest.mark.parametrize("field", [
    "name!x",  # Python: "expected ':' after conversion specifier" for !xy, a conversion for !x
    "name!",  # Python: "unmatched '{' in format spec"
    "name:>3",  # a format spec
    "",  # an empty field, NumPy's automatic numbering
    "0",
])
def test_any_other_field_is_an_unknown_placeholder(folder: Path, field: str) -> None:
    output = "out/{" + field + "}.md"
    line = f"{PREFIX}unknown placeholder {{{field}}}; expected one of {KNOWN}"
    refused_in_every_language(folder, output, line, field)


def test_a_name_longer_than_the_file_system_takes_is_refused_at_the_output_key(
        folder: Path) -> None:
    # 300 x, "one" and ".md": 306 bytes, shown shortened
    line = (f"{PREFIX}the snippet out/xxxxxxxxxxxxxxxx…xxxxone.md: the name "
            "xxxxxxxxxxxxxxxxxxxx…xxxxone.md has 306 bytes; the file system takes names of up "
            "to 255 bytes")
    refused_in_every_language(folder, "out/" + LONG + "{name}.md", line,
                              "out/xxxxxxxxxxxxxxxx…xxxxone.md", "xxxxxxxxxxxxxxxxxxxx…xxxxone.md")


def test_a_name_a_placeholder_makes_too_long_is_refused_before_any_folder_is_made(
        folder: Path) -> None:
    (folder / "s" / ("a" * 250 + ".yaml")).write_text(SPEC, encoding="utf-8")  # 255 bytes
    (folder / "attn.toml").write_text(manifest("out/{name}.{format}.md"), encoding="utf-8")
    changed = folder.stat().st_mtime_ns
    result = run("snippets", "attn.toml")
    assert (result.exit_code, result.stderr) == (2, (
        f"{PREFIX}the snippet out/aaaaaaaaaaaaaaaa…arkdown.md: the name "
        "aaaaaaaaaaaaaaaaaaaa…arkdown.md has 262 bytes; the file system takes names of up to "
        "255 bytes\n"))
    assert folder.stat().st_mtime_ns == changed


def test_a_name_is_counted_in_bytes() -> None:
    where = Location("attn.toml", "snippets[0].output", 4, 10)
    check_name_lengths(PurePosixPath("out/" + "ж" * 127 + ".md"), 257, where)  # 257 bytes
    with pytest.raises(SpecError) as refused:
        check_name_lengths(PurePosixPath("out/" + "ж" * 127 + ".md"), 256, where)
    assert "has 257 bytes" in str(refused.value)
