"""An array of no rows asked for a row or a column: the file holds no numbers, which is what the
user can act on; the refusal used to offer "indices 0–−1"."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from tests.conftest import run


@pytest.mark.parametrize(("pick", "where"), [("rows", "2:34: embeddings.rows"),
                                             ("columns", "2:20: embeddings.file")])
def test_a_row_or_column_of_an_array_of_no_rows(tmp_path: Path, pick: str, where: str) -> None:
    np.save(tmp_path / "e0.npy", np.zeros((0, 3)))
    spec = tmp_path / "s.yaml"
    spec.write_text(f"tokens: [a]\nembeddings: {{file: e0.npy, {pick}: [0]}}\n",
                    encoding="utf-8")
    result = run("validate", str(spec))
    assert result.exit_code == 2
    assert f"s.yaml:{where}: e0.npy holds no numbers\n" in result.stderr
    assert "−1" not in result.stderr
