"""One side of the `arrays` benchmark: the walkthrough of a layer written by run.py's
write_layer, built from its .npy files loaded as NumPy arrays (`arrays`, through
attncli.walkthrough_of) or from its spec file naming them (`file`, through load_spec), with no
cell written out; then one of its arrays.

    python benchmarks/from_arrays.py arrays|file FOLDER HEADS
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

import attncli

# Both sides build the layer whole (every n x n matrix of its 12 heads, about 15 million numbers),
# which the library bounds as `attn explain --full` is, at a twentieth of max_cells: this
# allows 20 million.
MAX_CELLS = 400_000_000


def main() -> None:
    mode, folder, heads = sys.argv[1], Path(sys.argv[2]), int(sys.argv[3])
    if mode == "arrays":
        X = np.load(folder / "x.npy")  # (n, d_model)
        W = {f"W_{n.upper()}": np.load(folder / f"w_{n}.npy") for n in "qkvo"}
        w = attncli.walkthrough_of(tokens=[f"t{i}" for i in range(len(X))], X=X, heads=heads,
                                   mask="causal", expand="none", max_cells=MAX_CELLS, **W)
    else:
        from attncli.arithmetic.expand import Selection

        spec = attncli.load_spec(str(folder / "layer.yaml"), max_cells=MAX_CELLS)
        w = attncli.build(spec, Selection.parse(("none",)), max_cells=MAX_CELLS)
    sys.stdout.write(str(w["A:1"].shape) + "\n")


if __name__ == "__main__":
    main()
