"""How large a spec may grow: one number, the cell limit, bounds everything attn allocates.

`max_cells` (default DEFAULT_MAX_CELLS, `--max-cells` on the command line) limits

- the values written in the spec, counted from the parser's events before any node is built,
  and again with every YAML alias expanded (so an alias bomb is refused unbuilt);
- the numbers of every matrix the spec makes: written out, drawn with {random: ...}, identity
  weights, and read from .npy/.npz files (their header is read before their data);
- the numbers the walkthrough computes: Q, K, V, the n x m scores, weights and outputs of every
  head, and the rest of the layer.

Files are measured before they are read: a spec or a .csv file may have at most
BYTES_PER_CELL bytes per cell of the limit. Nesting is limited to MAX_DEPTH levels, so no reader
recurses deeper than that.

This module holds numbers only, so `attn --help` can show the default without importing NumPy.
"""

from __future__ import annotations

DEFAULT_MAX_CELLS = 1_000_000
# A number written as `-0.12345678901234567, ` with room for indentation and a comment.
BYTES_PER_CELL = 32
# Below this, the byte limit would refuse small specs that are mostly comments.
MIN_BYTES = 1 << 20
MAX_DEPTH = 64


def max_bytes(max_cells: int) -> int:
    """The size in bytes a spec or .csv file may have under the cell limit `max_cells`."""
    return max(MIN_BYTES, BYTES_PER_CELL * max_cells)
