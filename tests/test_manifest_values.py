"""A TOML manifest's values are counted from its text before tomllib reads it: 500,000 ones in
one array took 5.5 s and 331 MB to be refused for the unknown key that held them."""

from __future__ import annotations

import tracemalloc
from pathlib import Path

import pytest
from typer.testing import CliRunner, Result

from attncli.cli.app import app
from attncli.errors import SpecError
from attncli.snippets import toml_tree
from attncli.snippets.toml_depth import MAX_MANIFEST_VALUES, check_depth

HEAD = '[[snippets]]\nspecs = "s/*.yaml"\nformats = ["markdown"]\noutput = "out/{name}.md"\n'


def checked(folder: Path, monkeypatch: pytest.MonkeyPatch, manifest: str) -> Result:
    """`attn snippets --check` in `folder`, holding `manifest` as attn.toml."""
    monkeypatch.chdir(folder)
    (folder / "attn.toml").write_text(manifest, "utf-8")
    return CliRunner().invoke(app, ["--lang", "en", "snippets", "--check"])


def test_the_limit_is_20000() -> None:
    assert MAX_MANIFEST_VALUES == 20_000


@pytest.fixture
def reads(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """How many texts tomllib was given to read."""
    calls: list[int] = []
    loads = toml_tree.tomllib.loads

    def counted(text: str, **kwargs: object) -> object:
        calls.append(len(text))
        return loads(text, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(toml_tree.tomllib, "loads", counted)
    return calls


def test_a_manifest_of_many_values_is_refused_unread(tmp_path: Path, reads: list[int],
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    result = checked(tmp_path, monkeypatch, HEAD + "x = [" + "1," * 499_999 + "1]\n")
    assert result.exit_code == 2
    # 6 before line 5; `x =` and `[` make 8: comma k of the array is the 8 + k-th, so the
    # 20,001st is comma 19,993, at column 5 + 2 · 19,993
    assert result.stderr == (
        "attn.toml:5:39991: the manifest has more than 20,000 equals signs, commas and opening "
        "brackets outside its texts and comments, the limit of one manifest\n")
    assert reads == []


def test_commas_in_texts_and_comments_are_not_counted(tmp_path: Path, reads: list[int],
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    result = checked(tmp_path, monkeypatch,
                     "# " + ",=[{" * 10_000 + "\n" + HEAD + f'x = "{",=[{" * 10_000}"\n')
    assert result.exit_code == 2
    assert result.stderr.startswith("attn.toml:6:1: snippets[0].x: unknown key; expected one of ")
    assert len(reads) == 1


def test_a_dotted_key_of_more_parts_than_levels_is_refused_unread(
        tmp_path: Path, reads: list[int], monkeypatch: pytest.MonkeyPatch) -> None:
    """`a.a.a…a = 1` of 5,000 parts (tables in tables) ended in RecursionError, exit 3; the
    65th part opens a 65th level (the limit, 64), at its dot: column 1 + 2 · 64 + 1."""
    result = checked(tmp_path, monkeypatch, "a" + ".a" * 5000 + " = 1\n")
    assert (result.exit_code, result.stderr) == (
        2, "attn.toml:1:130: the manifest nests lists and tables more than 64 levels deep\n")
    assert reads == []


def test_a_number_s_point_is_no_level(tmp_path: Path, reads: list[int],
                                       monkeypatch: pytest.MonkeyPatch) -> None:
    result = checked(tmp_path, monkeypatch, HEAD + "x = [" + "1.5, " * 200 + "1.5]\n")
    assert result.exit_code == 2
    assert result.stderr.startswith("attn.toml:5:1: snippets[0].x: unknown key; expected one of ")
    assert len(reads) == 1


@pytest.mark.parametrize("opened", ["'''a''''", '"""a""""'])
def test_values_after_a_string_that_ends_in_four_quotes_are_counted(
        tmp_path: Path, reads: list[int], monkeypatch: pytest.MonkeyPatch, opened: str) -> None:
    """TOML lets a multi-line string end in up to two quotes more than its three (`'''a''''`
    is the text `a'`): ended one quote early, its last quote opened a one-line string up to
    `'z'` that hid 500,000 values (3 s, 227 MB before "unknown key"). The comma after the
    string is the 9th (6 before line 5, `=` and `[`), at column 14; comma k after it at
    13 + 2k: the 20,001st is k = 19,993, column 39,999."""
    result = checked(tmp_path, monkeypatch,
                     HEAD + f"x = [{opened}, " + "1," * 499_999 + "1, 'z']\n")
    assert (result.exit_code, result.stderr) == (2, (
        "attn.toml:5:39999: the manifest has more than 20,000 equals signs, commas and opening "
        "brackets outside its texts and comments, the limit of one manifest\n"))
    assert reads == []


def test_a_dotted_key_after_a_string_that_ends_in_four_quotes_is_refused_unread(
        tmp_path: Path, reads: list[int], monkeypatch: pytest.MonkeyPatch) -> None:
    """`{a.a.…a = 1}` of 2,000 parts, hidden so, was a RecursionError (exit 3). Within `[` and
    `{` (2 levels), the 63rd dot opens the 65th: `{` at column 16, dot k at 16 + 2k, so 142."""
    result = checked(tmp_path, monkeypatch,
                     HEAD + "x = ['''a'''', {a" + ".a" * 1999 + " = 1}, 'z']\n")
    assert (result.exit_code, result.stderr) == (
        2, "attn.toml:5:142: the manifest nests lists and tables more than 64 levels deep\n")
    assert reads == []


@pytest.mark.parametrize("opened", ['"""', '"'])
def test_a_string_of_many_escapes_is_scanned_in_little_memory(opened: str) -> None:
    """A 1 MB string of 500,000 escapes held 120 MB of the regex engine's state (one frame an
    escape); its values after it are still counted, and its escaped quote hides none."""
    content = f'x = {opened}' + "\\t" * 500_000 + '\\"' + opened + "\n" \
        + "y = [" + ",".join("1" * (MAX_MANIFEST_VALUES - 1)) + "]\n"
    tracemalloc.start()
    try:
        with pytest.raises(SpecError) as refused:
            check_depth("attn.toml", content)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 8 * 1024 * 1024  # a copy of the text (1 MB), not a frame an escape
    assert refused.value.where is not None
    # x's `=` is the 1st value, y's `=` and `[` the 2nd and 3rd, its 19,998 commas the rest:
    # the last comma, after `y = [` and 19,998 times `1,` less its comma, is the 20,001st
    assert (refused.value.where.line, refused.value.where.column) == (2, 5 + 2 * 19_998)
