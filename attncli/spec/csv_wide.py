"""A CSV row too long to hold (past CHUNK bytes, see csv_file): its cells are found by counting
its commas a BLOCK at a time, and only the blocks that hold the cells asked for are read."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from attncli.spec.csv_lines import COMMA

BLOCK = 1 << 9  # bytes of a long row whose commas are counted together and placed together
KEPT_BLOCKS = 1 << 11  # blocks of long rows kept as read (1 MiB)
COUNTED = 1 << 18  # bytes of a long row read at once while its commas are counted


class Wide:
    """A row longer than CHUNK: the commas before each BLOCK of it, counted COUNTED bytes at a
    time as far as the commas asked for (8 bytes for each BLOCK bytes: 1/64 of the row), so that
    a cell is found by reading the blocks that hold its commas, and the row is never held.
    The blocks read last are kept (`kept`, by their place in the file: KEPT_BLOCKS of them for
    all the file's rows), for heads whose columns differ but fall in the same blocks."""

    def __init__(self, start: int, end: int, kept: dict[int, bytes]) -> None:
        self.start, self.end, self.kept = start, end, kept
        self.marks = np.zeros(1, dtype=np.int64)  # (blocks counted + 1,) commas before each
        self.blocks: dict[int, bytes] = {}  # the blocks of the latest reading

    def commas(self, wanted: np.ndarray, read: Callable[[int, int], bytes]) -> np.ndarray:
        """Where in the file the commas `wanted` (ascending, counted from 0) of the row are."""
        if not len(wanted):
            return wanted
        while self.marks[-1] <= wanted[-1]:
            at = self.start + (len(self.marks) - 1) * BLOCK
            if at >= self.end:
                break
            piece = np.frombuffer(read(at, min(at + COUNTED, self.end)), dtype=np.uint8)
            comma = np.zeros(-(-len(piece) // BLOCK) * BLOCK, dtype=bool)  # (blocks * BLOCK,)
            np.equal(piece, COMMA, out=comma[:len(piece)])
            counts = np.count_nonzero(comma.reshape(-1, BLOCK), axis=1)  # (blocks,) of each
            self.marks = np.concatenate((self.marks, self.marks[-1] + np.cumsum(counts)))
        block = np.searchsorted(self.marks, wanted, side="right") - 1  # (wanted,)
        needed = block[np.flatnonzero(np.diff(block, prepend=-1))]  # (blocks,) ascending
        self.blocks = {b: self._block(b, read) for b in needed.tolist()}
        raw = np.frombuffer(b"".join(self.blocks[b].ljust(BLOCK, b" ") for b in needed),
                            dtype=np.uint8).reshape(len(needed), BLOCK)  # (blocks, BLOCK)
        flat = np.flatnonzero(raw == COMMA)  # (commas in them,) block by block, in order
        first = np.concatenate(([0], np.cumsum(self.marks[needed + 1] - self.marks[needed])))
        index = first[np.searchsorted(needed, block)] + wanted - self.marks[block]  # (wanted,)
        return self.start + block * BLOCK + flat[index] % BLOCK  # (wanted,)

    def _block(self, block: int, read: Callable[[int, int], bytes]) -> bytes:
        at = self.start + block * BLOCK
        found = self.kept.get(at)
        if found is None:
            found = read(at, min(at + BLOCK, self.end))
            if len(self.kept) >= KEPT_BLOCKS:
                del self.kept[next(iter(self.kept))]
            self.kept[at] = found
        return found

    def cell(self, low: int, high: int, read: Callable[[int, int], bytes]) -> bytes:
        """The bytes from `low` to `high` of the row: from a block read for its commas when
        one holds them, or read again."""
        block = (low - self.start) // BLOCK
        piece = self.blocks.get(block)
        at = self.start + block * BLOCK
        if piece is not None and high <= at + len(piece):
            return piece[low - at:high - at]
        return read(low, high)
