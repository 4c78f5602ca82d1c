"""A decode shown whole (--full, JSON) writes every decode step: its query, the cache so far, its
scores, weights and z. The document limit counted the forward pass alone, so a decode of 300
tokens passed it (the same count as without decode) and wrote 169 MB of HTML with 1 GB held; a
rich view of 100 tokens took 22 s. The count is worked here from the document itself."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from attncli import load_spec
from attncli.spec.costs import decode_cells
from tests.conftest import run


def decode_spec(tmp_path: Path, n: int, prefill: int = 1, heads: int = 1) -> Path:
    path = tmp_path / f"d{n}.json"
    path.write_text(json.dumps({
        "tokens": [f"t{i}" for i in range(n)], "embeddings": {"random": {"seed": 1}, "dim": 8},
        "heads": heads, "mask": "causal", "decode": {"prefill": prefill}}), encoding="utf-8")
    return path


@pytest.mark.parametrize(("n", "prefill", "heads"), [(30, 1, 1), (24, 5, 2)])
def test_the_count_is_the_numbers_the_decode_steps_show(tmp_path: Path, n: int, prefill: int,
                                                        heads: int) -> None:
    spec = decode_spec(tmp_path, n, prefill, heads)
    result = run("export", str(spec), "--json", "-o", str(tmp_path / "d.json"))
    assert result.exit_code == 0, result.stderr
    document = json.loads((tmp_path / "d.json").read_text(encoding="utf-8"))
    shown = sum(len(m["values"]) * len(m["values"][0]) for step in document["steps"]
                if step["id"] in ("prefill", "decode") for m in step["matrices"])
    assert decode_cells(load_spec(str(spec))) == shown


def test_a_decode_shown_whole_past_the_limit_is_refused(tmp_path: Path) -> None:
    """300 tokens: 360,000 numbers of attention, 1,191,882 with the decode steps."""
    spec = decode_spec(tmp_path, 300)
    for args, option in ((["--html", "--full"], "--full"), (["--json"], "--json")):
        result = run("export", str(spec), *args, "-o", str(tmp_path / "out"))
        assert (result.exit_code, result.stderr) == (
            2, f"attn: {option}: this document would print about 1,191,882 numbers; the limit "
               "is 500,000, which --max-cells sets\n")
        assert not (tmp_path / "out").exists()
