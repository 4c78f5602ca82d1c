"""`-x all` writes each term with its row's and column's token names, and a name may be 1,000
characters long: the names it would repeat are charged before any cell is written out, and the
lines that repeat them are measured at a cost that grows with what is written."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner, Result

from attncli.cli.app import app
from attncli.render import columns, wrap


def named(tokens: int, length: int, display: str = "") -> str:
    names = [str(i) + "y" * (length - len(str(i))) for i in range(tokens)]
    return json.dumps({"tokens": names, "embeddings": {"random": {"seed": 1}, "dim": 4}}) \
        if not display else ("tokens: [" + ", ".join(names) + "]\n"
                             "embeddings: {random: {seed: 1}, dim: 4}\n" + display)


def invoke(*args: str) -> Result:
    return CliRunner().invoke(app, [*args, "--lang", "en"])


def test_long_names_are_refused_before_any_cell_is_written(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    Path("y.json").write_text(named(30, 1_000), "utf-8")
    result = invoke("explain", "y.json", "-f", "text", "-x", "all")
    # terms: 1 head · n 30 · (m 30 + d_model 4)² = 34,680; each the longest name, 1,000 characters
    assert result.exit_code == 2
    assert result.output == (
        "attn: --expand all: the cells written out would repeat the token names in up to "
        "34,680,000 characters; the limit is 3,200,000, which --max-cells sets; write out fewer "
        "cells or give the tokens shorter names\n")


def test_the_refusal_is_located_at_the_spec_s_display_key(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    Path("y.yaml").write_text(named(30, 100, "display:\n  expand: all\n"), "utf-8")
    result = invoke("explain", "y.yaml")
    # 34,680 terms of 100-character names
    assert result.exit_code == 2
    assert result.output.startswith(
        "y.yaml:4:11: display.expand: the cells written out would repeat the token names in up "
        "to 3,468,000 characters; the limit is 3,200,000")
    assert result.output.count("\n") == 1


def test_shorter_names_are_written_out(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    Path("y.json").write_text(named(30, 92), "utf-8")  # 34,680 · 92 = 3,190,560: within
    result = invoke("explain", "y.json", "-f", "text", "-x", "all")
    assert result.exit_code == 0
    assert "Written out:" in result.output


@pytest.mark.parametrize(("letter", "width"), [
    ("^", 90 * 18 + 2),  # LaTeX's \textasciicircum{}, then the two digits
    ("&", 90 * 5 + 2),  # XML's &amp;
    # no character yet: \texttt{U+0378}, and KaTeX's thin space $\,$ before a digit after it
    ("\u0378", 90 * 15 + 4 + 2),
])
def test_a_name_is_charged_as_wide_as_a_format_writes_it(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, letter: str, width: int) -> None:
    # 30 names of 92 characters pass as letters (above); written as LaTeX, 92 carets were
    # 1,656 characters each: 11.6 MB from a spec the charge let through as 3.2 million
    monkeypatch.chdir(tmp_path)
    names = [letter * 90 + f"{i:02d}" for i in range(30)]
    Path("y.json").write_text(json.dumps({"tokens": names, "embeddings": {
        "random": {"seed": 1}, "dim": 4}}), "utf-8")
    result = invoke("export", "y.json", "--latex", "-x", "all")
    assert result.exit_code == 2
    assert result.output == (
        "attn: --expand all: the cells written out would repeat the token names in up to "
        f"{34_680 * width:,} characters; the limit is 3,200,000, which --max-cells "
        "sets; write out fewer cells or give the tokens shorter names\n")


def test_a_long_line_of_wide_characters_is_measured_once(monkeypatch: pytest.MonkeyPatch) -> None:
    measured: list[int] = []
    width = wrap.cell_width

    def counted(text: str) -> int:
        measured.append(len(text))
        return width(text)

    monkeypatch.setattr(wrap, "cell_width", counted)
    text = " + ".join(["猫" * 50] * 40)  # 2,117 characters, 4,117 columns, 100 columns a term
    lines = wrap.formula(text, 80, "  ")
    assert len(lines) == 80  # each 50-cat name cut after 38 (the first 39), then the rest of 12
    # the text once, then each line's part of it once again, and each line's indent
    assert sum(measured) <= 2 * len(text) + 2 * 6 * len(lines)


def test_attn_s_marks_take_one_column_among_wide_characters() -> None:
    assert columns.cell_width("\ufdd2") == 1
    assert columns.cell_width("猫\ufdd2") == 3  # the mark stands for a space, as it does alone


def shown_spec(heads: int) -> str:
    """12 tokens of 100-character names, d_model 16, identity projections: every matrix of it
    is shown whole, so `-x shown` writes out every cell, as `-x all` would."""
    rows = [[round((i * 7 + j * 3) % 11 / 10 - 0.5, 1) for j in range(16)] for i in range(12)]
    return json.dumps({"tokens": ["w" * 97 + f"{i:03d}" for i in range(12)], "embeddings": rows,
                       "weights": {"W_Q": "identity", "W_K": "identity", "W_V": "identity"},
                       "heads": heads})


@pytest.mark.parametrize(("args", "refused"), [
    (("explain", "s.json", "-f", "text", "-x", "shown"), "--expand shown"),
    (("export", "s.json", "--markdown", "-x", "shown", "-o", "s.md"), "--expand shown"),
])
def test_the_cells_a_view_shows_are_charged_their_names_as_all_is(
        args: tuple[str, ...], refused: str, tmp_path: Path,
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    Path("one.json").write_text(shown_spec(1), "utf-8")
    Path("s.json").write_text(shown_spec(4), "utf-8")
    # one head: its names fit (1,008,000 characters at most), and it is written out
    assert invoke("explain", "one.json", "-f", "text", "-x", "shown").exit_code == 0
    result = invoke(*args)
    # four heads of d_k 4 charge four times one head's terms, each with a 100-character name
    assert result.exit_code == 2 and not Path("s.md").exists()
    assert result.output == (
        f"attn: {refused}: the cells written out would repeat the token names in up to "
        "4,032,000 characters; the limit is 3,200,000, which --max-cells sets; write out fewer "
        "cells or give the tokens shorter names\n")
    # the limit is 64 characters a term of the terms' limit, 0.5 % of --max-cells: 12,600,000
    # allows 4,032,000 characters exactly, one cell fewer does not
    assert invoke(*args, "--max-cells", "12600000").exit_code == 0
    assert invoke(*args, "--max-cells", "12599999").exit_code == 2


def test_the_cells_of_the_head_shown_are_the_ones_charged(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """`--head` leaves the other heads' cells unwritten, and uncharged: a quarter of the four
    heads' 4,032,000 characters, which the smallest limit (320,000) names."""
    monkeypatch.chdir(tmp_path)
    Path("s.json").write_text(shown_spec(4), "utf-8")
    args = ("explain", "s.json", "-f", "text", "-x", "shown", "--head", "2")
    assert invoke(*args).exit_code == 0
    refused = invoke(*args, "--max-cells", "1000000")
    assert refused.exit_code == 2
    assert "in up to 1,008,000 characters; the limit is 320,000," in refused.output


def test_the_cells_a_block_shows_are_refused_at_its_expand_key(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    Path("s.json").write_text(shown_spec(4), "utf-8")
    Path("post.md").write_text("# Post\n\n```attn\nspec: s.json\nexpand: shown\n```\n", "utf-8")
    before = Path("post.md").read_bytes()
    result = invoke("fill", "post.md")
    assert result.exit_code == 2 and Path("post.md").read_bytes() == before
    assert result.output.splitlines()[0] == (
        "post.md:5:9: expand: the cells written out would repeat the token names in up to "
        "4,032,000 characters; the limit is 3,200,000, which --max-cells sets; write out fewer "
        "cells or give the tokens shorter names")
