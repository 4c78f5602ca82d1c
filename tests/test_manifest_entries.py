"""A manifest's entries are bounded, counted before any glob is expanded, and a glob written in
many entries is expanded once."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner, Result

from attncli.cli.app import app
from attncli.snippets import manifest, spec_glob
from attncli.snippets.toml_tree import MAX_ENTRIES
from tests.conftest import CONFIGS

ENTRY = '[[snippets]]\nspecs = "p/*"\nformats = ["text"]\noutput = "o/{name}.{ext}"\n'


def invoke(*args: str) -> Result:
    return CliRunner().invoke(app, [*args, "--lang", "en"])


@pytest.fixture
def globs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The globs expanded, in order, in a folder holding one spec, p/s.attn.yaml."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "p").mkdir()
    (tmp_path / "p/s.attn.yaml").write_text(
        (CONFIGS / "cat_chases_mouse.yaml").read_text("utf-8"), "utf-8")
    expanded: list[str] = []

    def matching(root: Path, pattern: str) -> list[Path]:
        expanded.append(pattern)
        return spec_glob.matching(root, pattern)

    monkeypatch.setattr(manifest, "matching", matching)
    return expanded


def test_the_limit_is_500_entries() -> None:
    assert MAX_ENTRIES == 500


def test_the_entry_past_the_limit_is_refused_before_any_glob(tmp_path: Path,
                                                              globs: list[str]) -> None:
    (tmp_path / "attn.toml").write_text(ENTRY * 14_000, "utf-8")  # 1,008,000 bytes: under 1 MiB
    result = invoke("snippets", "--check")
    assert result.exit_code == 2
    # entry 501 opens at line 4 · 500 + 1
    assert result.stderr == ("attn.toml:2001:1: snippets[500]: this is entry 501 of the list "
                             "snippets; a manifest holds at most 500\n")
    assert globs == []


def test_entries_written_inline_are_counted_too(tmp_path: Path, globs: list[str]) -> None:
    inline = '{specs = "p/*", formats = ["text"], output = "o/{name}.{ext}"}'
    (tmp_path / "attn.toml").write_text(
        "snippets = [\n" + "".join(f"  {inline},\n" for _ in range(501)) + "]\n", "utf-8")
    result = invoke("snippets", "--check")
    assert result.stderr == ("attn.toml:502:3: snippets[500]: this is entry 501 of the list "
                             "snippets; a manifest holds at most 500\n")
    assert globs == []


def test_a_yaml_manifest_is_bounded_alike(tmp_path: Path, globs: list[str]) -> None:
    entry = '  - {specs: "p/*", formats: [text], output: "o/{name}.{ext}"}\n'
    (tmp_path / "snippets.yaml").write_text("snippets:\n" + entry * 501, "utf-8")
    result = invoke("snippets", "--check")
    assert result.stderr == ("snippets.yaml:502:5: snippets[500]: this is entry 501 of the list "
                             "snippets; a manifest holds at most 500\n")
    assert globs == []


def test_a_glob_of_many_entries_is_expanded_once(tmp_path: Path, globs: list[str]) -> None:
    (tmp_path / "attn.toml").write_text(
        "".join(ENTRY.replace("o/{name}", f"o{k}/{{name}}") for k in range(MAX_ENTRIES)),
        "utf-8")
    result = invoke("snippets", "--check")
    assert result.exit_code == 1, result.stderr
    assert result.stderr.endswith("attn: 500 stale, 0 up to date, 0 failed\n")
    assert globs == ["p/*"]


def test_a_cell_to_write_out_is_a_text_of_at_most_1000_characters(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A manifest's `expand` was held to no length: `scores:cat` and 500,000 commas was looked
    for as 500,000 ways to split it (50 s CPU, a CI job's hang). As a spec's display.expand and
    a fill block's expand, it is a text of at most 1,000 characters."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "s.yaml").write_text((CONFIGS / "cat_chases_mouse.yaml").read_text())
    cell = "scores:cat" + "," * 1_000 + "x"
    (tmp_path / "attn.toml").write_text(
        '[[snippets]]\nspecs = "s.yaml"\nformats = ["text"]\noutput = "o.{ext}"\n'
        f'expand = ["{cell}"]\n', encoding="utf-8")
    result = invoke("snippets")
    assert (result.exit_code, result.stderr) == (
        2, "attn.toml:5:11: snippets[0].expand[0]: expected a text of at most 1,000 characters, "
           "found 1,011\n")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["attn.toml", "s.yaml"]
