"""A row or column that a spec's display.expand names and the walkthrough does not have is
refused at the key where it is written (file:line:column: display.expand: ...), as a malformed
cell there is; it was blamed on --expand, an option the user did not type."""

from __future__ import annotations

from pathlib import Path

from typer.testing import CliRunner

from attncli.cli.app import app

runner = CliRunner()
SPEC = ('tokens: [a, b]\nembeddings: [[1, 0], [0, 1]]\n'
        'display:\n  expand: [weights:a, "weights:chases"]\n')


def test_a_row_the_spec_names_is_refused_where_it_is_written(tmp_path: Path) -> None:
    path = tmp_path / "s.yaml"
    path.write_text(SPEC)
    for command in (["validate", str(path)], ["explain", str(path), "--format", "text"]):
        result = runner.invoke(app, command)
        assert result.exit_code == 2
        assert result.stderr.splitlines()[0] == (
            f"{path}:4:11: display.expand: weights has no row chases; its rows are a, b")
    # typed as an option, the row is still the option's
    typed = runner.invoke(app, ["explain", str(path), "--format", "text", "-x", "weights:zz"])
    assert typed.stderr.splitlines()[0] == (
        "attn: --expand: weights has no row zz; its rows are a, b")
