"""`attn fill`: blocks of one document that name one spec file with other choices read it once
(attncli/fill/block.py's `one_reading`), and the first bad block in the document's order is
still the one reported. Found by an adversarial round: 200 blocks naming one spec of 144,400
values with other precisions, languages and steps read it 200 times, 74 s for `fill --check`.
"""

from __future__ import annotations

from pathlib import Path

import pytest

import attncli.spec
from tests.conftest import run

SPEC = "tokens: [cat, mouse]\nembeddings: [[1, 0], [0, 1]]\nmask: causal\n"


def blocks(names: list[str]) -> str:
    return "".join(f"```attn\nspec: {name}\nprecision: {k % 13}\nlang: {('en', 'pl', 'ru')[k % 3]}"
                   "\n```\n\n" for k, name in enumerate(names))


@pytest.fixture
def reads(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The spec files read, in order."""
    read: list[str] = []
    load = attncli.spec.load_spec

    def counted(path: str, *args: object, **kwargs: object) -> object:
        read.append(Path(path).name)
        return load(path, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(attncli.spec, "load_spec", counted)
    return read


def test_blocks_naming_one_spec_read_it_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                             reads: list[str]) -> None:
    monkeypatch.chdir(tmp_path)
    for name in ("a.yaml", "b.yaml"):
        (tmp_path / name).write_text(SPEC, encoding="utf-8")
    # 40 blocks, the two specs in turn: each is read once, its blocks worked out together
    (tmp_path / "post.md").write_text(blocks(["a.yaml", "b.yaml"] * 20), encoding="utf-8")
    result = run("fill", "post.md")
    assert (result.exit_code, result.stderr) == (0, "attn: 1 document filled, 0 up to date, "
                                                    "0 failed\n")
    assert reads == ["a.yaml", "b.yaml"]  # 40 reads when each block read its spec
    assert run("fill", "--check", "post.md").exit_code == 0
    text = (tmp_path / "post.md").read_text(encoding="utf-8")
    assert text.count("<!-- attn fill: generated") == 40
    assert text.count("Attention weights") + text.count("Wagi atencji") > 0


def test_a_spec_changed_between_two_runs_is_read_again(tmp_path: Path,
                                                       monkeypatch: pytest.MonkeyPatch,
                                                       reads: list[str]) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "a.yaml").write_text(SPEC, encoding="utf-8")
    (tmp_path / "post.md").write_text(blocks(["a.yaml"] * 3), encoding="utf-8")
    assert run("fill", "post.md").exit_code == 0
    (tmp_path / "a.yaml").write_text(SPEC.replace("[0, 1]]", "[0, 2]]"), encoding="utf-8")
    assert run("fill", "--check", "post.md").exit_code == 1
    assert reads == ["a.yaml", "a.yaml"]


def test_the_first_bad_block_of_the_document_is_the_one_reported(tmp_path: Path,
                                                                 monkeypatch: pytest.MonkeyPatch
                                                                 ) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "z.yaml").write_text("tokens: [a]\nembedings: [[1]]\n", encoding="utf-8")
    (tmp_path / "a.yaml").write_text("tokens: [a]\nembeddings: [[1, 2]\n", encoding="utf-8")
    # z.yaml's block comes first in the document, though a.yaml's would be worked out first
    (tmp_path / "post.md").write_text(blocks(["z.yaml", "a.yaml"]), encoding="utf-8")
    result = run("fill", "post.md")
    assert result.exit_code == 2
    assert result.stderr.startswith("z.yaml:2:1: embedings: unknown key")


def test_the_work_stops_at_the_first_bad_block(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                               reads: list[str]) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "a.yaml").write_text(SPEC, encoding="utf-8")
    (tmp_path / "b.yaml").write_text("tokens: [a]\nembedings: [[1]]\n", encoding="utf-8")
    (tmp_path / "c.yaml").write_text(SPEC, encoding="utf-8")
    # the blocks after the bad one in the document are not worked out: c.yaml is never read
    (tmp_path / "post.md").write_text(blocks(["a.yaml", "b.yaml"] + ["c.yaml"] * 5),
                                      encoding="utf-8")
    result = run("fill", "post.md")
    assert result.exit_code == 2
    assert result.stderr.startswith("b.yaml:2:1: embedings: unknown key")
    assert reads == ["a.yaml", "b.yaml"]


def test_notebook_cells_naming_two_specs_in_turn_read_each_once(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, reads: list[str]) -> None:
    import json

    monkeypatch.chdir(tmp_path)
    for name in ("a.yaml", "b.yaml"):
        (tmp_path / name).write_text(SPEC, encoding="utf-8")
    cells = [{"cell_type": "markdown", "metadata": {}, "source": text.splitlines(True)}
             for text in blocks(["a.yaml", "b.yaml"] * 10).split("\n\n") if text]
    notebook = {"cells": cells, "metadata": {}, "nbformat": 4, "nbformat_minor": 4}
    (tmp_path / "n.ipynb").write_text(json.dumps(notebook, indent=1), encoding="utf-8")
    result = run("fill", "n.ipynb")
    assert (result.exit_code, result.stderr) == (0, "attn: 1 document filled, 0 up to date, "
                                                    "0 failed\n")
    assert reads == ["a.yaml", "b.yaml"]  # 20 reads when each cell read its spec in turn
    assert run("fill", "--check", "n.ipynb").exit_code == 0


def test_a_notebooks_first_bad_block_is_the_one_reported(tmp_path: Path,
                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    import json

    monkeypatch.chdir(tmp_path)
    (tmp_path / "z.yaml").write_text("tokens: [a]\nembedings: [[1]]\n", encoding="utf-8")
    (tmp_path / "a.yaml").write_text("tokens: [a]\nembeddings: [[1, 2]\n", encoding="utf-8")
    cells = [{"cell_type": "markdown", "metadata": {}, "source": text.splitlines(True)}
             for text in blocks(["z.yaml", "a.yaml"]).split("\n\n") if text]
    notebook = {"cells": cells, "metadata": {}, "nbformat": 4, "nbformat_minor": 4}
    (tmp_path / "n.ipynb").write_text(json.dumps(notebook, indent=1), encoding="utf-8")
    result = run("fill", "n.ipynb")
    assert result.exit_code == 2
    assert "z.yaml:2:1: embedings: unknown key" in result.stderr
