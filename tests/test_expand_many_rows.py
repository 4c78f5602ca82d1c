"""Cells named one by one (`-x STEP:ROW`, display.expand) are held to the terms `-x all` may
write, as `-x all` is. Every output row of 1,000 tokens named in a spec's display.expand took
3.5 s to explain (each row a sum of 1,000 terms worked exactly); of 4,096 tokens, `attn validate`
took 5.3 s and 865 MB, reading every row it was told to keep."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from attncli.cli.app import app

runner = CliRunner()
N = 1000
TOKENS = [f"t{i:04d}" for i in range(N)]


def spec(tmp_path: Path, expand: list[str]) -> str:
    path = tmp_path / "s.json"
    written = {"tokens": TOKENS, "embeddings": {"random": {"seed": 1}, "dim": 2}}
    if expand:
        written["display"] = {"expand": expand}
    path.write_text(json.dumps(written))
    return str(path)


def test_a_spec_naming_every_row_is_refused_before_any_is_worked(tmp_path: Path) -> None:
    # one head; an output row is one sum over m + d_model = 1,000 + 2 terms at most
    path = spec(tmp_path, [f"output:{t}" for t in TOKENS])
    result = runner.invoke(app, ["validate", path])
    assert result.exit_code == 2
    text = Path(path).read_text()  # one line: refused where the list display.expand holds opens
    column = text.index('"expand": ') + len('"expand": ') + 1
    assert result.stderr.splitlines()[0] == (
        f"{path}:1:{column}: display.expand: writing out the cells asked for takes up to "
        "1,002,000 terms; the limit is 50,000, which --max-cells sets; ask for fewer cells")


def test_the_limit_counts_each_cell_once_and_rows_by_their_step(tmp_path: Path) -> None:
    path = spec(tmp_path, [])
    # 49 output rows: 49 × 1,002 = 49,098 terms, within 50,000; 50 rows: 50,100, past it
    asked = [a for t in TOKENS[:49] for a in ("-x", f"output:{t}")]
    base = ["explain", path, "--steps", "embeddings", "--format", "text"]
    assert runner.invoke(app, [*base, *asked, *asked]).exit_code == 0  # each row once
    refused = runner.invoke(app, [*base, *asked, "-x", f"output:{TOKENS[49]}"])
    assert refused.exit_code == 2
    assert "takes up to 50,100 terms" in refused.stderr
    # a row of projections is d_k cells of d_model terms: (1,000 + 2) × 2 = 2,004 terms; a
    # single cell of scores a sum of at most 1,002 terms
    asked = [a for t in TOKENS[:24] for a in ("-x", f"projections:{t}")]  # 48,096
    assert runner.invoke(app, [*base, *asked, "-x", "scores:t0001,t0002"]).exit_code == 0
    refused = runner.invoke(app, [*base, *asked, "-x", "projections:t0999"])
    assert "takes up to 50,100 terms" in refused.stderr
