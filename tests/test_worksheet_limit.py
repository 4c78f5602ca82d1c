"""How many cells `--blank-cells` may blank: the cells the sheet shows. A matrix of more than 150
cells shows its first and last 4 rows and columns, so 64 tokens showed fewer cells (320) than 32
(704) and the refusal did not say why; it names --full, with which the count grows with the
tokens: Q, K, V and the output (n x 4 each) and the scores, scaled scores and weights (n x n),
4 * 4n + 3n^2 cells, worked out here."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import run


def spec(folder: Path, n: int) -> Path:
    path = folder / f"t{n}.yaml"
    path.write_text("tokens: [" + ", ".join(f"t{i}" for i in range(n)) + "]\n"
                    "embeddings: {random: {seed: 0}, dim: 4}\n"
                    "weights: {W_Q: identity, W_K: identity, W_V: identity}\n", encoding="utf-8")
    return path


@pytest.mark.parametrize(("n", "shown"), [(32, 704), (64, 320)])
def test_the_limit_is_the_cells_shown_and_names_full(n: int, shown: int, tmp_path: Path) -> None:
    # shown: 32 tokens: Q, K, V and the output whole (32 x 4 = 128 cells, under 150), the three
    # n x n matrices 8 x 8: 4 * 128 + 3 * 64 = 704; 64 tokens: every matrix 8 rows: 4 * 32 + 3 * 64
    assert shown == (4 * 4 * n if 4 * n <= 150 else 4 * 32) + 3 * 64
    result = run("export", str(spec(tmp_path, n)), "--markdown", "--worksheet",
                 "--blank-cells", "100000")
    assert (result.exit_code, result.stdout) == (2, "")
    assert result.stderr == (
        f"attn: --blank-cells: expected a number from 1 to {shown}, the cells the sheet shows (a "
        "large matrix shows its first and last rows and columns; --full shows them all), found "
        "100000\n")


@pytest.mark.parametrize("n", [16, 32, 64])
def test_with_full_the_limit_grows_with_the_tokens(n: int, tmp_path: Path) -> None:
    result = run("export", str(spec(tmp_path, n)), "--markdown", "--worksheet", "--full",
                 "--blank-cells", "100000")
    assert result.stderr == (f"attn: --blank-cells: expected a number from 1 to "
                             f"{4 * 4 * n + 3 * n * n}, found 100000\n")
