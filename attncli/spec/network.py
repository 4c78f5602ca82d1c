"""The weights of a feed-forward network, as `block.ffn` and each expert of `block.moe` write
them: W_1 (d_model × d_ff; d_ff × d_model in the column convention) fixes d_ff, and W_2, the up
projection W_3 and the biases are checked against it."""

from __future__ import annotations

from attncli.spec.arrays import Dims, Files, matrix_at, vector_at
from attncli.spec.model import Array
from attncli.spec.source import Node
from attncli.spec.values import check_shape


class Network:
    """Reads the matrices of one network from `keys`, in the spec's convention."""

    def __init__(self, keys: dict[str, Node], d_model: int, row: bool, files: Files) -> None:
        self.keys, self.d_model, self.row, self.files = keys, d_model, row, files
        self.names = (("d_model × d_ff", "d_ff × d_model") if row
                      else ("d_ff × d_model", "d_model × d_ff"))
        first = self.matrix("W_1", None, into=True)
        self.d_ff = int(first.shape[1 if row else 0])
        self.W_1 = self.matrix("W_1", self.d_ff, into=True, given=first)

    def shape(self, rows: int | None, columns: int | None) -> Dims:
        return (rows, columns) if self.row else (columns, rows)

    def matrix(self, key: str, d_ff: int | None, into: bool,
               given: Array | None = None) -> Array:
        """W_1 and W_3 (`into` d_ff) or W_2, its shape checked once d_ff is known."""
        shape = self.shape(self.d_model, d_ff) if into else self.shape(d_ff, self.d_model)
        found = given if given is not None else matrix_at(self.keys[key], key, self.files, shape)
        if d_ff is not None:
            check_shape(self.keys[key], found, shape,  # type: ignore[arg-type]
                        self.names[0 if into else 1])
        return found

    def down(self) -> Array:
        return self.matrix("W_2", self.d_ff, into=False)

    def up(self) -> Array:
        return self.matrix("W_3", self.d_ff, into=True)

    def biases(self, names: tuple[str, ...]) -> dict[str, Array | None]:
        """b_1 and b_3 (d_ff numbers) and b_2 (d_model), those of `names` the keys give."""
        found: dict[str, Array | None] = {}
        for key in names:
            dim, dim_name = (self.d_model, "d_model") if key == "b_2" else (self.d_ff, "d_ff")
            found[key] = None
            if key in self.keys:
                found[key] = vector_at(self.keys[key], self.files, dim,
                                       dim_name)
        return found
