"""A file named more than once on the command line (again, as ./name, or through a hard link) is
worked once and counted once by `attn validate` and `attn fill`."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from typer.testing import CliRunner, Result

from attncli.cli.app import app
from tests.conftest import CONFIGS

POST = ("# t\n\n```attn\ntokens: [a, b]\nembeddings: [[1, 0], [0, 1]]\n"
        "weights: {W_Q: identity, W_K: identity, W_V: identity}\nsteps: weights\n"
        "expand: none\n```\n")


def invoke(*args: str) -> Result:
    return CliRunner().invoke(app, [*args, "--lang", "en"])


@pytest.fixture
def here(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "spec.yaml").write_text((CONFIGS / "cat_chases_mouse.yaml").read_text("utf-8"),
                                        "utf-8")
    os.link(tmp_path / "spec.yaml", tmp_path / "linked.yaml")
    (tmp_path / "post.md").write_text(POST, "utf-8")
    return tmp_path


@pytest.fixture
def loads(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The spec files read, in order."""
    import attncli.spec as spec

    read: list[str] = []
    load_spec = spec.load_spec

    def counted(path: str, *args: object, **kwargs: object) -> object:
        read.append(path)
        return load_spec(path, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(spec, "load_spec", counted)
    return read


def test_validate_checks_a_file_named_again_once(here: Path, loads: list[str]) -> None:
    result = invoke("validate", "spec.yaml", "./spec.yaml", "linked.yaml", "spec.yaml")
    assert result.exit_code == 0
    assert result.stderr == "attn: 1 spec is valid\n"
    assert loads == ["spec.yaml"]


def test_validate_reports_a_broken_file_named_again_once(here: Path) -> None:
    (here / "bad.yaml").write_text("tokens: [a]\n", "utf-8")
    result = invoke("validate", "bad.yaml", "spec.yaml", "./bad.yaml")
    assert result.exit_code == 2
    lines = result.stderr.splitlines()
    assert len(lines) == 2 and lines[0].startswith("bad.yaml:")
    assert lines[1] == "attn: 1 spec of 2 has errors"


def test_fill_fills_a_document_named_again_once(here: Path, loads: list[str]) -> None:
    os.link(here / "post.md", here / "same.md")
    result = invoke("fill", "post.md", "./post.md", "same.md")
    assert result.exit_code == 0
    assert result.stderr == "attn: 1 document filled, 0 up to date, 0 failed\n"
    result = invoke("fill", "--check", *["post.md"] * 2_000)
    assert result.stderr == "attn: 0 stale, 1 up to date, 0 failed\n"


def test_a_missing_file_named_twice_is_refused_once(here: Path) -> None:
    result = invoke("validate", "gone.yaml", "gone.yaml")
    assert result.stderr.splitlines()[1:] == ["attn: 1 spec of 1 has errors"]


def test_standard_input_named_twice_is_read_once(here: Path) -> None:
    """`attn validate - -` read the piped spec, then an exhausted standard input, and reported
    `<stdin>: the spec is empty` for a valid spec."""
    result = CliRunner().invoke(app, ["validate", "-", "-", "--lang", "en"],
                                input=(here / "spec.yaml").read_text("utf-8"))
    assert (result.exit_code, result.output) == (0, "attn: 1 spec is valid\n")
